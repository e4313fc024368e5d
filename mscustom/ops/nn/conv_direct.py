"""float32 convolutions with few channels as register-tiled direct loops: no column matrix, no BLAS.

Why: im2col + BLAS pays twice on layers with few channels. The columns are 9x
a 3x3 layer's input, written and then packed again by BLAS; and BLAS runs a
16-row product (16 output channels) at 35-45 GFLOP/s here against 60-77 for
wide ones, because each packed element feeds only 16 multiply-adds. A direct
loop reads the input planes where they are and keeps a tile of outputs in
registers for the whole reduction: measured on the ResNet-ish step's layers
(``bench/resnet_bench.py``, one thread) 64-68 GFLOP/s on 16 and 32 channels.

The layout (one sample at a time): each input plane zero-padded and flattened
with row width ``W2 = W + left + right`` (``src``, planes ``S`` floats apart).
Output position ``(y, x)`` is ``q = y * W2 + x`` and kernel tap ``(i, j)``
reads ``src[q + i*dh*W2 + j*dw]``: a convolution of stride 1 is then one
reduction over (channel, tap) for every ``q``, each tap a fixed offset. The
positions ``x >= oW`` at a row's end are computed too (they read the next
row) and dropped when the tile is copied out.

A stride (sh, sw) splits the padded planes into sh*sw phase planes (every
sh-th row from row a, every sw-th column from column b), so each tap again
reads one plane at a fixed offset (``_geometry``): strided forward and filter
gradient use the same loops.

- ``_tiles``: outputs ``dst[o, q]`` in tiles of 4 output channels x 24
  positions (12 vector accumulators, ``_numba_private.simd``), summed over
  input channels, then taps, in that order (one fma each);
- forward: ``y = _tiles(padded x, w)``;
- input gradient of a stride-1 layer: the forward of the output gradient
  padded by ``(k-1)*d - pad`` on each side, with the filter flipped and its
  channel axes swapped (every pad must be at most ``(k-1)*d``; otherwise, and
  for strided layers, im2col);
- filter gradient (``_filter_tiles``): ``dw[o, c, t] = sum_q dy[o, q] *
  src[c, q + off_t]`` in tiles of 4 output channels x 3 taps, each sum kept
  as 8 lane sums across the batch, the lanes added in order at the end; the
  output gradient is laid out with the same row width, zeros at dropped
  positions.

Non-finite values: the loops also multiply zeros (padding, dropped positions)
by input values or weights that im2col never pairs with them, and ``0 * inf``
is NaN. ``conv.py`` therefore takes im2col for the input gradient when the
filter is not finite, and recomputes a filter gradient that came out with a
NaN (cheap checks: the filter and its gradient are small); the forward
drops every such product, and its padding products are im2col's own.

Threads: with a budget of two or more, the batch is cut into one chunk of
consecutive samples per thread (``_batch_threads.chunk_bounds``) and one
compiled driver runs the chunks at once on Numba's threads (``prange``; each
chunk with planes and tiles of its own). Layers then take the loops up to
``MAX_REDUCTION_SPLIT``/``MIN_POSITIONS_SPLIT`` too: they scale with the threads
where the im2col path's pooled chunks do not.

Results differ from the im2col path by the order of additions only (float32
sums, fma); values are the same from run to run and thread count to thread
count of one budget (each chunk's filter sums are added in chunk order).
``MSCUSTOM_CONV_DIRECT=0`` turns the direct loops off (im2col + BLAS for every
layer); they also stand aside when the installed Numba is not the series
``_numba_private`` was written for.
"""

import functools
import os
import threading

import numpy as np

from ... import _numba_private
from . import _batch_threads

__all__ = ["applies", "forward", "backprop_input", "backprop_filter"]

ENV = "MSCUSTOM_CONV_DIRECT"
TILE_O = 4                  # output channels per register tile
TILE_Q = 24                 # output positions per register tile (3 vectors of 8)
LANES = 8
TAPS = 3                    # taps per filter-gradient tile
# Channels x taps per sum above which im2col + BLAS is as fast or faster: measured on the ResNet-ish
# step's layers, the direct loops took 25-40% less time on 16 channels (144), 10-30% less on 32
# (288), and 5-15% more on 64 (576) with its 8x8 planes.
MAX_REDUCTION = 300
# Output positions per plane below which a tile's fixed costs (its accumulators loaded and stored
# per channel, the partial tile at the plane's end) outweigh BLAS's: on the step's 32->64 stride-2
# layer (8x8 outputs) the direct filter gradient took 25% more time than im2col's, the forward the same.
MIN_POSITIONS = 128
# With the batch split among two or more threads the direct loops scale with them (each chunk runs on
# its own core: 1.9-2.2x on two threads) where the im2col path's chunks did not (1.0x on the step's
# 64-channel layers: a pool of Python threads, BLAS calls and GIL hand-offs), so split layers take the
# direct loops up to these bounds (the step's 64-channel 8x8 layers: 576 per sum, 64 positions).
MAX_REDUCTION_SPLIT = 600
MIN_POSITIONS_SPLIT = 64
_LOOPS = {}
_LOCK = threading.Lock()
_STATE = {"on": None}


def enabled():
    """Whether the direct loops may run (``MSCUSTOM_CONV_DIRECT``, Numba's series; read once)."""
    on = _STATE["on"]
    if on is None:
        on = _STATE["on"] = os.environ.get(ENV, "1").strip() != "0" and _numba_private.supported()
    return on


def applies(a, b, attrs, w_shape, channels, positions):
    """Whether a convolution of float32 operands ``a``, ``b`` (input and filter, or the gradients of
    the backprops) with ``attrs`` and filter shape ``w_shape`` runs here, ``channels`` being the
    channels its sums run over and ``positions`` the size of the planes it computes: one group, a
    kernel larger than 1x1 (a 1x1 layer is one product, BLAS's strength), at most
    ``MAX_REDUCTION`` channels x taps per sum and at least ``MIN_POSITIONS`` positions, or where the
    batch is split among threads (``_workers``) at most ``MAX_REDUCTION_SPLIT`` and at least
    ``MIN_POSITIONS_SPLIT``."""
    if a.dtype != np.float32 or b.dtype != np.float32 or attrs["groups"] != 1:
        return False
    kh, kw = w_shape[2:]
    reduction = channels * kh * kw
    if kh * kw <= 1 or not enabled():
        return False
    if reduction <= MAX_REDUCTION and positions >= MIN_POSITIONS:
        return True
    if reduction > MAX_REDUCTION_SPLIT or positions < MIN_POSITIONS_SPLIT:
        return False
    n = a.shape[0]
    return _workers(n, 4 * n * reduction * positions) > 1


def input_pads(attrs, w_shape):
    """The output gradient's padding for the input gradient as a forward convolution, or None where
    that is no stride-1 convolution: a stride above 1, or a pad beyond ``(k-1)*d`` (im2col then runs)."""
    if tuple(attrs["stride"]) != (1, 1):
        return None
    kh, kw = w_shape[2:]
    (dh, dw) = attrs["dilation"]
    t, b, le, r = attrs["pad"]
    pads = ((kh - 1) * dh - t, (kh - 1) * dh - b, (kw - 1) * dw - le, (kw - 1) * dw - r)
    return pads if min(pads) >= 0 else None


def _round_up(n, m):
    return -(-n // m) * m


# ------------------------------------------------------------------ the loops (compiled on first use)
# Names the loops call, bound by _loops() before the first compile: simd's intrinsics and the tiles.
vzero = vload = vstore = vsplat = vfma = _tiles = _filter_tiles = _fill_planes = None

def _tiles_py(src, wt, dst, c, op, offs, lq):
    """``dst[o, q] = sum_ch sum_t wt[ch, t, o] * src[ch, q + offs[t]]`` for q < lq (rounded up to a tile)."""
    s = src.shape[1]
    n = dst.shape[1]
    taps = offs.shape[0]
    block = 8 * TILE_Q                  # positions per block: the inputs they read stay in cache
    for q0 in range(0, lq, block):
        q1 = min(q0 + block, lq)
        for o0 in range(0, op, TILE_O):
            for q in range(q0, q1, TILE_Q):
                a00 = vzero(); a01 = vzero(); a02 = vzero()         # noqa: E702
                a10 = vzero(); a11 = vzero(); a12 = vzero()         # noqa: E702
                a20 = vzero(); a21 = vzero(); a22 = vzero()         # noqa: E702
                a30 = vzero(); a31 = vzero(); a32 = vzero()         # noqa: E702
                for ch in range(c):
                    base = ch * s + q
                    wrow = ch * taps
                    for t in range(taps):
                        at = base + offs[t]
                        x0 = vload(src, at); x1 = vload(src, at + 8); x2 = vload(src, at + 16)  # noqa: E702
                        wb = (wrow + t) * op + o0
                        w0 = vsplat(wt.flat[wb])
                        a00 = vfma(w0, x0, a00); a01 = vfma(w0, x1, a01); a02 = vfma(w0, x2, a02)  # noqa: E702
                        w1 = vsplat(wt.flat[wb + 1])
                        a10 = vfma(w1, x0, a10); a11 = vfma(w1, x1, a11); a12 = vfma(w1, x2, a12)  # noqa: E702
                        w2 = vsplat(wt.flat[wb + 2])
                        a20 = vfma(w2, x0, a20); a21 = vfma(w2, x1, a21); a22 = vfma(w2, x2, a22)  # noqa: E702
                        w3 = vsplat(wt.flat[wb + 3])
                        a30 = vfma(w3, x0, a30); a31 = vfma(w3, x1, a31); a32 = vfma(w3, x2, a32)  # noqa: E702
                d = o0 * n + q
                vstore(dst, d, a00); vstore(dst, d + 8, a01); vstore(dst, d + 16, a02)  # noqa: E702
                d += n
                vstore(dst, d, a10); vstore(dst, d + 8, a11); vstore(dst, d + 16, a12)  # noqa: E702
                d += n
                vstore(dst, d, a20); vstore(dst, d + 8, a21); vstore(dst, d + 16, a22)  # noqa: E702
                d += n
                vstore(dst, d, a30); vstore(dst, d + 8, a31); vstore(dst, d + 16, a32)  # noqa: E702


def _filter_tiles_py(src, g, acc, c, op, offs, lq):
    """``acc[o, ch, t, :] += `` the lane sums of ``g[o, q] * src[ch, q + offs[t]]`` over q < lq (a
    multiple of 8); ``offs`` has a multiple of 3 taps."""
    s = src.shape[1]
    n = g.shape[1]
    taps = offs.shape[0]
    for o0 in range(0, op, TILE_O):
        g0 = o0 * n
        for ch in range(c):
            for t0 in range(0, taps, TAPS):
                r0 = ((o0 * c + ch) * taps + t0) * LANES         # acc[o0, ch, t0, 0]
                ro = c * taps * LANES                           # to the next output channel
                a00 = vload(acc, r0); a01 = vload(acc, r0 + 8); a02 = vload(acc, r0 + 16)  # noqa: E702
                a10 = vload(acc, r0 + ro); a11 = vload(acc, r0 + ro + 8); a12 = vload(acc, r0 + ro + 16)  # noqa: E702
                a20 = vload(acc, r0 + 2 * ro); a21 = vload(acc, r0 + 2 * ro + 8); a22 = vload(acc, r0 + 2 * ro + 16)  # noqa: E702, E501
                a30 = vload(acc, r0 + 3 * ro); a31 = vload(acc, r0 + 3 * ro + 8); a32 = vload(acc, r0 + 3 * ro + 16)  # noqa: E702, E501
                b0 = ch * s + offs[t0]
                b1 = ch * s + offs[t0 + 1]
                b2 = ch * s + offs[t0 + 2]
                for q in range(0, lq, LANES):
                    x0 = vload(src, b0 + q); x1 = vload(src, b1 + q); x2 = vload(src, b2 + q)  # noqa: E702
                    d = vload(g, g0 + q)
                    a00 = vfma(d, x0, a00); a01 = vfma(d, x1, a01); a02 = vfma(d, x2, a02)  # noqa: E702
                    d = vload(g, g0 + n + q)
                    a10 = vfma(d, x0, a10); a11 = vfma(d, x1, a11); a12 = vfma(d, x2, a12)  # noqa: E702
                    d = vload(g, g0 + 2 * n + q)
                    a20 = vfma(d, x0, a20); a21 = vfma(d, x1, a21); a22 = vfma(d, x2, a22)  # noqa: E702
                    d = vload(g, g0 + 3 * n + q)
                    a30 = vfma(d, x0, a30); a31 = vfma(d, x1, a31); a32 = vfma(d, x2, a32)  # noqa: E702
                vstore(acc, r0, a00); vstore(acc, r0 + 8, a01); vstore(acc, r0 + 16, a02)  # noqa: E702
                vstore(acc, r0 + ro, a10); vstore(acc, r0 + ro + 8, a11); vstore(acc, r0 + ro + 16, a12)  # noqa: E702
                vstore(acc, r0 + 2 * ro, a20); vstore(acc, r0 + 2 * ro + 8, a21); vstore(acc, r0 + 2 * ro + 16, a22)  # noqa: E702, E501
                vstore(acc, r0 + 3 * ro, a30); vstore(acc, r0 + 3 * ro + 8, a31); vstore(acc, r0 + 3 * ro + 16, a32)  # noqa: E702, E501


# Indices in the copy loops are unsigned (``_U``): Numba then skips the wraparound check of a
# negative index (about 3x the cost of these copies otherwise, as in cnn_loops.py).
_U = np.uint64


def _fill_planes_py(x, b, src, pt, pl, sh, sw, wq, pq):
    """Sample ``b``'s planes into ``src`` (channel ``ch`` at ``src[ch]``): padded position (r, col) in
    phase plane ``(r % sh) * sw + col % sw`` (each ``pq`` floats) at ``(r // sh) * wq + col // sw``.
    With stride 1 that is the one padded plane; padding positions are never written (zero)."""
    c, h, wd = x.shape[1:]
    for ch in range(c):
        plane = src[ch]
        xs = x[b, ch].ravel()
        for i in range(h):
            r = i + pt
            row = (r % sh) * sw * pq + (r // sh) * wq
            at = i * wd
            if sw == 1:
                base = row + pl
                for j in range(wd):
                    plane[_U(base + j)] = xs[_U(at + j)]
                continue
            for k in range(sw):                 # column phase k: input columns j = v*sw + k - pl
                j0 = (k - pl) % sw              # the first input column of this phase
                base = row + k * pq + (j0 + pl) // sw
                for v in range((wd - j0 + sw - 1) // sw):
                    plane[_U(base + v)] = xs[_U(at + j0 + v * sw)]


def _forward_samples_py(x, wt, y, src, dst, b0, b1, pt, pl, sh, sw, wq, pq, offs, lq, chan, act, mode):
    """``y[b] = `` the convolution of sample ``b`` for b in [b0, b1): its planes into the zero-bordered
    ``src`` (zeroed once by the caller), the tiles, the valid positions out. As they are copied,
    per output channel ``oc`` (``chan`` rows; each step one rounding in the dtype, as NumPy's ops):
    mode 1 adds ``chan[0, oc]`` (``conv2d_bias``: ``y += b``); mode 2 also writes ``act = relu(y)``
    (``_bias_relu``'s rule: NaN stays, -0.0 gives 0.0); mode 3 writes ``act = (y - chan[0]) /
    chan[1] * chan[2] + chan[3]`` (a BatchNorm's inference: mean, ``sqrt(var + eps)``, gamma, beta)."""
    c = x.shape[1]
    o, oh, ow = y.shape[1:]
    op = dst.shape[0]
    for b in range(b0, b1):
        _fill_planes(x, b, src, pt, pl, sh, sw, wq, pq)
        _tiles(src, wt, dst, c, op, offs, lq)
        for oc in range(o):
            yo = y[b, oc].ravel()
            do = dst[oc]
            if mode == 0:
                for i in range(oh):
                    for j in range(ow):
                        yo[_U(i * ow + j)] = do[_U(i * wq + j)]
                continue
            if mode == 3:
                ao = act[b, oc].ravel()
                mu, sd, gm, bt = chan[0, oc], chan[1, oc], chan[2, oc], chan[3, oc]
                for i in range(oh):
                    for j in range(ow):
                        v = do[_U(i * wq + j)]
                        yo[_U(i * ow + j)] = v
                        ao[_U(i * ow + j)] = (v - mu) / sd * gm + bt
                continue
            bv = chan[0, oc]
            if mode == 1:
                for i in range(oh):
                    for j in range(ow):
                        yo[_U(i * ow + j)] = do[_U(i * wq + j)] + bv
                continue
            ao = act[b, oc].ravel()
            for i in range(oh):
                for j in range(ow):
                    v = do[_U(i * wq + j)] + bv
                    yo[_U(i * ow + j)] = v
                    if v > 0 or v != v:
                        ao[_U(i * ow + j)] = v
                    else:
                        ao[_U(i * ow + j)] = 0


def _filter_samples_py(x, dy, src, g, acc, b0, b1, pt, pl, sh, sw, wq, pq, offs, lq):
    """``acc += `` the filter-gradient lane sums of samples [b0, b1) (``src``'s padding, ``g``'s
    dropped positions and extra rows zero, written once by the caller)."""
    c = x.shape[1]
    o, oh, ow = dy.shape[1:]
    op = g.shape[0]
    for b in range(b0, b1):
        _fill_planes(x, b, src, pt, pl, sh, sw, wq, pq)
        for oc in range(o):
            go = g[oc]
            do = dy[b, oc].ravel()
            for i in range(oh):
                for j in range(ow):
                    go[_U(i * wq + j)] = do[_U(i * ow + j)]
        _filter_tiles(src, g, acc, c, op, offs, lq)


# Names the drivers call, bound by _loops() and _batch_threads.parallel_njit before their first compile.
prange = chunk_bounds = _forward_samples = _filter_samples = None


def _forward_chunks_py(x, wt, y, s, lq, workers, pt, pl, sh, sw, wq, pq, offs, chan, act, mode):
    """``_forward_samples`` over the batch in ``workers`` chunks of consecutive samples, run at once on
    Numba's threads (``_batch_threads.chunk_bounds``), each chunk with planes and tiles of its own."""
    n, c = x.shape[:2]
    op = wt.shape[2]
    for t in prange(workers):
        b0, b1 = chunk_bounds(n, workers, t)
        if b0 < b1:
            src = np.zeros((c, s), np.float32)
            dst = np.empty((op, lq), np.float32)
            _forward_samples(x, wt, y, src, dst, b0, b1, pt, pl, sh, sw, wq, pq, offs, lq, chan, act, mode)


def _filter_chunks_py(x, dy, s, op, lq, acc, pt, pl, sh, sw, wq, pq, offs):
    """``_filter_samples`` over the batch in ``acc.shape[0]`` chunks run at once on Numba's threads,
    chunk ``t``'s lane sums into ``acc[t]`` (zeros on entry)."""
    n, c = x.shape[:2]
    workers = acc.shape[0]
    for t in prange(workers):
        b0, b1 = chunk_bounds(n, workers, t)
        if b0 < b1:
            src = np.zeros((c, s), np.float32)
            g = np.zeros((op, lq), np.float32)
            _filter_samples(x, dy, src, g, acc[t], b0, b1, pt, pl, sh, sw, wq, pq, offs, lq)


def _loops():
    """The compiled loops (built once; the lock keeps a second thread from seeing a partial table)."""
    if _LOOPS:
        return _LOOPS
    with _LOCK:
        if not _LOOPS:
            import numba

            from ..._numba_private import simd
            from .. import _loop_loader
            g = globals()
            g.update(vzero=simd.vzero, vload=simd.vload, vstore=simd.vstore, vsplat=simd.vsplat, vfma=simd.vfma)
            g["_tiles"] = numba.njit(nogil=True, boundscheck=False)(_tiles_py)
            g["_filter_tiles"] = numba.njit(nogil=True, boundscheck=False)(_filter_tiles_py)
            g["_fill_planes"] = numba.njit(inline="always")(_fill_planes_py)
            g["_forward_samples"] = _loop_loader.njit(_forward_samples_py, boundscheck=False)
            g["_filter_samples"] = _loop_loader.njit(_filter_samples_py, boundscheck=False)
            _LOOPS.update(forward=g["_forward_samples"], filter=g["_filter_samples"])
    return _LOOPS


def _chunk_loops():
    """The loops' drivers over chunks of the batch on Numba's threads (compiled on the first split)."""
    loops = _loops()
    if "forward_chunks" not in loops:
        with _LOCK:
            if "forward_chunks" not in loops:
                loops["filter_chunks"] = _batch_threads.parallel_njit(_filter_chunks_py, boundscheck=False)
                loops["forward_chunks"] = _batch_threads.parallel_njit(_forward_chunks_py, boundscheck=False)
    return loops


# ------------------------------------------------------------------ the three convolutions
@functools.lru_cache(maxsize=512)
def _geometry(hw, khw, pads, dil, stride, ohw):
    """The planes' layout for the loops: phase-plane row width and size, tap offsets, positions to
    compute (a multiple of ``TILE_Q``) and the channel stride of ``src``. Kept per signature (the
    arguments are tuples); the offsets array is shared, read only by the loops.

    With stride (sh, sw) the padded input splits into sh*sw phase planes (rows r = sh*u + a, columns
    col = sw*v + b in plane (a, b) at (u, v)); output (y, x) with tap (i, j) reads plane
    ((i*dh) % sh, (j*dw) % sw) at (y + i*dh // sh, x + j*dw // sw): a stride-1 loop again."""
    (h, w), (kh, kw), (t, b, le, r), (dh, dw), (sh, sw), (oh, ow) = hw, khw, pads, dil, stride, ohw
    hq, wq = -(-(h + t + b) // sh), -(-(w + le + r) // sw)
    pq = hq * wq
    offs = np.array([((i * dh) % sh * sw + (j * dw) % sw) * pq + (i * dh) // sh * wq + (j * dw) // sw
                     for i in range(kh) for j in range(kw)], np.intp)
    lq = _round_up((oh - 1) * wq + ow, TILE_Q)
    s = _round_up(max(sh * sw * pq, lq + int(offs.max())) + LANES, LANES)
    return wq, pq, offs, lq, s


MIN_SPLIT_BYTES = 1 << 18     # see _workers


def _workers(n, nbytes):
    """How many chunks of the batch run at once (``_batch_threads.numba_workers``): 1 when the work's
    column matrix would have fewer than ``MIN_SPLIT_BYTES`` (``nbytes``; the im2col path's threshold:
    below it a hand-off to another thread costs more than it saves)."""
    return _batch_threads.numba_workers(n) if nbytes >= MIN_SPLIT_BYTES else 1


def _tile_weights(w):
    """(O, C, kH, kW) weights as the tiles read them: (C, kH*kW, O rounded up to ``TILE_O``), zeros after O."""
    o, c, kh, kw = w.shape
    wt = np.zeros((c, kh * kw, _round_up(o, TILE_O)), np.float32)
    wt[:, :, :o] = w.reshape(o, c, kh * kw).transpose(1, 2, 0)
    return wt


_NO_CHAN = np.zeros((0, 0), np.float32)
_NO_ACT = np.zeros((0, 0, 0, 0), np.float32)


def forward(x, w, y, attrs, bias=None, act=None, bn=None):
    """``y[...] = conv2d(x, w)`` (one group; float32, ``y`` C-contiguous NCHW), in the pass that writes
    ``y`` also: with ``bias`` (O,) the bias added, and with ``act`` (C-contiguous, ``y``'s shape)
    ``act[...] = relu(y)``; or with ``bn = (mean, scale, gamma, beta)`` (each (O,), ``scale`` the
    ``sqrt(var + eps)``) ``act[...] = (y - mean) / scale * gamma + beta``."""
    x = np.ascontiguousarray(x)
    return _forward(x, _tile_weights(np.ascontiguousarray(w)), w.shape[2:], y, attrs["pad"], attrs["dilation"],
                    attrs["stride"], bias, act, bn)


def _forward(x, wt, khw, y, pads, dil, stride, bias=None, act=None, bn=None):
    n, c, h, w = x.shape
    if y.size == 0:
        return y
    mode = 3 if bn is not None else 0 if bias is None else 1 if act is None else 2
    if x.size == 0:                 # no input channels: every sum is empty
        y[...] = 0
        if mode in (1, 2):
            y += bias.reshape(-1, 1, 1)
        if mode == 2:
            np.maximum(y, 0, out=act)
        if mode == 3:
            mean, scale, gamma, beta = (v.reshape(-1, 1, 1) for v in bn)
            np.add(np.multiply(np.true_divide(np.subtract(y, mean), scale), gamma), beta, out=act)
        return y
    chan = _NO_CHAN if mode == 0 else np.stack(bn) if mode == 3 else np.ascontiguousarray(bias).reshape(1, -1)
    act = _NO_ACT if act is None else act
    wq, pq, offs, lq, s = _geometry((h, w), tuple(khw), tuple(pads), tuple(dil), tuple(stride), y.shape[2:])
    workers = _workers(n, 4 * n * c * len(offs) * y.shape[2] * y.shape[3])
    if workers > 1:
        _chunk_loops()["forward_chunks"](x, wt, y, s, lq, workers, pads[0], pads[2], stride[0], stride[1],
                                         wq, pq, offs, chan, act, mode)
        return y
    src = np.zeros((c, s), np.float32)
    dst = np.empty((wt.shape[2], lq), np.float32)
    _loops()["forward"](x, wt, y, src, dst, 0, n, pads[0], pads[2], stride[0], stride[1], wq, pq, offs, lq,
                        chan, act, mode)
    return y


def backprop_input(dy, w, dx, attrs):
    """``dx[...] = `` the input gradient of a stride-1 convolution, as a forward convolution of ``dy``
    (see the module docstring); ``dx`` C-contiguous NCHW. The caller checked ``input_pads``."""
    pads = input_pads(attrs, w.shape)
    wf = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))   # (C, O, kH, kW), flipped
    return _forward(np.ascontiguousarray(dy), _tile_weights(wf), w.shape[2:], dx, pads, attrs["dilation"], (1, 1))


def backprop_filter(x, dy, w_shape, attrs):
    """The filter gradient (O, C, kH, kW) of a convolution of one group (float32)."""
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    n, c, h, w = x.shape
    o, _, kh, kw = w_shape
    pads, dil = attrs["pad"], attrs["dilation"]
    oh, ow = dy.shape[2:]
    if x.size == 0 or dy.size == 0:     # empty sums
        return np.zeros(w_shape, np.float32)
    stride = attrs["stride"]
    wq, pq, offs, _, s = _geometry((h, w), (kh, kw), tuple(pads), tuple(dil), tuple(stride), (oh, ow))
    lq = _round_up((oh - 1) * wq + ow, LANES)
    taps = _round_up(kh * kw, TAPS)
    offs = np.concatenate([offs, np.zeros(taps - kh * kw, np.intp)])   # extra taps: sums never read
    op = _round_up(o, TILE_O)
    workers = _workers(n, 4 * n * c * kh * kw * oh * ow)
    parts = np.zeros((workers, op, c, taps, LANES), np.float32)
    if workers > 1:
        _chunk_loops()["filter_chunks"](x, dy, s, op, lq, parts, pads[0], pads[2], stride[0], stride[1], wq, pq,
                                        offs)
    else:
        _loops()["filter"](x, dy, np.zeros((c, s), np.float32), np.zeros((op, lq), np.float32), parts[0], 0, n,
                           pads[0], pads[2], stride[0], stride[1], wq, pq, offs, lq)
    acc = parts[0]
    for t in range(1, _batch_threads.chunk_count(n, workers)):     # the other chunks' sums, in a fixed order
        acc += parts[t]
    lanes = acc[:o, :, :kh * kw]
    dw = lanes[..., 0].copy()
    for k in range(1, LANES):       # the lanes in order
        dw += lanes[..., k]
    return dw.reshape(w_shape)
