"""Joining and splitting with MindSpore 2.10's names: ``atleast_1d/2d/3d``, ``hstack``, ``vstack``,
``dstack``, ``column_stack``, ``row_stack``, ``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``,
``unbind``, ``narrow``.

All are reshapes, concatenations and slices of existing ops, so gradients flow through them.

Example::

    ops.hstack([a, b]), ops.tensor_split(x, 3, axis=1), ops.narrow(x, 1, 0, 2)
"""

import numpy as np

from ...tensor import Tensor
from .. import functional as F
from .._builtin import normalize_axis, tensor_arg
from ._lazy import ops as _o


def _axis(name, axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"op '{name}': axis must be an int, got {axis!r}")
    return normalize_axis(name, int(axis), ndim)[0]


def _tensors(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"op '{name}': expected a non-empty tuple or list of tensors, got {type(tensors).__name__}")
    return [tensor_arg(t, name) for t in tensors]


# ================================================================== atleast_nd
def _atleast(inputs, rank, name):
    def one(t):
        x = tensor_arg(t, name)
        if x.ndim >= rank:
            return x
        shape = tuple(x.shape)
        if rank == 3 and x.ndim == 2:
            shape = shape + (1,)
        elif rank == 3 and x.ndim == 1:
            shape = (1,) + shape + (1,)
        else:
            shape = (1,) * (rank - x.ndim) + shape
        return F.reshape(x, shape)
    if isinstance(inputs, (tuple, list)):
        return tuple(one(t) for t in inputs)
    return one(inputs)


def atleast_1d(inputs):
    """``inputs`` (a tensor, or a list of tensors: a tuple back) with at least 1 dimension."""
    return _atleast(inputs, 1, "atleast_1d")


def atleast_2d(inputs):
    """``inputs`` with at least 2 dimensions (new leading axes)."""
    return _atleast(inputs, 2, "atleast_2d")


def atleast_3d(inputs):
    """``inputs`` with at least 3 dimensions: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)."""
    return _atleast(inputs, 3, "atleast_3d")


# ================================================================== stacks
def hstack(tensors):
    """Concatenation along axis 1 (axis 0 for 1-D tensors)."""
    xs = _tensors(tensors, "hstack")
    xs = [F.reshape(x, (1,)) if x.ndim == 0 else x for x in xs]
    return F.concat(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(tensors):
    """Concatenation along axis 0 of the tensors made at least 2-D."""
    return F.concat(list(atleast_2d(_tensors(tensors, "vstack"))), 0)


def row_stack(tensors):
    """``vstack``."""
    return F.concat(list(atleast_2d(_tensors(tensors, "row_stack"))), 0)


def dstack(tensors):
    """Concatenation along axis 2 of the tensors made at least 3-D."""
    return F.concat(list(atleast_3d(_tensors(tensors, "dstack"))), 2)


def column_stack(tensors):
    """1-D tensors as columns (N, 1), then concatenation along axis 1."""
    xs = [F.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in _tensors(tensors, "column_stack")]
    return F.concat(xs, 1)


# ================================================================== splits
def _slice_along(x, axis, start, stop):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return F.getitem(x, tuple(index))


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002 - MindSpore's names
    """Split along ``axis`` into ``n`` nearly equal parts (an int: the first ``size % n`` one longer) or
    at the given indices (a tuple or list of ints)."""
    x = tensor_arg(input, "tensor_split")
    if x.ndim == 0:
        raise ValueError("op 'tensor_split': input must have at least 1 dimension, got a 0-d tensor")
    ax = _axis("tensor_split", axis, x.ndim)
    size = x.shape[ax]
    ios = indices_or_sections
    if isinstance(ios, (int, np.integer)) and not isinstance(ios, bool):
        n = int(ios)
        if n <= 0:
            raise ValueError(f"op 'tensor_split': the number of sections must be > 0, got {n}")
        q, r = divmod(size, n)
        bounds = np.cumsum([0] + [q + 1] * r + [q] * (n - r)).tolist()
    elif isinstance(ios, (tuple, list)) and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                                                for i in ios):
        bounds = [0] + [int(i) for i in ios] + [size]
    else:
        raise TypeError(f"op 'tensor_split': indices_or_sections must be an int, a tuple or a list of ints, "
                        f"got {ios!r}")
    return tuple(_slice_along(x, ax, bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1))


def _fixed_split(input, ios, axis, min_rank, name):
    x = tensor_arg(input, name)
    if x.ndim < min_rank:
        raise ValueError(f"op '{name}': input must have at least {min_rank} dimensions, got {x.ndim}")
    return tensor_split(x, ios, axis)


def hsplit(input, indices_or_sections):  # noqa: A002
    """``tensor_split`` along axis 1 (input of rank >= 2)."""
    return _fixed_split(input, indices_or_sections, 1, 2, "hsplit")


def vsplit(input, indices_or_sections):  # noqa: A002
    """``tensor_split`` along axis 0 (input of rank >= 2)."""
    return _fixed_split(input, indices_or_sections, 0, 2, "vsplit")


def dsplit(input, indices_or_sections):  # noqa: A002
    """``tensor_split`` along axis 2 (input of rank >= 3)."""
    return _fixed_split(input, indices_or_sections, 2, 3, "dsplit")


def unbind(input, dim=0):  # noqa: A002
    """The slices along ``dim``, that axis removed (``unstack``)."""
    return _o.unstack(input, dim)


def narrow(input, axis, start, length):  # noqa: A002
    """The ``length`` elements from ``start`` along ``axis`` (``0 <= start``, ``start + length <= size``)."""
    x = tensor_arg(input, "narrow")
    ax = _axis("narrow", axis, x.ndim)
    for what, v in (("start", start), ("length", length)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"op 'narrow': {what} must be an int, got {v!r}")
    size = x.shape[ax]
    if not 0 <= start < size or not 0 <= length <= size - start:
        raise ValueError(f"op 'narrow': start {start} and length {length} do not fit dimension {ax} of size {size}")
    return _slice_along(x, ax, int(start), int(start) + int(length))


__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack", "column_stack",
           "tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "narrow"]
