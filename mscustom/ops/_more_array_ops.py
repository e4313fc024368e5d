"""Scans, products, sorting, gathers, padding, resizing, norms and boolean reductions with
MindSpore's names and defaults.

Every function here is either an op of the operator core (``defop``: a shape
and dtype rule, a NumPy kernel and a gradient built from ops) or a short
composition of such ops, so it differentiates under ``ms.grad`` and replays in
graph mode. Linear ops come in adjoint pairs (``pad``/``pad_grad``,
``gather_nd``/``scatter_nd_add``, ``resize``/``resize_grad``), each the
gradient of the other, so their gradients are differentiable again. Index
outputs (``sort``, ``topk``, ``argsort``) are int32 as in MindSpore; their
values' gradient scatters back through the indices.

Example::

    values, idx = ops.topk(x, 2)
    ops.pad(x, (1, 1), mode="reflect"); ops.cumsum(x, 1); ops.logsumexp(x, 1)
"""

import builtins as _bi
import functools

import numpy as np

from .. import dtype as _dt
from .._core.dispatch import call
from .._core.registry import register_function
from ..tensor import Tensor
from . import functional as F
from ._builtin import (NOATTR, axis_attr, defop, float_only, insert_axis, is_float, no_grad, normalize_axis,
                       same_shape, same_type, tensor_arg)


def _c(a):
    """``a`` as a C-contiguous array, 0-d arrays staying 0-d (``np.ascontiguousarray`` makes them 1-d)."""
    return np.asarray(a, order="C")


def _int_arg(name, what, v):
    if isinstance(v, Tensor) and v.size == 1 and v._data.dtype.kind in "iu":
        v = int(v.item())
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"op '{name}': {what} must be an int, got {v!r}")
    return int(v)


def _axis1(name, axis, ndim):
    """One axis, normalized; a 0-d tensor accepts 0 and -1 (its one implicit axis)."""
    axis = _int_arg(name, "axis", axis)
    if ndim == 0 and axis in (0, -1):
        return 0
    return normalize_axis(name, axis, ndim)[0]


# ================================================================== cumulative sums and products
def _scan_shape(name):
    def infer(attrs, shapes):
        if shapes[0]:
            normalize_axis(name, attrs["axis"], len(shapes[0]))
        return shapes, [list(shapes[0])]
    return infer


def _scan(x, axis, ufunc, exclusive, reverse):
    if x.ndim == 0:
        return x.copy() if not exclusive else np.full_like(x, ufunc.identity)
    if reverse:
        x = np.flip(x, axis)
    out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
    if exclusive:
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, -1)
        shifted = np.full_like(out, ufunc.identity)
        dst = [slice(None)] * x.ndim
        dst[axis] = slice(1, None)
        shifted[tuple(dst)] = out[tuple(idx)]
        out = shifted
    if reverse:
        out = np.flip(out, axis)
    return _c(out)


def _scan_type(name):
    def infer(attrs, dtypes):
        if dtypes[0].name == "bool":
            raise TypeError(f"op '{name}': input must be a number type, got bool")
        return dtypes, [dtypes[0]]
    return infer


def _cumsum_grad(ins, outs, g, a):
    if not is_float(ins[0]):
        return [None]
    return [call(_CUMSUM, (g[0],), {"axis": a["axis"], "exclusive": a["exclusive"], "reverse": not a["reverse"]})]


_CUMSUM = defop("cumsum", 1, lambda a, i: _scan(i[0], a["axis"], np.add, a["exclusive"], a["reverse"]),
                _scan_shape("cumsum"), _scan_type("cumsum"), _cumsum_grad,
                doc="running sums along an axis (exclusive / reverse as MindSpore's CumSum)", arg_names=("x",))


def _cumprod_grad_compute(attrs, ins):
    """d/dx_i of sum_j dy_j * y_j for y = cumprod(x): exact also where x has zeros (no division).

    In scan order, with P_i the product of the elements before i,
    grad_i = P_i * S_i where S_i = dy_i + x_{i+1} * S_{i+1} (an inclusive scan;
    an exclusive one starts the sum at dy_{i+1}).
    """
    x, g = ins
    axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]
    if x.ndim == 0:
        return np.zeros_like(x) if exclusive else g.copy()
    xm, gm = np.moveaxis(x, axis, 0), np.moveaxis(g, axis, 0)
    if reverse:
        xm, gm = xm[::-1], gm[::-1]
    n = xm.shape[0]
    before = np.ones_like(xm)
    if n > 1:
        before[1:] = np.multiply.accumulate(xm[:-1], axis=0)
    s = np.zeros_like(xm)
    acc = np.zeros_like(xm[0])
    for i in range(n - 1, -1, -1):
        nxt = acc * xm[i + 1] if i + 1 < n else acc
        acc = nxt + (gm[i + 1] if exclusive and i + 1 < n else 0 if exclusive else gm[i])
        s[i] = acc
    out = before * s
    if reverse:
        out = out[::-1]
    return _c(np.moveaxis(out, 0, axis))


_CUMPROD_GRAD = defop("cumprod_grad", 2, _cumprod_grad_compute, same_shape, same_type, None,
                      doc="the gradient of cumprod (exact where x has zeros; not differentiable again)",
                      arg_names=("x", "dy"))


def _cumprod_grad(ins, outs, g, a):
    if not is_float(ins[0]):
        return [None]
    return [call(_CUMPROD_GRAD, (ins[0], g[0]), a)]


_CUMPROD = defop("cumprod", 1, lambda a, i: _scan(i[0], a["axis"], np.multiply, a["exclusive"], a["reverse"]),
                 _scan_shape("cumprod"), _scan_type("cumprod"), _cumprod_grad,
                 doc="running products along an axis", arg_names=("x",))


def _scan_call(op, name, x, axis, dtype, exclusive=False, reverse=False):
    x = tensor_arg(x, name)
    if dtype is not None:
        x = F.cast(x, dtype)
    ax = _axis1(name, axis, x.ndim)
    return call(op, (x,), {"axis": ax, "exclusive": bool(exclusive), "reverse": bool(reverse)})


def scan(fname, x, axis, exclusive=False, reverse=False):
    """``cumsum`` / ``cumprod`` with MindSpore's CumSum/CumProd attributes ``exclusive`` and ``reverse``."""
    return _scan_call(_CUMSUM if fname == "cumsum" else _CUMPROD, fname, x, axis, None, exclusive, reverse)


def cumsum(x, axis, dtype=None):
    """Running sums of ``x`` along ``axis`` (cast to ``dtype`` first when given).

    Example::

        ops.cumsum(ms.Tensor([1, 2, 3]), 0)        # [1, 3, 6]
    """
    return _scan_call(_CUMSUM, "cumsum", x, axis, dtype)


def cumprod(input, dim, dtype=None):  # noqa: A002 - MindSpore's name
    """Running products of ``input`` along ``dim``; integers and bool multiply in int64 (MindSpore's
    ``ops.cumprod``; the ``CumProd`` primitive keeps the dtype). The gradient is exact also at zeros."""
    x = tensor_arg(input, "cumprod")
    if dtype is None and not is_float(x):
        dtype = _dt.int64
    return _scan_call(_CUMPROD, "cumprod", x, dim, dtype)


# ================================================================== products over axes
def _reduce_shape(name):
    def infer(attrs, shapes):
        src = shapes[0]
        axes = normalize_axis(name, attrs["axis"], len(src))
        if attrs["keep_dims"]:
            return shapes, [[1 if i in axes else s for i, s in enumerate(src)]]
        return shapes, [[s for i, s in enumerate(src) if i not in axes]]
    return infer


def _prod_type(attrs, dtypes):
    d = dtypes[0]
    return dtypes, [d if _dt.is_floating(d) else _dt.int64]


def _prod_compute(attrs, ins):
    x = ins[0]
    dtype = x.dtype if x.dtype.kind == "f" else np.int64
    return np.asarray(np.prod(x, axis=attrs["axis"], keepdims=attrs["keep_dims"], dtype=dtype))


def _prod_grad(ins, outs, g, a):
    """Product of every other element: exclusive cumprods from both ends (exact at zeros)."""
    x = ins[0]
    if not is_float(x):
        return [None]
    shape = x.shape
    axes = normalize_axis("reduce_prod", a["axis"], len(shape))
    rest = [i for i in range(len(shape)) if i not in axes]
    perm = tuple(rest + list(axes))
    xt = F.transpose(x, perm) if perm != tuple(range(len(shape))) else x
    lead = [shape[i] for i in rest]
    n = 1
    for i in axes:
        n *= shape[i]
    flat = F.reshape(xt, tuple(lead) + (n,))
    ax = len(lead)
    left = call(_CUMPROD, (flat,), {"axis": ax, "exclusive": True, "reverse": False})
    right = call(_CUMPROD, (flat,), {"axis": ax, "exclusive": True, "reverse": True})
    others = F.mul(left, right)
    gk = F.reshape(g[0], tuple(lead) + (1,))
    grad = F.reshape(F.mul(others, gk), tuple(shape[i] for i in perm))
    if perm != tuple(range(len(shape))):
        grad = F.transpose(grad, tuple(int(i) for i in np.argsort(perm)))
    return [grad]


_REDUCE_PROD = defop("reduce_prod", 1, _prod_compute, _reduce_shape("reduce_prod"), _prod_type, _prod_grad,
                     doc="product over axes (integers multiply in int64)", arg_names=("x",))


def prod(input, axis=None, keep_dims=False, dtype=None):  # noqa: A002 - MindSpore's names
    """Product over ``axis`` (None: every element); integer and bool tensors give int64.

    Example::

        ops.prod(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), 1)      # [2., 12.]
    """
    x = tensor_arg(input, "prod")
    if dtype is not None:
        x = F.cast(x, dtype)
    return call(_REDUCE_PROD, (x,), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def reduce_prod(x, axis=(), keep_dims=False):
    """``ops.ReduceProd``'s functional form: the product over ``axis`` (``()``: all axes)."""
    return prod(x, None if axis in ((), []) else axis, keep_dims)


# ================================================================== boolean reductions
def _bool_reduce(name, fn):
    return defop(name, 1, lambda a, i: np.asarray(fn(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
                 _reduce_shape(name), lambda a, d: (d, [_dt.bool_]), no_grad,
                 doc=f"{name.split('_')[1]} over axes (bool)", arg_names=("x",))


_REDUCE_ALL = _bool_reduce("reduce_all", np.all)
_REDUCE_ANY = _bool_reduce("reduce_any", np.any)


def all(input, axis=None, keep_dims=False):  # noqa: A001,A002 - MindSpore's names
    """True where every element over ``axis`` is non-zero (None or ``()``: all axes)."""
    return call(_REDUCE_ALL, (tensor_arg(input, "all"),), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def any(input, axis=None, keep_dims=False):  # noqa: A001,A002 - MindSpore's names
    """True where some element over ``axis`` is non-zero (None or ``()``: all axes)."""
    return call(_REDUCE_ANY, (tensor_arg(input, "any"),), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def count_nonzero(x, axis=(), keep_dims=False, dtype=_dt.int32):
    """The number of non-zero elements over ``axis`` (``()``: all axes), as ``dtype`` (int32)."""
    x = tensor_arg(x, "count_nonzero")
    nz = F.cast(F.not_equal(x, F.zeros_like(x)), _dt.int64)
    return F.cast(F.reduce_sum(nz, axis_attr(axis), keep_dims), dtype)


# ================================================================== statistics
def _count(shape, axis):
    n = 1
    for i in normalize_axis("var", axis, len(shape)):
        n *= shape[i]
    return n


def var(input, axis=None, ddof=0, keepdims=False):  # noqa: A002 - MindSpore's names
    """Variance over ``axis``: ``sum((x - mean)**2) / (n - ddof)``.

    Example::

        ops.var(ms.Tensor([1.0, 2.0, 3.0, 4.0]))       # 1.25
    """
    x = tensor_arg(input, "var")
    if not is_float(x):
        raise TypeError(f"op 'var': input must be a float tensor, got {x.dtype.name}")
    if isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer)):
        raise TypeError(f"op 'var': ddof must be an int, got {ddof!r}")
    axis = axis_attr(axis)
    centered = F.sub(x, F.reduce_mean(x, axis, True))
    n = _count(x.shape, axis)
    return F.div(F.reduce_sum(F.square(centered), axis, keepdims), float(_bi.max(n - ddof, 0)))


def std(input, axis=None, ddof=0, keepdims=False):  # noqa: A002 - MindSpore's names
    """Standard deviation over ``axis``: ``sqrt(var(input, axis, ddof))``."""
    return F.sqrt(var(input, axis, ddof, keepdims))


def logsumexp(input, dim, keepdim=False):  # noqa: A002 - MindSpore's names
    """``log(sum(exp(x), dim))``, computed without overflow; its gradient is ``softmax``."""
    x = tensor_arg(input, "logsumexp")
    if not is_float(x):
        raise TypeError(f"op 'logsumexp': input must be a float tensor, got {x.dtype.name}")
    dim = axis_attr(dim)
    m = F.stop_gradient(F.reduce_max(x, dim, True))
    out = F.add(F.log(F.reduce_sum(F.exp(F.sub(x, m)), dim, True)), m)
    return out if keepdim else F.squeeze(out, normalize_axis("logsumexp", dim, x.ndim))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - MindSpore's names
    """Vector and matrix norms as MindSpore's ``ops.norm``.

    ``dim`` an int (or ``ord`` given on a 1-D input): the vector ``ord``-norm
    (``None``/2, any p, ``inf``, ``-inf``, 0). ``dim`` None with ``ord`` None:
    the 2-norm of every element. A 2-D input with ``dim`` None (or a pair of
    dims) and ``ord`` in ``'fro'``, ``'nuc'``, ``1``, ``-1``, ``2``, ``-2``, ``inf``, ``-inf``: the
    matrix norm. The nuclear and spectral norms are not supported.
    """
    x = tensor_arg(A, "norm")
    if dtype is not None:
        x = F.cast(x, dtype)
    if not is_float(x):
        raise TypeError(f"op 'norm': input must be a float tensor, got {x.dtype.name}")
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
    matrix = (dim is not None and len(dim) == 2) or (dim is None and ord is not None and x.ndim == 2)
    if dim is None and ord is not None and x.ndim not in (1, 2):
        raise ValueError(f"op 'norm': with ord={ord!r} and dim=None the input must be 1-D or 2-D, got "
                         f"{x.ndim}-D")
    if ord == "fro" or (matrix and ord is None):
        return F.sqrt(F.reduce_sum(F.square(x), dim, keepdim))
    if matrix:
        rows, cols = normalize_axis("norm", dim if dim is not None else (0, 1), x.ndim) if dim is None else \
            tuple(d % x.ndim for d in dim)
        if ord in (1, -1):
            sums = F.reduce_sum(F.abs(x), rows, True)
            pick = F.reduce_max if ord == 1 else F.reduce_min
            out = pick(sums, cols, True)
        elif ord in (float("inf"), float("-inf")):
            sums = F.reduce_sum(F.abs(x), cols, True)
            pick = F.reduce_max if ord > 0 else F.reduce_min
            out = pick(sums, rows, True)
        elif ord in ("nuc", 2, -2):
            out = _svd_norm(x, rows, cols, ord)
        else:
            raise ValueError(f"op 'norm': the matrix norm ord={ord!r} is not supported; use 'fro', 'nuc', "
                             "1, -1, 2, -2, inf or -inf")
        return out if keepdim else F.squeeze(out, tuple(sorted((rows, cols))))
    p = 2 if ord is None else ord
    if isinstance(p, str):
        raise ValueError(f"op 'norm': ord={p!r} needs a matrix (2-D input or two dims)")
    return vector_norm(x, p, dim, keepdim)


def _svd_pick(s, kind):
    return s.sum(-1) if kind == "nuc" else s.max(-1) if kind == 2 else s.min(-1)


def _svd_norm_compute(attrs, ins):
    x = ins[0]
    return _c(_svd_pick(np.linalg.svd(x, compute_uv=False), attrs["ord"]).astype(x.dtype))


def _svd_norm_grad_compute(attrs, ins):
    """d norm / d x: U V^T (nuclear), or u v^T of the largest (2) / smallest (-2) singular value."""
    x, g = ins
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    kind = attrs["ord"]
    if kind == "nuc":
        d = u @ vh
    else:
        k = np.argmax(s, -1) if kind == 2 else np.argmin(s, -1)
        uk = np.take_along_axis(u, k[..., None, None], -1)
        vk = np.take_along_axis(vh, k[..., None, None], -2)
        d = uk @ vk
    return _c((d * g[..., None, None]).astype(x.dtype))


_SVD_NORM_GRAD = defop("svd_norm_grad", 2, _svd_norm_grad_compute, lambda a, s: (s, [list(s[0])]), same_type,
                       None, doc="the gradient of svd_norm (not differentiable again)", arg_names=("x", "dy"))
_SVD_NORM = defop("svd_norm", 1, _svd_norm_compute, lambda a, s: (s, [list(s[0][:-2])]),
                  float_only("norm", promote=False),
                  lambda ins, outs, g, a: [call(_SVD_NORM_GRAD, (ins[0], g[0]), a)],
                  doc="nuclear / spectral norm of the trailing matrices (from their singular values)",
                  arg_names=("x",))


def _svd_norm(x, rows, cols, kind):
    """The 'nuc', 2 or -2 norm over the matrix axes (rows, cols), kept as size-1 axes."""
    rest = [i for i in range(x.ndim) if i not in (rows, cols)]
    xt = F.transpose(x, tuple(rest) + (rows, cols))
    out = call(_SVD_NORM, (xt,), {"ord": kind})
    keep = [1 if i in (rows, cols) else x.shape[i] for i in range(x.ndim)]
    return F.reshape(out, tuple(keep))


def vector_norm(x, p, dim, keepdim):
    """The ``p``-norm of the elements over ``dim`` (None: all; a tuple: all of them together)."""
    a = F.abs(x)
    if p == float("inf"):
        return F.reduce_max(a, dim, keepdim)
    if p == float("-inf"):
        return F.reduce_min(a, dim, keepdim)
    if p == 0:
        return F.cast(F.reduce_sum(F.cast(F.not_equal(x, 0.0), x.dtype), dim, keepdim), x.dtype)
    if p == 1:
        return F.reduce_sum(a, dim, keepdim)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.square(x), dim, keepdim))
    return F.pow(F.reduce_sum(F.pow(a, float(p)), dim, keepdim), 1.0 / p)


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


# ================================================================== tile
def _tile_reps(attrs, ndim):
    reps = tuple(attrs["reps"])
    n = _bi.max(ndim, len(reps))
    return (1,) * (n - len(reps)) + reps, n


def _tile_shape(attrs, shapes):
    src = list(shapes[0])
    if _bi.any(r < 0 for r in attrs["reps"]):
        raise ValueError(f"op 'tile': dims must be non-negative, got {list(attrs['reps'])}")
    reps, n = _tile_reps(attrs, len(src))
    src = [1] * (n - len(src)) + src
    return shapes, [[s * r for s, r in zip(src, reps)]]


def _tile_grad(ins, outs, g, a):
    x = ins[0]
    if not is_float(x):
        return [None]
    reps, n = _tile_reps(a, x.ndim)
    src = (1,) * (n - x.ndim) + tuple(x.shape)
    split = []
    for r, s in zip(reps, src):
        split += [r, s]
    summed = F.reduce_sum(F.reshape(g[0], tuple(split)), tuple(range(0, 2 * n, 2)), False)
    return [F.reshape(summed, x.shape)]


_TILE = defop("tile", 1, lambda a, i: np.tile(i[0], a["reps"]), _tile_shape, same_type, _tile_grad,
              doc="repeat x along each axis (dims may be longer than the rank)", arg_names=("input",))


def tile(input, dims):  # noqa: A002 - MindSpore's names
    """``input`` repeated ``dims[i]`` times along axis ``i``; shorter ``dims`` are padded with 1 in front.

    Example::

        ops.tile(ms.Tensor([1.0, 2.0]), (2, 2))       # [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = tensor_arg(input, "tile")
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        dims = (int(dims),)
    if not isinstance(dims, (tuple, list)) or not _bi.all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                          for d in dims):
        raise TypeError(f"op 'tile': dims must be a tuple of ints, got {dims!r}")
    return call(_TILE, (x,), {"reps": tuple(int(d) for d in dims)})


# ================================================================== pad
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap",
              "edge": "edge"}             # "edge": MindSpore's other name for "replicate"
_OP_MODES = dict(_PAD_MODES, symmetric="symmetric")        # symmetric: MirrorPad's SYMMETRIC


def _pad_width(attrs, ndim):
    pads = attrs["pads"]
    width = [(0, 0)] * ndim
    for i in range(len(pads) // 2):
        width[ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    return width


def _pad_shape(attrs, shapes):
    src = list(shapes[0])
    pads = attrs["pads"]
    if len(pads) % 2 or len(pads) // 2 > len(src):
        raise ValueError(f"op 'pad': padding must hold an even number of values, at most 2 per dimension of "
                         f"the input (rank {len(src)}), got {list(pads)}")
    width = _pad_width(attrs, len(src))
    mode = attrs["mode"]
    for d, (lo, hi) in enumerate(width):
        if lo < 0 or hi < 0:
            raise ValueError(f"op 'pad': padding must be non-negative here, got {list(pads)}")
        if mode == "symmetric" and (lo > src[d] or hi > src[d]):
            raise ValueError(f"op 'pad': symmetric padding ({lo}, {hi}) must be at most the size of dim {d} "
                             f"({src[d]})")
        if mode == "reflect" and (lo >= src[d] or hi >= src[d]) and (lo or hi):
            raise ValueError(f"op 'pad': reflect padding ({lo}, {hi}) must be less than the size of dim {d} "
                             f"({src[d]})")
        if mode in ("replicate", "circular") and src[d] == 0 and (lo or hi):
            raise ValueError(f"op 'pad': {mode} padding of dim {d} needs a non-empty dim")
    return shapes, [[s + lo + hi for s, (lo, hi) in zip(src, width)]]


def _pad_compute(attrs, ins):
    x = ins[0]
    width = _pad_width(attrs, x.ndim)
    if attrs["mode"] == "constant":
        return np.pad(x, width, mode="constant", constant_values=x.dtype.type(attrs["value"]))
    return np.pad(x, width, mode=_OP_MODES[attrs["mode"]])


def _source_index(n, lo, hi, mode):
    """For each position of a padded axis, the input index it copies (-1: a constant)."""
    pos = np.arange(-lo, n + hi)
    if mode == "constant":
        return np.where((pos >= 0) & (pos < n), pos, -1)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    if mode == "circular":
        return np.mod(pos, n)
    if mode == "symmetric":                 # reflect repeating the edge
        m = np.mod(pos, 2 * n)
        return np.where(m < n, m, 2 * n - 1 - m)
    period = 2 * (n - 1)                    # reflect without repeating the edge
    if period == 0:
        return np.zeros_like(pos)
    m = np.mod(pos, period)
    return np.where(m < n, m, period - m)


def _pad_grad_compute(attrs, ins):
    g = ins[0]
    shape = attrs["shape"]
    width = _pad_width(attrs, len(shape))
    out = g
    for d, (lo, hi) in enumerate(width):
        if not lo and not hi:
            continue
        src = _source_index(shape[d], lo, hi, attrs["mode"])
        moved = np.moveaxis(out, d, 0)
        acc = np.zeros((shape[d],) + moved.shape[1:], g.dtype)
        keep = src >= 0
        np.add.at(acc, src[keep], moved[keep])
        out = np.moveaxis(acc, 0, d)
    return _c(out)


_PAD = defop("pad", 1, _pad_compute, _pad_shape, same_type,
             lambda ins, outs, g, a: [call(_PAD_GRAD, (g[0],), dict(a, shape=tuple(ins[0].shape)))
                                      if is_float(ins[0]) else None],
             doc="pad the trailing dims (constant, reflect, replicate, circular)", arg_names=("input_x",))
_PAD_GRAD = defop("pad_grad", 1, _pad_grad_compute, lambda a, s: (s, [list(a["shape"])]), same_type,
                  lambda ins, outs, g, a: [call(_PAD, (g[0],), {k: v for k, v in a.items() if k != "shape"})],
                  doc="the adjoint of pad: padded positions add into the entries they copy", arg_names=("dy",))


def pad_mode_op(x, pads, mode):
    """The pad op with flat ``pads`` (last dim first) in any of its modes, ``"symmetric"`` included."""
    return call(_PAD, (x,), {"pads": tuple(pads), "mode": mode, "value": 0})


def pad(input_x, padding, mode="constant", value=None):
    """Pad the trailing dimensions: ``padding = (left, right, top, bottom, ...)`` from the last dim backwards.

    ``mode``: ``"constant"`` (with ``value``, default 0), ``"reflect"``,
    ``"replicate"`` or ``"circular"``. Negative padding is not supported here.

    Example::

        ops.pad(x, (1, 1), mode="reflect")      # one reflected column on each side
    """
    x = tensor_arg(input_x, "pad")
    if mode not in _PAD_MODES:
        raise ValueError(f"op 'pad': mode must be one of {list(_PAD_MODES)}, got {mode!r}")
    mode = "replicate" if mode == "edge" else mode
    if isinstance(padding, Tensor):
        padding = tuple(int(v) for v in padding._data.reshape(-1))
    if not isinstance(padding, (tuple, list)) or not _bi.all(isinstance(p, (int, np.integer)) and
                                                             not isinstance(p, bool) for p in padding):
        raise TypeError(f"op 'pad': padding must be a tuple of ints, got {padding!r}")
    if value is not None and mode != "constant":
        raise ValueError(f"op 'pad': value is only used with mode='constant', got mode={mode!r}")
    if isinstance(value, Tensor):
        value = value.item()
    return call(_PAD, (x,), {"pads": tuple(int(p) for p in padding), "mode": mode,
                             "value": 0 if value is None else value})


# ================================================================== interpolate (nearest / linear)
@functools.lru_cache(maxsize=256)
def _resize_matrix(n_in, n_out, mode, align_corners):
    """The (n_out, n_in) matrix of one axis of a resize (rows: output positions)."""
    m = np.zeros((n_out, n_in), np.float64)
    j = np.arange(n_out)
    if mode == "nearest":
        if align_corners and n_out > 1:
            src = np.floor(j * (n_in - 1) / (n_out - 1) + 0.5).astype(np.int64)
        else:
            src = np.floor(j * (n_in / n_out)).astype(np.int64)
        m[j, np.minimum(src, n_in - 1)] = 1.0
        return m
    if mode == "linear_asym":               # ResizeBilinearV2's default: out j samples at j * in / out
        pos = np.minimum(j * (n_in / n_out), n_in - 1.0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        np.add.at(m, (j, lo), 1.0 - (pos - lo))
        np.add.at(m, (j, hi), pos - lo)
        return m
    if mode == "area":                      # adaptive average: the input cells each output covers
        for k in range(n_out):
            start, stop = (k * n_in) // n_out, -(-((k + 1) * n_in) // n_out)
            m[k, start:stop] = 1.0 / (stop - start)
        return m
    if align_corners:
        pos = j * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    else:
        pos = (j + 0.5) * (n_in / n_out) - 0.5
    if mode == "cubic":
        # MindSpore's bicubic kernel: cubic convolution with the fraction rounded to 1/1024 (a weight
        # table); pixel centres (align_corners False) use a = -0.5 and drop the taps outside the
        # input, renormalizing the rest; align_corners uses a = -0.75 with taps clamped to the border
        a = -0.75 if align_corners else -0.5
        base = np.floor(pos).astype(np.int64)
        t = np.rint((pos - base) * 1024) / 1024
        weights = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                   ((a + 2) * t - (a + 3)) * t * t + 1,
                   ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1]
        weights.append(1.0 - weights[0] - weights[1] - weights[2])
        taps = base[:, None] + np.arange(-1, 3)[None, :]
        w = np.stack(weights, 1)
        if not align_corners:
            w = w * ((taps >= 0) & (taps < n_in))
            w = w / w.sum(1, keepdims=True)
        for k in range(4):
            np.add.at(m, (j, np.clip(taps[:, k], 0, n_in - 1)), w[:, k])
        return m
    pos = np.maximum(pos, 0.0)
    lo = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = pos - lo
    np.add.at(m, (j, lo), 1.0 - frac)
    np.add.at(m, (j, hi), frac)
    return m


def _apply_axes(x, mats):
    """Multiply the trailing axes of ``x`` by one matrix each."""
    out = x
    nd = x.ndim
    for k, mat in enumerate(mats):
        axis = nd - len(mats) + k
        out = np.moveaxis(np.tensordot(mat.astype(x.dtype), out, axes=([1], [axis])), 0, axis)
    return _c(out)


def _resize_mats(attrs, in_sizes):
    return [_resize_matrix(n, o, attrs["mode"], attrs["align_corners"]) for n, o in zip(in_sizes, attrs["size"])]


def _resize_compute(attrs, ins):
    x = ins[0]
    k = len(attrs["size"])
    return _apply_axes(x, _resize_mats(attrs, x.shape[-k:]))


def _resize_grad_compute(attrs, ins):
    g = ins[0]
    k = len(attrs["size"])
    return _apply_axes(g, [m.T for m in _resize_mats(attrs, attrs["in_shape"][-k:])])


def _resize_shape(attrs, shapes):
    src = list(shapes[0])
    k = len(attrs["size"])
    return shapes, [src[:-k] + list(attrs["size"])]


_RESIZE = defop("resize", 1, _resize_compute, _resize_shape, float_only("resize", promote=False),
                lambda ins, outs, g, a: [call(_RESIZE_GRAD, (g[0],), dict(a, in_shape=tuple(ins[0].shape)))],
                doc="nearest / (bi)linear resize of the trailing spatial dims", arg_names=("input",))
_RESIZE_GRAD = defop("resize_grad", 1, _resize_grad_compute, lambda a, s: (s, [list(a["in_shape"])]),
                     float_only("resize_grad", promote=False),
                     lambda ins, outs, g, a: [call(_RESIZE, (g[0],), {k: v for k, v in a.items() if k != "in_shape"})],
                     doc="the adjoint of resize", arg_names=("dy",))

_INTERP_MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,),
                 "area": (3, 4, 5)}
_KERNEL_MODE = {"nearest": "nearest", "area": "area", "bicubic": "cubic"}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    """Resize the spatial dims of an (N, C, ...) tensor by ``size`` or ``scale_factor``.

    Modes ``"nearest"`` and ``"area"`` (3-, 4- or 5-D), ``"linear"`` (3-D),
    ``"bilinear"`` and ``"bicubic"`` (4-D), ``"trilinear"`` (5-D);
    ``align_corners`` as MindSpore (the default, False, samples at pixel
    centres). Every mode is a linear map per spatial axis, so the gradient is
    its transpose.
    """
    x = tensor_arg(input, "interpolate")
    if mode not in _INTERP_MODES:
        raise ValueError(f"op 'interpolate': mode must be one of {list(_INTERP_MODES)} here, got {mode!r}")
    if x.ndim not in _INTERP_MODES[mode]:
        raise ValueError(f"op 'interpolate': mode {mode!r} needs a {' or '.join(f'{d}-D' for d in _INTERP_MODES[mode])} "
                         f"input, got {x.ndim}-D")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(f"op 'interpolate': align_corners is only for the linear and cubic modes, not {mode!r}")
    k = x.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("op 'interpolate': give exactly one of size and scale_factor")
    if size is not None:
        size = (size,) * k if isinstance(size, int) else tuple(size)
    else:
        scale = (scale_factor,) * k if isinstance(scale_factor, (int, float)) else tuple(scale_factor)
        if len(scale) != k:
            raise ValueError(f"op 'interpolate': scale_factor needs {k} values, got {scale_factor!r}")
        size = tuple(int(np.floor(n * s)) for n, s in zip(x.shape[2:], scale))
    if len(size) != k or not _bi.all(isinstance(s, (int, np.integer)) and s > 0 for s in size):
        raise ValueError(f"op 'interpolate': size must be {k} positive ints, got {size!r}")
    if mode == "area" and k == 1 and x.shape[2] % size[0]:
        raise ValueError(f"op 'interpolate': mode 'area' on a 3-D input needs its length ({x.shape[2]}) to be "
                         f"divisible by the output size ({size[0]}), as MindSpore's adaptive_avg_pool1d")
    return call(_RESIZE, (x,), {"size": tuple(int(s) for s in size), "mode": _KERNEL_MODE.get(mode, "linear"),
                                "align_corners": bool(align_corners)})


def resize_bilinear(x, size, align_corners=False, half_pixel_centers=False):
    """``ops.ResizeBilinearV2``'s computation on the last two dims of a 4-D tensor."""
    x = tensor_arg(x, "ResizeBilinearV2")
    if align_corners and half_pixel_centers:
        raise ValueError("op 'ResizeBilinearV2': align_corners and half_pixel_centers cannot both be True")
    mode = "linear" if align_corners or half_pixel_centers else "linear_asym"
    return call(_RESIZE, (x,), {"size": tuple(int(s) for s in size), "mode": mode,
                                "align_corners": bool(align_corners)})


def resize_nearest_neighbor(x, size, align_corners=False):
    """``ops.ResizeNearestNeighbor``'s computation on the last two dims of a 4-D tensor."""
    x = tensor_arg(x, "ResizeNearestNeighbor")
    return call(_RESIZE, (x,), {"size": tuple(int(s) for s in size), "mode": "nearest",
                                "align_corners": bool(align_corners)})


# ================================================================== shapes and small helpers
def flatten(input, order="C", *, start_dim=1, end_dim=-1):  # noqa: A002 - MindSpore's names
    """Merge dims ``start_dim`` .. ``end_dim`` into one (default: all but the batch dim)."""
    x = tensor_arg(input, "flatten")
    if order not in ("C", "F"):
        raise ValueError(f"op 'flatten': order must be 'C' or 'F', got {order!r}")
    if x.ndim == 0:
        return F.reshape(x, (1,))
    s = _axis1("flatten", start_dim, x.ndim)
    e = _axis1("flatten", end_dim, x.ndim)
    if s > e:
        raise ValueError(f"op 'flatten': start_dim ({start_dim}) must not come after end_dim ({end_dim})")
    if order == "F":
        x = F.transpose(x)
        s, e = x.ndim - 1 - e, x.ndim - 1 - s
    shape = x.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return F.reshape(x, tuple(shape[:s]) + (n,) + tuple(shape[e + 1:]))


def shape(input_x):
    """The shape of ``input_x`` as a tuple of ints."""
    return tuple(tensor_arg(input_x, "shape").shape)


_DEPEND = defop("depend", 2, lambda a, i: i[0], lambda a, s: (s, [list(s[0])]), same_type,
                lambda ins, outs, g, a: [g[0] if is_float(ins[0]) else None, None],
                doc="value, after expr (the order is that of the program here)", arg_names=("value", "expr"))


def depend(value, expr):
    """``value`` itself; ``expr`` has already run (ops run in program order, eagerly and in replays)."""
    if not isinstance(expr, Tensor):
        return value
    return call(_DEPEND, (tensor_arg(value, "depend"), expr), NOATTR)


def masked_fill(input_x, mask, value):
    """``input_x`` with ``value`` where ``mask`` is True (``value`` a number or a 0-d tensor)."""
    x = tensor_arg(input_x, "masked_fill")
    mask = tensor_arg(mask, "masked_fill")
    if mask.dtype.name != "bool":
        raise TypeError(f"op 'masked_fill': mask must be a bool tensor, got {mask.dtype.name}")
    if isinstance(value, Tensor):
        value = F.cast(value, x.dtype)
    elif isinstance(value, (int, float, bool, np.number)):
        value = Tensor._wrap(np.asarray(value, x._data.dtype))
    else:
        raise TypeError(f"op 'masked_fill': value must be a number or a Tensor, got {type(value).__name__}")
    return F.where(mask, value, x)


def chunk(input, chunks, axis=0):  # noqa: A002 - MindSpore's names
    """Split into ``chunks`` pieces of ``ceil(n / chunks)`` along ``axis`` (fewer when they run out)."""
    x = tensor_arg(input, "chunk")
    chunks = _int_arg("chunk", "chunks", chunks)
    if chunks <= 0:
        raise ValueError(f"op 'chunk': chunks must be positive, got {chunks}")
    ax = _axis1("chunk", axis, x.ndim)
    n = x.shape[ax]
    size = _bi.max(-(-n // chunks), 1)
    from ._tensor_ops import split
    return split(x, size, ax)


def swapaxes(input, axis0, axis1):  # noqa: A002 - MindSpore's names
    """``input`` with two axes exchanged."""
    x = tensor_arg(input, "swapaxes")
    a = _axis1("swapaxes", axis0, x.ndim)
    b = _axis1("swapaxes", axis1, x.ndim)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return F.transpose(x, tuple(perm))


def unsqueeze(input, dim):  # noqa: A002 - MindSpore's names
    """``input`` with a new axis of size 1 at ``dim``."""
    x = tensor_arg(input, "unsqueeze")
    return F.expand_dims(x, insert_axis("unsqueeze", dim, x.ndim))


def permute(input, axis):  # noqa: A002 - MindSpore's names
    """``input`` with its axes in the order ``axis``."""
    return F.transpose(tensor_arg(input, "permute"), tuple(axis))


def addn(x):
    """The sum of a list or tuple of equally shaped tensors (MindSpore's ``ops.addn`` / ``AddN``)."""
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"op 'addn': x must be a non-empty list or tuple of tensors, got {type(x).__name__}")
    xs = [tensor_arg(t, "addn") for t in x]
    for t in xs[1:]:
        if t.shape != xs[0].shape:
            raise ValueError(f"op 'addn': all inputs need the same shape, got {[list(t.shape) for t in xs]}")
    out = xs[0]
    for t in xs[1:]:
        out = F.add(out, t)
    return out


__all__ = ["cumsum", "cumprod", "prod", "reduce_prod", "all", "any", "count_nonzero", "var", "std", "logsumexp",
           "norm", "sort", "argsort", "topk", "gather_elements", "gather_nd", "tile", "pad", "interpolate",
           "flatten", "shape", "depend", "masked_fill", "chunk", "swapaxes", "unsqueeze", "permute", "addn",
           "argmax_with_value", "argmin_with_value"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name

from ._tensor_ops import clamp, gather, split  # noqa: E402  (what Tensor.clamp / gather / split call)

for _fn in (clamp, gather, split):
    register_function(_fn.__name__, _fn)
del _fn
