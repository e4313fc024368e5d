"""``ASGD``: averaged stochastic gradient descent (MindSpore's formulas)."""

import numpy as np

from ...tensor import Parameter, Tensor
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD: ``w = w * (1 - lambd * eta) - eta * g``; ``ax += (w - ax) * mu`` (``ax = w`` when mu is 1).

    After step ``t``: ``eta = lr / (1 + lambd * lr * t) ** alpha`` and
    ``mu = 1 / max(1, t - t0)``; the first step uses ``eta = lr``. States per
    parameter ``eta_<name>``, ``mu_<name>`` (scalars) and ``ax_.<name>`` (the average).

    Example::

        opt = nn.ASGD(net.trainable_params(), learning_rate=0.1)
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        for what, v in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"ASGD: {what} must be a float, got {v!r}")
        self.lambd, self.alpha, self.t0 = float(lambd), float(alpha), float(t0)
        self.eta = [Parameter(Tensor(np.zeros((), np.float32)), name=f"eta_{p.name}", requires_grad=False)
                    for p in self.parameters]
        self.mu = [Parameter(Tensor(np.ones((), np.float32)), name=f"mu_{p.name}", requires_grad=False)
                   for p in self.parameters]
        self.ax = self._state("ax_")

    def _update(self, i, param, grad, lr):
        t = self.global_step
        eta, mu, ax = self.eta[i]._data, self.mu[i]._data, self.ax[i]._data
        if t == 1:
            eta[...] = lr
        e = float(eta)
        new = param.astype(np.float32) * np.float32(1.0 - self.lambd * e) - np.float32(e) * grad
        param[...] = new
        if float(mu) != 1.0:
            ax += (new - ax) * float(mu)
        else:
            ax[...] = param
        eta[...] = lr / (1.0 + self.lambd * lr * t) ** self.alpha
        mu[...] = 1.0 / max(1.0, t - self.t0)
