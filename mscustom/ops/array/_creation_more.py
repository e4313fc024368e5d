"""Creating tensors with MindSpore 2.10's names: ``eye``, ``diag``, ``diag_embed``, ``diagflat``,
``tril_indices``/``triu_indices``, ``linspace``, ``logspace``, ``range``/``tensor_range``, ``fill``,
``full_like``, ``meshgrid``, ``cartesian_prod``, ``combinations``.

Constants are built with NumPy; the functions of a tensor (``diag``, ``diag_embed``, ``meshgrid``,
``cartesian_prod``, ``combinations``) pick its elements with ``gather`` and ``where``, so gradients flow.

Example::

    ops.eye(3), ops.linspace(0, 1, 5), ops.diag_embed(x, 1), ops.meshgrid(a, b, indexing="ij")
"""

import builtins
import itertools

import numpy as np

from ... import dtype as _dt
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg
from ._lazy import ops as _o


_brange = builtins.range     # this module defines ops.range


def _const(array):
    return Tensor._wrap(np.ascontiguousarray(array))


def _int(value, what, name):
    if isinstance(value, Tensor) and value.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value.asnumpy())
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"op '{name}': {what} must be an int, got {value!r}")
    return int(value)


def _number(value, name, what):
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"op '{name}': {what} must be a number or a one-element tensor, got shape "
                             f"{list(value.shape)}")
        return value.asnumpy().reshape(()).item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"op '{name}': {what} must be a number, got {value!r}")
    return value


def _np_dtype(dtype, default):
    return np.dtype(default) if dtype is None else _dt.to_numpy(dtype)


def _pick_flat(x, index):
    """``x.reshape(-1)[index]`` with ``index``'s shape; differentiable through ``gather``."""
    index = np.asarray(index, np.int64)
    out = _o.gather(F.reshape(x, (-1,)), _const(index.reshape(-1)), 0)
    return F.reshape(out, index.shape)


def _refuse(x, name, dtypes):
    """TypeError naming the op when ``x``'s dtype is one MindSpore's kernel refuses."""
    if x.dtype.name in dtypes:
        raise TypeError(f"op '{name}': input of dtype {x.dtype} is not supported (not {', '.join(dtypes)})")
    return x


def _placed(x, index, mask):
    """A tensor of ``index``'s shape holding ``x.reshape(-1)[index]`` where ``mask``, 0 elsewhere."""
    picked = _pick_flat(x, np.where(mask, index, 0))
    return F.where(_const(mask), picked, F.zeros_like(picked))


# ================================================================== eye / diag family
def eye(n, m=None, dtype=None):
    """The ``n`` x ``m`` identity matrix (``m`` defaults to ``n``; ``dtype`` to float32)."""
    rows = _int(n, "n", "eye")
    cols = rows if m is None else _int(m, "m", "eye")
    return _const(np.eye(rows, cols, dtype=_np_dtype(dtype, np.float32)))


def diag(input):  # noqa: A002 - MindSpore's names
    """A tensor of rank 2k with ``input`` (rank k >= 1) on its diagonal: ``out[i..., i...] = input[i...]``
    (a vector becomes a diagonal matrix)."""
    x = _refuse(tensor_arg(input, "diag"), "diag", ("bool", "int8", "uint8"))
    if x.ndim == 0:
        raise ValueError("op 'diag': input must have rank >= 1, got a 0-d tensor")
    n = x.size
    flat = np.full((n, n), -1, np.int64)
    flat[np.arange(n), np.arange(n)] = np.arange(n)
    index = flat.reshape(tuple(x.shape) * 2)
    return _placed(x, index, index >= 0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Matrices whose diagonal at ``offset`` (in the planes of the new axes ``dim1``, ``dim2``) holds the
    last axis of ``input``; everything else is 0."""
    x = _refuse(tensor_arg(input, "diag_embed"), "diag_embed", ("bool",))
    offset = _int(offset, "offset", "diag_embed")
    nd = x.ndim + 1
    d1, d2 = (_int(d, "dim", "diag_embed") for d in (dim1, dim2))
    if not (-nd <= d1 < nd and -nd <= d2 < nd) or d1 % nd == d2 % nd:
        raise ValueError(f"op 'diag_embed': dim1 and dim2 must be two different axes of the rank-{nd} result, "
                         f"got {dim1} and {dim2}")
    d1, d2 = d1 % nd, d2 % nd
    last = x.shape[-1] if x.ndim else 1
    size = last + abs(offset)
    batch = tuple(x.shape[:-1])
    src = np.arange(int(np.prod(batch, dtype=np.int64)) * last, dtype=np.int64).reshape(batch + (last,))
    index = np.full(batch + (size, size), -1, np.int64)
    k = np.arange(last)
    rows, cols = (k, k + offset) if offset >= 0 else (k - offset, k)
    index[..., rows, cols] = src
    rest = [a for a in _brange(nd) if a not in (d1, d2)]
    perm = [0] * nd                     # axis j of the result comes from axis perm[j] of (batch..., d1, d2)
    for j, a in enumerate(rest):
        perm[a] = j
    perm[d1], perm[d2] = nd - 2, nd - 1
    index = np.transpose(index, perm)
    return _placed(x if x.ndim else F.reshape(x, (1,)), index, index >= 0)


def diagflat(input, offset=0):  # noqa: A002
    """The flattened ``input`` on the diagonal ``offset`` of a square matrix."""
    x = _refuse(tensor_arg(input, "diagflat"), "diagflat", ("bool", "int8", "uint8"))
    return diag_embed(F.reshape(x, (-1,)), _int(offset, "offset", "diagflat"))


def _tri_indices(row, col, offset, dtype, name, lower):
    r, c, k = (_int(v, w, name) for v, w in ((row, "row"), (col, "col"), (offset, "offset")))
    if r < 0 or c < 0:
        raise ValueError(f"op '{name}': row and col must be >= 0, got {r} and {c}")
    if dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"op '{name}': dtype must be int32 or int64, got {dtype}")
    idx = np.tril_indices(r, k, c) if lower else np.triu_indices(r, k, c)
    return _const(np.stack(idx).astype(_dt.to_numpy(dtype)).reshape(2, -1))


def tril_indices(row, col, offset=0, *, dtype=_dt.int64):
    """The (2, N) row and column indices of the lower triangle (below diagonal ``offset``) of a row x col matrix."""
    return _tri_indices(row, col, offset, dtype, "tril_indices", True)


def triu_indices(row, col, offset=0, *, dtype=_dt.int64):
    """The (2, N) row and column indices of the upper triangle (from diagonal ``offset``) of a row x col matrix."""
    return _tri_indices(row, col, offset, dtype, "triu_indices", False)


# ================================================================== ranges
def linspace(start, end, steps):
    """``steps`` evenly spaced float32 values from ``start`` to ``end`` inclusive."""
    lo, hi = _number(start, "linspace", "start"), _number(end, "linspace", "end")
    n = _int(steps, "steps", "linspace")
    if n < 1:
        raise ValueError(f"op 'linspace': steps must be >= 1, got {n}")
    return _const(np.linspace(lo, hi, n, dtype=np.float64).astype(np.float32))


def logspace(start, end, steps, base=10, *, dtype=_dt.float32):
    """``base ** linspace(start, end, steps)``; ``dtype`` float16, float32 or float64 (MindSpore asks for
    ``start`` and ``end`` as float tensors; plain numbers are taken too)."""
    lo, hi = _number(start, "logspace", "start"), _number(end, "logspace", "end")
    n = _int(steps, "steps", "logspace")
    if dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise TypeError(f"op 'logspace': dtype must be float16, float32 or float64, got {dtype}")
    if n < 0:
        raise ValueError(f"op 'logspace': steps must be >= 0, got {n}")
    return _const(np.power(float(base), np.linspace(lo, hi, n, dtype=np.float64)).astype(_dt.to_numpy(dtype)))


def range(start, end, step, maxlen=1000000):  # noqa: A001 - MindSpore's name
    """``start, start + step, ...`` up to ``end`` (excluded): int64 from integers (of any width, as in
    MindSpore), float32 from Python floats, a float tensor's dtype from float tensors."""
    vals = [_number(v, "range", w) for v, w in ((start, "start"), (end, "end"), (step, "step"))]
    dtypes = [v._data.dtype for v in (start, end, step) if isinstance(v, Tensor)]
    if step == 0 or vals[2] == 0:
        raise ValueError("op 'range': step must not be 0")
    if any(isinstance(v, float) for v in vals) or any(d.kind == "f" for d in dtypes):
        out = np.arange(*vals, dtype=np.float64).astype(dtypes[0] if dtypes and dtypes[0].kind == "f"
                                                       else np.float32)
        if dtypes and dtypes[0].kind == "f":    # float tensors: computed in their dtype, as MindSpore does
            out = (np.asarray(vals[0], dtypes[0]) + np.arange(out.size).astype(dtypes[0])
                   * np.asarray(vals[2], dtypes[0])).astype(dtypes[0])
    else:
        out = np.arange(*vals, dtype=np.int64)
    if out.size > maxlen:
        raise ValueError(f"op 'range': the result has {out.size} elements, more than maxlen={maxlen}")
    return _const(out)


def tensor_range(start, end, step):
    """``ops.range`` without a length limit (MindSpore's ``ops.tensor_range``)."""
    return range(start, end, step, maxlen=np.iinfo(np.int64).max)


# ================================================================== filled tensors
def fill(type, shape, value):  # noqa: A002 - MindSpore's names
    """A tensor of ``shape`` and dtype ``type`` filled with ``value``."""
    if isinstance(shape, Tensor):
        shape = tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"op 'fill': shape must be a tuple of ints, got {shape!r}")
    value = value.asnumpy() if isinstance(value, Tensor) else value
    return _const(np.full(tuple(shape), value, _dt.to_numpy(type)))


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    """A tensor of ``input``'s shape filled with ``fill_value``, of ``input``'s dtype unless ``dtype``
    (an integer dtype truncates a float value)."""
    x = tensor_arg(input, "full_like")
    value = fill_value.asnumpy() if isinstance(fill_value, Tensor) else fill_value
    return _const(np.full(x.shape, value, x._data.dtype if dtype is None else _dt.to_numpy(dtype)))


# ================================================================== grids and products
def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids of 1-D tensors (``indexing`` "xy": the first two axes swapped, as NumPy)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"op 'meshgrid': indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [tensor_arg(t, "meshgrid") for t in inputs]
    if len(xs) < 2:
        raise ValueError(f"op 'meshgrid': needs at least 2 tensors, got {len(xs)}")
    for t in xs:
        if t.ndim != 1:
            raise ValueError(f"op 'meshgrid': every input must be 1-D, got shape {list(t.shape)}")
        if t.dtype != xs[0].dtype:
            raise TypeError(f"op 'meshgrid': inputs must share one dtype, got {xs[0].dtype} and {t.dtype}")
    sizes = [t.shape[0] for t in xs]
    if indexing == "xy":
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(xs):
        axis = {0: 1, 1: 0}.get(i, i) if indexing == "xy" else i
        shape = [1] * len(xs)
        shape[axis] = t.shape[0]
        out.append(F.broadcast_to(F.reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


def cartesian_prod(*inputs):
    """The Cartesian product of 1-D tensors as an (N, k) tensor (one 1-D input comes back as is)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    xs = [tensor_arg(t, "cartesian_prod") for t in inputs]
    if len(xs) == 1:
        return xs[0]
    grids = meshgrid(*xs, indexing="ij")
    return F.stack([F.reshape(g, (-1,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The length-``r`` combinations of the 1-D ``input``'s elements, as an (N, r) tensor."""
    x = tensor_arg(input, "combinations")
    if x.ndim != 1:
        raise ValueError(f"op 'combinations': input must be 1-D, got shape {list(x.shape)}")
    r = _int(r, "r", "combinations")
    if r < 0:
        raise ValueError(f"op 'combinations': r must be >= 0, got {r}")
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(make(_brange(x.shape[0]), r)), np.int64).reshape(-1, r)
    if index.size == 0:
        return _const(np.zeros((0,) if r != 1 else (0, 1), x._data.dtype)) if r != 1 else F.reshape(x, (-1, 1))
    return _pick_flat(x, index)


__all__ = ["eye", "diag", "diag_embed", "diagflat", "tril_indices", "triu_indices", "linspace", "logspace",
           "range", "tensor_range", "fill", "full_like", "meshgrid", "cartesian_prod", "combinations"]
