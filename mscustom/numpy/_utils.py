"""Operand conversion shared by ``mscustom.numpy``: Python data and NumPy arrays to Tensors.

mindspore.numpy's defaults: Python floats become float32 and Python ints int32 (NumPy would
give float64 / int64); NumPy arrays keep their dtype; Tensors pass through untouched, so
gradients and graph capture see the caller's tensors.
"""

import builtins

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor
from ..ops import functional as F

_PY_TYPES = {builtins.float: _dt.float32, builtins.int: _dt.int32, builtins.bool: _dt.bool_}


def to_dtype(dtype, name="mscustom.numpy"):
    """A dtype argument (an mscustom dtype, a NumPy dtype or type, a name, ``float``/``int``/``bool``)
    as an mscustom dtype; ``None`` stays ``None``."""
    if dtype is None or isinstance(dtype, _dt.DType):
        return dtype
    if dtype in _PY_TYPES:
        return _PY_TYPES[dtype]
    try:
        return _dt.dtype_from_any(dtype)
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"op '{name}': dtype must be an mscustom, NumPy or Python type, got {dtype!r}") from None


def _from_python(value):
    """A NumPy array of Python data with mindspore.numpy's default dtypes (int32, float32)."""
    arr = np.asarray(value)
    if arr.dtype == np.int64:
        arr = arr.astype(np.int32)
    elif arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"data of type {arr.dtype} cannot be a Tensor")
    return arr


def _holds_tensor(value):
    return isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) or _holds_tensor(v) for v in value)


def to_tensor(value, dtype=None, name="mscustom.numpy"):
    """``value`` as a Tensor (cast to ``dtype`` when given). Lists holding Tensors are stacked, so
    gradients flow to their elements."""
    dtype = to_dtype(dtype, name)
    if isinstance(value, Tensor):
        out = value
    elif _holds_tensor(value):
        out = F.stack([to_tensor(v, name=name) for v in value], 0) if len(value) else to_tensor([], name=name)
    else:
        try:
            arr = value if isinstance(value, np.ndarray) else (
                np.asarray(value) if isinstance(value, np.generic) else _from_python(value))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"op '{name}': input must be a Tensor, a number, a list or a tuple, "
                            f"got {type(value).__name__} ({exc})") from None
        out = Tensor._wrap(np.array(arr, order="C", copy=not arr.flags.c_contiguous))
    if dtype is not None and out.dtype != dtype:
        out = F.cast(out, dtype)
    return out


def is_scalar(value):
    """True for a Python (or NumPy) number."""
    return isinstance(value, (builtins.int, builtins.float, builtins.bool, np.number, np.bool_))


def operand(value, name):
    """A binary operation's operand: Tensors and Python numbers pass (the op gives a number the other
    operand's dtype), anything else becomes a Tensor."""
    if isinstance(value, Tensor) or (is_scalar(value) and not isinstance(value, np.generic)):
        return value
    return to_tensor(value, name=name)


def operands(x, y, name):
    """Both operands; two Python numbers become Tensors with the default dtypes."""
    x, y = operand(x, name), operand(y, name)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = to_tensor(x, name=name)
    return x, y


def is_float_dtype(dtype):
    return _dt.is_floating(dtype)


def to_float(x, name="mscustom.numpy"):
    """``x`` as a Tensor of a float dtype: integer and bool tensors become float32."""
    x = to_tensor(x, name=name)
    return x if _dt.is_floating(x.dtype) else F.cast(x, _dt.float32)


def const(array):
    """A constant Tensor made from a NumPy array (masks, indices, grids)."""
    return Tensor._wrap(np.asarray(array, order="C"))


def check_axis(axis, ndim, name):
    """One axis in ``[-ndim, ndim)`` as a non-negative int."""
    if isinstance(axis, (builtins.bool, np.bool_)) or not isinstance(axis, (builtins.int, np.integer)):
        raise TypeError(f"op '{name}': axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"op '{name}': axis {axis} is out of range for a tensor of rank {ndim}")
    return builtins.int(axis) % ndim


def axes_tuple(axis, ndim, name):
    """``axis`` (None, an int or a sequence) as a tuple of non-negative axes in the given order."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        out = tuple(check_axis(a, ndim, name) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError(f"op '{name}': axis {axis!r} repeats an axis")
        return out
    return (check_axis(axis, ndim, name),)
