"""Numba loops for convolution and pooling (NCHW, float32/float64): each does its work in one pass.

- ``im2col(x, cols, ...)``: the column matrix of every sample, ``cols`` shaped
  (N, C*kH*kW, oH*oW), padding read as zeros (no padded copy of ``x``);
- ``col2im(dcols, dx, ...)``: the transpose: ``dx`` (C-contiguous) zeroed, then
  every column entry added at its input position (padding positions skipped),
  in kernel-tap order per element as the NumPy reference adds its strided
  slices; for stride 1 and oW == W one contiguous add per tap (``_plane_add``,
  which overwrites ``dcols``' entries whose window lies in the padding with 0);
- ``im2col_batch``: the columns of the whole batch (or a chunk) as one matrix
  (C*kH*kW, N, oH*oW), the filter gradient's layout (one product per chunk);
- both im2col loops copy a tap's row as one contiguous run of the input plane
  shifted, when the stride is 1 and oW == W (a "same" 3x3 convolution), then
  zero the columns whose window lies in the padding (``_plane_rows``);
- ``to_channels_major(a, out)``: (N, C, P) to (C, N, P) (the output gradient
  as the filter gradient's product reads it);
- ``max_pool(x, out, idx, ...)``: the window maxima (NaN propagates, ties keep
  the earlier tap, as ``np.maximum`` tap by tap) and, per output, the flat
  ``h * W + w`` position of the window's first strict maximum, -1 where that is
  a padding position (padding never receives a gradient);
- ``max_pool_scatter(dy, idx, dx)``: ``dx`` zeroed, each ``dy`` added at its
  recorded position (no recomputation of the forward);
- ``max_pool_gather(g, idx, out)``: ``g`` read at the recorded positions (the
  gradient of the scatter, for second derivatives);
- ``avg_pool(x, div, out, ...)`` / ``avg_pool_back(dy, div, dx, ...)``: window
  sums divided by ``div`` (oH, oW), and each output gradient's share added over
  its window;
- ``bn_forward`` / ``bn_backward``: BatchNorm's training forward (batch mean,
  variance, normalized output) and backward (``dgamma``, ``dbeta``, ``dx``), each
  one call that sweeps a channel's values while they are in cache;
- ``bias_relu(y, b, a)``: ``y += b`` per channel of (N, C, P) and ``a = maximum(y, 0)``
  (a convolution with bias followed by ReLU, in graph replays).

Sums run in the arrays' dtype, starting from +0.0 (``zero``), without
fast-math: the results are the NumPy reference kernels' (``pool.py``,
``conv.py``) up to the order of additions where several windows overlap.
BatchNorm's float64 sums are the one exception: reassociation is allowed
in them alone, so they vectorise (see ``_REDUCE_FASTMATH``).
Compiled on first use and kept in Numba's disk cache.
"""

import numpy as np

from .. import _loop_loader
from ..graph_mode.loops import FLOATS, fits  # noqa: F401  (the loops' dtypes and operand check, shared)

__all__ = ["get", "fits"]

_LOOPS = {}


def _span(o_count, stride, offset, size):
    """The output positions ``[lo, hi)`` whose input position ``o * stride + offset`` lies in ``[0, size)``."""
    lo = 0
    if offset < 0:
        lo = (-offset + stride - 1) // stride
    hi = 0
    if size - 1 - offset >= 0:
        hi = (size - 1 - offset) // stride + 1
    if hi > o_count:
        hi = o_count
    if lo > hi:
        lo = hi
    return lo, hi


_span_py = _span


# Inner loops index with unsigned integers (``_U``): Numba then skips the wraparound check of a
# negative index, which otherwise costs about 3x here; every index is checked in range first.
_U = np.uint64


def _plane_rows(dst, xp, y_off, s0, ylo, yhi, xlo, xhi, oh, ow, w, zero):
    """One kernel tap's column row ``dst`` (oH*oW) from the input plane ``xp`` (H*W, flat) when the
    windows move one element per output (stride 1) and ``oW == W``: every output row then reads the
    input row ``y_off`` further down, so the in-range rows are one contiguous copy of the plane
    shifted by ``y_off * W + s0``; the columns outside ``[xlo, xhi)`` (which read a neighbouring
    row's ends) are then overwritten with zeros, and the rows outside ``[ylo, yhi)`` are zeros.
    Every read lies inside the plane: the first and last are in-range taps."""
    for q in range(ylo * ow):
        dst[_U(q)] = zero
    for q in range(yhi * ow, oh * ow):
        dst[_U(q)] = zero
    off = y_off * w + s0
    for q in range(ylo * ow + xlo, yhi * ow - (ow - xhi)):
        dst[_U(q)] = xp[_U(q + off)]
    for oy in range(ylo, yhi):
        base = oy * ow
        for ox in range(xlo):
            dst[_U(base + ox)] = zero
        for ox in range(xhi, ow):
            dst[_U(base + ox)] = zero


_plane_rows_py = _plane_rows


def _im2col(x, cols, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, zero):
    n, c, h, w = x.shape
    shifted = sh == 1 and sw == 1 and ow == w       # each tap's row: the plane shifted (_plane_rows)
    for b in range(n):
        for ch in range(c):
            xp = x[b, ch].ravel()
            for i in range(kh):
                ylo, yhi = _span(oh, sh, i * dh - pt, h)
                for j in range(kw):
                    dst = cols[b, (ch * kh + i) * kw + j]
                    xlo, xhi = _span(ow, sw, j * dw - pl, w)
                    if shifted and ylo < yhi and xlo < xhi:
                        _plane_rows(dst, xp, i * dh - pt, j * dw - pl, ylo, yhi, xlo, xhi, oh, ow, w, zero)
                        continue
                    for q in range(ylo * ow):
                        dst[_U(q)] = zero
                    for q in range(yhi * ow, oh * ow):
                        dst[_U(q)] = zero
                    s0 = j * dw - pl
                    for oy in range(ylo, yhi):
                        base = oy * ow
                        src = x[b, ch, oy * sh + i * dh - pt]
                        for ox in range(xlo):
                            dst[_U(base + ox)] = zero
                        for ox in range(xlo, xhi):
                            dst[_U(base + ox)] = src[_U(ox * sw + s0)]
                        for ox in range(xhi, ow):
                            dst[_U(base + ox)] = zero


def _plane_add(dst, src, y_off, s0, ylo, yhi, xlo, xhi, ow, w, zero):
    """The transpose of ``_plane_rows``: the tap's row ``src`` added into the plane ``dst`` (H*W,
    flat) as one contiguous run. The columns outside ``[xlo, xhi)`` would land on a neighbouring
    row's ends: they are set to +0.0 in ``src`` first, and adding +0.0 leaves every value's bits
    unchanged (the plane starts at +0.0, which no sum turns into -0.0), so each element still
    receives exactly its taps' values, in tap order."""
    for oy in range(ylo, yhi):
        base = oy * ow
        for ox in range(xlo):
            src[_U(base + ox)] = zero
        for ox in range(xhi, ow):
            src[_U(base + ox)] = zero
    off = y_off * w + s0
    for q in range(ylo * ow + xlo, yhi * ow - (ow - xhi)):
        k = _U(q + off)
        dst[k] = dst[k] + src[_U(q)]


_plane_add_py = _plane_add


def _col2im(dcols, dx, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, zero):
    n, c, h, w = dx.shape
    shifted = sh == 1 and sw == 1 and ow == w       # each tap's row: one contiguous add (_plane_add)
    for b in range(n):
        for ch in range(c):
            plane = dx[b, ch]
            for y in range(h):
                for xx in range(w):
                    plane[_U(y), _U(xx)] = zero
            flat = plane.reshape(h * w)       # a view (dx is C-contiguous); never a copy
            for i in range(kh):
                ylo, yhi = _span(oh, sh, i * dh - pt, h)
                for j in range(kw):
                    src = dcols[b, (ch * kh + i) * kw + j]
                    xlo, xhi = _span(ow, sw, j * dw - pl, w)
                    s0 = j * dw - pl
                    if shifted and ylo < yhi and xlo < xhi:
                        _plane_add(flat, src, i * dh - pt, s0, ylo, yhi, xlo, xhi, ow, w, zero)
                        continue
                    for oy in range(ylo, yhi):
                        dst = plane[oy * sh + i * dh - pt]
                        base = oy * ow
                        for ox in range(xlo, xhi):
                            k = _U(ox * sw + s0)
                            dst[k] = dst[k] + src[_U(base + ox)]


def _im2col_batch(x, cols, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, zero):
    """``_im2col`` into the whole batch's matrix: ``cols`` (C*kH*kW, N, oH*oW), one row per kernel tap.
    Sample by sample within a channel, so each input plane stays in cache across its taps."""
    n, c, h, w = x.shape
    shifted = sh == 1 and sw == 1 and ow == w
    for ch in range(c):
        for b in range(n):
            xp = x[b, ch].ravel()
            for i in range(kh):
                ylo, yhi = _span(oh, sh, i * dh - pt, h)
                for j in range(kw):
                    dst = cols[(ch * kh + i) * kw + j, b]
                    xlo, xhi = _span(ow, sw, j * dw - pl, w)
                    s0 = j * dw - pl
                    if shifted and ylo < yhi and xlo < xhi:
                        _plane_rows(dst, xp, i * dh - pt, s0, ylo, yhi, xlo, xhi, oh, ow, w, zero)
                        continue
                    for q in range(ylo * ow):
                        dst[_U(q)] = zero
                    for q in range(yhi * ow, oh * ow):
                        dst[_U(q)] = zero
                    for oy in range(ylo, yhi):
                        base = oy * ow
                        src = x[b, ch, oy * sh + i * dh - pt]
                        for ox in range(xlo):
                            dst[_U(base + ox)] = zero
                        for ox in range(xlo, xhi):
                            dst[_U(base + ox)] = src[_U(ox * sw + s0)]
                        for ox in range(xhi, ow):
                            dst[_U(base + ox)] = zero


def _to_channels_major(a, out):
    """``out[c, n, p] = a[n, c, p]``: an (N, C, P) array as (C, N, P), the output gradient's matrix."""
    n, c, p = a.shape
    for b in range(n):
        for ch in range(c):
            s = a[b, ch]
            d = out[ch, b]
            for q in range(p):
                d[_U(q)] = s[_U(q)]


def _max_pool(x, out, idx, kh, kw, sh, sw, pt, pl, ninf):
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    ylo, yhi = _span(oh, sh, -pt, h - kh + 1)         # outputs whose whole window lies inside
    xlo, xhi = _span(ow, sw, -pl, w - kw + 1)
    for b in range(n):
        for ch in range(c):
            plane = x[b, ch]
            o = out[b, ch]
            ix = idx[b, ch]
            for oy in range(oh):
                y0 = oy * sh - pt
                inside_y = ylo <= oy < yhi
                for ox in range(ow):
                    x0 = ox * sw - pl
                    if inside_y and xlo <= ox < xhi:
                        m = plane[_U(y0), _U(x0)]
                        best = m
                        k = y0 * w + x0
                        for i in range(kh):
                            row = plane[_U(y0 + i)]
                            for j in range(kw):
                                v = row[_U(x0 + j)]
                                if v > best:
                                    best = v
                                    k = (y0 + i) * w + x0 + j
                                if not (m >= v or m != m):      # np.maximum(m, v): NaN wins, ties keep m
                                    m = v
                    else:
                        m = ninf
                        best = ninf
                        k = -1
                        for i in range(kh):
                            y = y0 + i
                            for j in range(kw):
                                xx = x0 + j
                                if 0 <= y < h and 0 <= xx < w:
                                    v = plane[_U(y), _U(xx)]
                                    pos = y * w + xx
                                else:
                                    v = ninf
                                    pos = -1
                                if i == 0 and j == 0:
                                    m = v
                                    best = v
                                    k = pos
                                    continue
                                if v > best:
                                    best = v
                                    k = pos
                                if not (m >= v or m != m):
                                    m = v
                    o[_U(oy), _U(ox)] = m
                    ix[_U(oy), _U(ox)] = k


def _max_pool_scatter(dy, idx, dx, zero):
    n, c, h, w = dx.shape
    oh, ow = dy.shape[2], dy.shape[3]
    for b in range(n):
        for ch in range(c):
            plane = dx[b, ch].ravel()
            d = dy[b, ch]
            ix = idx[b, ch]
            for q in range(h * w):
                plane[_U(q)] = zero
            for oy in range(oh):
                for ox in range(ow):
                    k = ix[_U(oy), _U(ox)]
                    if k >= 0:
                        plane[_U(k)] = plane[_U(k)] + d[_U(oy), _U(ox)]


def _max_pool_gather(g, idx, out, zero):
    n, c, oh, ow = out.shape
    for b in range(n):
        for ch in range(c):
            plane = g[b, ch].ravel()
            o = out[b, ch]
            ix = idx[b, ch]
            for oy in range(oh):
                for ox in range(ow):
                    k = ix[_U(oy), _U(ox)]
                    o[_U(oy), _U(ox)] = plane[_U(k)] if k >= 0 else zero


def _avg_pool(x, div, out, kh, kw, sh, sw, pt, pl, zero):
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    for b in range(n):
        for ch in range(c):
            plane = x[b, ch]
            o = out[b, ch]
            for oy in range(oh):
                for ox in range(ow):
                    s = zero
                    for i in range(kh):
                        y = oy * sh + i - pt
                        if y < 0 or y >= h:
                            continue
                        for j in range(kw):
                            xx = ox * sw + j - pl
                            if 0 <= xx < w:
                                s = s + plane[_U(y), _U(xx)]
                    o[_U(oy), _U(ox)] = s / div[_U(oy), _U(ox)]


def _avg_pool_back(dy, div, dx, kh, kw, sh, sw, pt, pl, zero):
    n, c, h, w = dx.shape
    oh, ow = dy.shape[2], dy.shape[3]
    for b in range(n):
        for ch in range(c):
            plane = dx[b, ch]
            d = dy[b, ch]
            for y in range(h):
                for xx in range(w):
                    plane[_U(y), _U(xx)] = zero
            for oy in range(oh):
                for ox in range(ow):
                    share = d[_U(oy), _U(ox)] / div[_U(oy), _U(ox)]
                    for i in range(kh):
                        y = oy * sh + i - pt
                        if y < 0 or y >= h:
                            continue
                        for j in range(kw):
                            xx = ox * sw + j - pl
                            if 0 <= xx < w:
                                plane[_U(y), _U(xx)] = plane[_U(y), _U(xx)] + share


def _bias_relu(y, b, a):
    n, c, p = y.shape
    for s in range(n):
        for ch in range(c):
            bc = b[ch]
            yr = y[s, ch]
            ar = a[s, ch]
            for q in range(p):
                v = yr[_U(q)] + bc
                yr[_U(q)] = v
                if v > 0 or v != v:             # np.maximum(v, 0): NaN stays NaN, -0.0 and 0.0 give 0.0
                    ar[_U(q)] = v
                else:
                    ar[_U(q)] = 0


def _row_sum(row):
    """``sum(row)`` in float64 (a BatchNorm channel's sums, row by row: see ``_REDUCE_FASTMATH``)."""
    s = 0.0
    for q in range(row.shape[0]):
        s += np.float64(row[_U(q)])
    return s


def _row_sq_dev(row, mu):
    """``sum((row - mu) ** 2)`` in float64, ``row - mu`` taken in the row's dtype."""
    s = 0.0
    for q in range(row.shape[0]):
        d = np.float64(row[_U(q)] - mu)
        s += d * d
    return s


def _row_dy_sums(drow, row, mu):
    """``(sum(drow), sum(drow * (row - mu)))`` in float64."""
    a = 0.0
    b = 0.0
    for q in range(row.shape[0]):
        d = np.float64(drow[_U(q)])
        a += d
        b += d * np.float64(row[_U(q)] - mu)
    return a, b


# The three sums above are compiled with reassociation allowed (and nothing else: no contraction,
# no assumptions about NaN or infinities), so LLVM vectorises them, 2-3x faster than an ordered
# sum; they are separate functions so the flag covers these additions only, never the elementwise
# passes. Summed in float64 over float32 or float64 values, the order changes results only by
# float64 rounding (for float32 data the rounded mean and variance were bit for bit the ordered
# sums' on the ResNet-ish step's layers).
_REDUCE_FASTMATH = {"reassoc"}
_REDUCERS = ("_row_sum", "_row_sq_dev", "_row_dy_sums")
_REDUCER_PY = {"_row_sum": _row_sum, "_row_sq_dev": _row_sq_dev, "_row_dy_sums": _row_dy_sums}


def _bn_stats(x, ch, mean, var):
    """Channel ``ch``'s batch mean and biased variance of ``x - mean`` (both summed in float64, row by
    row) into ``mean[ch]``/``var[ch]``, in ``x``'s dtype; returns ``mean[ch]``."""
    n, _, p = x.shape
    m = n * p
    s = 0.0
    for b in range(n):
        s += _row_sum(x[b, ch])
    mean[ch] = s / m
    mu = mean[ch]
    v = 0.0
    for b in range(n):
        v += _row_sq_dev(x[b, ch], mu)
    var[ch] = v / m
    return mu


_bn_stats_py = _bn_stats


def _bn_channel(x, ch, gamma, beta, eps, mean, var):
    """Channel ``ch``'s statistics (``_bn_stats``, written to ``mean``/``var``) and its normalization
    ``(mean, gamma / sqrt(var + eps), beta)``: ``y = (x - mean) * k + beta``."""
    mu = _bn_stats(x, ch, mean, var)
    return mu, gamma[ch] / np.sqrt(var[ch] + eps), beta[ch]


_bn_channel_py = _bn_channel


def _bn_forward(x, gamma, beta, eps, y, mean, var, c0, c1):
    """BatchNorm's training forward over ``x`` (N, C, P), channel by channel (its values stay in cache):
    the mean and variance (``_bn_stats``), then ``y = (x - mean) * (gamma / sqrt(var + eps)) + beta``;
    ``mean`` and ``var`` (C,) in ``x``'s dtype. Channels ``c0`` to ``c1`` only: threads share the
    channels out (each channel's values do not depend on the split)."""
    n, c, p = x.shape
    for ch in range(c0, c1):
        mu, k, bt = _bn_channel(x, ch, gamma, beta, eps, mean, var)
        for b in range(n):
            row = x[b, ch]
            out = y[b, ch]
            for q in range(p):
                out[_U(q)] = (row[_U(q)] - mu) * k + bt


def _bn_forward_relu(x, gamma, beta, eps, y, a, mean, var, c0, c1):
    """``_bn_forward`` that also writes ``a = maximum(y, 0)`` in its last pass (a BatchNorm followed by
    a ReLU in a graph replay); ``a`` as ``_bias_relu`` writes it."""
    n, c, p = x.shape
    for ch in range(c0, c1):
        mu, k, bt = _bn_channel(x, ch, gamma, beta, eps, mean, var)
        for b in range(n):
            row = x[b, ch]
            out = y[b, ch]
            act = a[b, ch]
            for q in range(p):
                val = (row[_U(q)] - mu) * k + bt
                out[_U(q)] = val
                if val > 0 or val != val:
                    act[_U(q)] = val
                else:
                    act[_U(q)] = 0


def _bn_backward(x, gamma, mean, var, dy, eps, dx, dgamma, dbeta, c0, c1):
    """BatchNorm's training backward, channel by channel: ``dbeta = sum(dy)``,
    ``dgamma = sum(dy * xhat)`` (float64 sums), then
    ``dx = gamma / sqrt(var + eps) * (dy - dbeta / M - xhat * dgamma / M)`` over the M values;
    channels ``c0`` to ``c1`` only, as ``_bn_forward``."""
    n, c, p = x.shape
    m = n * p
    for ch in range(c0, c1):
        mu = mean[ch]
        rstd = 1.0 / np.sqrt(np.float64(var[ch]) + np.float64(eps))
        sdy = 0.0
        sdyx = 0.0
        for b in range(n):
            a, bb = _row_dy_sums(dy[b, ch], x[b, ch], mu)
            sdy += a
            sdyx += bb
        sdyx = sdyx * rstd
        dbeta[ch] = sdy
        dgamma[ch] = sdyx
        kf = np.float64(gamma[ch]) * rstd
        k = dx.dtype.type(kf)
        a = dx.dtype.type(sdy / m)
        bc = dx.dtype.type(sdyx / m * rstd)
        for b in range(n):
            row = x[b, ch]
            drow = dy[b, ch]
            out = dx[b, ch]
            for q in range(p):
                out[_U(q)] = k * (drow[_U(q)] - a - (row[_U(q)] - mu) * bc)


# Names the drivers call, bound by _batch_threads.parallel_njit before their first compile.
prange = chunk_bounds = _bn_forward_c = _bn_forward_relu_c = _bn_backward_c = None


def _bn_forward_chunks(x, gamma, beta, eps, y, mean, var, workers):
    """``_bn_forward`` over the channels in ``workers`` ranges run at once on Numba's threads."""
    c = x.shape[1]
    for t in prange(workers):
        c0, c1 = chunk_bounds(c, workers, t)
        _bn_forward_c(x, gamma, beta, eps, y, mean, var, c0, c1)


def _bn_forward_relu_chunks(x, gamma, beta, eps, y, a, mean, var, workers):
    """``_bn_forward_relu`` over the channels in ``workers`` ranges run at once on Numba's threads."""
    c = x.shape[1]
    for t in prange(workers):
        c0, c1 = chunk_bounds(c, workers, t)
        _bn_forward_relu_c(x, gamma, beta, eps, y, a, mean, var, c0, c1)


def _bn_backward_chunks(x, gamma, mean, var, dy, eps, dx, dgamma, dbeta, workers):
    """``_bn_backward`` over the channels in ``workers`` ranges run at once on Numba's threads."""
    c = x.shape[1]
    for t in prange(workers):
        c0, c1 = chunk_bounds(c, workers, t)
        _bn_backward_c(x, gamma, mean, var, dy, eps, dx, dgamma, dbeta, c0, c1)


_CHUNKED = {"bn_forward_chunks": (_bn_forward_chunks, "bn_forward"),
            "bn_forward_relu_chunks": (_bn_forward_relu_chunks, "bn_forward_relu"),
            "bn_backward_chunks": (_bn_backward_chunks, "bn_backward")}


_FNS = {"im2col": _im2col, "col2im": _col2im, "im2col_batch": _im2col_batch,
        "to_channels_major": _to_channels_major,
        "max_pool": _max_pool, "max_pool_scatter": _max_pool_scatter,
        "max_pool_gather": _max_pool_gather, "avg_pool": _avg_pool, "avg_pool_back": _avg_pool_back,
        "bias_relu": _bias_relu, "bn_forward": _bn_forward, "bn_forward_relu": _bn_forward_relu,
        "bn_backward": _bn_backward}


def get(name):
    """The compiled loop ``name`` (compiled, or loaded from Numba's disk cache, on first use)."""
    fn = _LOOPS.get(name)
    if fn is None:
        import numba
        if not _LOOPS:          # the loops call these helpers compiled (from these globals)
            _LOOPS["_span"] = globals()["_span"] = numba.njit(inline="always")(_span_py)
            _LOOPS["_plane_rows"] = globals()["_plane_rows"] = numba.njit(inline="always")(_plane_rows_py)
            _LOOPS["_plane_add"] = globals()["_plane_add"] = numba.njit(inline="always")(_plane_add_py)
            for r in _REDUCERS:
                _LOOPS[r] = globals()[r] = numba.njit(fastmath=_REDUCE_FASTMATH, nogil=True)(_REDUCER_PY[r])
            _LOOPS["_bn_stats"] = globals()["_bn_stats"] = numba.njit(inline="always")(_bn_stats_py)
            _LOOPS["_bn_channel"] = globals()["_bn_channel"] = numba.njit(inline="always")(_bn_channel_py)
        if name in _CHUNKED:
            from . import _batch_threads
            driver, inner = _CHUNKED[name]
            fn = _LOOPS[name] = _batch_threads.parallel_njit(driver, {f"_{inner}_c": get(inner)})
        else:
            fn = _LOOPS[name] = _loop_loader.njit(_FNS[name])
    return fn
