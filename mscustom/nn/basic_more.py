"""More of MindSpore's basic Cells: channel dropouts (Dropout1d/2d/3d, DropoutExt, Dropout2dExt), Tril,
Triu, Unflatten, OneHot, Range, Norm, Moments, ReduceLogSumExp, MatMul, ClipByNorm and Linear.

Example::

    nn.Moments(axis=1)(x)          # (mean, variance) along axis 1
    nn.Linear(4, 2)(x)             # torch-style names for Dense: in_features, out_features, bias
"""

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Tensor
from .cell import Cell
from .layers import Dense

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "DropoutExt", "Dropout2dExt", "Tril", "Triu", "Unflatten",
           "OneHot", "Range", "Norm", "Moments", "ReduceLogSumExp", "MatMul", "ClipByNorm", "Linear"]


def _tensor(x, name, float_only=True):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
    if float_only and x._data.dtype.kind != "f":
        raise TypeError(f"{name}: the input must be a float tensor, got {x.dtype.name}")
    return x


def _prob(p, name):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"{name}: p (the probability of dropping) must be in [0, 1], got {p!r}")
    return float(p)


def _axes(axis, ndim, name):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not -ndim <= a < max(ndim, 1):
            raise ValueError(f"{name}: axis must be ints in [{-ndim}, {ndim}), got {axis!r}")
        out.append(a % ndim if ndim else 0)
    return tuple(out)


# ------------------------------------------------------------------ dropout of whole channels
def _channel_dropout(x, p, channel_dims):
    """Zero whole channels: one keep/drop draw per leading ``channel_dims`` index, kept ones scaled by 1/(1-p)."""
    if p == 1.0:
        return ops.mul(x, 0.0)
    shape = tuple(x.shape[:channel_dims]) + (1,) * (x.ndim - channel_dims)
    keep = ops.cast(ops.greater_equal(ops.uniform(shape, 0.0, 1.0), p), x.dtype)
    return ops.mul(x, ops.mul(keep, 1.0 / (1.0 - p)))


class _ChannelDropout(Cell):
    _ranks = ()
    _name = ""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = _prob(p, self._name)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        x = _tensor(x, self._name)
        if x.ndim not in self._ranks:
            raise ValueError(f"{self._name}: the input must be {' or '.join(map(str, self._ranks))}-D, "
                             f"got shape {list(x.shape)}")
        return _channel_dropout(x, self.p, x.ndim - self._ranks[0] + 1 if len(self._ranks) > 1 else 2)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    """In training, zero each channel of a ``(N, C, L)`` or ``(C, L)`` input with probability ``p``.

    Kept channels are scaled by ``1 / (1 - p)``; in inference mode the identity.
    """
    _ranks = (2, 3)
    _name = "Dropout1d"

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        x = _tensor(x, self._name)
        if x.ndim not in (2, 3):
            raise ValueError(f"Dropout1d: the input must be 2-D or 3-D, got shape {list(x.shape)}")
        return _channel_dropout(x, self.p, x.ndim - 1)


class Dropout2d(_ChannelDropout):
    """In training, zero each channel of an ``(N, C, H, W)`` input with probability ``p``."""
    _ranks = (4,)
    _name = "Dropout2d"


class Dropout3d(_ChannelDropout):
    """In training, zero each channel of an ``(N, C, D, H, W)`` input with probability ``p``."""
    _ranks = (5,)
    _name = "Dropout3d"


class DropoutExt(Cell):
    """In training, zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    ``inplace`` is accepted (the result is a new Tensor either way).
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _prob(p, "DropoutExt")
        self.inplace = bool(inplace)

    def construct(self, input):  # noqa: A002 - MindSpore's name
        if not self.training or self.p == 0:
            return input
        x = _tensor(input, "DropoutExt")
        if self.p == 1.0:
            return ops.mul(x, 0.0)
        return ops.dropout(x, p=self.p)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout2dExt(Cell):
    """In training, zero each channel of a ``(N, C, H, W)`` or ``(C, H, W)`` input with probability ``p``."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _prob(p, "Dropout2dExt")
        self.inplace = bool(inplace)

    def construct(self, input):  # noqa: A002 - MindSpore's name
        if not self.training or self.p == 0:
            return input
        x = _tensor(input, "Dropout2dExt")
        if x.ndim not in (3, 4):
            raise ValueError(f"Dropout2dExt: the input must be 3-D or 4-D, got shape {list(x.shape)}")
        return _channel_dropout(x, self.p, x.ndim - 2)

    def extend_repr(self):
        return f"p={self.p}"


# ------------------------------------------------------------------ shapes and triangles
class Tril(Cell):
    """The lower triangle of the last two axes, from diagonal ``k`` down (``construct(x, k=0)``)."""

    def construct(self, x, k=0):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"Tril: k must be an int, got {type(k).__name__}")
        return ops.tril(_tensor(x, "Tril", False), int(k))


class Triu(Cell):
    """The upper triangle of the last two axes, from diagonal ``k`` up (``construct(x, k=0)``)."""

    def construct(self, x, k=0):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"Triu: k must be an int, got {type(k).__name__}")
        return ops.triu(_tensor(x, "Triu", False), int(k))


class Unflatten(Cell):
    """Split axis ``axis`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Unflatten: axis must be an int, got {axis!r}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size):
            raise TypeError(f"Unflatten: unflattened_size must be a tuple of ints, got {unflattened_size!r}")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, input_x):
        x = _tensor(input_x, "Unflatten", False)
        a = _axes(self.axis, x.ndim, "Unflatten")[0]
        return ops.reshape(x, tuple(x.shape[:a]) + self.unflattened_size + tuple(x.shape[a + 1:]))


class OneHot(Cell):
    """One-hot encoding of integer ``indices``: a new axis of size ``depth`` at ``axis``, in ``dtype``."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=_dt.float32):
        super().__init__()
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"OneHot: depth must be a non-negative int, got {depth!r}")
        self.axis, self.depth = axis, depth
        self.on_value, self.off_value = float(on_value), float(off_value)
        self.dtype = _dt.dtype_from_any(dtype)

    def construct(self, indices):
        idx = _tensor(indices, "OneHot", False)
        if idx._data.dtype.kind not in "iu":
            raise TypeError(f"OneHot: indices must be an int tensor, got {idx.dtype.name}")
        on = Tensor(np.asarray(self.on_value, self.dtype.np_dtype))
        off = Tensor(np.asarray(self.off_value, self.dtype.np_dtype))
        return ops.one_hot(idx, self.depth, on, off, self.axis)


class Range(Cell):
    """The sequence ``start, start + delta, ...`` below ``limit`` (``Range(n)``: 0 .. n-1).

    int32 when every argument is an int, else float32; ``construct()`` takes no input.
    """

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta must not be 0")
        data = np.arange(start, limit, delta)
        self._value = data.astype(np.float32 if data.dtype.kind == "f" else np.int32)

    def construct(self):
        return Tensor(self._value.copy())


class Norm(Cell):
    """The Euclidean norm ``sqrt(sum(x ** 2))`` over ``axis`` (``()``: all axes)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"Norm: axis must be an int or a tuple of ints, got {axis!r}")
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x):
        x = _tensor(x, "Norm")
        axes = _axes(self.axis, x.ndim, "Norm")
        return ops.sqrt(ops.reduce_sum(ops.square(x), axes, self.keep_dims))


class Moments(Cell):
    """``(mean, variance)`` over ``axis`` (None: all axes); the variance divides by the count (biased)."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x):
        x = _tensor(x, "Moments")
        axes = _axes(self.axis, x.ndim, "Moments")
        mean = ops.reduce_mean(x, axes, True)
        var = ops.reduce_mean(ops.square(ops.sub(x, mean)), axes, self.keep_dims)
        if not self.keep_dims:
            mean = ops.reduce_mean(x, axes, False)
        return mean, var


class ReduceLogSumExp(Cell):
    """``log(sum(exp(x)))`` over ``axis`` (an int or a tuple; ``()`` all axes), without overflow."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"ReduceLogSumExp: axis must be an int or a tuple of ints, got {axis!r}")
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x):
        x = _tensor(x, "ReduceLogSumExp")
        axes = _axes(self.axis, x.ndim, "ReduceLogSumExp")
        m = ops.stop_gradient(ops.reduce_max(x, axes, True))
        s = ops.log(ops.reduce_sum(ops.exp(ops.sub(x, m)), axes, True))
        out = ops.add(s, m)
        if not self.keep_dims:
            out = ops.reshape(out, tuple(d for i, d in enumerate(x.shape) if i not in axes))
        return out


class MatMul(Cell):
    """Matrix product with broadcasting batch axes; 1-D operands are vectors (as NumPy's ``matmul``).

    ``transpose_x1`` / ``transpose_x2`` swap the last two axes of an operand first.
    """

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        self.transpose_x1, self.transpose_x2 = bool(transpose_x1), bool(transpose_x2)

    def construct(self, x1, x2):
        a, b = _tensor(x1, "MatMul", False), _tensor(x2, "MatMul", False)
        if self.transpose_x1 and a.ndim >= 2:
            a = ops.swapaxes(a, -1, -2)
        if self.transpose_x2 and b.ndim >= 2:
            b = ops.swapaxes(b, -1, -2)
        if a.ndim == 1 and b.ndim == 1:
            return ops.reduce_sum(ops.mul(a, b))
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise ValueError(f"MatMul: the inner dimensions must agree, got shapes {list(a.shape)} and "
                             f"{list(b.shape)} (after transposes)")
        return ops.matmul(a, b)


class ClipByNorm(Cell):
    """``x * clip_norm / max(||x||_2, clip_norm)``: rescale ``x`` so that its L2 norm over ``axis`` is at most
    ``clip_norm`` (``construct(x, clip_norm)``; ``axis`` None: the whole tensor)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = axis

    def construct(self, x, clip_norm):
        x = _tensor(x, "ClipByNorm")
        if not isinstance(clip_norm, Tensor):
            clip_norm = Tensor(np.asarray(clip_norm, x._data.dtype))
        clip_norm = ops.cast(clip_norm, x.dtype)
        axes = _axes(self.axis, x.ndim, "ClipByNorm")
        l2 = ops.sqrt(ops.reduce_sum(ops.square(x), axes, True))
        return ops.div(ops.mul(x, clip_norm), ops.maximum(l2, clip_norm))


class Linear(Dense):
    """``y = x @ weight.T + bias`` with PyTorch-style argument names (MindSpore's ``nn.Linear``).

    Parameters are ``weight`` (out_features, in_features) and ``bias``; the default
    initialization is Dense's (``HeUniform(sqrt(5))``, bias uniform in ``+-1/sqrt(in_features)``).
    """

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__(in_features, out_features, weight_init=weight_init, bias_init=bias_init,
                         has_bias=bias, dtype=_dt.float32 if dtype is None else dtype)
        self.in_features, self.out_features = self.in_channels, self.out_channels

    def extend_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.has_bias}"
