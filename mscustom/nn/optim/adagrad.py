"""``Adagrad``: MindSpore's ApplyAdagrad (accumulated squared gradients, no epsilon)."""

import numpy as np

from .optimizer import Optimizer, _number

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: ``h += g*g`` (when ``update_slots``); ``w -= lr * g / sqrt(h)``.

    ``accum`` is the initial value of ``h`` (MindSpore's default 0.1), which
    keeps the first division finite.

    Example::

        opt = nn.Adagrad(net.trainable_params(), learning_rate=0.1)
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum_init = _number(accum, "accum", "Adagrad", low=0)
        if not isinstance(update_slots, bool):
            raise TypeError(f"Adagrad: update_slots must be a bool, got {type(update_slots).__name__}")
        self.update_slots = update_slots
        self.accum = self._state("accum", fill=self.accum_init)
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        h, s = self.accum[i]._data, self._scratch[i]
        if self.update_slots:
            np.multiply(grad, grad, out=s)
            h += s
        np.sqrt(h, out=s)
        np.divide(grad, s, out=s)
        s *= lr
        np.subtract(param, s, out=param)
