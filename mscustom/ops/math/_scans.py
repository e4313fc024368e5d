"""Scans, differences and distances with MindSpore's names: ``cummax``, ``cummin``, ``logcumsumexp``,
``diff``, ``diff_ext``, ``trapz``, ``vecdot``, ``dist``, ``approximate_equal``.

``cummax``/``cummin`` return (values, indices) -- int64 indices for ``cummax`` and int32 for
``cummin``, as MindSpore 2.10 gives them -- with the later index on ties and NaN carried forward;
their values' gradient goes to the elements picked. ``logcumsumexp`` is an op with a NumPy kernel
and its own gradient; the others are built from existing ops.

Example::

    values, index = ops.cummax(x, 1); ops.diff(x, prepend=p); ops.trapz(y, x); ops.dist(a, b, 1)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, float_only, no_grad, normalize_axis, plain_axis, same_shape, tensor_arg
from ._rules import quiet, run


def _const(array):
    return Tensor._wrap(np.array(array, order="C"))


def _axis(name, axis, ndim):
    if isinstance(axis, bool) or not isinstance(plain_axis(axis), int):
        raise TypeError(f"op '{name}': axis must be an int, got {axis!r}")
    return normalize_axis(name, plain_axis(axis), max(ndim, 1))[0]


# ------------------------------------------------------------------ cummax / cummin
def _running_index(arr, axis, largest):
    """The index along ``axis`` of the running maximum (minimum): the later one on ties, NaN kept."""
    moved = np.moveaxis(arr, axis, -1)
    index = np.zeros(moved.shape, np.int64)
    if moved.shape[-1] == 0:
        return np.moveaxis(index, -1, axis)
    cur = moved[..., 0].copy()
    ci = np.zeros(cur.shape, np.int64)
    is_float = moved.dtype.kind == "f"
    for k in range(1, moved.shape[-1]):
        v = moved[..., k]
        with np.errstate(invalid="ignore"):
            take = (v >= cur) if largest else (v <= cur)
        if is_float:
            take = take | (np.isnan(v) & ~np.isnan(cur))
        cur = np.where(take, v, cur)
        ci = np.where(take, k, ci)
        index[..., k] = ci
    return np.moveaxis(index, -1, axis)


def _cumulative(input, axis, name, largest, index_dtype):  # noqa: A002
    from ..array.sort_gather import gather_elements      # mscustom.ops, loaded by the time a function runs
    x = tensor_arg(input, name)
    if x._data.dtype == np.bool_:
        raise TypeError(f"op '{name}': input must be a number tensor, got Bool")
    ax = _axis(name, axis, x.ndim)
    if x.ndim == 0:
        return x, _const(np.zeros((), index_dtype))
    index = _running_index(x.asnumpy(), ax, largest)      # (asnumpy: a graph capture runs this eagerly)
    return gather_elements(x, ax, _const(index)), _const(index.astype(index_dtype))


def cummax(input, axis):  # noqa: A002 - MindSpore's names
    """The running maximum along ``axis`` and where it was found: (values, int64 indices)."""
    return _cumulative(input, axis, "cummax", True, np.int64)


def cummin(input, axis):  # noqa: A002
    """The running minimum along ``axis`` and where it was found: (values, int32 indices)."""
    return _cumulative(input, axis, "cummin", False, np.int32)


# ------------------------------------------------------------------ logcumsumexp
def _lcse_kernel(a, i):
    x = i[0]
    work = x.astype(np.float32) if x.dtype == np.float16 else x
    return np.logaddexp.accumulate(work, axis=a["axis"]).astype(x.dtype, copy=False)


def _lcse_grad_kernel(a, i):
    # d out_j / d x_i = exp(x_i - out_j) for i <= j, so grad_i = sum_{j >= i} g_j exp(x_i - out_j). The sums
    # of the positive and the negative g_j exp(-out_j) are taken in log space (reverse logcumsumexp), so
    # neither exp(x_i) nor exp(-out_j) is formed: x_i <= out_j keeps every term at most |g_j|.
    g, x, out = (v.astype(np.float64) for v in i)
    ax = a["axis"]

    def rev_lcse(v):
        return np.flip(np.logaddexp.accumulate(np.flip(v, ax), axis=ax), ax)

    with np.errstate(divide="ignore"):
        pos = rev_lcse(np.log(np.maximum(g, 0)) - out)
        neg = rev_lcse(np.log(np.maximum(-g, 0)) - out)
    return (np.exp(x + pos) - np.exp(x + neg)).astype(i[1].dtype, copy=False)


_LCSE_GRAD = defop("logcumsumexp_grad", 3, quiet(_lcse_grad_kernel), lambda a, s: (s, [list(s[1])]),
                   lambda a, d: (d, [d[1]]), None, doc="the gradient of logcumsumexp",
                   arg_names=("dy", "x", "out"))
_LCSE = defop("logcumsumexp", 1, quiet(_lcse_kernel), same_shape, float_only("logcumsumexp"),
              lambda ins, outs, g, a: [run(_LCSE_GRAD, g[0], ins[0], outs[0], attrs=a)],
              doc="log(cumsum(exp(x))) along an axis, without overflow", arg_names=("input",))


def logcumsumexp(input, axis):  # noqa: A002
    """``log(cumsum(exp(input), axis))`` computed without overflow (float tensors)."""
    x = tensor_arg(input, "logcumsumexp")
    return run(_LCSE, x, attrs={"axis": _axis("logcumsumexp", axis, x.ndim)})


# ------------------------------------------------------------------ diff / trapz
def _slice(ndim, axis, part):
    index = [slice(None)] * ndim
    index[axis] = part
    return tuple(index)


def _diff(x, n, axis, prepend, append, name):
    from ..array.shape import concat               # mscustom.ops, loaded by the time a function runs
    x = tensor_arg(x, name)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"op '{name}': n must be a non-negative int, got {n!r}")
    if x.ndim == 0:
        raise ValueError(f"op '{name}': input must have at least 1 dimension, got a 0-d tensor")
    ax = _axis(name, axis, x.ndim)
    parts = [tensor_arg(p, name) for p in (prepend,) if p is not None] + [x] + \
            [tensor_arg(p, name) for p in (append,) if p is not None]
    if len(parts) > 1:
        x = concat(parts, ax)
    for _ in range(int(n)):
        hi, lo = F.getitem(x, _slice(x.ndim, ax, slice(1, None))), F.getitem(x, _slice(x.ndim, ax, slice(None, -1)))
        x = F.not_equal(hi, lo) if x._data.dtype == np.bool_ else F.sub(hi, lo)
    return x


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``axis`` (``x[i + 1] - x[i]``; bool tensors: ``!=``), after
    ``prepend``/``append`` are joined on that axis."""
    return _diff(x, n, axis, prepend, append, "diff")


def diff_ext(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """``diff`` with the names ``input`` and ``dim``."""
    return _diff(input, n, dim, prepend, append, "diff_ext")


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, with sample points ``x`` (a tensor of
    ``y``'s shape, or 1-D along ``dim``) or a spacing ``dx``; integer ``y`` computes in float32."""
    t = tensor_arg(y, "trapz")
    if t._data.dtype.kind != "f":
        t = F.cast(t, _dt.float32)
    ax = _axis("trapz", dim, t.ndim)
    mids = F.add(F.getitem(t, _slice(t.ndim, ax, slice(1, None))), F.getitem(t, _slice(t.ndim, ax, slice(None, -1))))
    if x is None:
        return F.mul(F.reduce_sum(mids, (ax,), False), float(dx) / 2.0)
    xs = tensor_arg(x, "trapz")
    if xs.ndim == 1 and t.ndim > 1:
        shape = [1] * t.ndim
        shape[ax] = xs.shape[0]
        xs = F.reshape(xs, tuple(shape))
    steps = _diff(xs, 1, ax, None, None, "trapz")
    return F.div(F.reduce_sum(F.mul(mids, steps), (ax,), False), 2.0)


# ------------------------------------------------------------------ vecdot / dist / approximate_equal
def vecdot(x, y, *, axis=-1):
    """The dot product of ``x`` and ``y`` along ``axis`` (broadcasting; ``conj(x)`` for complex);
    integer tensors sum to int64."""
    from .reduce import sum as sum_
    a, b = tensor_arg(x, "vecdot"), tensor_arg(y, "vecdot")
    if a._data.dtype.kind == "c":
        a = Tensor._wrap(np.conj(a.asnumpy()))
    prod = F.mul(a, b)
    return sum_(prod, _axis("vecdot", axis, prod.ndim))


def dist(input, other, p=2):  # noqa: A002
    """The ``p``-norm of ``input - other`` over every element (broadcasting): ``p`` 0 counts the
    differing elements, ``float('inf')`` takes the largest difference; float tensors."""
    a, b = tensor_arg(input, "dist"), tensor_arg(other, "dist")
    for t in (a, b):
        if t._data.dtype.kind != "f":
            raise TypeError(f"op 'dist': input and other must be float tensors, got {t.dtype}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        raise ValueError(f"op 'dist': p must be a number >= 0, got {p!r}")
    d = F.abs(F.sub(a, b))
    if p == 0:
        return F.reduce_sum(F.cast(F.not_equal(d, 0), d.dtype), None, False)
    if p == float("inf"):
        return F.reduce_max(d, None, False)
    if p == 1:
        return F.reduce_sum(d, None, False)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.square(d), None, False))
    return F.pow(F.reduce_sum(F.pow(d, float(p)), None, False), 1.0 / p)


def _approx_type(attrs, dtypes):
    for i, d in enumerate(dtypes):
        if not _dt.is_floating(d):
            raise TypeError(f"op 'approximate_equal': input {i} must be a float tensor, got {d.name}")
    return dtypes, [_dt.bool_]


_APPROX = defop("approximate_equal", 2,
                quiet(lambda a, i: np.abs(i[0].astype(np.float64) - i[1]) < a["tolerance"]),
                lambda a, s: (s, [list(np.broadcast_shapes(tuple(s[0]), tuple(s[1])))]), _approx_type, no_grad,
                doc="|x - y| < tolerance", arg_names=("x", "y"))


def approximate_equal(x, y, tolerance=1e-05):
    """``|x - y| < tolerance`` elementwise (float tensors; bool result)."""
    return run(_APPROX, tensor_arg(x, "approximate_equal"), tensor_arg(y, "approximate_equal"),
               attrs={"tolerance": float(tolerance)})


_METHODS = ["cummax", "cummin", "logcumsumexp", "diff", "approximate_equal"]
__all__ = _METHODS + ["diff_ext", "trapz", "vecdot", "dist"]

for _name in _METHODS:
    register_function(_name, globals()[_name], method=True)
del _name
