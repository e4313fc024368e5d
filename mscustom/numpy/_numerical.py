"""Differences, interpolation, convolution, polynomials, covariance, integration, histograms.

Differences, ``interp``, ``convolve``, the polynomial functions, ``cov``, ``trapz`` and
``unwrap`` are compositions of ops (slicing, gathers with index arrays, reductions), so
gradients flow through them. Histograms and ``bincount`` count values: their bin edges depend
on the data, so they read it (no gradient, eager in graph mode); counts are float32, as in
mindspore.numpy.
"""

import builtins
import math

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ..tensor import Tensor
from . import _ufuncs as U
from ._manipulation import _promoted, concatenate, searchsorted
from ._utils import check_axis, const, is_scalar, to_float, to_tensor

__all__ = ["diff", "ediff1d", "gradient", "interp", "convolve", "correlate", "histogram",
           "histogram_bin_edges", "histogram2d", "histogramdd", "bincount", "digitize", "polyadd", "polysub",
           "polymul", "polyval", "polyder", "polyint", "cov", "corrcoef", "trapz", "unwrap"]


def _sl(ndim, axis, s):
    return (slice(None),) * axis + (s,) + (slice(None),) * (ndim - axis - 1)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis``: ``a[1:] - a[:-1]``, repeated."""
    x = to_tensor(a, name="diff")
    axis = check_axis(axis, x.ndim, "diff")
    def edge(extra):
        e = to_tensor(extra, name="diff")
        if e.ndim == 0:
            shape = list(x.shape)
            shape[axis] = 1
            e = F.broadcast_to(e, tuple(shape))
        return e

    parts = ([edge(prepend)] if prepend is not None else []) + [x] + ([edge(append)] if append is not None else [])
    if len(parts) > 1:
        x = concatenate(parts, axis)
    for _ in range(n):
        x = F.sub(x[_sl(x.ndim, axis, slice(1, None))], x[_sl(x.ndim, axis, slice(None, -1))])
    return x


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened ``ary``, with optional ends."""
    x = F.reshape(to_tensor(ary, name="ediff1d"), (-1,))
    d = F.sub(x[1:], x[:-1])
    parts = [F.reshape(to_tensor(to_begin, x.dtype), (-1,))] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(F.reshape(to_tensor(to_end, x.dtype), (-1,)))
    return concatenate(parts, 0) if len(parts) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided ones at the ends, along each axis (a list when more than
    one); ``varargs`` give the sample spacings (one, or one per axis): scalars, or 1-D coordinates
    (NumPy's second-order formula for uneven spacing)."""
    if edge_order != 1:
        raise NotImplementedError("op 'gradient': only edge_order=1 is supported")
    x = to_float(f, "gradient")
    axes = list(range(x.ndim)) if axis is None else [check_axis(a, x.ndim, "gradient") for a in
                                                     (axis if isinstance(axis, (list, tuple)) else (axis,))]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError(f"op 'gradient': {len(varargs)} spacings for {len(axes)} axes")
    out = []
    for ax, h in zip(axes, spacing):
        n = x.shape[ax]
        if n < 2:
            raise ValueError(f"op 'gradient': axis {ax} needs at least 2 elements, got {n}")
        if is_scalar(h) or (isinstance(h, Tensor) and h.ndim == 0):
            out.append(_uniform_gradient(x, ax, h))
        else:
            out.append(_coordinate_gradient(x, ax, to_float(h, "gradient")))
    return out[0] if len(out) == 1 else out


def _uniform_gradient(x, ax, h):
    """Central differences inside, one-sided at the ends, samples ``h`` apart."""
    n, nd = x.shape[ax], x.ndim
    first = F.sub(x[_sl(nd, ax, slice(1, 2))], x[_sl(nd, ax, slice(0, 1))])
    last = F.sub(x[_sl(nd, ax, slice(n - 1, n))], x[_sl(nd, ax, slice(n - 2, n - 1))])
    parts = [first]
    if n > 2:
        parts.append(F.div(F.sub(x[_sl(nd, ax, slice(2, None))], x[_sl(nd, ax, slice(None, -2))]), 2.0))
    parts.append(last)
    return F.div(F.concat(tuple(parts), ax), h if isinstance(h, Tensor) else float(h))


def _coordinate_gradient(x, ax, coords):
    """Second-order differences for samples at the 1-D ``coords`` (NumPy's non-uniform formula)."""
    n, nd = x.shape[ax], x.ndim
    if coords.ndim != 1 or coords.shape[0] != n:
        raise ValueError(f"op 'gradient': coordinates of shape {list(coords.shape)} do not match axis {ax} "
                         f"of length {n}")
    shape = [1] * nd
    shape[ax] = -1

    def col(t):
        return F.reshape(t, tuple(shape))

    dx = F.sub(coords[1:], coords[:-1])
    first = F.div(F.sub(x[_sl(nd, ax, slice(1, 2))], x[_sl(nd, ax, slice(0, 1))]), col(dx[:1]))
    last = F.div(F.sub(x[_sl(nd, ax, slice(n - 1, n))], x[_sl(nd, ax, slice(n - 2, n - 1))]), col(dx[n - 2:]))
    parts = [first]
    if n > 2:
        hs, hd = col(dx[:-1]), col(dx[1:])
        a = F.neg(F.div(hd, F.mul(hs, F.add(hs, hd))))
        b = F.div(F.sub(hd, hs), F.mul(hs, hd))
        c = F.div(hs, F.mul(hd, F.add(hs, hd)))
        parts.append(F.add(F.add(F.mul(a, x[_sl(nd, ax, slice(None, -2))]), F.mul(b, x[_sl(nd, ax, slice(1, -1))])),
                           F.mul(c, x[_sl(nd, ax, slice(2, None))])))
    parts.append(last)
    return F.concat(tuple(parts), ax)


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` (``xp`` increasing) at ``x``;
    ``left``/``right`` (default ``fp[0]``/``fp[-1]``) outside ``xp``."""
    x, xp, fp = to_float(x, "interp"), to_float(xp, "interp"), to_float(fp, "interp")
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape[0] != fp.shape[0] or xp.shape[0] == 0:
        raise ValueError(f"op 'interp': xp and fp must be 1-D of the same non-zero length, got "
                         f"{list(xp.shape)} and {list(fp.shape)}")
    n = xp.shape[0]
    if n == 1:
        val = F.broadcast_to(fp, tuple(x.shape)) if x.ndim else F.reshape(fp, ())
    else:
        hi = _ops.clamp(searchsorted(xp, x, "right"), 1, n - 1)
        lo = F.sub(hi, 1)
        x0, x1, f0, f1 = xp[lo], xp[hi], fp[lo], fp[hi]
        t = F.div(F.sub(x, x0), F.sub(x1, x0))
        val = F.add(f0, F.mul(t, F.sub(f1, f0)))
        val = F.where(F.equal(x, xp[n - 1]), F.broadcast_to(fp[n - 1], tuple(x.shape)), val)
    lv = fp[0] if left is None else F.cast(to_tensor(left), fp.dtype)
    rv = fp[n - 1] if right is None else F.cast(to_tensor(right), fp.dtype)
    val = F.where(F.less(x, xp[0]), F.broadcast_to(lv, tuple(x.shape)), val)
    return F.where(F.greater(x, xp[n - 1]), F.broadcast_to(rv, tuple(x.shape)), val)


def _conv_full(a, v):
    """The full discrete convolution of 1-D ``a`` and ``v`` (one kernel pass, see ``_ufuncs``)."""
    return U.convolve_full(a, v)


def _mode_slice(full, n, m, mode, name):
    if mode == "full":
        return full
    if mode == "same":
        start = (builtins.min(n, m) - 1) // 2
        return full[start:start + builtins.max(n, m)]
    if mode == "valid":
        return full[builtins.min(n, m) - 1:builtins.max(n, m)]
    raise ValueError(f"op '{name}': mode must be 'full', 'same' or 'valid', got {mode!r}")


def _1d_pair(a, v, name):
    a, v = _promoted([to_tensor(a, name=name), to_tensor(v, name=name)])
    if a.ndim != 1 or v.ndim != 1 or not a.shape[0] or not v.shape[0]:
        raise ValueError(f"op '{name}': inputs must be non-empty 1-D tensors, got {list(a.shape)} and "
                         f"{list(v.shape)}")
    return a, v


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D tensors ('full', 'same' or 'valid')."""
    a, v = _1d_pair(a, v, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _mode_slice(_conv_full(a, v), a.shape[0], v.shape[0], mode, "convolve")


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-D tensors: ``sum_n a[n + k] * v[n]`` ('valid', 'same', 'full')."""
    a, v = _1d_pair(a, v, "correlate")
    n, m = a.shape[0], v.shape[0]
    swap = m > n
    if swap:
        a, v = v, a
    out = _mode_slice(_conv_full(a, _ops.flip(v, (0,))), a.shape[0], v.shape[0], mode, "correlate")
    return _ops.flip(out, (0,)) if swap else out


# ------------------------------------------------------------------ counting
def _host(x, name):
    return to_tensor(x, name=name).asnumpy() if not isinstance(x, np.ndarray) else x


def _edges_arg(bins, name):
    return _host(bins, name) if isinstance(bins, (Tensor, list, tuple, np.ndarray)) else bins


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002 - NumPy's name
    """Counts of ``a`` in ``bins`` (a number of equal bins over ``range``, or the edges) and the edges;
    float32 both. No gradient."""
    data = _host(a, "histogram").ravel()
    w = None if weights is None else _host(weights, "histogram").ravel()
    edges_in = _edges_arg(bins, "histogram")
    hist, edges = np.histogram(data, edges_in, range, density=density, weights=w)
    # given edges keep their dtype (a list of ints: int32), computed ones are float32
    edge_dtype = to_tensor(bins).dtype.np_dtype if isinstance(edges_in, np.ndarray) else np.float32
    return const(hist.astype(np.float32)), const(edges.astype(edge_dtype))


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The bin edges ``histogram`` would use (float32)."""
    data = _host(a, "histogram_bin_edges").ravel()
    return const(np.histogram_bin_edges(data, _edges_arg(bins, "histogram_bin_edges"), range).astype(np.float32))


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """The 2-D histogram of the points ``(x, y)`` and its edges along x and y (float32). No gradient."""
    w = None if weights is None else _host(weights, "histogram2d")
    b = bins if isinstance(bins, (builtins.int, np.integer)) else [_edges_arg(e, "histogram2d") for e in bins] \
        if isinstance(bins, (list, tuple)) else _edges_arg(bins, "histogram2d")
    h, ex, ey = np.histogram2d(_host(x, "histogram2d"), _host(y, "histogram2d"), b, range, density, w)
    return const(h.astype(np.float32)), const(ex.astype(np.float32)), const(ey.astype(np.float32))


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """The D-dimensional histogram of ``sample`` (N points x D) and its edges per dimension (a list)."""
    w = None if weights is None else _host(weights, "histogramdd")
    b = bins if isinstance(bins, (builtins.int, np.integer)) else [
        e if isinstance(e, (builtins.int, np.integer)) else _edges_arg(e, "histogramdd") for e in bins]
    h, edges = np.histogramdd(_host(sample, "histogramdd"), b, range, density, w)
    return const(h.astype(np.float32)), [const(e.astype(np.float32)) for e in edges]


def bincount(x, weights=None, minlength=0, length=None):
    """Occurrences of each value of the non-negative int tensor ``x`` (weighted sums with ``weights``,
    differentiable in them); float32 as mindspore.numpy gives."""
    t = to_tensor(x, name="bincount")
    if t.ndim != 1 or t.dtype.np_dtype.kind not in "iu":
        raise TypeError(f"op 'bincount': x must be a 1-D integer tensor, got {t.dtype} of shape {list(t.shape)}")
    if length is None:
        vals = t.asnumpy()
        if vals.size and vals.min() < 0:
            raise ValueError("op 'bincount': x must be non-negative")
        length = builtins.max(builtins.int(vals.max()) + 1 if vals.size else 0, builtins.int(minlength))
    w = F.ones_like(F.cast(t, _dt.float32)) if weights is None else to_float(weights, "bincount")
    return U.bincount(t, w, length)


def digitize(x, bins, right=False):
    """The index of the bin of ``bins`` (monotonic, increasing or decreasing) each value falls into
    (int32)."""
    b = to_tensor(bins, name="digitize")
    if b.ndim != 1:
        raise ValueError(f"op 'digitize': bins must be 1-D, got shape {list(b.shape)}")
    n = b.shape[0]
    up = searchsorted(b, x, "left" if right else "right")
    if n < 2:
        return up
    # decreasing bins: count from the end of the reversed bins; chosen by comparing the end points,
    # so that graph mode records it without reading the bins
    down = F.sub(n, searchsorted(_ops.flip(b, (0,)), x, "left" if right else "right"))
    return F.where(F.greater_equal(b[n - 1], b[0]), up, down)


# ------------------------------------------------------------------ polynomials
def _poly(p, name):
    t = to_tensor(p, name=name)
    return F.reshape(t, (-1,)) if t.ndim == 0 else t


def _front_pad(p, n):
    if p.shape[0] == n:
        return p
    return F.concat((F.zeros_like(F.broadcast_to(p[:1], (n - p.shape[0],))), p), 0)


def polyadd(a1, a2):
    """The sum of two polynomials (coefficients, highest power first)."""
    a, b = _promoted([_poly(a1, "polyadd"), _poly(a2, "polyadd")])
    n = builtins.max(a.shape[0], b.shape[0])
    return F.add(_front_pad(a, n), _front_pad(b, n))


def polysub(a1, a2):
    """The difference of two polynomials (coefficients, highest power first)."""
    a, b = _promoted([_poly(a1, "polysub"), _poly(a2, "polysub")])
    n = builtins.max(a.shape[0], b.shape[0])
    return F.sub(_front_pad(a, n), _front_pad(b, n))


def polymul(a1, a2):
    """The product of two polynomials (coefficients, highest power first)."""
    return convolve(_poly(a1, "polymul"), _poly(a2, "polymul"))


def polyval(p, x):
    """The polynomial ``p`` evaluated at ``x`` (Horner's scheme; float32 for integer inputs)."""
    p = to_float(p, "polyval")
    x = to_float(x, "polyval")
    out = F.zeros_like(x)
    for i in builtins.range(p.shape[0]):
        out = F.add(F.mul(out, x), p[i])
    return out


def polyder(p, m=1):
    """The ``m``-th derivative of the polynomial ``p``."""
    if m < 0:
        raise ValueError(f"op 'polyder': m must be non-negative, got {m}")
    p = _poly(p, "polyder")
    for _ in builtins.range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return p[:0]                # a constant's derivative: no coefficients, as NumPy gives
        p = F.mul(p[:n], const(np.arange(n, 0, -1).astype(p.dtype.np_dtype)))
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of the polynomial ``p`` with integration constants ``k`` (float32 for
    integer inputs)."""
    if m < 0:
        raise ValueError(f"op 'polyint': m must be non-negative, got {m}")
    p = to_float(_poly(p, "polyint"), "polyint")
    if k is None:
        ks = [0.0] * m
    else:
        kv = np.ravel(k.asnumpy() if isinstance(k, Tensor) else np.asarray(k, dtype=np.float64))
        ks = list(kv) * m if kv.size == 1 else list(kv)
    if len(ks) != m:
        raise ValueError(f"op 'polyint': k must hold {m} constants, got {len(ks)}")
    for i in builtins.range(m):
        n = p.shape[0]
        p = F.div(p, const(np.arange(n, 0, -1).astype(p.dtype.np_dtype)))
        p = F.concat((p, F.cast(to_tensor(float(ks[i])).reshape((1,)), p.dtype)), 0)
    return p


# ------------------------------------------------------------------ statistics
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables in ``m`` (rows, or columns when ``rowvar`` is False),
    optionally joined by ``y``; frequency and/or analytic weights per observation."""
    x = to_float(m, "cov")
    if x.ndim > 2:
        raise ValueError(f"op 'cov': m must have at most 2 dimensions, got shape {list(x.shape)}")
    x = F.reshape(x, (1, -1)) if x.ndim < 2 else (x if rowvar else F.transpose(x, (1, 0)))
    if y is not None:
        yt = to_float(y, "cov")
        yt = F.reshape(yt, (1, -1)) if yt.ndim < 2 else (yt if rowvar else F.transpose(yt, (1, 0)))
        x = F.concat(tuple(_promoted([x, yt])), 0)
    if dtype is not None:
        x = F.cast(x, dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        fw = to_tensor(fweights, name="cov")
        if fw.dtype.np_dtype.kind not in "iu":
            raise TypeError("op 'cov': fweights must be integers")
        w = F.cast(fw, x.dtype)
    if aweights is not None:
        aw = F.cast(to_tensor(aweights, name="cov"), x.dtype)
        w = aw if w is None else F.mul(w, aw)
    if w is None:
        avg = F.mean(x, 1, True)
        fact = float(nobs - ddof)
        xc = F.sub(x, avg)
        c = F.div(F.matmul(xc, F.transpose(xc, (1, 0))), fact)
    else:
        wsum = F.sum(w, None, False)
        avg = F.div(F.sum(F.mul(x, w), 1, True), wsum)
        if ddof == 0:
            fact = wsum
        elif aweights is None:
            fact = F.sub(wsum, float(ddof))
        else:
            fact = F.sub(wsum, F.div(F.mul(F.sum(F.mul(w, aw), None, False), float(ddof)), wsum))
        xc = F.sub(x, avg)
        c = F.div(F.matmul(F.mul(xc, w), F.transpose(xc, (1, 0))), fact)
    return F.reshape(c, ()) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """The Pearson correlation coefficients of the variables (``cov`` normalised, clipped to [-1, 1])."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return F.div(c, c)
    d = _ops.diagonal(c, 0, 0, 1)
    sd = F.sqrt(d)
    out = F.div(F.div(c, F.reshape(sd, (-1, 1))), F.reshape(sd, (1, -1)))
    return _ops.clamp(out, -1.0, 1.0)


def trapz(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (samples at ``x``, or ``dx`` apart)."""
    yt = to_float(y, "trapz")
    axis = check_axis(axis, yt.ndim, "trapz")
    nd = yt.ndim
    avg = F.div(F.add(yt[_sl(nd, axis, slice(1, None))], yt[_sl(nd, axis, slice(None, -1))]), 2.0)
    if x is None:
        return F.mul(F.sum(avg, axis, False), dx)
    xt = to_float(x, "trapz")
    if xt.ndim == 1:
        d = F.sub(xt[1:], xt[:-1])
        shape = [1] * nd
        shape[axis] = d.shape[0]
        d = F.reshape(d, tuple(shape))
    else:
        d = diff(xt, axis=axis)
    return F.sum(F.mul(avg, d), axis, False)


def unwrap(p, discont=math.pi, axis=-1):
    """``p`` with jumps larger than ``discont`` along ``axis`` undone by multiples of 2*pi."""
    x = to_float(p, "unwrap")
    axis = check_axis(axis, x.ndim, "unwrap")
    nd = x.ndim
    dd = diff(x, axis=axis)
    ddmod = F.sub(_ops.remainder(F.add(dd, math.pi), 2 * math.pi), math.pi)
    ddmod = F.where(_ops.logical_and(F.equal(ddmod, -math.pi), F.greater(dd, 0.0)),
                    F.add(F.zeros_like(ddmod), math.pi), ddmod)
    correct = F.where(F.less(F.abs(dd), float(discont)), F.zeros_like(dd), F.sub(ddmod, dd))
    head = x[_sl(nd, axis, slice(0, 1))]
    tail = F.add(x[_sl(nd, axis, slice(1, None))], _ops.cumsum(correct, axis))
    return F.concat((head, tail), axis)
