"""Reductions and scans: sums, means, extrema, spreads, cumulative sums, their NaN-ignoring forms.

All are compositions of ``mscustom.ops`` reductions, so gradients flow through them. ``axis=None``
reduces every axis (scans flatten first). mindspore.numpy's dtypes: ``sum`` of integers is int64,
``mean`` of integers keeps the integer dtype, ``argmax``/``argmin`` give int64, ``std``/``var`` of
integers compute in float32.
"""

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ._utils import axes_tuple, to_dtype, to_float, to_tensor

__all__ = ["sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var", "cumsum",
           "cumprod", "average", "ptp", "nansum", "nanmean", "nanmax", "nanmin", "nanstd", "nanvar",
           "nancumsum", "count_nonzero"]


def _axis(a, axis, name):
    """A reduction's axis as a tuple (None: every axis)."""
    if axis is None:
        return None
    return axes_tuple(axis, a.ndim, name)


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001 - NumPy's name
    """The sum over ``axis`` (all axes when None), plus ``initial`` when given."""
    x = to_tensor(a, name="sum")
    dtype = to_dtype(dtype, "sum")
    if dtype is not None:
        x = F.cast(x, dtype)
    out = F.sum(x, _axis(x, axis, "sum"), bool(keepdims))
    if initial is not None:
        out = F.add(out, initial)
    return out if dtype is None or out.dtype == dtype else F.cast(out, dtype)


def mean(a, axis=None, keepdims=False, dtype=None):
    """The arithmetic mean over ``axis`` (all axes when None)."""
    x = to_tensor(a, name="mean")
    dtype = to_dtype(dtype, "mean")
    if dtype is not None:
        x = F.cast(x, dtype)
    return F.mean(x, _axis(x, axis, "mean"), bool(keepdims))


def _extreme(fn, name, a, axis, keepdims, initial, where):
    x = to_tensor(a, name=name)
    if where is not True and where is not None:
        if initial is None:
            raise ValueError(f"op '{name}': a where mask needs an initial value")
        x = F.where(to_tensor(where, name=name), x, F.cast(to_tensor(initial), x.dtype))
    ax = _axis(x, axis, name)
    out = fn(x, ax, bool(keepdims))
    if initial is not None:
        out = (F.maximum if fn is F.amax else F.minimum)(out, initial)
    return out


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """The maximum over ``axis``; ``initial`` joins the compared values; ``where`` masks elements."""
    return _extreme(F.amax, "amax", a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """The minimum over ``axis``; ``initial`` joins the compared values; ``where`` masks elements."""
    return _extreme(F.amin, "amin", a, axis, keepdims, initial, where)


max = amax  # noqa: A001
min = amin  # noqa: A001


def _arg(fn, name, a, axis):
    x = to_tensor(a, name=name)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    return fn(x, axes_tuple(axis, x.ndim, name)[0])


def argmax(a, axis=None):
    """The index of the maximum over ``axis`` (of the flattened tensor when None); int64."""
    return _arg(_ops.argmax, "argmax", a, axis)


def argmin(a, axis=None):
    """The index of the minimum over ``axis`` (of the flattened tensor when None); int64."""
    return _arg(_ops.argmin, "argmin", a, axis)


def _var(x, axis, ddof, keepdims):
    mu = F.mean(x, axis, True)
    sq = F.square(F.sub(x, mu))
    n = int(np.prod([x.shape[i] for i in (axis if axis is not None else range(x.ndim))]))
    return F.div(F.sum(sq, axis, keepdims), float(n - ddof))


def var(x, axis=None, ddof=0, keepdims=False):
    """The variance over ``axis`` with ``ddof`` delta degrees of freedom."""
    t = to_float(x, "var")
    return _var(t, _axis(t, axis, "var"), ddof, bool(keepdims))


def std(x, axis=None, ddof=0, keepdims=False):
    """The standard deviation over ``axis`` with ``ddof`` delta degrees of freedom."""
    return F.sqrt(var(x, axis, ddof, keepdims))


def _scan(fn, name, a, axis, dtype):
    x = to_tensor(a, name=name)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    dtype = to_dtype(dtype, name)
    if dtype is not None:
        x = F.cast(x, dtype)
    out = fn(x, axes_tuple(axis, x.ndim, name)[0])
    return out if out.dtype == x.dtype else F.cast(out, x.dtype)     # integer scans keep their dtype


def cumsum(a, axis=None, dtype=None):
    """Cumulative sums along ``axis`` (of the flattened tensor when None)."""
    return _scan(_ops.cumsum, "cumsum", a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    """Cumulative products along ``axis`` (of the flattened tensor when None)."""
    return _scan(_ops.cumprod, "cumprod", a, axis, dtype)


def average(x, axis=None, weights=None, returned=False):
    """The (weighted) average over ``axis``; with ``returned``, also the sum of the weights."""
    t = to_tensor(x, name="average") if weights is None else to_float(x, "average")
    ax = _axis(t, axis, "average")
    if weights is None:                 # mindspore.numpy: an unweighted average of integers is an integer mean
        out = F.mean(t, ax, False)
        if returned:
            n = t.size if ax is None else int(np.prod([t.shape[i] for i in ax]))
            return out, F.cast(F.mul(F.ones_like(out), n), out.dtype)
        return out
    w = to_float(weights, "average")
    if w.shape != t.shape:
        if ax is None or len(ax) != 1 or w.ndim != 1 or w.shape[0] != t.shape[ax[0]]:
            raise ValueError(f"op 'average': weights of shape {list(w.shape)} do not fit input of shape "
                             f"{list(t.shape)} along axis {axis!r}")
        shape = [1] * t.ndim
        shape[ax[0]] = w.shape[0]
        w = F.reshape(w, tuple(shape))
    wsum = F.sum(F.broadcast_to(w, t.shape), ax, False)
    out = F.div(F.sum(F.mul(t, w), ax, False), wsum)
    return (out, wsum) if returned else out


def ptp(x, axis=None, keepdims=False):
    """The range (maximum - minimum) over ``axis``."""
    t = to_tensor(x, name="ptp")
    ax = _axis(t, axis, "ptp")
    return F.sub(F.amax(t, ax, bool(keepdims)), F.amin(t, ax, bool(keepdims)))


# ------------------------------------------------------------------ NaN-ignoring forms
def _nan_mask(t):
    return _ops.isnan(t) if _dt.is_floating(t.dtype) else None


def _filled(t, value):
    mask = _nan_mask(t)
    return t if mask is None else F.where(mask, F.cast(to_tensor(value), t.dtype), t), mask


def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum over ``axis`` with NaNs counted as zero."""
    t, _ = _filled(to_tensor(a, name="nansum"), 0.0)
    return sum(t, axis, dtype, keepdims)


def _count(t, mask, ax, keepdims):
    """The number of non-NaN elements over ``ax`` (in ``t``'s float dtype)."""
    ok = F.cast(_ops.logical_not(mask), t.dtype)
    return F.sum(ok, ax, keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """The mean over ``axis`` of the non-NaN elements."""
    t = to_float(a, "nanmean")
    if dtype is not None:
        t = F.cast(t, to_dtype(dtype, "nanmean"))
    filled, mask = _filled(t, 0.0)
    ax = _axis(t, axis, "nanmean")
    return F.div(F.sum(filled, ax, bool(keepdims)), _count(t, mask, ax, bool(keepdims)))


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The variance over ``axis`` of the non-NaN elements."""
    t = to_float(a, "nanvar")
    if dtype is not None:
        t = F.cast(t, to_dtype(dtype, "nanvar"))
    filled, mask = _filled(t, 0.0)
    ax = _axis(t, axis, "nanvar")
    n = _count(t, mask, ax, True)
    mu = F.div(F.sum(filled, ax, True), n)
    dev = F.where(mask, F.zeros_like(t), F.square(F.sub(t, mu)))
    out = F.div(F.sum(dev, ax, True), F.sub(n, float(ddof)))
    return out if keepdims else F.reshape(out, _reduced_shape(t.shape, ax))


def _reduced_shape(shape, ax):
    return tuple(s for i, s in enumerate(shape) if ax is not None and i not in ax)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The standard deviation over ``axis`` of the non-NaN elements."""
    return F.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """The maximum over ``axis`` ignoring NaNs (NaN where a slice holds only NaNs)."""
    t = to_tensor(a, dtype, "nanmax")
    filled, mask = _filled(t, -np.inf)
    return _nan_extreme(F.amax, filled, mask, t, axis, keepdims, "nanmax")


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """The minimum over ``axis`` ignoring NaNs (NaN where a slice holds only NaNs)."""
    t = to_tensor(a, dtype, "nanmin")
    filled, mask = _filled(t, np.inf)
    return _nan_extreme(F.amin, filled, mask, t, axis, keepdims, "nanmin")


def _nan_extreme(fn, filled, mask, t, axis, keepdims, name):
    ax = _axis(t, axis, name)
    out = fn(filled, ax, bool(keepdims))
    if mask is None:
        return out
    all_nan = _ops.all(mask, ax, bool(keepdims)) if ax is not None else _ops.all(mask)
    if keepdims and ax is None:
        all_nan = F.reshape(all_nan, out.shape)
    return F.where(all_nan, F.cast(to_tensor(np.nan), out.dtype), out)


def nancumsum(a, axis=None, dtype=None):
    """Cumulative sums along ``axis`` with NaNs counted as zero."""
    t, _ = _filled(to_tensor(a, name="nancumsum"), 0.0)
    return cumsum(t, axis, dtype)


def count_nonzero(x, axis=None, keepdims=False):
    """The number of non-zero elements over ``axis`` (int32)."""
    t = to_tensor(x, name="count_nonzero")
    nz = F.cast(F.not_equal(t, F.zeros_like(t)), _dt.int32)
    return F.sum(nz, _axis(t, axis, "count_nonzero"), bool(keepdims), dtype=_dt.int32)

