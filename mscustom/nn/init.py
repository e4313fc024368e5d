"""The global random seed and parameter initializers (MindSpore's ``common.initializer``).

``set_seed(seed)`` is MindSpore's global seed: it reseeds the one NumPy
generator that every initializer, ``nn.Dropout`` and the random ops draw
from, and, as MindSpore's calls ``mindspore.dataset.config.set_seed``, the
data pipeline's shuffles, Python's ``random`` and NumPy's legacy global
generator. Two processes that call it with the same seed build, feed and
train a model bit for bit alike; calling it again restarts every sequence.

An initializer is a name (``"normal"``, ``"truncatedNormal"``, ``"uniform"``,
``"zeros"``, ``"ones"``, ``"he_uniform"``, ``"he_normal"``, ``"xavier_uniform"``,
``"xavier_normal"``; case does not matter, as in MindSpore),
an ``Initializer`` object, a number (a constant), or a Tensor/array whose
shape must match. ``initializer(init, shape, dtype)`` turns any of them into a
Tensor.

Example::

    ms.set_seed(0)
    w = initializer("he_uniform", (64, 2))               # Tensor float32 (64, 2)
    b = initializer(Normal(sigma=0.1), (64,), ms.float64)
"""

import math

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor

__all__ = ["set_seed", "get_seed", "initializer", "Initializer", "Normal", "TruncatedNormal", "Uniform",
           "Zero", "One",
           "Constant", "HeUniform", "HeNormal", "XavierUniform", "XavierNormal"]

_STATE = {"seed": None, "rng": None}      # the generator is made on first use: numpy.random loads then


def set_seed(seed):
    """Seed everything random, as MindSpore's global seed does: the generator behind initializers,
    Dropout and the random ops, the dataset pipeline's shuffles (``dataset.config.set_seed``), Python's
    ``random`` and NumPy's global generator. The seed is an int in [0, 2**32).

    Example::

        ms.set_seed(1)
        a = nn.Dense(2, 3).weight.asnumpy().copy()
        ms.set_seed(1)
        assert (nn.Dense(2, 3).weight.asnumpy() == a).all()
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"set_seed: seed must be an int, got {type(seed).__name__} {seed!r}")
    if seed < 0:                        # as MindSpore: TypeError for the type, ValueError for the value
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    if seed >= 1 << 32:                 # MindSpore: ValueError "Seed must be between 0 and 2**32 - 1"
        raise ValueError(f"set_seed: seed must be between 0 and 2**32 - 1, got {seed!r}")
    from ..dataset import config as _dataset_config     # late: the dataset package imports mscustom.tensor
    seed = int(seed)
    _STATE["seed"] = seed
    _STATE["rng"] = np.random.default_rng(seed)
    _dataset_config.set_seed(seed)      # shuffles, Python's random and np.random, as MindSpore's set_seed


def get_seed():
    """The seed last given to ``set_seed`` (None if it was never called)."""
    return _STATE["seed"]


def rng():
    """The NumPy Generator that initializers and Dropout draw from."""
    gen = _STATE["rng"]
    if gen is None:
        gen = _STATE["rng"] = np.random.default_rng()
    return gen


def _fans(shape, who):
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel), as MindSpore computes them."""
    if len(shape) < 2:
        raise ValueError(f"{who}: needs a weight of rank >= 2 to compute fan_in/fan_out, "
                         f"got shape {list(shape)}")
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity, param, who):
    if nonlinearity in ("linear", "sigmoid", "conv1d", "conv2d", "conv3d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"{who}: unknown nonlinearity {nonlinearity!r}; expected one of "
                     "'linear', 'sigmoid', 'tanh', 'relu', 'leaky_relu'")


def dense_defaults(weight_init, bias_init, fan_in):
    """MindSpore's defaults for Dense/Conv when an init is None: HeUniform(sqrt(5)) and U(+-1/sqrt(fan_in))."""
    if weight_init is None:
        weight_init = HeUniform(negative_slope=math.sqrt(5))
    if bias_init is None:
        bias_init = Uniform(1.0 / math.sqrt(fan_in)) if fan_in > 0 else Zero()
    return weight_init, bias_init


class Initializer:
    """Base class: ``sample(shape, rng)`` returns a float64 array of that shape.

    Subclasses define ``sample``; ``init(shape, dtype)`` returns a Tensor.
    """

    def sample(self, shape, rng):
        raise NotImplementedError(f"{type(self).__name__} must define sample(shape, rng)")

    def __call__(self, shape, dtype=_dt.float32):
        return initializer(self, shape, dtype)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class Normal(Initializer):
    """N(mean, sigma^2); MindSpore's default sigma is 0.01."""

    def __init__(self, sigma=0.01, mean=0.0):
        self.sigma, self.mean = float(sigma), float(mean)

    def sample(self, shape, rng):
        return rng.normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    """U(-scale, scale); MindSpore's default scale is 0.07."""

    def __init__(self, scale=0.07):
        self.scale = float(scale)

    def sample(self, shape, rng):
        return rng.uniform(-self.scale, self.scale, shape)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) restricted to ``[a, b]`` (resampled until inside); MindSpore's defaults."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        if not a < b:
            raise ValueError(f"TruncatedNormal: a must be less than b, got a={a!r}, b={b!r}")
        self.sigma, self.mean, self.a, self.b = float(sigma), float(mean), float(a), float(b)

    def sample(self, shape, rng):
        out = rng.normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        for _ in range(100):
            if not bad.any():
                return out
            out[bad] = rng.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        np.clip(out, self.a, self.b, out=out)      # sigma tiny next to [a, b]'s distance from mean
        return out


class Constant(Initializer):
    """Every element equals ``value``."""

    def __init__(self, value):
        self.value = value

    def sample(self, shape, rng):
        return np.full(shape, self.value, np.float64)


class Zero(Constant):
    """All zeros."""

    def __init__(self):
        super().__init__(0.0)


class One(Constant):
    """All ones."""

    def __init__(self):
        super().__init__(1.0)


class HeUniform(Initializer):
    """Kaiming uniform: U(-b, b), b = gain * sqrt(3 / fan), for layers followed by ReLU."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"HeUniform: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _std(self, shape):
        fan_in, fan_out = _fans(shape, type(self).__name__)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return _gain(self.nonlinearity, self.negative_slope, type(self).__name__) / math.sqrt(fan)

    def sample(self, shape, rng):
        bound = math.sqrt(3.0) * self._std(shape)
        return rng.uniform(-bound, bound, shape)


class HeNormal(HeUniform):
    """Kaiming normal: N(0, (gain / sqrt(fan))^2)."""

    def sample(self, shape, rng):
        return rng.normal(0.0, self._std(shape), shape)


class XavierUniform(Initializer):
    """Glorot uniform: U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        self.gain = float(gain)

    def sample(self, shape, rng):
        fan_in, fan_out = _fans(shape, type(self).__name__)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-bound, bound, shape)


class XavierNormal(XavierUniform):
    """Glorot normal: N(0, gain^2 * 2 / (fan_in + fan_out))."""

    def sample(self, shape, rng):
        fan_in, fan_out = _fans(shape, type(self).__name__)
        return rng.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


_NAMED = {"normal": Normal, "truncatednormal": TruncatedNormal, "uniform": Uniform, "zeros": Zero, "zero": Zero, "ones": One,
          "one": One, "he_uniform": HeUniform, "he_normal": HeNormal,
          "xavier_uniform": XavierUniform, "xavier_normal": XavierNormal}


def initializer(init, shape, dtype=_dt.float32):
    """A Tensor of ``shape`` and ``dtype`` filled by ``init`` (a name, Initializer, number or Tensor).

    Example::

        initializer("xavier_uniform", (3, 64))       # float32 (3, 64)
        initializer(0.5, (4,))                       # [0.5, 0.5, 0.5, 0.5]
    """
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    np_dtype = _dt.to_numpy(dtype)
    if isinstance(init, (Tensor, np.ndarray)):
        arr = init._data if isinstance(init, Tensor) else init
        if tuple(arr.shape) != shape:
            raise ValueError(f"initializer: the given tensor has shape {list(arr.shape)}, "
                             f"expected {list(shape)}")
        return Tensor._wrap(np.array(arr, dtype=np_dtype, copy=True, order="C"))
    if isinstance(init, str):
        cls = _NAMED.get(init.lower())
        if cls is None:
            raise ValueError(f"initializer: unknown name {init!r}; expected one of {sorted(_NAMED)}, "
                             "an Initializer, a number or a Tensor")
        init = cls()
    elif isinstance(init, (int, float, np.number)) and not isinstance(init, (bool, np.bool_)):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"initializer: init must be a name, an Initializer, a number or a Tensor, "
                        f"got {type(init).__name__}")
    return Tensor._wrap(np.ascontiguousarray(init.sample(shape, rng()), dtype=np_dtype))
