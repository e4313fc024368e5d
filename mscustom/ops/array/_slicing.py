"""Slicing with MindSpore 2.10's names: ``slice``/``tensor_slice`` (begin and size), ``strided_slice``
(begin, end, strides and the five bit masks), ``select`` (elementwise choice) and ``tail``.

The slices are ``getitem`` with a built index, so gradients flow back into the sliced positions.

Example::

    ops.slice(x, (0, 1), (2, -1)), ops.strided_slice(x, (0, 0), (2, 3), (1, 2), shrink_axis_mask=1)
"""

import numpy as np

from ...tensor import Tensor
from .. import functional as F
from .._builtin import scalar_like, tensor_arg

_py_slice = type(np.s_[0:1])     # this module defines ops.slice


def _ints(value, name, what):
    if isinstance(value, Tensor):
        value = value.asnumpy().reshape(-1).tolist()
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"op '{name}': {what} must be a tuple of ints, got {value!r}")


def slice(input_x, begin, size):  # noqa: A001 - MindSpore's name
    """``size[i]`` elements from ``begin[i]`` along every axis (-1: to the end)."""
    x = tensor_arg(input_x, "slice")
    b, s = _ints(begin, "slice", "begin"), _ints(size, "slice", "size")
    if len(b) != x.ndim or len(s) != x.ndim:
        raise ValueError(f"op 'slice': begin and size must have {x.ndim} entries (the input's rank), got {b} and {s}")
    index = []
    for d, (start, n) in enumerate(zip(b, s)):
        stop = x.shape[d] if n == -1 else start + n
        if not 0 <= start <= stop <= x.shape[d] or n < -1:
            raise ValueError(f"op 'slice': begin {start} and size {n} do not fit dimension {d} of size {x.shape[d]}")
        index.append(_py_slice(start, stop))
    return F.getitem(x, tuple(index))



def tensor_slice(input, begin, size):  # noqa: A002
    """``ops.slice``."""
    return slice(input, begin, size)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """``input_x[begin:end:strides]`` per entry of the spec. Bit i of ``begin_mask``/``end_mask`` ignores
    begin[i]/end[i] (the whole range), of ``ellipsis_mask`` makes entry i an ellipsis, of ``new_axis_mask``
    a new axis of size 1, of ``shrink_axis_mask`` takes the single element begin[i] (the axis removed)."""
    x = tensor_arg(input_x, "strided_slice")
    b, e, s = (_ints(v, "strided_slice", w) for v, w in ((begin, "begin"), (end, "end"), (strides, "strides")))
    if not len(b) == len(e) == len(s):
        raise ValueError(f"op 'strided_slice': begin, end and strides must have the same length, got {b}, {e}, {s}")
    if 0 in s:
        raise ValueError("op 'strided_slice': strides must not be 0")
    index = []
    for i, (start, stop, step) in enumerate(zip(b, e, s)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(start)
        else:
            index.append(_py_slice(None if begin_mask & bit else start, None if end_mask & bit else stop, step))
    return F.getitem(x, tuple(index))


def select(cond, input, other):  # noqa: A002
    """``input`` where the bool ``cond`` is True, ``other`` elsewhere (numbers take the other operand's dtype;
    two numbers: float32 if either is a float)."""
    c = tensor_arg(cond, "select")
    if c._data.dtype != np.bool_:
        raise TypeError(f"op 'select': cond must be a bool tensor, got {c.dtype}")
    x, y = input, other
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        kind = np.float32 if isinstance(x, float) or isinstance(y, float) else np.int64
        x, y = Tensor(np.asarray(x, kind)), Tensor(np.asarray(y, kind))
    elif not isinstance(x, Tensor):
        x = scalar_like(x, y) if not (isinstance(x, float) and y._data.dtype.kind in "iub") else Tensor(float(x))
    elif not isinstance(y, Tensor):
        y = scalar_like(y, x) if not (isinstance(y, float) and x._data.dtype.kind in "iub") else Tensor(float(y))
    if x.dtype != y.dtype:
        common = np.result_type(x._data.dtype, y._data.dtype)
        if x._data.dtype.kind == "f" and y._data.dtype.kind != "f":
            common = x._data.dtype
        elif y._data.dtype.kind == "f" and x._data.dtype.kind != "f":
            common = y._data.dtype
        x, y = (t if t._data.dtype == common else F.cast(t, common) for t in (x, y))
    return F.where(c, x, y)


def tail(*args):
    """The tuple without its first element: ``tail((a, b, c)) == (b, c)``."""
    if len(args) != 1 or not isinstance(args[0], (tuple, list)):
        raise TypeError(f"op 'tail': expected one tuple, got {args!r}")
    return tuple(args[0][1:])


__all__ = ["slice", "tensor_slice", "strided_slice", "select", "tail"]
