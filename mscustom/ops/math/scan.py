"""Scans, products, boolean reductions, statistics and norms with MindSpore's names and defaults.

``cumsum``/``cumprod`` (with MindSpore's ``exclusive``/``reverse``), ``prod``,
``all``/``any``/``count_nonzero``, ``var``/``std``/``logsumexp`` and ``norm``
(vector norms; matrix ``'fro'``, ``'nuc'``, 1, -1, 2, -2, inf, -inf). The
gradients of ``prod`` and ``cumprod`` are exact where the input has zeros (no
division).

Example::

    ops.cumsum(x, 1); ops.prod(x, 0); ops.norm(x, "nuc"); ops.logsumexp(x, 1)
"""

import builtins as _bi

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ..._core.registry import register_function
from .. import functional as F
from .._builtin import (axis_attr, defop, float_only, is_float, no_grad, normalize_axis, same_shape,
                       same_type, tensor_arg)
from .._op_args import axis1 as _axis1, c_array as _c


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


__all__ = ["cumsum", "cumprod", "prod", "reduce_prod", "all", "any", "count_nonzero", "var", "std", "logsumexp", "norm"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
