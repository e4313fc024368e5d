"""Arithmetic and comparison under MindSpore's other names: ``absolute``, ``negative``, ``positive``,
``subtract``, ``multiply``, ``divide``, ``true_divide``, ``floordiv``, ``floormod``, ``eq``/``ne``/
``gt``/``ge``/``lt``/``le``, the ``tensor_*`` operator functions (``tensor_add`` ... ``tensor_muls``),
``pows``, ``addcdiv``, ``addcmul``, ``eps``, ``t``, ``view_as`` and ``identity``.

All are compositions of existing ops, so their gradients are those ops' gradients. Dtype rules are
MindSpore 2.10's: ``subtract`` of two bool tensors is int64, ``tensor_div`` of two integer tensors
rounds towards zero (MindSpore's ``Div``) while ``divide``/``true_divide`` give float32.

Example::

    ops.subtract(x, y, alpha=2), ops.addcmul(x, t1, t2, value=0.5), x.ge(0), ops.t(m)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg
from .elementwise import add as _add, exp, mul as _mul, pow as _pow, sub as _sub
from .elementwise_more import div as _div, expm1, floor_div, floor_mod, trunc_div
from .._ms_names_ops import identity


def absolute(input):  # noqa: A002 - MindSpore's names
    """``|input|`` elementwise (``ops.abs``); a bool tensor is returned as a copy, as in MindSpore."""
    x = tensor_arg(input, "absolute")
    return identity(x) if x._data.dtype == np.bool_ else F.abs(x)


def negative(input):  # noqa: A002
    """``-input`` elementwise (``ops.neg``); bool tensors are refused."""
    return F.neg(input)


def positive(input):  # noqa: A002
    """``+input``: the input itself (MindSpore returns it unchanged)."""
    return tensor_arg(input, "positive")


def subtract(input, other, *, alpha=1):  # noqa: A002
    """``input - alpha * other`` with broadcasting; two bool tensors subtract as int64."""
    x = tensor_arg(input, "subtract")
    if isinstance(other, Tensor) and x._data.dtype == np.bool_ and other._data.dtype == np.bool_:
        x, other = F.cast(x, _dt.int64), F.cast(other, _dt.int64)
    return F.sub(x, other if alpha == 1 else F.mul(other, alpha))


def multiply(input, other):  # noqa: A002
    """``input * other`` with broadcasting (``ops.mul``)."""
    return F.mul(input, other)


def tensor_multiply(input, value):  # noqa: A002
    """``Tensor.multiply(value)``: ``input * value``."""
    return F.mul(input, value)


def divide(input, other, *, rounding_mode=None):  # noqa: A002
    """``input / other`` (float32 for integers), or rounded: ``rounding_mode`` "floor" or "trunc"."""
    return _div(input, other, rounding_mode=rounding_mode)


def true_divide(dividend, divisor):
    """``dividend / divisor``: true division (integer tensors give float32)."""
    return F.div(dividend, divisor)


def floordiv(input, other):  # noqa: A002
    """``floor(input / other)`` (``ops.floor_div``)."""
    return floor_div(input, other)


def floormod(x, y):
    """``x - floor(x / y) * y``, the sign of ``y`` (``ops.floor_mod``)."""
    return floor_mod(x, y)


def eq(input, other):  # noqa: A002
    """``input == other`` elementwise (bool)."""
    return F.equal(input, other)


def ne(input, other):  # noqa: A002
    """``input != other`` elementwise (bool)."""
    return F.not_equal(input, other)


def gt(input, other):  # noqa: A002
    """``input > other`` elementwise (bool)."""
    return F.greater(input, other)


def ge(input, other):  # noqa: A002
    """``input >= other`` elementwise (bool)."""
    return F.greater_equal(input, other)


def lt(input, other):  # noqa: A002
    """``input < other`` elementwise (bool)."""
    return F.less(input, other)


def le(input, other):  # noqa: A002
    """``input <= other`` elementwise (bool)."""
    return F.less_equal(input, other)


def tensor_div(x, y):
    """MindSpore's ``Div``: ``x / y``; two integer operands divide rounding towards zero."""
    a = x._data.dtype.kind if isinstance(x, Tensor) else ("i" if isinstance(x, int) else "f")
    b = y._data.dtype.kind if isinstance(y, Tensor) else ("i" if isinstance(y, int) else "f")
    if a in "iu" and b in "iu" and not isinstance(x, bool) and not isinstance(y, bool):
        return trunc_div(x, y)
    return F.div(x, y)


def tensor_muls(input, other):  # noqa: A002
    """``input * other`` where ``other`` is a Python number (MindSpore's ``Muls``)."""
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        raise TypeError(f"op 'tensor_muls': other must be an int or float, got {type(other).__name__}")
    return F.mul(input, other)


def pows(input, exponent):  # noqa: A002
    """``input ** exponent`` (``ops.pow``)."""
    return _pow(input, exponent)


def _float_operands(name, *ts):
    out = []
    for t in ts:
        t = tensor_arg(t, name)
        if t._data.dtype.kind != "f":
            raise TypeError(f"op '{name}': inputs must be float16, float32 or float64 tensors, got {t.dtype}")
        out.append(t)
    return out


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    """``input + value * tensor1 / tensor2`` with broadcasting (float tensors; ``value`` a number or a
    Tensor)."""
    x, a, b = _float_operands("addcdiv", input, tensor1, tensor2)
    q = F.div(a, b)
    return F.add(x, q if (not isinstance(value, Tensor) and value == 1) else F.mul(q, value))


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    """``input + value * tensor1 * tensor2`` with broadcasting (number tensors; ``value`` a number or a
    Tensor)."""
    x = tensor_arg(input, "addcmul")
    p = F.mul(tensor_arg(tensor1, "addcmul"), tensor_arg(tensor2, "addcmul"))
    return F.add(x, p if (not isinstance(value, Tensor) and value == 1) else F.mul(p, value))


def eps(x):
    """A tensor of ``x``'s shape and dtype filled with its dtype's machine epsilon (float tensors)."""
    (t,) = _float_operands("eps", x)
    return Tensor._wrap(np.full(t.shape, np.finfo(t._data.dtype).eps, t._data.dtype))


def t(input):  # noqa: A002
    """A 2-D tensor transposed; tensors of other ranks are returned unchanged (as MindSpore 2.10 does)."""
    x = tensor_arg(input, "t")
    return F.transpose(x, (1, 0)) if x.ndim == 2 else x


def view_as(input, other):  # noqa: A002
    """``input`` reshaped to ``other``'s shape."""
    return F.reshape(tensor_arg(input, "view_as"), tuple(tensor_arg(other, "view_as").shape))


def tensor_add(input, other):  # noqa: A002
    """``input + other`` (MindSpore's ``Add``)."""
    return _add(input, other)


def tensor_mul(input, other):  # noqa: A002
    """``input * other`` (MindSpore's ``Mul``)."""
    return _mul(input, other)


def tensor_exp(input):  # noqa: A002
    """``e ** input`` (MindSpore's ``Exp``)."""
    return exp(input)


tensor_sub = _sub
tensor_floordiv = floordiv
tensor_mod = floormod
tensor_pow = pows
tensor_expm1 = expm1
tensor_ge, tensor_gt, tensor_le, tensor_lt = ge, gt, le, lt

_METHODS = ["absolute", "negative", "positive", "subtract", "divide", "true_divide", "eq", "ne",
            "gt", "ge", "lt", "le", "addcdiv", "addcmul", "t", "view_as"]
__all__ = _METHODS + ["multiply", "floordiv", "floormod", "tensor_add", "tensor_sub", "tensor_mul", "tensor_div",
                      "tensor_floordiv", "tensor_mod", "tensor_pow", "tensor_exp", "tensor_expm1", "tensor_ge",
                      "tensor_gt", "tensor_le", "tensor_lt", "tensor_muls", "pows", "eps", "identity"]

for _name in _METHODS:
    register_function(_name, globals()[_name], method=True)
del _name
register_function("tensor_multiply", tensor_multiply, method="multiply")
