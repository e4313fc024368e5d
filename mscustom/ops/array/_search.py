"""Searching, counting and asking about tensors with MindSpore 2.10's names: ``nonzero``, ``argwhere``,
``unique``, ``unique_consecutive``, ``searchsorted``, ``bucketize``, ``histc``, ``bincount``, ``msort``,
``population_count``, ``coalesce``, ``truncate_div``, ``truncate_mod`` and the queries ``size``, ``numel``,
``rank``, ``dtype``, ``is_tensor``, ``is_floating_point``, ``is_complex``, ``is_nonzero``.

Positions and counts are integers worked out with NumPy (no gradient); values picked from a tensor
(``unique``'s, ``msort``'s, ``coalesce``'s summed values) go through ``gather``, ``sort`` and segment
sums, so gradients flow.

Example::

    ops.nonzero(x), ops.unique(x), ops.searchsorted(edges, v, right=True), ops.histc(x, 10, 0.0, 1.0)
"""

import numpy as np

from ... import dtype as _dt
from ...tensor import Tensor
from .. import functional as F
from .._builtin import normalize_axis, tensor_arg
from ._lazy import ops as _o


def _const(array):
    return Tensor._wrap(np.ascontiguousarray(array))


# ================================================================== positions
def nonzero(input, *, as_tuple=False):  # noqa: A002 - MindSpore's names
    """The int64 coordinates (N, rank) of the nonzero elements; ``as_tuple``: one 1-D tensor per axis."""
    x = tensor_arg(input, "nonzero")
    if x.ndim == 0:
        raise ValueError("op 'nonzero': input must have rank >= 1, got a 0-d tensor")
    coords = np.nonzero(x.asnumpy())
    if as_tuple:
        return tuple(_const(c.astype(np.int64)) for c in coords)
    return _const(np.stack(coords, 1).astype(np.int64).reshape(-1, x.ndim))


def argwhere(input):  # noqa: A002
    """The int64 coordinates (N, rank) of the nonzero elements."""
    return nonzero(input)


def unique(input):  # noqa: A002
    """The distinct elements in the order they first appear (1-D) and, for every element, the index of
    its value in that list (input's shape; int64 for an int64 input, int32 otherwise, as in MindSpore)."""
    x = tensor_arg(input, "unique")
    if x.dtype.name == "bool":
        raise TypeError("op 'unique': input must be a number tensor, got bool")
    flat = x.asnumpy().reshape(-1)
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")        # sorted values -> order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    values = _o.gather(F.reshape(x, (-1,)), _const(first[order].astype(np.int64)), 0)
    kind = np.int64 if x._data.dtype == np.int64 else np.int32
    return values, _const(rank[inverse.reshape(-1)].astype(kind).reshape(x.shape))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """``input`` (flattened when ``dim`` is None) with runs of equal elements (or slices along ``dim``)
    reduced to one; with ``return_inverse`` the run index of every element, with ``return_counts`` the
    length of every run: the output alone, or a tuple of it and the ones asked for."""
    x = tensor_arg(input, "unique_consecutive")
    arr = x.asnumpy()
    if dim is None:
        arr, axis, t = arr.reshape(-1), 0, F.reshape(x, (-1,))
    else:
        axis = normalize_axis("unique_consecutive", int(dim), x.ndim)[0]
        t = x
    n = arr.shape[axis] if arr.ndim else 1
    moved = np.moveaxis(arr, axis, 0).reshape(n, -1) if arr.ndim else arr.reshape(1, 1)
    change = np.ones(n, bool)
    if n > 1:
        change[1:] = (moved[1:] != moved[:-1]).any(1)
    starts = np.flatnonzero(change)
    out = _o.gather(t, _const(starts.astype(np.int64)), axis) if arr.ndim else t
    inverse = _const((np.cumsum(change) - 1).astype(np.int64).reshape(x.shape if dim is None else (n,)))
    counts = _const(np.diff(np.append(starts, n)).astype(np.int64))
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (out,) + extra if extra else out


# ================================================================== searching
def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """For every value, the index where it would be inserted into the sorted last axis of
    ``sorted_sequence`` (the leading axes batch, matching ``values``'); ``right``/``side="right"``: after
    equal elements. int64 (int32 with ``out_int32``)."""
    seq = tensor_arg(sorted_sequence, "searchsorted").asnumpy()
    vals = values.asnumpy() if isinstance(values, Tensor) else np.asarray(values)
    if side not in (None, "left", "right"):
        raise ValueError(f"op 'searchsorted': side must be 'left' or 'right', got {side!r}")
    if side == "left" and right:
        raise ValueError("op 'searchsorted': side='left' contradicts right=True")
    how = "right" if right or side == "right" else "left"
    if sorter is not None:
        order = tensor_arg(sorter, "searchsorted").asnumpy().astype(np.int64)
        seq = np.take_along_axis(seq, order, -1)
    if seq.ndim <= 1:
        out = np.searchsorted(seq.reshape(-1), vals, side=how)
    else:
        if vals.ndim == 0 or seq.shape[:-1] != vals.shape[:-1]:
            raise ValueError(f"op 'searchsorted': the leading dimensions of sorted_sequence {list(seq.shape)} "
                             f"and values {list(vals.shape)} must match")
        s2, v2 = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(a, b, side=how) for a, b in zip(s2, v2)]).reshape(vals.shape)
    return _const(np.asarray(out).astype(np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, right=False):  # noqa: A002
    """The bucket of every element among the sorted ``boundaries`` (a list of numbers): with ``right``
    False ``boundaries[i-1] < x <= boundaries[i]``, else ``boundaries[i-1] <= x < boundaries[i]``; int32."""
    x = tensor_arg(input, "bucketize")
    if x.dtype.name not in ("int16", "int32", "int64", "float16", "float32", "float64"):
        raise TypeError(f"op 'bucketize': input must be int16, int32, int64, float16, float32 or float64, got {x.dtype}")
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError(f"op 'bucketize': boundaries must be a list of numbers, got {type(boundaries).__name__}")
    edges = np.asarray(boundaries, np.float64)
    return _const(np.searchsorted(edges, x.asnumpy(), side="right" if right else "left").astype(np.int32))


# ================================================================== counting
def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002
    """The histogram of ``input`` in ``bins`` equal bins over [min, max] (both 0: the data's range);
    elements outside are not counted, ``max`` falls in the last bin. The input's dtype (float16, float32
    or int32); float32 for float16, as in MindSpore."""
    x = tensor_arg(input, "histc")
    if x.dtype not in (_dt.float16, _dt.float32, _dt.int32):
        raise TypeError(f"op 'histc': input must be float16, float32 or int32, got {x.dtype}")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins <= 0:
        raise ValueError(f"op 'histc': bins must be an int > 0, got {bins!r}")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ValueError(f"op 'histc': min must not exceed max, got {lo} and {hi}")
    data = x.asnumpy().astype(np.float64).reshape(-1)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    inside = data[(data >= lo) & (data <= hi)]
    index = np.minimum(((inside - lo) * bins / (hi - lo)).astype(np.int64), bins - 1)
    out = np.float32 if x.dtype == _dt.float16 else x._data.dtype
    return _const(np.bincount(index, minlength=bins).astype(out))


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """How often each value 0, 1, ... occurs in the 1-D non-negative int ``input`` (with ``weights``: the
    sum of their weights); at least ``minlength`` bins; float32."""
    x = tensor_arg(input, "bincount")
    if x._data.dtype.kind not in "iu" or x.ndim != 1:
        raise TypeError(f"op 'bincount': input must be a 1-D int tensor, got {x.dtype} of shape {list(x.shape)}")
    idx = x.asnumpy().astype(np.int64)
    if idx.size and idx.min() < 0:
        raise ValueError(f"op 'bincount': input must be non-negative, got {int(idx.min())}")
    if isinstance(minlength, bool) or not isinstance(minlength, (int, np.integer)) or minlength < 0:
        raise ValueError(f"op 'bincount': minlength must be an int >= 0, got {minlength!r}")
    n = int(np.max(idx, initial=-1)) + 1
    n = n if n > minlength else int(minlength)
    if weights is None:
        return _const(np.bincount(idx, minlength=n).astype(np.float32))
    w = tensor_arg(weights, "bincount")
    if tuple(w.shape) != tuple(x.shape):
        raise ValueError(f"op 'bincount': weights must have the input's shape {list(x.shape)}, got {list(w.shape)}")
    if w._data.dtype != np.float32:
        w = F.cast(w, _dt.float32)
    return _o.unsorted_segment_sum(w, x, n)


def msort(input):  # noqa: A002
    """``input`` sorted along axis 0 (ascending)."""
    x = tensor_arg(input, "msort")
    if x.dtype.name == "bool":
        raise TypeError("op 'msort': input must be a number tensor, got bool")
    return _o.sort(x, 0)[0]


def population_count(input_x):
    """The number of set bits of each element (int8/16/32/64 or uint8/16/32/64); uint8."""
    x = tensor_arg(input_x, "population_count")
    arr = x.asnumpy()
    if arr.dtype.kind not in "iu":
        raise TypeError(f"op 'population_count': input must be an integer tensor, got {x.dtype}")
    u = arr.view(np.dtype(f"u{arr.dtype.itemsize}"))
    as_bytes = u.reshape(-1).view(np.uint8).reshape(u.size, arr.dtype.itemsize)
    counts = np.unpackbits(as_bytes, axis=1).sum(1)
    return _const(counts.astype(np.uint8).reshape(arr.shape))


def coalesce(x_indices, x_values, x_shape):
    """A COO sparse tensor with its duplicate coordinates summed and its coordinates sorted:
    (indices (rank, N'), values (N',), shape), from ``x_indices`` (rank, N), ``x_values`` (N,), ``x_shape``."""
    idx = tensor_arg(x_indices, "coalesce").asnumpy().astype(np.int64)
    vals = tensor_arg(x_values, "coalesce")
    shape = tensor_arg(x_shape, "coalesce")
    if idx.ndim != 2 or vals.ndim != 1 or idx.shape[1] != vals.shape[0]:
        raise ValueError(f"op 'coalesce': x_indices must be (rank, N) and x_values (N,), got shapes "
                         f"{list(idx.shape)} and {list(vals.shape)}")
    dims = shape.asnumpy().astype(np.int64)
    keys = np.ravel_multi_index(tuple(idx), tuple(dims)) if idx.size else np.zeros(0, np.int64)
    distinct, segment = np.unique(keys, return_inverse=True)
    out_idx = np.stack(np.unravel_index(distinct, tuple(dims))).astype(np.int64).reshape(idx.shape[0], -1)
    summed = _o.unsorted_segment_sum(vals, _const(segment.astype(np.int64).reshape(-1)), distinct.size)
    return _const(out_idx), summed, shape


# ================================================================== truncating division
def truncate_div(x, y):
    """``x / y`` rounded towards zero (integers and floats)."""
    return _o.trunc_div(x, y)


def truncate_mod(x, y):
    """The remainder of the division rounded towards zero: ``x - truncate_div(x, y) * y`` (sign of ``x``)."""
    return _o.fmod(x, y)


# ================================================================== queries
def size(input_x):
    """The number of elements (an int)."""
    return int(tensor_arg(input_x, "size").size)


def numel(input):  # noqa: A002
    """The number of elements (an int)."""
    return int(tensor_arg(input, "numel").size)


def rank(input_x):
    """The number of dimensions (an int)."""
    return int(tensor_arg(input_x, "rank").ndim)


def dtype(x):
    """The tensor's dtype (``ms.float32`` ...)."""
    return tensor_arg(x, "dtype").dtype


def is_tensor(obj):
    """True when ``obj`` is a Tensor (a Parameter included)."""
    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002
    """True for float16, bfloat16, float32 and float64 tensors."""
    return bool(_dt.is_floating(tensor_arg(input, "is_floating_point").dtype))


def is_complex(input):  # noqa: A002
    """True for complex64 and complex128 tensors."""
    return tensor_arg(input, "is_complex")._data.dtype.kind == "c"


def is_nonzero(input):  # noqa: A002
    """Whether the one element of ``input`` is nonzero (ValueError for any other number of elements)."""
    x = tensor_arg(input, "is_nonzero")
    if x.size != 1:
        raise ValueError(f"op 'is_nonzero': input must have exactly one element, got {x.size}")
    return bool(x.asnumpy().reshape(()) != 0)


__all__ = ["nonzero", "argwhere", "unique", "unique_consecutive", "searchsorted", "bucketize", "histc", "bincount",
           "msort", "population_count", "coalesce", "truncate_div", "truncate_mod", "size", "numel", "rank",
           "dtype", "is_tensor", "is_floating_point", "is_complex", "is_nonzero"]
