"""``Adadelta``: MindSpore's ApplyAdadelta (per-parameter step sizes from two running averages)."""

import numpy as np

from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: ``accum = rho*accum + (1-rho)*g*g``;
    ``update = g * sqrt(accum_update + eps) / sqrt(accum + eps)``;
    ``accum_update = rho*accum_update + (1-rho)*update*update``; ``w -= lr * update``.

    The state is ``accum.<name>`` and ``accum_update.<name>``, both starting at 0.

    Example::

        opt = nn.Adadelta(net.trainable_params(), learning_rate=1.0, rho=0.9, epsilon=1e-6)
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(rho, bool) or not isinstance(rho, float) or not 0.0 <= rho <= 1.0:
            raise ValueError(f"For 'Adadelta', the 'rho' must be in range of [0.0, 1.0], but got {rho} with type "
                             f"'{type(rho).__name__}'.")
        if isinstance(epsilon, bool) or not isinstance(epsilon, float) or epsilon < 0:
            raise ValueError(f"For 'Adadelta', the 'epsilon' must be float and must >= 0, but got '{epsilon}' with "
                             f"type '{type(epsilon).__name__}'.")
        self.rho, self.epsilon = rho, epsilon
        self.accum = self._state("accum")
        self.accum_update = self._state("accum_update")
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        rho, eps = self.rho, self.epsilon
        accum, accum_update, s = self.accum[i]._data, self.accum_update[i]._data, self._scratch[i]
        np.multiply(grad, grad, out=s)
        s *= 1.0 - rho
        accum *= rho
        accum += s
        np.add(accum_update, eps, out=s)
        np.sqrt(s, out=s)
        grad *= s                                   # g * sqrt(accum_update + eps)
        np.add(accum, eps, out=s)
        np.sqrt(s, out=s)
        grad /= s                                   # the update
        np.multiply(grad, grad, out=s)
        s *= 1.0 - rho
        accum_update *= rho
        accum_update += s
        grad *= lr
        np.subtract(param, grad, out=param)
