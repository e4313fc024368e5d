"""``mx.optimizer``: ``SGD`` (momentum, wd), ``Adam``, ``create``, ``get_updater``.

Updates follow MXNet's update operators, on the NumPy data in place:

- SGD: ``g = clip(rescale_grad * grad) + wd * w``; without momentum ``w -= lr * g``;
  with it ``mom = momentum * mom - lr * g; w += mom``.
- Adam: ``g`` as above; ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
  ``w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)``.

As in MXNet, weight decay applies only to parameters named ``*_weight`` /
``*_gamma`` when the optimizer knows the names (``param_idx2name``).

Example::

    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=1e-4)
    update = mx.optimizer.get_updater(opt)
    update(0, grad, weight)
"""

import math

import numpy as np

__all__ = ["Optimizer", "SGD", "Adam", "create", "get_updater", "register"]

_REGISTRY = {}


def register(klass):
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


class Optimizer:
    """Base: learning rate, ``wd``, ``rescale_grad``, ``clip_gradient`` and per-name ``wd`` multipliers."""

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None, learning_rate=0.01,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr = learning_rate
        self.lr_scheduler = lr_scheduler
        self.wd = wd
        self.clip_gradient = clip_gradient
        self.idx2name = dict(param_idx2name or {})
        self.num_update = begin_num_update
        self._index_update_count = {}
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith(("_weight", "_gamma"))}
        self.lr_mult = {}

    @property
    def learning_rate(self):
        return self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr

    def set_learning_rate(self, lr):
        self.lr = lr

    def _update_count(self, index):
        self._index_update_count[index] = self._index_update_count.get(index, 0) + 1
        self.num_update = max(self._index_update_count[index], self.num_update)

    def _get_lr(self, index):
        return self.learning_rate * self.lr_mult.get(self.idx2name.get(index, index), 1.0)

    def _get_wd(self, index):
        return self.wd * self.wd_mult.get(self.idx2name.get(index, index), 1.0)

    def _grad(self, index, weight, grad):
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = np.clip(g, -self.clip_gradient, self.clip_gradient)
        return g + self._get_wd(index) * weight

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        raise NotImplementedError(f"{type(self).__name__}.update")


@register
class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum (learning_rate 0.01, momentum 0)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return np.zeros_like(weight._data) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        w = weight._data
        g = self._grad(index, w, grad._data)
        lr = self._get_lr(index)
        if state is None:
            w -= (lr * g).astype(w.dtype, copy=False)
        else:
            state *= self.momentum
            state -= lr * g
            w += state.astype(w.dtype, copy=False)


@register
class Adam(Optimizer):
    """Adam (learning_rate 0.001, beta1 0.9, beta2 0.999, epsilon 1e-8)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        return np.zeros_like(weight._data), np.zeros_like(weight._data)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        t = self._index_update_count[index]
        lr = self._get_lr(index) * math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        w = weight._data
        g = self._grad(index, w, grad._data)
        m, v = state
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        v *= self.beta2
        v += (1.0 - self.beta2) * g * g
        w -= (lr * m / (np.sqrt(v) + self.epsilon)).astype(w.dtype, copy=False)


def create(name, **kwargs):
    """An optimizer by name ('sgd', 'adam'), or the instance itself."""
    if isinstance(name, Optimizer):
        return name
    key = str(name).lower()
    if key not in _REGISTRY:
        raise ValueError(f"mx.optimizer.create: unknown optimizer {name!r}; available: {sorted(_REGISTRY)}")
    return _REGISTRY[key](**kwargs)


class Updater:
    """Calls ``optimizer.update`` with a state per index (made on first use)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        if index not in self.states:
            self.states[index] = self.optimizer.create_state(index, weight)
        self.optimizer.update(index, weight, grad, self.states[index])


def get_updater(optimizer):
    return Updater(optimizer)
