"""Reductions with MindSpore's names: ``nansum``, ``nanmean``, ``median``, ``nanmedian``, ``var_mean``,
``std_mean``, ``aminmax``.

Built from existing ops (``where``, ``reduce_sum``, ``gather_elements`` ...) so gradients come from
theirs: NaNs pass no gradient, a median's gradient goes to the element it picked. Dtype rules are
MindSpore 2.10's: ``nansum`` keeps integer dtypes (bool sums to int64), ``nanmean``, ``var_mean`` and
``std_mean`` take float tensors, ``median``/``nanmedian`` return (values, int64 indices) and pick the
lower of the two middle values; ``median`` of a slice holding NaN is NaN (at the first NaN).

Example::

    ops.nansum(x, 1), ops.median(x, axis=0), var, mean = ops.var_mean(x, 1, ddof=1)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import normalize_axis, plain_axis, tensor_arg
from .elementwise_more import isnan, logical_not


def _float_input(x, name):
    t = tensor_arg(x, name)
    if t._data.dtype.kind != "f":
        raise TypeError(f"op '{name}': input must be a float16, float32 or float64 tensor, got {t.dtype}")
    return t


def _axes(name, axis, ndim):
    return normalize_axis(name, plain_axis(axis), ndim)


def _const(array):
    return Tensor._wrap(np.array(array, order="C"))


# ------------------------------------------------------------------ nansum / nanmean
def nansum(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002 - MindSpore's names
    """The sum over ``axis`` (None: all) with NaNs counted as 0; integer tensors keep their dtype, bool
    sums to int64; ``dtype`` casts first."""
    x = tensor_arg(input, "nansum")
    if dtype is not None:
        x = F.cast(x, dtype)
    if x._data.dtype == np.bool_:
        x = F.cast(x, _dt.int64)
    if x._data.dtype.kind == "f":
        x = F.where(isnan(x), F.zeros_like(x), x)
    return F.reduce_sum(x, _axes("nansum", axis, x.ndim), bool(keepdims))


def tensor_nansum(input, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None):  # noqa: A002
    """``Tensor.nansum(axis=None, keepdims=False, *, dtype=None)`` (``dim``/``keepdim`` accepted too)."""
    return nansum(input, axis if dim is None else dim, keepdims if keepdim is None else keepdim, dtype=dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The mean over ``axis`` of the values that are not NaN (NaN where there are none); float tensors,
    ``dtype`` casts the result."""
    x = _float_input(input, "nanmean")
    axes = _axes("nanmean", axis, x.ndim)
    nan = isnan(x)
    count = F.reduce_sum(F.cast(logical_not(nan), x.dtype), axes, bool(keepdims))
    total = F.reduce_sum(F.where(nan, F.zeros_like(x), x), axes, bool(keepdims))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = F.div(total, count)
    return out if dtype is None else F.cast(out, dtype)


# ------------------------------------------------------------------ median / nanmedian
def _median_index(arr, axis, skip_nan):
    """The index along ``axis`` of each slice's lower median (int64, axis kept)."""
    moved = np.moveaxis(arr, axis, -1)
    n = moved.shape[-1]
    order = np.argsort(moved, axis=-1, kind="stable")          # NaNs sort last
    nan = np.isnan(moved) if moved.dtype.kind == "f" else np.zeros(moved.shape, bool)
    n_nan = nan.sum(-1)
    if skip_nan:
        count = n - n_nan
        pos = np.where(count > 0, (count - 1) // 2, 0)
    else:
        pos = np.full(moved.shape[:-1], (n - 1) // 2)
    index = np.take_along_axis(order, pos[..., None], -1)[..., 0]
    if not skip_nan:                                           # a NaN in the slice: the first NaN
        first_nan = np.argmax(nan, axis=-1)
        index = np.where(n_nan > 0, first_nan, index)
    else:                                                      # only NaNs: the first one
        index = np.where(n - n_nan == 0, 0, index)
    return np.expand_dims(index.astype(np.int64), axis)


def _median(input, axis, keepdims, name, skip_nan):  # noqa: A002
    x = tensor_arg(input, name)
    if x._data.dtype == np.bool_:
        raise TypeError(f"op '{name}': input must be a number tensor, got Bool")
    if x.ndim == 0:
        return x, Tensor._wrap(np.zeros((), np.int64))
    (ax,) = normalize_axis(name, int(plain_axis(axis)), x.ndim)
    from ..array.sort_gather import gather_elements      # mscustom.ops, loaded by the time a function runs
    index = _median_index(x.asnumpy(), ax, skip_nan)     # (asnumpy: a graph capture runs this eagerly)
    values = gather_elements(x, ax, _const(index))
    if not keepdims:
        values, index = F.squeeze(values, ax), np.squeeze(index, ax)
    return values, _const(index)


def median(input, axis=-1, keepdims=False):  # noqa: A002
    """The lower median along ``axis`` and its index: a tuple (values, int64 indices). A slice holding
    NaN gives NaN (the index of its first NaN)."""
    return _median(input, axis, keepdims, "median", False)


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002
    """``median`` ignoring NaNs (NaN only where a slice is all NaN): a tuple (values, int64 indices)."""
    return _median(input, axis, keepdims, "nanmedian", True)


# ------------------------------------------------------------------ var_mean / std_mean / aminmax
def _var_mean(input, axis, ddof, keepdims, name):  # noqa: A002
    x = _float_input(input, name)
    axes = _axes(name, axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    mean_kept = F.reduce_mean(x, axes, True)
    sq = F.reduce_sum(F.square(F.sub(x, mean_kept)), axes, bool(keepdims))
    with np.errstate(divide="ignore", invalid="ignore"):
        var = F.div(sq, float(n - int(ddof)))
    return var, (mean_kept if keepdims else F.reduce_mean(x, axes, False))


def var_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """The variance (divided by ``N - ddof``) and the mean over ``axis`` (None: all): a tuple; float
    tensors."""
    return _var_mean(input, axis, ddof, keepdims, "var_mean")


def std_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """The standard deviation (``sqrt`` of ``var_mean``'s variance) and the mean: a tuple."""
    var, mean = _var_mean(input, axis, ddof, keepdims, "std_mean")
    return F.sqrt(var), mean


def aminmax(input, *, axis=0, keepdims=False):  # noqa: A002
    """The minimum and the maximum over ``axis`` (None: every element): a tuple (min, max)."""
    x = tensor_arg(input, "aminmax")
    axes = _axes("aminmax", axis, x.ndim)
    if axis is None and keepdims:
        return (F.reshape(F.reduce_min(x, axes, False), (1,) * x.ndim),
                F.reshape(F.reduce_max(x, axes, False), (1,) * x.ndim))
    return F.reduce_min(x, axes, bool(keepdims)), F.reduce_max(x, axes, bool(keepdims))


_METHODS = ["nanmean", "nanmedian", "median", "aminmax"]
__all__ = _METHODS + ["nansum", "var_mean", "std_mean"]

for _name in _METHODS:
    register_function(_name, globals()[_name], method=True)
del _name
register_function("tensor_nansum", tensor_nansum, method="nansum")
