"""``mx.init``: ``Uniform``, ``Normal``, ``Xavier``, ``Zero``, ``One``, ``Constant``, ``Initializer``.

As in MXNet, an initializer is called with a name and an array and picks the
rule by the name's suffix: ``*weight`` gets the initializer's distribution,
``*bias`` / ``*beta`` / ``*moving_mean`` zeros, ``*gamma`` / ``*moving_var``
ones; other names are an error naming them. Draws come from ``mx.random``'s
generator (``mx.random.seed`` makes them repeatable).

Example::

    w = mx.nd.zeros((4, 3))
    mx.init.Xavier()("fc1_weight", w)
"""

import numpy as np

from . import random as _random

__all__ = ["Initializer", "InitDesc", "Uniform", "Normal", "Xavier", "Zero", "One", "Constant"]


class InitDesc(str):
    """A parameter name with its attributes (MXNet passes these to initializers)."""

    def __new__(cls, name, attrs=None, global_init=None):
        s = super().__new__(cls, name)
        s.attrs = attrs or {}
        s.global_init = global_init
        return s


class Initializer:
    """Base: dispatches on the parameter name; subclasses give ``_init_weight``."""

    def __call__(self, desc, arr):
        name = str(desc)
        if name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith(("bias", "beta", "moving_mean", "running_mean")):
            arr[:] = 0.0
        elif name.endswith(("gamma", "moving_var", "running_var", "moving_inv_var")):
            arr[:] = 1.0
        else:
            self._init_default(name, arr)

    def _init_weight(self, name, arr):
        raise NotImplementedError(f"{type(self).__name__} must implement _init_weight")

    def _init_default(self, name, arr):
        raise ValueError(f"Unknown initialization pattern for {name}: {type(self).__name__} initializes names "
                         "ending in weight, bias, gamma, beta, moving_mean or moving_var; pass a Mixed "
                         "initializer or set the value yourself")

    def dumps(self):
        return f'["{type(self).__name__.lower()}", {vars(self)}]'

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


def _fill(arr, values):
    arr[:] = values.astype(arr.dtype)


class Uniform(Initializer):
    """Weights from U(-scale, scale) (scale 0.07 by default)."""

    def __init__(self, scale=0.07):
        self.scale = scale

    def _init_weight(self, name, arr):
        _fill(arr, _random.generator().uniform(-self.scale, self.scale, arr.shape))


class Normal(Initializer):
    """Weights from N(0, sigma**2) (sigma 0.01 by default)."""

    def __init__(self, sigma=0.01):
        self.sigma = sigma

    def _init_weight(self, name, arr):
        _fill(arr, _random.generator().normal(0.0, self.sigma, arr.shape))


class Xavier(Initializer):
    """Scale ``sqrt(magnitude / factor)`` with factor from fan_in/fan_out ('avg', 'in' or 'out').

    fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:]);
    ``rnd_type`` 'uniform' draws U(-scale, scale), 'gaussian' N(0, scale**2).
    """

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError(f"Xavier: rnd_type must be 'uniform' or 'gaussian', got {rnd_type!r}")
        if factor_type not in ("avg", "in", "out"):
            raise ValueError(f"Xavier: factor_type must be 'avg', 'in' or 'out', got {factor_type!r}")
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(f"Xavier initializer cannot be applied to vector {name}. It requires at least 2D.")
        hw = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw, shape[0] * hw
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        gen = _random.generator()
        vals = gen.uniform(-scale, scale, shape) if self.rnd_type == "uniform" else gen.normal(0, scale, shape)
        _fill(arr, vals)


class Constant(Initializer):
    def __init__(self, value):
        self.value = value

    def __call__(self, desc, arr):
        arr[:] = self.value

    _init_weight = _init_default = lambda self, name, arr: Constant.__call__(self, name, arr)


class Zero(Constant):
    def __init__(self):
        super().__init__(0.0)


class One(Constant):
    def __init__(self):
        super().__init__(1.0)
