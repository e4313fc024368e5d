"""More of MindSpore's activation Cells: CELU, GLU, HShrink, SoftShrink, LogSigmoid, Softmin,
Softmax2d, Threshold, RReLU, SeLU, FastGelu and PReLUExt.

Each is a composition of differentiable ops; where MindSpore's gradient at a kink is a particular
one-sided value, the ``where`` branch is chosen to give the same (SeLU's slope at 0 is ``scale``,
PReLUExt's is ``weight``, the shrinks' is 0 at +-lambd).

Example::

    nn.SoftShrink(0.5)(ms.Tensor([-1.0, 0.2, 2.0]))      # [-0.5, 0.0, 1.5]
"""

import numpy as np

from .. import ops
from ..tensor import Parameter, Tensor
from . import layers as _layers
from .cell import Cell

__all__ = ["CELU", "GLU", "HShrink", "SoftShrink", "LogSigmoid", "Softmin", "Softmax2d", "Threshold",
           "RReLU", "SeLU", "FastGelu", "PReLUExt"]


def _float_input(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"{name}: the input must be a float tensor, got {x.dtype.name}")
    return x


def _number(v, what, name):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: {what} must be a float, got {v!r}")
    return float(v)


class CELU(Cell):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; ``alpha`` must not be 0."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _number(alpha, "alpha", "CELU")
        if self.alpha == 0:
            raise ValueError("CELU: alpha must not be 0")

    def construct(self, x):
        x = _float_input(x, "CELU")
        neg = ops.mul(ops.expm1(ops.div(x, self.alpha)), self.alpha)
        return ops.where(ops.greater(x, 0), x, neg)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class GLU(Cell):
    """Gated linear unit: split ``x`` in two halves ``a, b`` along ``axis``; ``a * sigmoid(b)``."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"GLU: axis must be an int, got {axis!r}")
        self.dim = axis

    def construct(self, x):
        x = _float_input(x, "GLU")
        axis = self.dim + x.ndim if self.dim < 0 else self.dim
        if not 0 <= axis < x.ndim:
            raise ValueError(f"GLU: axis must be in [{-x.ndim}, {x.ndim}), got {self.dim}")
        if x.shape[axis] % 2:
            raise ValueError(f"GLU: the size of axis {self.dim} must be even, got shape {list(x.shape)}")
        a, b = ops.split(x, x.shape[axis] // 2, axis)
        return ops.mul(a, ops.sigmoid(b))


class HShrink(Cell):
    """Hard shrink: ``x`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _number(lambd, "lambd", "HShrink")

    def construct(self, x):
        x = _float_input(x, "HShrink")
        return ops.where(ops.greater(ops.abs(x), self.lambd), x, ops.zeros_like(x))

    def extend_repr(self):
        return f"lambd={self.lambd}"


class SoftShrink(Cell):
    """Soft shrink: ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0 (``lambd >= 0``)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _number(lambd, "lambd", "SoftShrink")
        if self.lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be >= 0, got {lambd}")

    def construct(self, x):
        x = _float_input(x, "SoftShrink")
        lam = self.lambd
        return ops.where(ops.greater(x, lam), ops.sub(x, lam),
                         ops.where(ops.less(x, -lam), ops.add(x, lam), ops.zeros_like(x)))

    def extend_repr(self):
        return f"lambd={self.lambd}"


class LogSigmoid(Cell):
    """``log(sigmoid(x)) = -softplus(-x)``, without overflow for large ``|x|``."""

    def construct(self, x):
        x = _float_input(x, "LogSigmoid")
        # x - log(1 + exp(x)) below 0, -log(1 + exp(-x)) from 0 on: exp never overflows
        neg = ops.sub(x, ops.log1p(ops.exp(ops.where(ops.less(x, 0), x, ops.zeros_like(x)))))
        pos = ops.neg(ops.log1p(ops.exp(ops.neg(ops.where(ops.less(x, 0), ops.zeros_like(x), x)))))
        return ops.where(ops.less(x, 0), neg, pos)


class Softmin(Cell):
    """``softmax(-x)`` along ``axis`` (an int or a tuple of ints)."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"Softmin: axis must be an int or a tuple of ints, got {axis!r}")
        self.axis = axis

    def construct(self, x):
        x = _float_input(x, "Softmin")
        return ops.softmax(ops.neg(x), self.axis)


class Softmax2d(Cell):
    """Softmax over the channel axis (-3) of a ``(C, H, W)`` or ``(N, C, H, W)`` input."""

    def construct(self, x):
        x = _float_input(x, "Softmax2d")
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: the input must be 3-D or 4-D, got shape {list(x.shape)}")
        return ops.softmax(x, -3)


class Threshold(Cell):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = _number(threshold, "threshold", "Threshold")
        self.value = _number(value, "value", "Threshold")

    def construct(self, x):
        x = _float_input(x, "Threshold")
        return ops.where(ops.greater(x, self.threshold), x, ops.add(ops.zeros_like(x), self.value))

    def extend_repr(self):
        return f"threshold={self.threshold}, value={self.value}"


class RReLU(Cell):
    """Randomized leaky ReLU: ``x`` where ``x >= 0``, else ``alpha * x`` with ``alpha ~ U(lower, upper)``.

    As in MindSpore, a fresh ``alpha`` is drawn per element on every call, in
    training and inference mode alike (MindSpore's formula has no inference form).
    """

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        self.lower = _number(lower, "lower", "RReLU")
        self.upper = _number(upper, "upper", "RReLU")
        if self.lower > self.upper:
            raise ValueError(f"RReLU: lower must be <= upper, got {lower} and {upper}")

    def construct(self, x):
        x = _float_input(x, "RReLU")
        if self.lower == self.upper:
            alpha = self.lower
        else:
            alpha = ops.cast(ops.uniform(x.shape, self.lower, self.upper), x.dtype)
        return ops.where(ops.greater_equal(x, 0), x, ops.mul(x, alpha))

    def extend_repr(self):
        return f"lower={self.lower}, upper={self.upper}"


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class SeLU(Cell):
    """``scale * (x if x >= 0 else alpha * (exp(x) - 1))`` with the self-normalizing constants."""

    def construct(self, x):
        x = _float_input(x, "SeLU")
        neg = ops.mul(ops.expm1(x), _SELU_ALPHA * _SELU_SCALE)
        return ops.where(ops.greater_equal(x, 0), ops.mul(x, _SELU_SCALE), neg)


class FastGelu(Cell):
    """``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``: a sigmoid approximation of GELU."""

    def construct(self, x):
        x = _float_input(x, "FastGelu")
        a = ops.abs(x)
        den = ops.add(ops.exp(ops.mul(a, -1.702)), 1.0)
        return ops.mul(ops.div(x, den), ops.exp(ops.mul(ops.sub(x, a), 0.851)))


class PReLUExt(Cell):
    """``x`` where positive, else ``weight * x``; ``weight`` has ``num_parameters`` values (1 or channels, axis 1).

    The Parameter is ``weight``, as MindSpore names it.
    """

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or num_parameters < 1:
            raise ValueError(f"PReLUExt: num_parameters must be a positive int, got {num_parameters!r}")
        init = _number(init, "init", "PReLUExt")
        from .. import dtype as _dt
        np_dtype = np.float32 if dtype is None else _dt.dtype_from_any(dtype).np_dtype
        self.num_parameters = num_parameters
        self.weight = Parameter(Tensor(np.full((num_parameters,), init, np_dtype)), name="weight")

    def construct(self, x):
        x = _float_input(x, "PReLUExt")
        w = ops.cast(self.weight, x.dtype)
        if x.ndim >= 2:
            if self.num_parameters > 1 and x.shape[1] != self.num_parameters:
                raise ValueError(f"PReLUExt: the input's axis 1 must have {self.num_parameters} channels, "
                                 f"got shape {list(x.shape)}")
            w = ops.reshape(w, (-1,) + (1,) * (x.ndim - 2))
        elif self.num_parameters > 1 and (x.ndim == 0 or x.shape[0] != self.num_parameters):
            raise ValueError(f"PReLUExt: expected {self.num_parameters} values, got shape {list(x.shape)}")
        return ops.where(ops.greater(x, 0), x, ops.mul(x, w))

    def extend_repr(self):
        return f"num_parameters={self.num_parameters}"


_layers._ACTIVATIONS.update({"hshrink": HShrink, "softshrink": SoftShrink, "logsigmoid": LogSigmoid,
                             "softmin": Softmin, "softmax2d": Softmax2d, "rrelu": RReLU, "fast_gelu": FastGelu,
                             "preluext": PReLUExt})
