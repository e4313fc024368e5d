"""Gathers and scatters with MindSpore 2.10's names: ``gather_d``, ``index_select``, ``index_add``,
``inplace_index_add``, ``index_fill``, ``scatter``, ``tensor_scatter_{add,sub,mul,div,max,min,update,
elements}``, ``scatter_{add,mul,div,max,min,update}`` and ``scatter_nd_{add,sub,mul,div,max,min,update}``
(in place, on a Parameter or Tensor), ``select_scatter``, ``slice_scatter``, ``diagonal_scatter``,
``unsorted_segment_{sum,max,min,prod}``.

Every scatter is reduced to one form: the flat positions in the result that each update element goes
to (worked out with NumPy from the indices, which carry no gradient). The result is then built from
differentiable ops -- ``where`` over a ``gather`` of the updates (last write wins), ``x + scatter_nd`` for
sums, and for products and extremes a reduction over a padded (positions x candidates) gather -- so
gradients reach both the input and the updates. Integer and bool tensors, which carry no gradient,
are reduced with NumPy's ``ufunc.at`` directly. The ``scatter_*`` / ``scatter_nd_*`` forms write the
result into their first argument (``ops.assign``: not differentiated, an effect in graph mode).

Example::

    ops.tensor_scatter_add(x, indices, updates); ops.index_fill(x, 1, index, 0.0)
"""

import numpy as np

from ...tensor import Tensor
from .. import functional as F
from .._builtin import normalize_axis, tensor_arg
from ._lazy import ops as _o


def _const(array):
    return Tensor._wrap(np.ascontiguousarray(array))


def _axis(name, axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"op '{name}': axis must be an int, got {axis!r}")
    return normalize_axis(name, int(axis), max(ndim, 1))[0]


def _index(value, name, what="indices"):
    t = tensor_arg(value, name)
    if t._data.dtype.kind not in "iu":
        raise TypeError(f"op '{name}': {what} must be an int32 or int64 tensor, got {t.dtype}")
    return t.asnumpy().astype(np.int64)


def _in_range(idx, size, name, dim, negative=False):
    lo = -size if negative else 0
    if idx.size and (idx.min() < lo or idx.max() >= size):
        bad = idx.min() if idx.min() < lo else idx.max()
        raise IndexError(f"op '{name}': index {int(bad)} is out of range for dimension {dim} of size {size}")
    return np.where(idx < 0, idx + size, idx)


def _updates(value, x, name, shape):
    """``value`` (a tensor or a number) as a tensor of ``x``'s dtype broadcast to ``shape``."""
    if isinstance(value, Tensor):
        if value.dtype != x.dtype:
            raise TypeError(f"op '{name}': updates must have the input's dtype {x.dtype}, got {value.dtype}")
        u = value
    else:
        u = Tensor._wrap(np.asarray(value, x._data.dtype))
    if tuple(u.shape) != tuple(shape):
        try:
            u = F.broadcast_to(u, tuple(shape))
        except ValueError:
            raise ValueError(f"op '{name}': updates of shape {list(u.shape)} do not fit the expected shape "
                             f"{list(shape)}") from None
    return u


# ================================================================== the one scatter form
_UFUNC = {"add": np.add, "sub": np.add, "mul": np.multiply, "div": np.multiply, "max": np.maximum,
          "min": np.minimum}


def _last_writer(pos, n):
    """For each of ``n`` flat positions, the index of the last update written there (-1: none)."""
    src = np.full(n, -1, np.int64)
    np.maximum.at(src, pos, np.arange(pos.size, dtype=np.int64))
    return src


def _scatter_flat(x, pos, upd, mode):
    """``x`` with the elements of ``upd`` combined into the flat positions ``pos`` (an int array of
    ``upd``'s shape) by ``mode``: update (last wins), add, sub, mul, div, max or min."""
    pos = np.asarray(pos, np.int64).reshape(-1)
    n = x.size
    if x._data.dtype.kind not in "f" or pos.size == 0:
        out = x.asnumpy().copy().reshape(-1)
        vals = upd.asnumpy().reshape(-1)
        if mode == "update":
            src = _last_writer(pos, n)
            hit = src >= 0
            out[hit] = vals[src[hit]]
        elif mode == "div":
            den = np.ones_like(out)
            np.multiply.at(den, pos, vals)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.trunc(out / den).astype(out.dtype) if out.dtype.kind in "iu" else out / den
        else:
            _UFUNC[mode].at(out, pos, -vals if mode == "sub" and vals.dtype.kind != "b" else vals)
        return _const(out.reshape(x.shape))
    flat_x, flat_u = F.reshape(x, (-1,)), F.reshape(upd, (-1,))
    if mode == "update":
        src = _last_writer(pos, n)
        hit = src >= 0
        picked = _o.gather(flat_u, _const(np.where(hit, src, 0)), 0)
        out = F.where(_const(hit), picked, flat_x)
    elif mode in ("add", "sub"):
        added = _o.scatter_nd(_const(pos.reshape(-1, 1)), flat_u, (n,))
        out = F.add(flat_x, added) if mode == "add" else F.sub(flat_x, added)
    else:
        counts = np.bincount(pos, minlength=n)
        width = int(counts.max()) if counts.size else 0
        order = np.argsort(pos, kind="stable")
        slot = np.arange(pos.size) - np.concatenate([[0], np.cumsum(counts)[:-1]])[pos[order]]
        pad = {"mul": 1, "div": 1, "max": -np.inf, "min": np.inf}[mode]
        table = np.full((n, width), pos.size, np.int64)         # pos.size: the padding constant
        table[pos[order], slot] = order
        cand = F.concat([flat_u, _const(np.asarray([pad], x._data.dtype))], 0)
        picked = _o.gather(cand, _const(table.reshape(-1)), 0)
        picked = F.reshape(picked, (n, width))
        if mode in ("max", "min"):
            both = F.concat([F.reshape(flat_x, (n, 1)), picked], 1)
            out = _o.amax(both, 1) if mode == "max" else _o.amin(both, 1)
        else:
            factor = _o.prod(picked, 1)
            out = F.mul(flat_x, factor) if mode == "mul" else F.div(flat_x, factor)
    return F.reshape(out, tuple(x.shape))


def _nd_positions(x, indices, name):
    """The flat positions of the slices ``x[indices[..., 0], indices[..., 1], ...]`` (shape
    ``indices.shape[:-1] + x.shape[k:]``)."""
    idx = _index(indices, name)
    if idx.ndim < 1 or not 1 <= idx.shape[-1] <= x.ndim:
        raise ValueError(f"op '{name}': the last dimension of indices must be between 1 and the input's rank "
                         f"{x.ndim}, got indices of shape {list(idx.shape)}")
    parts = tuple(_in_range(idx[..., d], x.shape[d], name, d) for d in range(idx.shape[-1]))
    return np.arange(x.size, dtype=np.int64).reshape(x.shape)[parts]


def _axis_positions(x, axis, index, name):
    """The flat positions ``x[..., index[i, j, ...], ...]`` of ``scatter`` along ``axis`` (index's shape)."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[axis] = _in_range(index, x.shape[axis], name, axis, negative=True)
    for d, n in enumerate(index.shape):
        if d != axis and n > x.shape[d]:
            raise ValueError(f"op '{name}': index shape {list(index.shape)} exceeds the input's shape "
                             f"{list(x.shape)} in dimension {d}")
    return np.arange(x.size, dtype=np.int64).reshape(x.shape)[tuple(grids)]


# ================================================================== tensor_scatter_* (new tensors)
def _tensor_scatter(mode, name):
    def fn(input_x, indices, updates):
        x = tensor_arg(input_x, name)
        if mode != "update" and x.dtype.name == "bool":
            raise TypeError(f"op '{name}': input_x must be a number tensor, got bool")
        pos = _nd_positions(x, indices, name)
        return _scatter_flat(x, pos, _updates(updates, x, name, pos.shape), mode)
    fn.__name__ = name
    fn.__doc__ = (f"A copy of ``input_x`` with ``updates`` {'written' if mode == 'update' else 'combined (' + mode + ')'}"
                  f" into the slices at the n-dimensional ``indices`` (last axis: coordinates).")
    return fn


tensor_scatter_add = _tensor_scatter("add", "tensor_scatter_add")
tensor_scatter_sub = _tensor_scatter("sub", "tensor_scatter_sub")
tensor_scatter_mul = _tensor_scatter("mul", "tensor_scatter_mul")
tensor_scatter_div = _tensor_scatter("div", "tensor_scatter_div")
tensor_scatter_max = _tensor_scatter("max", "tensor_scatter_max")
tensor_scatter_min = _tensor_scatter("min", "tensor_scatter_min")
tensor_scatter_update = _tensor_scatter("update", "tensor_scatter_update")


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """A copy of ``input_x`` with ``updates[i][j]`` written (``reduction`` "none") or added ("add") at
    ``[indices[i][j]][j]`` (for ``axis`` 0; and so on)."""
    name = "tensor_scatter_elements"
    x = tensor_arg(input_x, name)
    if reduction not in ("none", "add"):
        raise ValueError(f"op '{name}': reduction must be 'none' or 'add', got {reduction!r}")
    idx = _index(indices, name)
    if idx.ndim != x.ndim:
        raise ValueError(f"op '{name}': indices must have the input's rank {x.ndim}, got shape {list(idx.shape)}")
    pos = _axis_positions(x, _axis(name, axis, x.ndim), idx, name)
    return _scatter_flat(x, pos, _updates(updates, x, name, idx.shape), "update" if reduction == "none" else "add")


def scatter(input, axis, index, src):  # noqa: A002 - MindSpore's names
    """``tensor_scatter_elements(input, index, src, axis)``: ``src`` written along ``axis`` at ``index``."""
    return tensor_scatter_elements(input, index, src, axis)


# ================================================================== in place: scatter_* / scatter_nd_*
def _in_place(mode, name, nd):
    def fn(input_x, indices, updates, use_locking=False):
        x = tensor_arg(input_x, name)
        if nd:
            pos = _nd_positions(x, indices, name)
        else:                           # indices select along axis 0: updates are indices.shape + x.shape[1:]
            idx = _in_range(_index(indices, name), x.shape[0] if x.ndim else 0, name, 0)
            pos = np.arange(x.size, dtype=np.int64).reshape(x.shape)[idx]
        return _o.assign(x, _scatter_flat(x, pos, _updates(updates, x, name, pos.shape), mode))
    fn.__name__ = name
    where = "the n-dimensional ``indices``" if nd else "the rows ``indices`` of axis 0"
    fn.__doc__ = (f"``input_x`` with ``updates`` {'written' if mode == 'update' else 'combined (' + mode + ')'} "
                  f"at {where}, in place; returns ``input_x``.")
    if not nd:
        def fn3(input_x, indices, updates):
            return fn(input_x, indices, updates)
        fn3.__name__, fn3.__doc__ = name, fn.__doc__
        return fn3
    return fn


scatter_add = _in_place("add", "scatter_add", False)
scatter_mul = _in_place("mul", "scatter_mul", False)
scatter_div = _in_place("div", "scatter_div", False)
scatter_max = _in_place("max", "scatter_max", False)
scatter_min = _in_place("min", "scatter_min", False)
scatter_update = _in_place("update", "scatter_update", False)
scatter_nd_add = _in_place("add", "scatter_nd_add", True)
scatter_nd_sub = _in_place("sub", "scatter_nd_sub", True)
scatter_nd_mul = _in_place("mul", "scatter_nd_mul", True)
scatter_nd_div = _in_place("div", "scatter_nd_div", True)
scatter_nd_max = _in_place("max", "scatter_nd_max", True)
scatter_nd_min = _in_place("min", "scatter_nd_min", True)
scatter_nd_update = _in_place("update", "scatter_nd_update", True)


# ================================================================== along one axis
def gather_d(x, dim, index):
    """``gather_elements``: ``out[i][j] = x[index[i][j]][j]`` for ``dim`` 0 (and so on)."""
    return _o.gather_elements(x, dim, index)


def index_select(input, axis, index):  # noqa: A002
    """The slices of ``input`` along ``axis`` at the 1-D ``index``."""
    x = tensor_arg(input, "index_select")
    idx = _index(index, "index_select", "index")
    if idx.ndim != 1:
        raise ValueError(f"op 'index_select': index must be 1-D, got shape {list(idx.shape)}")
    ax = _axis("index_select", axis, x.ndim)
    return _o.gather(x, _const(_in_range(idx, x.shape[ax], "index_select", ax, negative=True)), ax)


def _along_positions(x, ax, idx, name):
    """The flat positions of the slices ``x[..., idx, ...]`` (``idx`` on ``ax``), shaped like
    ``x`` with ``ax`` of length ``len(idx)``."""
    idx = _in_range(idx, x.shape[ax], name, ax, negative=True)
    return np.take(np.arange(x.size, dtype=np.int64).reshape(x.shape), idx, ax)


def _index_add(x, indices, y, axis, name):
    t = tensor_arg(x, name)
    idx = _index(indices, name)
    if idx.ndim != 1:
        raise ValueError(f"op '{name}': indices must be 1-D, got shape {list(idx.shape)}")
    pos = _along_positions(t, _axis(name, axis, t.ndim), idx, name)
    return t, _scatter_flat(t, pos, _updates(y, t, name, pos.shape), "add")


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``x`` with the slices of ``y`` along ``axis`` added at the 1-D ``indices`` (repeats add). As in
    MindSpore, ``x`` (a Parameter) is updated in place; the sum comes back as a new tensor, through which
    gradients reach ``x`` and ``y``."""
    t, out = _index_add(x, indices, y, axis, "index_add")
    _o.assign(t, out)
    return out


def inplace_index_add(var, indices, updates, axis):
    """``var`` with ``updates`` added along ``axis`` at ``indices``, in place; returns ``var``."""
    t, out = _index_add(var, indices, updates, axis, "inplace_index_add")
    return _o.assign(t, out)


def index_fill(x, axis, index, value):
    """A copy of ``x`` with the slices along ``axis`` at ``index`` set to ``value`` (a number or 0-d tensor)."""
    t = tensor_arg(x, "index_fill")
    if t.dtype.name == "bool":
        raise TypeError("op 'index_fill': x must be a number tensor, got bool")
    idx = _index(index, "index_fill", "index").reshape(-1)
    if isinstance(value, Tensor) and value.ndim != 0:
        raise ValueError(f"op 'index_fill': value must be a number or a 0-d tensor, got shape {list(value.shape)}")
    pos = _along_positions(t, _axis("index_fill", axis, t.ndim), idx, "index_fill")
    v = value if isinstance(value, Tensor) and value.dtype == t.dtype else \
        Tensor._wrap(np.asarray(value.asnumpy() if isinstance(value, Tensor) else value, t._data.dtype))
    return _scatter_flat(t, pos, F.broadcast_to(v, pos.shape), "update")


def select_scatter(input, src, axis, index):  # noqa: A002
    """A copy of ``input`` with the slice at ``index`` along ``axis`` replaced by ``src``."""
    x = tensor_arg(input, "select_scatter")
    ax = _axis("select_scatter", axis, x.ndim)
    i = int(index)
    pos = np.take(np.arange(x.size, dtype=np.int64).reshape(x.shape),
                  _in_range(np.asarray(i), x.shape[ax], "select_scatter", ax, negative=True), ax)
    return _scatter_flat(x, pos, _updates(src, x, "select_scatter", pos.shape), "update")


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):  # noqa: A002
    """A copy of ``input`` with ``input[..., start:end:step, ...]`` (along ``axis``) replaced by ``src``."""
    x = tensor_arg(input, "slice_scatter")
    ax = _axis("slice_scatter", axis, x.ndim)
    sel = [slice(None)] * x.ndim
    sel[ax] = slice(start, end, step)
    pos = np.arange(x.size, dtype=np.int64).reshape(x.shape)[tuple(sel)]
    return _scatter_flat(x, pos, _updates(src, x, "slice_scatter", pos.shape), "update")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """A copy of ``input`` with its diagonal at ``offset`` of the axes ``dim1``, ``dim2`` replaced by ``src``
    (the diagonal as the last axis, as ``ops.diagonal`` returns it)."""
    x = tensor_arg(input, "diagonal_scatter")
    if x.dtype.name == "bool":
        raise TypeError("op 'diagonal_scatter': input must be a number tensor, got bool")
    d1, d2 = (_axis("diagonal_scatter", d, x.ndim) for d in (dim1, dim2))
    if d1 == d2:
        raise ValueError(f"op 'diagonal_scatter': dim1 and dim2 must differ, got {dim1} and {dim2}")
    pos = np.diagonal(np.arange(x.size, dtype=np.int64).reshape(x.shape), int(offset), d1, d2)
    return _scatter_flat(x, pos, _updates(src, x, "diagonal_scatter", pos.shape), "update")


# ================================================================== unsorted segments
def _segment(mode, name):
    def fn(x, segment_ids, num_segments):
        t = tensor_arg(x, name)
        if t.dtype.name == "bool":
            raise TypeError(f"op '{name}': x must be a number tensor, got bool")
        ids = _index(segment_ids, name, "segment_ids")
        n = int(num_segments.asnumpy()) if isinstance(num_segments, Tensor) else int(num_segments)
        if tuple(ids.shape) != tuple(t.shape[:ids.ndim]):
            raise ValueError(f"op '{name}': segment_ids of shape {list(ids.shape)} must match the leading "
                             f"dimensions of x {list(t.shape)}")
        inner = tuple(t.shape[ids.ndim:])
        if ids.size and ids.max() >= n:
            raise ValueError(f"op '{name}': segment_ids must be < num_segments ({n}), got {int(ids.max())}")
        keep = ids >= 0                                 # negative ids are dropped, as in MindSpore
        base = np.arange(n * int(np.prod(inner, dtype=np.int64)), dtype=np.int64).reshape((n,) + inner)
        pos = base[np.where(keep, ids, 0)]
        src = F.reshape(t, (-1,) + inner)
        if not keep.all():
            src = _o.gather(src, _const(np.flatnonzero(keep.reshape(-1))), 0)
            pos = pos.reshape((-1,) + inner)[keep.reshape(-1)]
        dt = t._data.dtype
        if mode == "max":                               # an empty segment: the dtype's lowest value
            init = np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min
        elif mode == "min":
            init = np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max
        else:
            init = 1 if mode == "mul" else 0
        start = _const(np.full((n,) + inner, init, dt))
        return _scatter_flat(start, pos, F.reshape(src, pos.shape), mode)
    fn.__name__ = name
    fn.__doc__ = f"The {mode} of the slices of ``x`` with each segment id in ``[0, num_segments)``."
    return fn


unsorted_segment_sum = _segment("add", "unsorted_segment_sum")
unsorted_segment_max = _segment("max", "unsorted_segment_max")
unsorted_segment_min = _segment("min", "unsorted_segment_min")
unsorted_segment_prod = _segment("mul", "unsorted_segment_prod")


__all__ = ["tensor_scatter_add", "tensor_scatter_sub", "tensor_scatter_mul", "tensor_scatter_div",
           "tensor_scatter_max", "tensor_scatter_min", "tensor_scatter_update", "tensor_scatter_elements",
           "scatter", "scatter_add", "scatter_mul", "scatter_div", "scatter_max", "scatter_min", "scatter_update",
           "scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div", "scatter_nd_max",
           "scatter_nd_min", "scatter_nd_update", "gather_d", "index_select", "index_add", "inplace_index_add",
           "index_fill", "select_scatter", "slice_scatter", "diagonal_scatter", "unsorted_segment_sum",
           "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"]
