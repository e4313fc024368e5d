"""``AdaMax``: Adam with the infinity norm (MindSpore's ApplyAdaMax)."""

import numpy as np

from .optimizer import Optimizer, _number

__all__ = ["AdaMax"]


class AdaMax(Optimizer):
    """``m = b1*m + (1-b1)*g``; ``v = max(b2*v, |g|)``; ``w -= lr / (1 - b1**t) * m / (v + eps)``.

    States ``moment1.<name>`` and ``moment2.<name>``, as MindSpore names them.

    Example::

        opt = nn.AdaMax(net.trainable_params(), learning_rate=0.002)
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _number(beta1, "beta1", "AdaMax", low=0, high=1, low_open=True, high_open=True)
        self.beta2 = _number(beta2, "beta2", "AdaMax", low=0, high=1, low_open=True, high_open=True)
        self.eps = _number(eps, "eps", "AdaMax", low=0, low_open=True)
        self._ckpt_powers = (("beta1_power", "beta1"),)
        self.moment1 = self._state("moment1")
        self.moment2 = self._state("moment2")
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        b1, b2 = self.beta1, self.beta2
        m, v, s = self.moment1[i]._data, self.moment2[i]._data, self._scratch[i]
        m *= b1
        m += (1.0 - b1) * grad
        v *= b2
        np.maximum(v, np.abs(grad, out=s), out=v)
        np.add(v, self.eps, out=s)
        np.divide(m, s, out=s)
        s *= lr / (1.0 - b1 ** self.global_step)
        np.subtract(param, s, out=param)
