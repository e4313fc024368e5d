"""MindSpore's scalar helper functions on Python numbers, bools and strings: ``scalar_add`` ...
``scalar_usub``, ``scalar_cast``, ``scalar_to_tensor``, ``scalar_to_array``, ``tuple_to_array``,
``bool_and``/``bool_or``/``bool_not``/``bool_eq``, ``string_concat``/``string_eq`` and the augmented
assignments ``augassign_add`` ... ``augassign_mod``.

In MindSpore these are the primitives graph mode compiles Python operators on constants into; in
PyNative mode they compute on Python values (a few -- ``scalar_ne``, ``bool_and`` ... -- only run
inside a compiled graph there). Here each is the Python operation itself, with MindSpore's results:
``scalar_div`` is true division, ``scalar_floordiv``/``scalar_mod`` follow Python's signs,
``bool_not`` returns a bool Tensor and ``tuple_to_array`` takes its dtype from the first element.

Example::

    ops.scalar_add(2, 3) == 5; ops.scalar_cast(3.7, ms.int64) == 3; ops.tuple_to_array((1, 2))
"""

import math
import operator

import numpy as np

from ... import dtype as _dt
from ...tensor import Tensor


def _number(value, name, what="x"):
    if isinstance(value, Tensor):
        if value.ndim == 0 or value.size == 1:
            return value.asnumpy().reshape(()).item()
        raise TypeError(f"op '{name}': {what} must be a scalar, got a Tensor of shape {list(value.shape)}")
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return value.item() if isinstance(value, (np.number, np.bool_)) else value
    raise TypeError(f"op '{name}': {what} must be an int, float or bool, got {type(value).__name__}")


def _binary(name, fn, doc):
    def function(x, y):
        return fn(_number(x, name, "x"), _number(y, name, "y"))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _floordiv(x, y):
    if y == 0:
        raise ZeroDivisionError("op 'scalar_floordiv': division by zero")
    return x // y


def _mod(x, y):
    if y == 0:
        raise ZeroDivisionError("op 'scalar_mod': modulo by zero")
    return x % y


def _div(x, y):
    if y == 0:
        raise ZeroDivisionError("op 'scalar_div': division by zero")
    return x / y


scalar_add = _binary("scalar_add", operator.add, "``x + y`` on Python numbers.")
scalar_sub = _binary("scalar_sub", operator.sub, "``x - y`` on Python numbers.")
scalar_mul = _binary("scalar_mul", operator.mul, "``x * y`` on Python numbers.")
scalar_div = _binary("scalar_div", _div, "``x / y`` on Python numbers: true division, a float.")
scalar_floordiv = _binary("scalar_floordiv", _floordiv, "``x // y`` on Python numbers (rounded down).")
scalar_mod = _binary("scalar_mod", _mod, "``x % y`` on Python numbers (the sign of ``y``).")
scalar_pow = _binary("scalar_pow", operator.pow, "``x ** y`` on Python numbers.")
scalar_eq = _binary("scalar_eq", operator.eq, "``x == y`` on Python numbers.")
scalar_ne = _binary("scalar_ne", operator.ne, "``x != y`` on Python numbers.")
scalar_gt = _binary("scalar_gt", operator.gt, "``x > y`` on Python numbers.")
scalar_ge = _binary("scalar_ge", operator.ge, "``x >= y`` on Python numbers.")
scalar_lt = _binary("scalar_lt", operator.lt, "``x < y`` on Python numbers.")
scalar_le = _binary("scalar_le", operator.le, "``x <= y`` on Python numbers.")
scalar_max = _binary("scalar_max", max, "The larger of two Python numbers (the first on ties).")
scalar_min = _binary("scalar_min", min, "The smaller of two Python numbers (the first on ties).")


def scalar_log(x):
    """The natural logarithm of a Python number (a float)."""
    return math.log(_number(x, "scalar_log"))


def scalar_uadd(x):
    """``+x`` on a Python number."""
    return +_number(x, "scalar_uadd")


def scalar_usub(x):
    """``-x`` on a Python number."""
    return -_number(x, "scalar_usub")


_CASTS = {"int64": int, "float64": float, "bool": bool}


def scalar_cast(input_x, input_y):
    """A Python number converted to the type ``input_y``: ``ms.int64`` (truncates), ``ms.float64`` or
    ``ms.bool_`` (MindSpore's ScalarCast takes these three)."""
    name = getattr(input_y, "name", None)
    if name not in _CASTS:
        raise ValueError(f"op 'scalar_cast': the type must be mindspore.int64, mindspore.float64 or "
                         f"mindspore.bool, got {input_y!r}")
    return _CASTS[name](_number(input_x, "scalar_cast", "input_x"))


def scalar_to_tensor(input_x, dtype=_dt.float32):
    """A 0-d Tensor of ``dtype`` (float32 by default) holding the Python number ``input_x``."""
    value = _number(input_x, "scalar_to_tensor", "input_x")
    return Tensor._wrap(np.asarray(value, dtype.np_dtype))


def scalar_to_array(input_x):
    """A 0-d Tensor holding the Python number ``input_x`` (int64, float32 or bool)."""
    value = _number(input_x, "scalar_to_array", "input_x")
    dtype = np.bool_ if isinstance(value, bool) else (np.int64 if isinstance(value, int) else np.float32)
    return Tensor._wrap(np.asarray(value, dtype))


def tuple_to_array(input_x):
    """A 1-D Tensor from a tuple of numbers: int32 when the first element is an int, float32 when it is
    a float (the others converted to that dtype, as MindSpore 2.10 does)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError(f"op 'tuple_to_array': input_x must be a non-empty tuple of numbers, got {input_x!r}")
    values = [_number(v, "tuple_to_array", "input_x") for v in input_x]
    first = values[0]
    dtype = np.bool_ if isinstance(first, bool) else (np.int32 if isinstance(first, int) else np.float32)
    return Tensor._wrap(np.array(values).astype(dtype))


def _bool(value, name):
    if isinstance(value, Tensor):
        value = _number(value, name)
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"op '{name}': inputs must be bools, got {type(value).__name__}")
    return bool(value)


def bool_and(x, y):
    """``x and y`` on Python bools."""
    return _bool(x, "bool_and") and _bool(y, "bool_and")


def bool_or(x, y):
    """``x or y`` on Python bools."""
    return _bool(x, "bool_or") or _bool(y, "bool_or")


def bool_eq(x, y):
    """``x == y`` on Python bools."""
    return _bool(x, "bool_eq") == _bool(y, "bool_eq")


def bool_not(x):
    """``not x`` as a 0-d bool Tensor (MindSpore's BoolNot returns a Tensor)."""
    return Tensor._wrap(np.asarray(not _bool(x, "bool_not")))


def _string(value, name):
    if not isinstance(value, str):
        raise TypeError(f"op '{name}': inputs must be strings, got {type(value).__name__}")
    return value


def string_concat(x, y):
    """The two strings joined."""
    return _string(x, "string_concat") + _string(y, "string_concat")


def string_eq(x, y):
    """True when the two strings are equal."""
    return _string(x, "string_eq") == _string(y, "string_eq")


# augmented assignment (``x += y`` ...): Python's operator on numbers, Tensors and sequences
augassign_add = operator.iadd
augassign_sub = operator.isub
augassign_mul = operator.imul
augassign_div = operator.itruediv
augassign_floordiv = operator.ifloordiv
augassign_mod = operator.imod

__all__ = ["scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
           "scalar_eq", "scalar_ne", "scalar_gt", "scalar_ge", "scalar_lt", "scalar_le", "scalar_max", "scalar_min",
           "scalar_log", "scalar_uadd", "scalar_usub", "scalar_cast", "scalar_to_tensor", "scalar_to_array",
           "tuple_to_array", "bool_and", "bool_or", "bool_eq", "bool_not", "string_concat", "string_eq",
           "augassign_add", "augassign_sub", "augassign_mul", "augassign_div", "augassign_floordiv", "augassign_mod"]
