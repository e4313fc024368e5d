"""Optimizers: ``SGD``, ``Momentum`` and ``Adam`` with MindSpore's update rules.

An optimizer is a Cell: ``opt(grads)`` takes a tuple of gradients aligned
with ``opt.parameters`` and updates the parameters in place. Updates run on
the NumPy arrays directly (in-place ufuncs with ``out=``), off the tape: they
are not differentiated and allocate nothing per step but a few temporaries.

``params`` is a list (or generator) of Parameters, or MindSpore-style groups:
a list of dicts with "params" and optionally "lr" and "weight_decay". Weight
decay (L2, added to the gradient) applies, when the parameters are not
grouped, to those whose names contain neither "beta" nor "gamma", as in
MindSpore; in a group it applies to every parameter of the group.

Example::

    opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    loss, grads = ms.value_and_grad(forward, None, weights=opt.parameters)(x, y)
    opt(grads)
"""

import math

import numpy as np

from ..tensor import Parameter, ParameterTuple, Tensor
from .cell import Cell

__all__ = ["Optimizer", "SGD", "Momentum", "Adam"]


def _number(value, what, who, low=None, high=None, low_open=False, high_open=False):
    """``value`` as a float, checked to lie in the given interval."""
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise ValueError(f"{who}: {what} must be a number, got a Tensor of shape {list(value.shape)}")
        value = value._data.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{who}: {what} must be a number, got {type(value).__name__}")
    value = float(value)
    ok = math.isfinite(value)
    if low is not None:
        ok = ok and (value > low if low_open else value >= low)
    if high is not None:
        ok = ok and (value < high if high_open else value <= high)
    if not ok:
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        interval = f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        raise ValueError(f"{who}: {what} must be in {interval}, got {value!r}")
    return value


class Optimizer(Cell):
    """Base class: parameters, learning rate, weight decay, loss scale and gradient checks.

    Subclasses define ``_update(i, param_array, grad_array, lr)``, which
    changes ``param_array`` in place; ``grad_array`` is a scratch copy of the
    gradient that may be overwritten.
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        who = type(self).__name__
        self.learning_rate = learning_rate
        weight_decay = _number(weight_decay, "weight_decay", who, low=0)
        self.loss_scale = _number(loss_scale, "loss_scale", who, low=0, low_open=True)
        params, lrs, wds = self._parse_params(parameters, weight_decay, who)
        self.parameters = ParameterTuple(params)
        self._group_lr = lrs                    # None: use self.learning_rate
        self._weight_decay = wds
        self.weight_decay = weight_decay
        self.global_step = 0
        self._work = [np.empty_like(p._data) for p in params]    # per-step gradient scratch

    @staticmethod
    def _parse_params(parameters, weight_decay, who):
        if isinstance(parameters, Parameter):
            parameters = [parameters]
        try:
            items = list(parameters)
        except TypeError:
            raise TypeError(f"{who}: params must be a list of Parameters or of group dicts, got "
                            f"{type(parameters).__name__}") from None
        if not items:
            raise ValueError(f"{who}: params is empty; give the Parameters to optimize "
                             "(for example net.trainable_params())")
        params, lrs, wds = [], [], []
        grouped = isinstance(items[0], dict)
        groups = items if grouped else [{"params": items}]
        for g in groups:
            if not isinstance(g, dict) or "params" not in g:
                raise TypeError(f"{who}: params must be all Parameters or all group dicts with a "
                                f"'params' key, got {type(g).__name__} among them")
            unknown = set(g) - {"params", "lr", "weight_decay"}
            if unknown:
                raise ValueError(f"{who}: unknown key(s) {sorted(unknown)} in a parameter group; "
                                 "expected 'params', 'lr', 'weight_decay'")
            lr = _number(g["lr"], "a group's lr", who, low=0) if "lr" in g else None
            wd = _number(g["weight_decay"], "a group's weight_decay", who, low=0) \
                if "weight_decay" in g else weight_decay
            for p in g["params"]:
                if not isinstance(p, Parameter):
                    raise TypeError(f"{who}: every parameter must be a Parameter, got {type(p).__name__}")
                if any(p is q for q in params):
                    raise ValueError(f"{who}: parameter '{p.name}' is given more than once")
                name = p.name or ""
                params.append(p)
                lrs.append(lr)
                decays = grouped or ("beta" not in name and "gamma" not in name)
                wds.append(wd if decays else 0.0)
        return params, lrs, wds

    @property
    def learning_rate(self):
        """The learning rate (a float) of parameters whose group sets none; assignable."""
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self._learning_rate = _number(value, "learning_rate", type(self).__name__, low=0)

    def get_lr(self):
        """The learning rate (a float); set ``opt.learning_rate`` to change it."""
        return self._learning_rate

    def _state(self, prefix):
        """Zero-initialized state like each parameter, named ``prefix.<param name>``."""
        return ParameterTuple(
            Parameter(Tensor._wrap(np.zeros_like(p._data)), name=f"{prefix}.{p.name}", requires_grad=False)
            for p in self.parameters)

    def construct(self, gradients):
        params = self.parameters
        if not isinstance(gradients, (tuple, list)) or len(gradients) != len(params):
            got = f"{len(gradients)} gradient(s)" if isinstance(gradients, (tuple, list)) \
                else f"a {type(gradients).__name__}"
            raise ValueError(f"{type(self).__name__}: expected a tuple of {len(params)} gradient(s) "
                             f"aligned with its parameters, got {got}")
        self.global_step += 1
        base_lr = self._learning_rate
        inv_scale = 1.0 / self.loss_scale
        for i, (p, g) in enumerate(zip(params, gradients)):
            garr = g._data if isinstance(g, Tensor) else np.asarray(g)
            parr = p._data
            if garr.shape != parr.shape:
                raise ValueError(f"{type(self).__name__}: the gradient for parameter '{p.name}' has "
                                 f"shape {list(garr.shape)}, expected {list(parr.shape)}")
            work = self._work[i]
            np.copyto(work, garr)
            if inv_scale != 1.0:
                work *= inv_scale
            wd = self._weight_decay[i]
            if wd:
                work += wd * parr               # L2 weight decay, added to the gradient
            lr = self._group_lr[i]
            self._update(i, parr, work, base_lr if lr is None else lr)
        return True

    def _update(self, i, param, grad, lr):
        raise NotImplementedError(f"{type(self).__name__} must define _update")

    def extend_repr(self):
        return f"learning_rate={self.learning_rate}, parameters={len(self.parameters)}"


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
    this is ``p -= lr * g``. The velocity starts at zero (MindSpore's rule).

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
        self.accum = self._state("accum") if self.momentum > 0 else None

    def _update(self, i, param, grad, lr):
        if self.accum is None:                  # p -= lr * g
            grad *= lr
            np.subtract(param, grad, out=param)
            return
        if self.dampening:
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
        self.moments = self._state("moments")

    def _update(self, i, param, grad, lr):
        _momentum_step(param, grad, self.moments[i]._data, lr, self.momentum, self.use_nesterov)


class Adam(Optimizer):
    """Adam with MindSpore's update (the bias corrections folded into the step size).

    ``m = b1*m + (1-b1)*g``; ``v = b2*v + (1-b2)*g*g``;
    ``lr_t = lr * sqrt(1 - b2**t) / (1 - b1**t)``; ``p -= lr_t * m / (sqrt(v) + eps)``.
    With ``use_nesterov=True`` the numerator is ``b1*m + (1-b1)*g``.

    Example::

        opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _number(beta1, "beta1", "Adam", low=0, high=1, high_open=True)
        self.beta2 = _number(beta2, "beta2", "Adam", low=0, high=1, high_open=True)
        self.eps = _number(eps, "eps", "Adam", low=0, low_open=True)
        self.use_nesterov = bool(use_nesterov)
        self.use_locking = bool(use_locking)
        self.moment1 = self._state("moment1")
        self.moment2 = self._state("moment2")
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        b1, b2, t = self.beta1, self.beta2, self.global_step
        m, v, s = self.moment1[i]._data, self.moment2[i]._data, self._scratch[i]
        np.multiply(grad, grad, out=s)
        s *= 1.0 - b2
        v *= b2
        v += s
        grad *= 1.0 - b1                        # grad now holds (1 - b1) * g
        m *= b1
        m += grad
        if self.use_nesterov:
            np.multiply(m, b1, out=s)
            grad += s                           # b1 * m + (1 - b1) * g
            num = grad
        else:
            num = m
        np.sqrt(v, out=s)
        s += self.eps
        np.divide(num, s, out=s)
        s *= lr * math.sqrt(1.0 - b2 ** t) / (1.0 - b1 ** t)
        np.subtract(param, s, out=param)
