"""Tensor methods MindSpore 2.10 has for math functions mscustom already publishes: ``x.cos()``,
``x.erf()``, ``x.log1p()``, ``x.greater(y)``, ``x.logical_and(y)``, ``x.bitwise_xor(y)``,
``x.fmod(y)``, ``x.remainder(y)``, ``x.amax(axis)``,
``x.argmax_with_value(axis)`` ... -- each bound to the published function itself (one definition for
``ops.cos(x)`` and ``x.cos()``), and the method forms whose arguments differ from the function's:
``x.sub(other, *, alpha=1)``, ``x.div(other, *, rounding_mode=None)``, ``x.allclose(other, rtol, atol,
equal_nan)``.

Example::

    x.cos(), x.sub(y, alpha=2), x.div(y, rounding_mode="floor"), x.allclose(y)
"""

from ..._core.functions import functions as _published
from ..._core.registry import register_function
from .. import functional as F
from .elementwise_more import div as _div

_SAME = ["cos", "sin", "tan", "erf", "erfc", "expm1", "log1p", "log2", "rsqrt", "reciprocal", "trunc", "mul",
         "equal", "greater", "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_not",
         "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "maximum", "fmod", "remainder",
         "isinf", "amax", "amin", "count_nonzero"]


def tensor_sub(input, other, *, alpha=1):  # noqa: A002 - MindSpore's names
    """``Tensor.sub(other, *, alpha=1)``: ``input - alpha * other``."""
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))


def tensor_div_rounding(input, other, *, rounding_mode=None):  # noqa: A002
    """``Tensor.div(other, *, rounding_mode=None)``: true division, or rounded "floor" / "trunc"."""
    return _div(input, other, rounding_mode=rounding_mode)


def tensor_allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """``Tensor.allclose(other, rtol, atol, equal_nan)``: True when every ``|input - other| <= atol +
    rtol * |other|`` (a Python bool, as MindSpore 2.10 returns)."""
    return bool(_published.isclose(input, other, rtol, atol, equal_nan).asnumpy().all())


def tensor_argmax_with_value(input, axis=0, keep_dims=False):  # noqa: A002
    """``Tensor.argmax_with_value(axis=0, keep_dims=False)``: the tuple (maximum values, int64 indices) --
    the values first, unlike ``ops.argmax_with_value``."""
    index, values = _published.argmax_with_value(input, axis, keep_dims)
    return values, index


def tensor_argmin_with_value(input, axis=0, keep_dims=False):  # noqa: A002
    """``Tensor.argmin_with_value(axis=0, keep_dims=False)``: the tuple (minimum values, int64 indices)."""
    index, values = _published.argmin_with_value(input, axis, keep_dims)
    return values, index


__all__ = []

for _name in _SAME:
    register_function(_name, getattr(_published, _name), method=True)
del _name
register_function("tensor_sub", tensor_sub, method="sub")
register_function("tensor_div_rounding", tensor_div_rounding, method="div")
register_function("tensor_allclose", tensor_allclose, method="allclose")
register_function("tensor_argmax_with_value", tensor_argmax_with_value, method="argmax_with_value")
register_function("tensor_argmin_with_value", tensor_argmin_with_value, method="argmin_with_value")
