"""``ProximalAdagrad``: Adagrad with an L1/L2 proximal step (MindSpore's ApplyProximalAdagrad)."""

import numpy as np

from .optimizer import Optimizer, _number

__all__ = ["ProximalAdagrad"]


class ProximalAdagrad(Optimizer):
    """``h += g*g``; ``a = lr / sqrt(h)``; ``v = w - a * g``; ``w = sign(v) * max(|v| - a*l1, 0) / (1 + a*l2)``.

    ``accum`` is the initial ``h`` (state ``accum.<name>``).

    Example::

        opt = nn.ProximalAdagrad(net.trainable_params(), learning_rate=0.1, l1=1e-3)
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum_init = _number(accum, "accum", "ProximalAdagrad", low=0)
        self.l1 = _number(l1, "l1", "ProximalAdagrad", low=0)
        self.l2 = _number(l2, "l2", "ProximalAdagrad", low=0)
        self.use_locking = bool(use_locking)
        self.accum = self._state("accum", fill=self.accum_init)

    def _update(self, i, param, grad, lr):
        h = self.accum[i]._data
        h += grad * grad
        a = lr / np.sqrt(h)                     # the per-element rate scales the proximal terms too
        v = param - a * grad
        if self.l1 > 0:
            v = np.sign(v) * np.maximum(np.abs(v) - a * self.l1, 0)
        param[...] = v / (1.0 + a * self.l2)
