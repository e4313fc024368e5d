"""``SGD`` and ``Momentum``: gradient descent with (Nesterov) momentum, MindSpore's update rules."""

import numpy as np

from .optimizer import Optimizer, _number

__all__ = ["SGD", "Momentum"]


def _momentum_step(param, grad, v, lr, momentum, nesterov):
    """In place: ``v = momentum * v + g``, then ``p -= lr * v`` (or ``lr * (g + momentum * v)``).

    ``grad`` is scratch space afterwards.
    """
    v *= momentum
    v += grad
    if nesterov:
        grad *= lr
        np.subtract(param, grad, out=param)
        np.multiply(v, lr * momentum, out=grad)
    else:
        np.multiply(v, lr, out=grad)
    np.subtract(param, grad, out=param)


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening and Nesterov.

    ``v = momentum * v + (1 - dampening) * g``; ``p -= lr * v``, or with
    ``nesterov=True`` ``p -= lr * (g + momentum * v)``. With ``momentum=0``
    this is ``p -= lr * g``. As in MindSpore, the first step sets ``v = g``
    (no dampening): a ``stat`` state per parameter (ones until then) marks it.

    Example::

        opt = nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _number(momentum, "momentum", "SGD", low=0)
        self.dampening = _number(dampening, "dampening", "SGD", low=0)
        self.nesterov = bool(nesterov)
        if self.nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError(f"SGD: nesterov=True needs momentum > 0 and dampening 0, got momentum "
                             f"{self.momentum} and dampening {self.dampening}")
        self._ckpt_scalars = ("momentum",)
        self.accum = self._state("accum") if self.momentum > 0 else None
        self.stat = self._state("stat", fill=1.0) if self.momentum > 0 else None
        self._plain_descent = self.accum is None

    def _update(self, i, param, grad, lr):
        if self.accum is None:                  # p -= lr * g
            grad *= lr
            np.subtract(param, grad, out=param)
            return
        stat = self.stat[i]._data
        if stat.flat[0]:                        # the first step: v = g, undamped (MindSpore's stat)
            stat.fill(0)
        elif self.dampening:
            grad *= 1.0 - self.dampening         # nesterov needs dampening 0, so g is not reused
        _momentum_step(param, grad, self.accum[i]._data, lr, self.momentum, self.nesterov)


class Momentum(Optimizer):
    """Momentum SGD (MindSpore's ApplyMomentum): ``v = momentum * v + g``; ``p -= lr * v``.

    With ``use_nesterov=True``: ``p -= lr * (g + momentum * v)``.

    Example::

        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _number(momentum, "momentum", "Momentum", low=0)
        self.use_nesterov = bool(use_nesterov)
        self._ckpt_scalars = ("momentum",)
        self.moments = self._state("moments")

    def _update(self, i, param, grad, lr):
        _momentum_step(param, grad, self.moments[i]._data, lr, self.momentum, self.use_nesterov)
