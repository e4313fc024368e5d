"""MindSpore's helper functions on tuples, lists, dicts and shapes: ``tuple_getitem`` ... ``tuple_div``,
``list_getitem`` ... ``list_equal``, ``make_tuple``, ``make_list``, ``make_range``, ``make_slice``,
``make_dict``, ``dict_getitem``, ``dict_setitem``, ``in_dict``, ``not_in_dict``, ``shape_``,
``dyn_shape``, ``shape_mul``, ``reduced_shape``, ``broadcast_gradient_args``, ``hyper_add``,
``zip_operation``, ``iter_converter``, ``ms_next``, ``ms_hasnext``, ``is_``, ``is_not``, ``switch``,
``partial``, ``is_sequence_value_unknown``, ``is_sequence_shape_unknown``.

Graph mode compiles Python's sequence operations into these; here each is the Python operation
itself. Setters return a new sequence (or dict) and leave their input unchanged, as MindSpore's do.
Shapes are static here, so the "unknown" queries are always False.

Example::

    ops.tuple_setitem((1, 2, 3), 1, 9) == (1, 9, 3); ops.make_range(1, 10, 3) == (1, 4, 7)
"""

import functools
import math
import operator

import numpy as np

from ...tensor import Tensor


def _seq(value, kind, name):
    if not isinstance(value, kind):
        raise TypeError(f"op '{name}': expected a {kind.__name__}, got {type(value).__name__}")
    return value


# ------------------------------------------------------------------ tuples and lists
def tuple_getitem(data, index):
    """``data[index]`` of a tuple."""
    return _seq(data, tuple, "tuple_getitem")[index]


def tuple_setitem(data, index, value):
    """A copy of the tuple with ``data[index]`` replaced by ``value``."""
    items = list(_seq(data, tuple, "tuple_setitem"))
    items[index] = value
    return tuple(items)


def tuple_len(data):
    """The length of a tuple."""
    return len(_seq(data, tuple, "tuple_len"))


def tuple_equal(x, y):
    """``x == y`` for two tuples."""
    return _seq(x, tuple, "tuple_equal") == _seq(y, tuple, "tuple_equal")


def tuple_reversed(data):
    """The tuple's elements in reverse order."""
    return tuple(reversed(_seq(data, tuple, "tuple_reversed")))


def tuple_div(x, y):
    """Elementwise exact division of two tuples of ints (a shape by a divisor of each dimension)."""
    x, y = _seq(x, tuple, "tuple_div"), _seq(y, tuple, "tuple_div")
    if len(x) != len(y):
        raise ValueError(f"op 'tuple_div': the tuples must have one length, got {len(x)} and {len(y)}")
    out = []
    for a, b in zip(x, y):
        if b == 0 or a % b:             # MindSpore raises RuntimeError here too
            raise RuntimeError(f"op 'tuple_div': {a} is not divisible by {b}")
        out.append(a // b)
    return tuple(out)


def list_getitem(data, index):
    """``data[index]`` of a list."""
    return _seq(data, list, "list_getitem")[index]


def list_setitem(data, index, value):
    """A copy of the list with ``data[index]`` replaced by ``value``."""
    items = list(_seq(data, list, "list_setitem"))
    items[index] = value
    return items


def list_len(data):
    """The length of a list."""
    return len(_seq(data, list, "list_len"))


def list_equal(x, y):
    """``x == y`` for two lists."""
    return _seq(x, list, "list_equal") == _seq(y, list, "list_equal")


def make_tuple(*args):
    """The arguments as a tuple."""
    return tuple(args)


def make_list(*args):
    """The arguments as a list."""
    return list(args)


def make_range(*args):
    """``tuple(range(*args))``: ``make_range(stop)``, ``(start, stop)`` or ``(start, stop, step)``."""
    if not 1 <= len(args) <= 3 or not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise TypeError(f"op 'make_range': expected 1 to 3 ints, got {args!r}")
    return tuple(range(*args))


def make_slice(start, stop, step):
    """``slice(start, stop, step)``."""
    return slice(start, stop, step)


# ------------------------------------------------------------------ dicts
def make_dict(keys, values):
    """A dict from a tuple of keys and a tuple of values."""
    if len(keys) != len(values):
        raise ValueError(f"op 'make_dict': {len(keys)} keys and {len(values)} values")
    return dict(zip(keys, values))


def dict_getitem(data, key):
    """``data[key]``."""
    return _seq(data, dict, "dict_getitem")[key]


def dict_setitem(data, key, value):
    """A copy of the dict with ``data[key] = value``."""
    out = dict(_seq(data, dict, "dict_setitem"))
    out[key] = value
    return out


def in_dict(key, data):
    """``key in data``."""
    return key in _seq(data, dict, "in_dict")


def not_in_dict(key, data):
    """``key not in data``."""
    return key not in _seq(data, dict, "not_in_dict")


# ------------------------------------------------------------------ shapes
def shape_(x):
    """The shape of a Tensor as a tuple of ints."""
    return tuple(x.shape)


def dyn_shape(input_x):
    """The shape of a Tensor as a 1-D int64 Tensor (MindSpore's TensorShape)."""
    return Tensor._wrap(np.array(input_x.shape, np.int64))


def shape_mul(input_data):
    """The product of a shape's dimensions (1 for ``()``)."""
    return math.prod(_seq(input_data, tuple, "shape_mul"))


def reduced_shape(shape, axis):
    """``shape`` with the dimensions in ``axis`` set to 1 (every dimension when ``axis`` is ``()``)."""
    n = len(shape)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = range(n) if not axes else {a % n for a in axes}
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def broadcast_gradient_args(x_shape, y_shape):
    """The axes each operand's gradient sums over after broadcasting ``x_shape`` with ``y_shape``:
    a tuple (x's axes, y's axes) in the broadcast shape's numbering."""
    n = max(len(x_shape), len(y_shape))
    xs = (1,) * (n - len(x_shape)) + tuple(x_shape)
    ys = (1,) * (n - len(y_shape)) + tuple(y_shape)
    rx, ry = [], []
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a == b:
            continue
        if a == 1:
            rx.append(i)
        elif b == 1:
            ry.append(i)
        else:
            raise ValueError(f"op 'broadcast_gradient_args': shapes {tuple(x_shape)} and {tuple(y_shape)} "
                             "cannot be broadcast together")
    return tuple(rx), tuple(ry)


def is_sequence_value_unknown(x):
    """False: sequences hold known values here (no compiled dynamic sequences)."""
    return False


def is_sequence_shape_unknown(x):
    """False: sequences have known lengths here (no compiled dynamic sequences)."""
    return False


# ------------------------------------------------------------------ structure and control
def hyper_add(x, y):
    """``x + y``, applied leaf by leaf through nested tuples and lists of the same structure."""
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        if len(x) != len(y):
            raise ValueError(f"op 'hyper_add': sequences of lengths {len(x)} and {len(y)}")
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    return x + y


def zip_operation(*args):
    """``tuple(zip(*args))``: the sequences' elements grouped by position."""
    return tuple(zip(*args))


def iter_converter(x):
    """``x`` as a tuple to iterate over (a Tensor gives its slices along the first axis)."""
    return tuple(x)


def ms_next(x):
    """The first element of a sequence and the rest: ``(x[0], x[1:])`` (graph mode's iteration step)."""
    return x[0], x[1:]


def ms_hasnext(x):
    """True while the sequence has elements left."""
    return len(x) > 0


is_ = operator.is_
is_not = operator.is_not
partial = functools.partial


def switch(cond, true_branch, false_branch):
    """``true_branch`` when ``cond`` is true, else ``false_branch``."""
    return true_branch if cond else false_branch


__all__ = ["tuple_getitem", "tuple_setitem", "tuple_len", "tuple_equal", "tuple_reversed", "tuple_div",
           "list_getitem", "list_setitem", "list_len", "list_equal", "make_tuple", "make_list", "make_range",
           "make_slice", "make_dict", "dict_getitem", "dict_setitem", "in_dict", "not_in_dict", "shape_",
           "dyn_shape", "shape_mul", "reduced_shape", "broadcast_gradient_args", "is_sequence_value_unknown",
           "is_sequence_shape_unknown", "hyper_add", "zip_operation", "iter_converter", "ms_next", "ms_hasnext",
           "is_", "is_not", "partial", "switch"]
