"""Elementwise arithmetic and mathematical functions.

Each is an op of ``mscustom.ops`` (``tanh`` is ``ops.tanh``) or a composition of them, so
gradients flow through and graph mode records them. mindspore.numpy's dtype rules: a float
wins over integers without widening, ``divide`` of integers gives float32, and functions
defined on floats (``exp``, ``sin``, ``sqrt`` ...) compute integer inputs in float32.
"""

import math

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ..tensor import Tensor
from . import _ufuncs as U
from ._utils import is_scalar, operands, to_dtype, to_float, to_tensor

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "power", "float_power", "maximum",
           "minimum", "floor_divide", "mod", "remainder", "fmod", "divmod", "arctan2", "hypot", "logaddexp",
           "logaddexp2", "copysign", "heaviside", "gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor",
           "invert", "bitwise_not", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt",
           "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
           "arcsinh", "arccosh", "arctanh", "deg2rad", "radians", "rad2deg", "abs", "absolute", "fabs",
           "negative", "positive", "sign", "signbit", "ceil", "floor", "trunc", "fix", "rint", "clip"]


def _cast(out, dtype):
    """``out`` cast to ``dtype`` when one is given (mindspore.numpy's ``dtype`` argument)."""
    return out if dtype is None else F.cast(out, to_dtype(dtype))


def _float_input(x, name):
    """A float function's input: integers and bools compute in float32."""
    return to_float(x, name)


def _unary_float(name, fn):
    def f(x, dtype=None):
        return _cast(fn(_float_input(x, name)), dtype)
    f.__name__ = name
    f.__doc__ = f"Elementwise {name}; integer inputs compute in float32."
    return f


exp = _unary_float("exp", F.exp)
def exp2(x, dtype=None):
    """``2 ** x``; integer inputs keep their dtype (mindspore.numpy's rule), floats give floats."""
    t = to_tensor(x, name="exp2")
    if _dt.is_floating(t.dtype):
        return _cast(U.exp2(t), dtype)
    return _cast(F.cast(U.exp2(F.cast(t, _dt.float32)), t.dtype), dtype)
expm1 = _unary_float("expm1", _ops.expm1)
log = _unary_float("log", F.log)
log2 = _unary_float("log2", _ops.log2)
log10 = _unary_float("log10", U.log10)
log1p = _unary_float("log1p", _ops.log1p)
sqrt = _unary_float("sqrt", F.sqrt)
cbrt = _unary_float("cbrt", U.cbrt)
sin = _unary_float("sin", _ops.sin)
cos = _unary_float("cos", _ops.cos)
tan = _unary_float("tan", _ops.tan)
arcsin = _unary_float("arcsin", U.arcsin)
_arccos = _unary_float("arccos", U.arccos)


def arccos(input, dtype=None):  # noqa: A002 - mindspore.numpy's name
    """Elementwise arccos; integer inputs compute in float32."""
    return _arccos(input, dtype)
arctan = _unary_float("arctan", U.arctan)
sinh = _unary_float("sinh", U.sinh)
cosh = _unary_float("cosh", U.cosh)
tanh = _unary_float("tanh", F.tanh)
arcsinh = _unary_float("arcsinh", U.arcsinh)
arccosh = _unary_float("arccosh", U.arccosh)
arctanh = _unary_float("arctanh", U.arctanh)
ceil = _unary_float("ceil", _ops.ceil)
floor = _unary_float("floor", _ops.floor)
trunc = _unary_float("trunc", _ops.trunc)
fix = _unary_float("fix", _ops.trunc)
rint = _unary_float("rint", U.rint)
sign = _unary_float("sign", F.sign)        # mindspore.numpy: the sign of integers is float32 too


def deg2rad(x, dtype=None):
    """Degrees to radians (integer inputs compute in float32)."""
    return _cast(F.mul(_float_input(x, "deg2rad"), math.pi / 180.0), dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    """Radians to degrees (integer inputs compute in float32)."""
    return _cast(F.mul(_float_input(x, "rad2deg"), 180.0 / math.pi), dtype)


def absolute(x, dtype=None):
    """Elementwise ``|x|`` (the input's dtype)."""
    return _cast(F.abs(to_tensor(x, name="absolute")), dtype)


abs = absolute  # noqa: A001 - NumPy's name
fabs = absolute


def square(x, dtype=None):
    """Elementwise ``x * x``."""
    return _cast(F.square(to_tensor(x, name="square")), dtype)


def negative(a, dtype=None):
    """Elementwise ``-a``."""
    return _cast(F.neg(to_tensor(a, name="negative")), dtype)


def positive(a, dtype=None):
    """``a`` itself, as a Tensor."""
    return _cast(to_tensor(a, name="positive"), dtype)


def reciprocal(x, dtype=None):
    """``1 / x``; integer inputs keep their dtype (the quotient truncated), as in mindspore.numpy."""
    x = to_tensor(x, name="reciprocal")
    out = _ops.reciprocal(x)
    return _cast(out if out.dtype == x.dtype else F.cast(out, x.dtype), dtype)


def signbit(x, dtype=None):
    """True where ``x`` is less than zero (mindspore.numpy's definition: ``-0.0`` gives False)."""
    return _cast(F.less(to_tensor(x, name="signbit"), 0), dtype)


# ------------------------------------------------------------------ binary
def _no_bool(v):
    """A bool tensor in arithmetic counts as int32 (``subtract(bools, 1)``)."""
    return F.cast(v, _dt.int32) if isinstance(v, Tensor) and v.dtype == _dt.bool_ else v


def _binary(name, fn, doc, arithmetic=True):
    def f(x1, x2, dtype=None):
        a, b = operands(x1, x2, name)
        if arithmetic:
            a, b = _no_bool(a), _no_bool(b)
        return _cast(fn(a, b), dtype)
    f.__name__ = name
    f.__doc__ = doc
    return f


add = _binary("add", F.add, "``x1 + x2`` with broadcasting.")
subtract = _binary("subtract", F.sub, "``x1 - x2`` with broadcasting.")
multiply = _binary("multiply", F.mul, "``x1 * x2`` with broadcasting.")
power = _binary("power", F.pow, "``x1 ** x2`` with broadcasting.")
maximum = _binary("maximum", F.maximum, "The elementwise maximum (NaN propagates).")
minimum = _binary("minimum", F.minimum, "The elementwise minimum (NaN propagates).")
floor_divide = _binary("floor_divide", _ops.floor_divide, "``floor(x1 / x2)``.")
remainder = _binary("remainder", _ops.remainder, "``x1 - floor(x1 / x2) * x2``: the sign of ``x2``.")
mod = remainder
fmod = _binary("fmod", _ops.fmod, "The C remainder: the sign of ``x1``.")
bitwise_and = _binary("bitwise_and", _ops.bitwise_and, "Bitwise AND of integers or bools.", arithmetic=False)
bitwise_or = _binary("bitwise_or", _ops.bitwise_or, "Bitwise OR of integers or bools.", arithmetic=False)
bitwise_xor = _binary("bitwise_xor", _ops.bitwise_xor, "Bitwise XOR of integers or bools.", arithmetic=False)


def _float_pair(x1, x2, name):
    a, b = operands(x1, x2, name)
    a, b = (to_tensor(v) if not isinstance(v, Tensor) else v for v in (a, b))
    if not _dt.is_floating(a.dtype) and not _dt.is_floating(b.dtype):
        a = F.cast(a, _dt.float32)
    return a, b


def divide(x1, x2, dtype=None):
    """True division ``x1 / x2``; integers divide in float32."""
    a, b = operands(x1, x2, "divide")
    if isinstance(a, Tensor) and not _dt.is_floating(a.dtype) and not (
            isinstance(b, Tensor) and _dt.is_floating(b.dtype)) and not isinstance(b, float):
        a = F.cast(a, _dt.float32)
    return _cast(F.div(a, b), dtype)


true_divide = divide


def float_power(x1, x2, dtype=None):
    """``x1 ** x2`` computed in float64 (NumPy's ``float_power``)."""
    a, b = (to_tensor(v, name="float_power") for v in (x1, x2))
    return _cast(F.pow(F.cast(a, _dt.float64), F.cast(b, _dt.float64)), dtype)


def divmod(x1, x2, dtype=None):  # noqa: A001 - NumPy's name
    """``(floor_divide(x1, x2), mod(x1, x2))``."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def arctan2(x1, x2, dtype=None):
    """The angle of the point ``(x2, x1)`` in its quadrant; integers compute in float32."""
    a, b = _float_pair(x1, x2, "arctan2")
    return _cast(_ops.atan2(a, F.cast(b, a.dtype) if not _dt.is_floating(b.dtype) else b), dtype)


def hypot(x1, x2, dtype=None):
    """``sqrt(x1**2 + x2**2)``; integers compute in float32."""
    a, b = _float_pair(x1, x2, "hypot")
    return _cast(F.sqrt(F.add(F.square(a), F.square(b))), dtype)


def logaddexp(x1, x2, dtype=None):
    """``log(exp(x1) + exp(x2))`` without overflow; integers compute in float32."""
    a, b = _float_pair(x1, x2, "logaddexp")
    m = F.maximum(a, b)
    return _cast(F.add(m, _ops.log1p(F.exp(F.neg(F.abs(F.sub(a, b)))))), dtype)


def logaddexp2(x1, x2, dtype=None):
    """``log2(2**x1 + 2**x2)`` without overflow; integers compute in float32."""
    a, b = _float_pair(x1, x2, "logaddexp2")
    m = F.maximum(a, b)
    return _cast(F.add(m, F.div(_ops.log1p(U.exp2(F.neg(F.abs(F.sub(a, b))))), math.log(2.0))), dtype)


def copysign(x1, x2, dtype=None):
    """``|x1|``, negated where ``x2 < 0`` (``x1``'s dtype when it is an integer tensor)."""
    a, b = operands(x1, x2, "copysign")
    a = to_tensor(a, name="copysign")
    b = to_tensor(b, name="copysign") if not is_scalar(b) else b
    neg = (b < 0) if is_scalar(b) else signbit(b)
    mag = F.abs(a)
    if is_scalar(neg):
        return _cast(F.neg(mag) if neg else mag, dtype)
    out = F.where(neg, F.neg(mag), mag)
    if not _dt.is_floating(a.dtype) and _dt.is_floating(b.dtype):
        out = F.cast(out, a.dtype)
    return _cast(out, dtype)


def heaviside(x1, x2, dtype=None):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``."""
    a, b = operands(x1, x2, "heaviside")
    a = to_tensor(a, name="heaviside")
    b = to_tensor(b, a.dtype) if is_scalar(b) else b
    out_dtype = _dt.from_numpy(np.result_type(a.dtype.np_dtype, b.dtype.np_dtype)) \
        if _dt.is_floating(a.dtype) == _dt.is_floating(b.dtype) else (a.dtype if _dt.is_floating(a.dtype) else b.dtype)
    zero = F.zeros_like(F.cast(a, out_dtype))
    one = F.add(zero, 1)
    return _cast(F.where(F.less(a, 0), zero, F.where(F.greater(a, 0), one, F.cast(b, out_dtype))), dtype)


def _int_pair(x1, x2, name):
    a, b = (to_tensor(v, name=name) for v in operands(x1, x2, name))
    for t in (a, b):
        if t.dtype.np_dtype.kind not in "iu":
            raise TypeError(f"op '{name}': inputs must be integer tensors, got {t.dtype}")
    return a, b


def gcd(x1, x2, dtype=None):
    """The greatest common divisor of integers, elementwise."""
    return _cast(U.gcd(*_int_pair(x1, x2, "gcd")), dtype)


def lcm(x1, x2, dtype=None):
    """The least common multiple of integers, elementwise."""
    return _cast(U.lcm(*_int_pair(x1, x2, "lcm")), dtype)


def invert(x, dtype=None):
    """Bitwise NOT of integers (``~x``); logical NOT of bools."""
    x = to_tensor(x, name="invert")
    kind = x.dtype.np_dtype.kind
    if kind == "b":
        return _cast(_ops.logical_not(x), dtype)
    if kind not in "iu":
        raise TypeError(f"op 'invert': input must be an integer or bool tensor, got {x.dtype}")
    return _cast(_ops.bitwise_xor(x, -1 if kind == "i" else int(np.iinfo(x.dtype.np_dtype).max)), dtype)


bitwise_not = invert


def clip(x, xmin, xmax, dtype=None):
    """``x`` limited to ``[xmin, xmax]`` (either bound may be None, not both)."""
    a_min, a_max = xmin, xmax
    x = to_tensor(x, name="clip")
    if a_min is None and a_max is None:
        raise ValueError("op 'clip': a_min and a_max must not both be None")
    if a_min is not None and not is_scalar(a_min):
        a_min = to_tensor(a_min, name="clip")
    if a_max is not None and not is_scalar(a_max):
        a_max = to_tensor(a_max, name="clip")
    if a_min is not None:
        x = F.maximum(x, a_min)
    if a_max is not None:
        x = F.minimum(x, a_max)
    return _cast(x, dtype)


