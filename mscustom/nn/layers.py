"""Layers: ``Dense``, activations, ``Flatten`` and ``Dropout``, built from ``mscustom.ops``.

Every layer's ``construct`` calls ops only, so layers are differentiable
through the tape like any user code.

Example::

    layer = nn.Dense(2, 4, weight_init="he_uniform", activation="relu")
    y = layer(ms.Tensor(np.ones((8, 2), np.float32)))     # (8, 4)
"""

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Parameter, Tensor
from . import init as _init
from .cell import Cell

__all__ = ["Dense", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Flatten", "Dropout",
           "get_activation"]


# ================================================================== activations
class ReLU(Cell):
    """``max(x, 0)`` elementwise."""

    def construct(self, x):
        return ops.relu(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))`` elementwise."""

    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    """Hyperbolic tangent elementwise."""

    def construct(self, x):
        return ops.tanh(x)


class Softmax(Cell):
    """Softmax along ``axis`` (default the last)."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)

    def extend_repr(self):
        return f"axis={self.axis}"


class LogSoftmax(Cell):
    """Log-softmax along ``axis`` (default the last)."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)

    def extend_repr(self):
        return f"axis={self.axis}"


_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
                "logsoftmax": LogSoftmax}


def get_activation(name):
    """The activation Cell for a name ("relu", "sigmoid", "tanh", "softmax", "logsoftmax").

    Example::

        nn.get_activation("relu")        # ReLU<>
    """
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        raise ValueError(f"get_activation: unknown activation {name!r}; expected one of "
                         f"{sorted(_ACTIVATIONS)} or a Cell")
    return _ACTIVATIONS[name.lower()]()


# ================================================================== Dense
class Dense(Cell):
    """Fully connected layer ``y = activation(x @ W.T + b)``; W has shape (out_channels, in_channels).

    ``weight_init``/``bias_init``: a name ("normal", "uniform", "zeros", "ones",
    "he_uniform", "xavier_uniform", ...), an Initializer, a number or a Tensor
    of the right shape. None (the default) gives MindSpore 2.x's defaults:
    ``HeUniform(negative_slope=sqrt(5))`` for the weight and a bias uniform in
    ``+-1/sqrt(in_channels)``. ``activation``: None, a name or a Cell. Inputs may have
    any number of leading dimensions; the last must equal ``in_channels``.

    Example::

        fc = nn.Dense(3, 2)
        fc(ms.Tensor(np.ones((5, 3), np.float32))).shape      # (5, 2)
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=_dt.float32):
        super().__init__()
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"Dense: {what} must be a positive int, got {v!r}")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.has_bias = bool(has_bias)
        weight_init, bias_init = _init.dense_defaults(weight_init, bias_init, self.in_channels)
        self.weight = Parameter(self._init("weight_init", weight_init, (self.out_channels, self.in_channels),
                                           dtype), name="weight")
        if self.has_bias:
            self.bias = Parameter(self._init("bias_init", bias_init, (self.out_channels,), dtype), name="bias")
        else:
            self.bias = None
        if activation is None or isinstance(activation, Cell):
            self.activation = activation
        else:
            self.activation = get_activation(activation)

    def _init(self, what, init, shape, dtype):
        try:
            return _init.initializer(init, shape, dtype)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"Dense(in_channels={self.in_channels}, out_channels={self.out_channels}): "
                            f"bad {what}: {exc}") from None

    def construct(self, x):
        shape = x.shape
        if not shape or shape[-1] != self.in_channels:
            self._bad_input(x)
        if self.bias is not None:
            y = ops.dense(x, self.weight, self.bias)      # one op: x @ W.T + b (W.T is a view)
        else:
            y = ops.math.elementwise.matmul_t(x, self.weight, transpose_b=True)    # MindSpore's MatMul(transpose_b=True)
        if self.activation is not None:
            y = self.activation(y)
        return y

    def _bad_input(self, x):
        name = self.weight.name or ""
        label = f"Dense layer '{name[:-len('.weight')]}'" if name.endswith(".weight") else "Dense layer"
        shape = list(getattr(x, "shape", ()))
        if not isinstance(x, Tensor):
            raise TypeError(f"{label}: the input must be a Tensor, got {type(x).__name__}")
        raise ValueError(f"{label} (in_channels={self.in_channels}, out_channels={self.out_channels}): "
                         f"the input's last dimension must be {self.in_channels}, got input shape {shape}")

    def extend_repr(self):
        return f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"


# ================================================================== shape and regularization
class Flatten(Cell):
    """Flatten the dimensions ``start_dim`` to ``end_dim`` into one (by default all but the first)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for what, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Flatten: {what} must be an int, got {v!r}")
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        if x.ndim == 0:
            raise ValueError("Flatten: the input must have at least one dimension, got a 0-d tensor")
        nd = x.ndim
        if not -nd <= self.start_dim < nd or not -nd <= self.end_dim < nd:
            raise ValueError(f"Flatten: start_dim {self.start_dim} and end_dim {self.end_dim} must be axes of "
                             f"an input of shape {list(x.shape)}")
        s, e = self.start_dim % nd, self.end_dim % nd
        if s > e:
            raise ValueError(f"Flatten: start_dim {self.start_dim} comes after end_dim {self.end_dim}")
        shape = x.shape
        return ops.reshape(x, tuple(shape[:s]) + (-1,) + tuple(shape[e + 1:]))


class Dropout(Cell):
    """Zero each element with probability ``p`` (= 1 - keep_prob) in training mode.

    Kept elements are scaled by ``1 / keep_prob`` (inverted dropout), so the
    layer is the identity in inference mode (``set_train(False)``, the default
    for a new Cell, as in MindSpore). The mask comes from the generator that
    ``ms.set_seed`` seeds.

    Example::

        drop = nn.Dropout(p=0.2).set_train()
        y = drop(x)             # about 20% zeros, the rest x / 0.8
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=_dt.float32):
        super().__init__()
        if p is not None:
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p < 1:
                raise ValueError(f"Dropout: p (the probability of dropping) must be in [0, 1), got {p!r}")
            keep_prob = 1.0 - p
        elif not isinstance(keep_prob, (int, float)) or isinstance(keep_prob, bool) or not 0 < keep_prob <= 1:
            raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob!r}")
        self.keep_prob = float(keep_prob)
        self.p = 1.0 - self.keep_prob

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        if not isinstance(x, Tensor) or x._data.dtype.kind != "f":
            got = x.dtype.name if isinstance(x, Tensor) else type(x).__name__
            raise TypeError(f"Dropout: the input must be a float tensor, got {got}")
        return ops.dropout(x, p=self.p)

    def extend_repr(self):
        return f"p={self.p}"
