"""``Rprop``: resilient backpropagation (sign-based steps with per-element step sizes)."""

import numpy as np

from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Per element: where ``g * prev > 0`` the step size grows by ``etas[1]``, where ``< 0`` it shrinks by
    ``etas[0]`` (and that step is skipped, ``prev = 0``), else it stays; it is clipped to ``step_sizes``,
    then ``w -= sign(g) * step``. Step sizes start at the learning rate. States ``prev.<name>``,
    ``step_size.<name>``.

    Example::

        opt = nn.Rprop(net.trainable_params(), learning_rate=0.01, etas=(0.5, 1.2))
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        for what, v in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(v, tuple) or len(v) != 2:
                raise TypeError(f"Rprop: {what} must be a tuple of 2 floats, got {v!r}")
        if not 0 < etas[0] < 1 < etas[1]:
            raise ValueError(f"Rprop: etas must satisfy 0 < etaminus < 1 < etaplus, got {etas}")
        self.etaminus, self.etaplus = float(etas[0]), float(etas[1])
        self.step_size_min, self.step_size_max = float(step_sizes[0]), float(step_sizes[1])
        self.prev = self._state("prev")
        self.step_size = self._state("step_size")

    def _update(self, i, param, grad, lr):
        prev, size = self.prev[i]._data, self.step_size[i]._data
        if self.global_step == 1:
            size[...] = lr
        sign = np.sign(grad * prev)
        factor = np.where(sign > 0, self.etaplus, np.where(sign < 0, self.etaminus, 1.0)).astype(size.dtype)
        np.clip(size * factor, self.step_size_min, self.step_size_max, out=size)
        g = np.where(sign < 0, 0, grad).astype(grad.dtype)
        param -= np.sign(g) * size
        prev[...] = g
