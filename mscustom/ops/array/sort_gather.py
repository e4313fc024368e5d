"""Sorting and gathering: ``sort``/``argsort``/``topk`` (int32 indices), ``argmax_with_value``/
``argmin_with_value`` (int64 indices), ``gather_elements``, ``gather_nd`` and ``gather`` with
``batch_dims``.

Each gather has its adjoint scatter-add as an op (``scatter_elements_add``,
``scatter_nd_add``, ``gather_batched_grad``), whose own gradient is the gather:
gradients of gradients work. The values of ``sort``/``topk`` and the extremes
send their gradient back through the indices (to the first extreme on ties).

Example::

    values, idx = ops.topk(x, 2); ops.gather_nd(x, ms.Tensor([[0, 1]]))
"""

import builtins as _bi

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ..._core.registry import register_function
from .. import functional as F
from .._builtin import (NOATTR, defop, is_float, normalize_axis, tensor_arg)
from .._op_args import axis1 as _axis1, c_array as _c, int_arg as _int_arg


# ================================================================== sort, topk, argsort
def _sort_compute(attrs, ins):
    x = ins[0]
    axis, descending, k = attrs["axis"], attrs["descending"], attrs["k"]
    key = x
    if descending:
        key = -x.astype(np.float64) if x.dtype.kind != "f" else -x
    if x.ndim == 0:
        return [x.copy(), np.zeros((), np.int32)]
    idx = np.argsort(key, axis=axis, kind="stable")
    if k is not None:
        sl = [slice(None)] * x.ndim
        sl[axis] = slice(0, k)
        idx = idx[tuple(sl)]
    return [_c(np.take_along_axis(x, idx, axis)), _c(idx.astype(np.int32))]


def _sort_shape(attrs, shapes):
    src = list(shapes[0])
    name = attrs.get("who", "sort")
    if src:
        ax = normalize_axis(name, attrs["axis"], len(src))[0]
        k = attrs["k"]
        if k is not None:
            if not 0 < k <= src[ax]:
                raise ValueError(f"op '{name}': k must be in (0, {src[ax]}] (the size of axis {ax}), got {k}")
            src[ax] = k
    return shapes, [src, list(src)]


def _sort_type(attrs, dtypes):
    return dtypes, [dtypes[0], _dt.int32]


def _sort_grad(ins, outs, g, a):
    x = ins[0]
    if not is_float(x):
        return [None]
    if x.ndim == 0:
        return [g[0]]
    return [scatter_elements_add(g[0], outs[1], x.shape, a["axis"])]


_SORT = defop("sort", 1, _sort_compute, _sort_shape, _sort_type, _sort_grad, num_outputs=2,
              doc="values sorted along an axis and their int32 indices (stable)", arg_names=("x",))


def sort(input_x, axis=-1, descending=False):
    """``(values, indices)`` sorted along ``axis``; ties keep their order; indices are int32.

    Example::

        ops.sort(ms.Tensor([3.0, 1.0, 2.0]))       # ([1., 2., 3.], [1, 2, 0])
    """
    x = tensor_arg(input_x, "sort")
    ax = _axis1("sort", axis, x.ndim)
    return call(_SORT, (x,), {"axis": ax, "descending": bool(descending), "k": None, "who": "sort"})


def argsort(input, axis=-1, descending=False):  # noqa: A002 - MindSpore's names
    """The int32 indices that sort ``input`` along ``axis`` (stable)."""
    return sort(input, axis, descending)[1]


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
    """The ``k`` largest (or smallest) values along ``dim`` (None: the last) and their int32 indices.

    Results are always sorted (``sorted=False`` is accepted and gives the same order).
    """
    x = tensor_arg(input, "topk")
    k = _int_arg("topk", "k", k)
    ax = _axis1("topk", -1 if dim is None else dim, x.ndim)
    return call(_SORT, (x,), {"axis": ax, "descending": bool(largest), "k": k, "who": "topk"})


# ================================================================== arg extremes with their values
def _argext_compute(which):
    pick = np.argmax if which == "max" else np.argmin

    def compute(attrs, ins):
        x = ins[0]
        ax, keep = attrs["axis"], attrs["keep_dims"]
        if x.ndim == 0:
            return [np.zeros((), np.int64), x.copy()]
        idx = np.expand_dims(pick(x, axis=ax), ax)
        val = np.take_along_axis(x, idx, ax)
        if not keep:
            idx, val = np.squeeze(idx, ax), np.squeeze(val, ax)
        return [_c(idx.astype(np.int64)), _c(val)]
    return compute


def _argext_shape(name):
    def infer(attrs, shapes):
        src = list(shapes[0])
        if not src:
            return shapes, [[], []]
        ax = normalize_axis(name, attrs["axis"], len(src))[0]
        if src[ax] == 0:
            raise ValueError(f"op '{name}': cannot reduce axis {ax} of size 0 (shape {src})")
        out = [1 if i == ax else s for i, s in enumerate(src)] if attrs["keep_dims"] else \
            [s for i, s in enumerate(src) if i != ax]
        return shapes, [out, list(out)]
    return infer


def _argext_grad(ins, outs, g, a):
    x = ins[0]
    if not is_float(x):
        return [None]
    if x.ndim == 0:
        return [g[1]]
    idx, gv = outs[0], g[1]
    if not a["keep_dims"]:
        idx, gv = F.expand_dims(idx, a["axis"]), F.expand_dims(gv, a["axis"])
    return [scatter_elements_add(gv, idx, x.shape, a["axis"])]


_ARGMAX_WV = defop("argmax_with_value", 1, _argext_compute("max"), _argext_shape("argmax_with_value"),
                   lambda a, d: (d, [_dt.int64, d[0]]), _argext_grad, num_outputs=2,
                   doc="(int64 index of the first maximum, maximum) along an axis", arg_names=("x",))
_ARGMIN_WV = defop("argmin_with_value", 1, _argext_compute("min"), _argext_shape("argmin_with_value"),
                   lambda a, d: (d, [_dt.int64, d[0]]), _argext_grad, num_outputs=2,
                   doc="(int64 index of the first minimum, minimum) along an axis", arg_names=("x",))


def _arg_extreme(op, x, axis, keep_dims, who):
    x = tensor_arg(x, who)
    if axis is None:
        flat = F.reshape(x, (-1,))
        idx, val = call(op, (flat,), {"axis": 0, "keep_dims": False})
        if keep_dims and x.ndim:
            ones = (1,) * x.ndim
            return F.reshape(idx, ones), F.reshape(val, ones)
        return idx, val
    return call(op, (x,), {"axis": _axis1(who, axis, x.ndim), "keep_dims": bool(keep_dims)})


def argmax_with_value(x, axis=0, keep_dims=False, who="argmax_with_value"):
    """``(index, value)`` of the first maximum along ``axis`` (None: every element); the index is int64.

    The gradient goes to the first maximum only (as MindSpore's ArgMaxWithValue).
    """
    return _arg_extreme(_ARGMAX_WV, x, axis, keep_dims, who)


def argmin_with_value(x, axis=0, keep_dims=False, who="argmin_with_value"):
    """``(index, value)`` of the first minimum along ``axis``; the index is int64."""
    return _arg_extreme(_ARGMIN_WV, x, axis, keep_dims, who)


# ================================================================== gather_elements and its adjoint
def _elements_type(name):
    def infer(attrs, dtypes):
        if not _dt.is_integral(dtypes[1]) or dtypes[1].name == "bool":
            raise TypeError(f"op '{name}': index must be an integer tensor, got {dtypes[1].name}")
        return dtypes, [dtypes[0]]
    return infer


def _check_elements(name, x_shape, idx, axis):
    size = x_shape[axis]
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx.min() if idx.min() < -size else idx.max()
        raise IndexError(f"op '{name}': index {int(bad)} is out of range for dim {axis} of size {size}")


def _gather_elements_shape(attrs, shapes):
    x, idx = shapes
    if len(x) != len(idx):
        raise ValueError(f"op 'gather_elements': index must have the rank of input ({len(x)}), got shape "
                         f"{list(idx)}")
    ax = normalize_axis("gather_elements", attrs["axis"], len(x))[0]
    for i, (a, b) in enumerate(zip(x, idx)):
        if i != ax and b > a:
            raise ValueError(f"op 'gather_elements': index shape {list(idx)} exceeds input shape {list(x)} "
                             f"in dim {i}")
    return shapes, [list(idx)]


def _gather_elements_compute(attrs, ins):
    x, idx = ins
    ax = attrs["axis"]
    _check_elements("gather_elements", x.shape, idx, ax)
    sub = tuple(slice(0, n) if i != ax else slice(None) for i, n in enumerate(idx.shape))
    return _c(np.take_along_axis(x[sub], idx.astype(np.int64), ax))


def _scatter_elements_compute(attrs, ins):
    g, idx = ins
    ax, shape = attrs["axis"], attrs["shape"]
    out = np.zeros(shape, g.dtype)
    grids = list(np.indices(idx.shape, sparse=True))
    grids[ax] = np.where(idx < 0, idx + shape[ax], idx)
    np.add.at(out, tuple(grids), g)
    return out


_GATHER_ELEMENTS = defop("gather_elements", 2, _gather_elements_compute, _gather_elements_shape,
                         _elements_type("gather_elements"),
                         lambda ins, outs, g, a: [scatter_elements_add(g[0], ins[1], ins[0].shape, a["axis"])
                                                  if is_float(ins[0]) else None, None],
                         doc="out[i][j] = x[index[i][j]][j] (along dim)", arg_names=("input", "index"))
_SCATTER_ELEMENTS = defop("scatter_elements_add", 2, _scatter_elements_compute,
                          lambda a, s: (s, [list(a["shape"])]), _elements_type("scatter_elements_add"),
                          lambda ins, outs, g, a: [call(_GATHER_ELEMENTS, (g[0], ins[1]), {"axis": a["axis"]}),
                                                   None],
                          doc="zeros of `shape` with g added at index along dim (gather_elements' adjoint)",
                          arg_names=("dy", "index"))


def scatter_elements_add(g, index, shape, axis):
    """Zeros of ``shape`` with ``g`` added at ``index`` along ``axis`` (the adjoint of gather_elements)."""
    return call(_SCATTER_ELEMENTS, (g, index), {"axis": axis, "shape": tuple(int(s) for s in shape)})


def gather_elements(input, dim, index):  # noqa: A002 - MindSpore's names
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on): MindSpore's ``gather_elements``."""
    x, idx = tensor_arg(input, "gather_elements"), tensor_arg(index, "gather_elements")
    return call(_GATHER_ELEMENTS, (x, idx), {"axis": _axis1("gather_elements", dim, x.ndim)})


# ================================================================== gather_nd and its adjoint
def _gather_nd_shape(attrs, shapes):
    x, idx = shapes
    if not idx or idx[-1] > len(x):
        raise ValueError(f"op 'gather_nd': the last dimension of indices ({idx[-1] if idx else 'none'}) must be "
                         f"at most the rank of input_x ({len(x)})")
    return shapes, [list(idx[:-1]) + list(x[idx[-1]:])]


def _nd_index(idx, shape, name):
    k = idx.shape[-1]
    parts = []
    for d in range(k):
        col = idx[..., d].astype(np.int64)
        if col.size and (col.min() < 0 or col.max() >= shape[d]):
            bad = col.min() if col.min() < 0 else col.max()
            raise IndexError(f"op '{name}': index {int(bad)} is out of range for dim {d} of size {shape[d]}")
        parts.append(col)
    return tuple(parts)


def _gather_nd_compute(attrs, ins):
    x, idx = ins
    return _c(x[_nd_index(idx, x.shape, "gather_nd")])


def _scatter_nd_compute(attrs, ins):
    g, idx = ins
    out = np.zeros(attrs["shape"], g.dtype)
    np.add.at(out, _nd_index(idx, attrs["shape"], "scatter_nd_add"), g)
    return out


_GATHER_ND = defop("gather_nd", 2, _gather_nd_compute, _gather_nd_shape, _elements_type("gather_nd"),
                   lambda ins, outs, g, a: [call(_SCATTER_ND, (g[0], ins[1]), {"shape": tuple(ins[0].shape)})
                                            if is_float(ins[0]) else None, None],
                   doc="slices of x at n-dimensional indices", arg_names=("input_x", "indices"))
_SCATTER_ND = defop("scatter_nd_add", 2, _scatter_nd_compute, lambda a, s: (s, [list(a["shape"])]),
                    _elements_type("scatter_nd_add"),
                    lambda ins, outs, g, a: [call(_GATHER_ND, (g[0], ins[1]), NOATTR), None],
                    doc="zeros of `shape` with updates added at n-dimensional indices (gather_nd's adjoint)",
                    arg_names=("updates", "indices"))


def gather_nd(input_x, indices):
    """``input_x[indices[..., 0], indices[..., 1], ...]``: the last axis of ``indices`` indexes the leading dims."""
    return call(_GATHER_ND, (tensor_arg(input_x, "gather_nd"), tensor_arg(indices, "gather_nd")), NOATTR)


# ================================================================== gather with batch dims
def _batched_shape(attrs, shapes):
    x, idx = shapes
    b, ax = attrs["batch_dims"], attrs["axis"]
    if list(x[:b]) != list(idx[:b]):
        raise ValueError(f"op 'gather': with batch_dims={b} the first {b} dims of input_params {list(x)} and "
                         f"input_indices {list(idx)} must match")
    return shapes, [list(x[:ax]) + list(idx[b:]) + list(x[ax + 1:])]


def _batched_compute(attrs, ins):
    x, idx = ins
    b, ax = attrs["batch_dims"], attrs["axis"]
    size = x.shape[ax]
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise IndexError(f"op 'gather': index {int(bad)} is out of range for an axis of size {size} "
                         f"(expected 0 <= index < {size})")
    bshape = x.shape[:b]
    xf = x.reshape((-1,) + x.shape[b:])
    jf = idx.reshape((-1,) + idx.shape[b:])
    outs = [np.take(xf[n], jf[n], axis=ax - b) for n in range(xf.shape[0])]
    tail = outs[0].shape if outs else tuple(x.shape[b:ax]) + tuple(idx.shape[b:]) + tuple(x.shape[ax + 1:])
    return _c(np.stack(outs).reshape(tuple(bshape) + tail) if outs else
                                np.zeros(tuple(bshape) + tail, x.dtype))


def _batched_grad_compute(attrs, ins):
    g, idx = ins
    b, ax, shape = attrs["batch_dims"], attrs["axis"], attrs["shape"]
    out = np.zeros(shape, g.dtype)
    of = out.reshape((-1,) + tuple(shape[b:]))
    jf = idx.reshape((-1,) + idx.shape[b:])
    gf = g.reshape((of.shape[0],) + g.shape[b:])
    k = jf.ndim - 1
    for n in range(of.shape[0]):
        dst = np.moveaxis(of[n], ax - b, 0)
        src = np.moveaxis(gf[n], tuple(range(ax - b, ax - b + k)), tuple(range(k))).reshape((-1,) + dst.shape[1:])
        np.add.at(dst, jf[n].reshape(-1), src)
    return out


_GATHER_BATCHED = defop("gather_batched", 2, _batched_compute, _batched_shape, _elements_type("gather"),
                        lambda ins, outs, g, a: [call(_GATHER_BATCHED_GRAD, (g[0], ins[1]),
                                                      dict(a, shape=tuple(ins[0].shape)))
                                                 if is_float(ins[0]) else None, None],
                        doc="gather along an axis with leading batch dims", arg_names=("input_params", "input_indices"))
_GATHER_BATCHED_GRAD = defop("gather_batched_grad", 2, _batched_grad_compute, lambda a, s: (s, [list(a["shape"])]),
                             _elements_type("gather_batched_grad"),
                             lambda ins, outs, g, a: [call(_GATHER_BATCHED, (g[0], ins[1]),
                                                           {"axis": a["axis"], "batch_dims": a["batch_dims"]}), None],
                             doc="scatter-add of a batched gather's gradient", arg_names=("dy", "indices"))


def gather_batched(params, indices, axis, batch_dims):
    """``ops.gather`` with ``batch_dims > 0``: one gather per batch entry."""
    x, idx = tensor_arg(params, "gather"), tensor_arg(indices, "gather")
    b = _int_arg("gather", "batch_dims", batch_dims)
    if b < 0:
        b += idx.ndim
    if not 0 <= b <= _bi.min(idx.ndim, x.ndim - 1):
        raise ValueError(f"op 'gather': batch_dims must be in [0, {_bi.min(idx.ndim, x.ndim - 1)}], got {batch_dims}")
    ax = _axis1("gather", axis, x.ndim)
    if ax < b:
        raise ValueError(f"op 'gather': axis ({ax}) must not be less than batch_dims ({b})")
    return call(_GATHER_BATCHED, (x, idx), {"axis": ax, "batch_dims": b})


__all__ = ["sort", "argsort", "topk", "gather_elements", "gather_nd", "argmax_with_value", "argmin_with_value"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
