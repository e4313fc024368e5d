"""``RMSProp``: MindSpore's (centered) RMSProp with momentum."""

import numpy as np

from .optimizer import Optimizer, _number

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """RMSProp as MindSpore defines it (the epsilon sits inside the square root).

    ``s = decay*s + (1-decay)*g*g``; ``mom = momentum*mom + lr*g / sqrt(s + eps)``;
    ``w -= mom``. ``s`` starts at ones, ``mom`` (and ``mg``) at zeros, as in MindSpore. With ``centered=True`` a mean gradient
    ``mg = decay*mg + (1-decay)*g`` is kept and the root is ``sqrt(s - mg*mg + eps)``.

    Example::

        opt = nn.RMSProp(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        who = "RMSProp"
        self.decay = _number(decay, "decay", who, low=0)
        self.momentum = _number(momentum, "momentum", who, low=0)
        self.epsilon = _number(epsilon, "epsilon", who, low=0, low_open=True)
        self.use_locking = bool(use_locking)
        self.centered = bool(centered)
        self.ms = self._state("mean_square", fill=1.0)       # MindSpore starts the mean square at ones
        self.moment = self._state("moment")
        self.mg = self._state("mean_grad") if self.centered else None
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        rho = self.decay
        ms, mom, s = self.ms[i]._data, self.moment[i]._data, self._scratch[i]
        np.multiply(grad, grad, out=s)
        s *= 1.0 - rho
        ms *= rho
        ms += s
        if self.centered:
            mg = self.mg[i]._data
            mg *= rho
            mg += (1.0 - rho) * grad
            np.multiply(mg, mg, out=s)
            np.subtract(ms, s, out=s)
        else:
            np.copyto(s, ms)
        s += self.epsilon
        np.sqrt(s, out=s)
        np.divide(grad, s, out=s)
        s *= lr
        mom *= self.momentum
        mom += s
        np.subtract(param, mom, out=param)
