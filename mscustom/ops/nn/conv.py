"""Convolutions (NCHW): ``conv2d``, ``conv1d``, ``conv2d_transpose`` and their backprop ops.

float32 layers with few channels (at most ``conv_direct.MAX_REDUCTION``
channels x taps per sum, at least ``conv_direct.MIN_POSITIONS`` outputs per
plane: a ResNet's 16- and 32-channel 3x3 layers) run as register-tiled direct
loops, no column matrix (``conv_direct.py``; the input gradient of strided
layers excepted). The other kernels are im2col + BLAS matrix products. For float32 and float64,
each layer runs over chunks of samples whose columns stay in cache (2 MiB;
the whole batch for small layers): Numba loops (``cnn_loops.py``) write a
chunk's columns into a reused buffer, then products per sample give the
output or the column gradients (which col2im sums in one pass), one product
per chunk the filter gradient's term (see "Numba kernels" below).
Other dtypes take the NumPy reference kernels: the padded input's sliding
windows (``np.lib.stride_tricks.sliding_window_view``, no copy) gathered once
into one column matrix for the whole batch, col2im as one strided add per
kernel tap. ``conv2d`` with a bias is one op, ``conv2d_bias``.

The three ops close over each other, so gradients of gradients work:

- ``conv2d(x, w)``: grads ``conv2d_backprop_input(g, w)``, ``conv2d_backprop_filter(x, g)``
- ``conv2d_backprop_input(dy, w)``: grads ``conv2d(G, w)``, ``conv2d_backprop_filter(G, dy)``
- ``conv2d_backprop_filter(x, dy)``: grads ``conv2d_backprop_input(dy, H)``, ``conv2d(x, H)``

``conv2d_transpose`` is ``conv2d_backprop_input`` with MindSpore's output
size rule, exactly as MindSpore builds ``Conv2dTranspose``.

``pad_mode`` follows MindSpore: "same" gives ``ceil(in / stride)`` outputs and
pads ``total // 2`` before and the rest after; "valid" pads nothing; "pad"
uses ``padding`` (an int, or ``(top, bottom, left, right)``).

Example::

    y = ops.conv2d(x, w, stride=1, pad_mode="pad", padding=1)      # x (N,C,H,W), w (O,C,3,3)
"""

import contextlib
import math
import threading

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from .. import functional as F
from . import cnn_loops as _cnn_loops
from . import conv_direct as _conv_direct
from . import _batch_threads
from .._builtin import defop, tensor_arg

_window_view = np.lib.stride_tricks.sliding_window_view
# ================================================================== argument helpers
def _int_pair(v, name, what, minimum=1):
    """An int or a pair of ints as a 2-tuple, each >= ``minimum``."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (int(v), int(v))
    elif isinstance(v, (tuple, list)) and len(v) == 2 and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in v):
        v = (int(v[0]), int(v[1]))
    else:
        raise TypeError(f"{name}: {what} must be an int or a tuple of 2 ints, got {v!r}")
    if min(v) < minimum:
        raise ValueError(f"{name}: {what} must be >= {minimum}, got {v!r}")
    return v


def _padding4(padding, name):
    """``padding`` as (top, bottom, left, right): an int or a 4-tuple of ints >= 0."""
    if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
        p = (int(padding),) * 4
    elif isinstance(padding, (tuple, list)) and len(padding) == 4 and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in padding):
        p = tuple(int(i) for i in padding)
    else:
        raise TypeError(f"{name}: padding must be an int or a tuple of 4 ints "
                        f"(top, bottom, left, right), got {padding!r}")
    if min(p) < 0:
        raise ValueError(f"{name}: padding must be >= 0, got {padding!r}")
    return p


def same_pads(size, k, stride, dilation):
    """MindSpore's "same" padding of one axis: (before, after) for ``ceil(size / stride)`` outputs."""
    out = -(-size // stride)
    total = max((out - 1) * stride + dilation * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def resolve_pads(name, pad_mode, padding, hw, kernel, stride, dilation):
    """The (top, bottom, left, right) padding for ``pad_mode`` "same", "valid" or "pad"."""
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
        raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    pad_mode = pad_mode.lower()
    p = _padding4(padding, name)
    if pad_mode != "pad":
        if any(p):
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}; "
                             "use pad_mode='pad' to pad explicitly")
        if pad_mode == "valid":
            return (0, 0, 0, 0)
        return same_pads(hw[0], kernel[0], stride[0], dilation[0]) + \
            same_pads(hw[1], kernel[1], stride[1], dilation[1])
    return p


def _out_size(size, k, stride, dilation, lo, hi):
    return (size + lo + hi - dilation * (k - 1) - 1) // stride + 1


def conv_output_hw(hw, khw, attrs):
    """Output (height, width) of a convolution with these attrs on an input of spatial size ``hw``."""
    t, b, le, r = attrs["pad"]
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    return (_out_size(hw[0], khw[0], sh, dh, t, b), _out_size(hw[1], khw[1], sw, dw, le, r))


# ================================================================== kernels
def _pad(x, pad, value=0):
    t, b, le, r = pad
    if not (t or b or le or r):
        return x
    n, c, h, w = x.shape
    out = np.full((n, c, h + t + b, w + le + r), value, x.dtype)
    out[:, :, t:t + h, le:le + w] = x
    return out


def _windows(xp, kh, kw, attrs, oh, ow):
    """A (N, C, oh, ow, kh, kw) view of the padded input's windows (no copy)."""
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    v = _window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(2, 3))
    return v[:, :, :(oh - 1) * sh + 1:sh, :(ow - 1) * sw + 1:sw, ::dh, ::dw]


def _columns(x, w_shape, attrs, oh, ow):
    """The im2col matrix, shaped (groups, C/groups*kH*kW, N*oh*ow).

    Positions run along the last axis, so the copy out of the window view
    moves whole output rows at a time (about 4x faster than a positions-major
    matrix, whose innermost run is one kernel row).
    """
    g = attrs["groups"]
    n, c = x.shape[:2]
    kh, kw = w_shape[2:]
    v = _windows(_pad(x, attrs["pad"]), kh, kw, attrs, oh, ow)
    v = v.reshape(n, g, c // g, oh, ow, kh, kw).transpose(1, 2, 5, 6, 0, 3, 4)
    return v.reshape(g, (c // g) * kh * kw, n * oh * ow)


def _dy_matrix(dy, g):
    """The output gradient as (groups, O/groups, N*oh*ow)."""
    n, o, oh, ow = dy.shape
    return dy.reshape(n, g, o // g, oh, ow).transpose(1, 2, 0, 3, 4).reshape(g, o // g, n * oh * ow)


def _conv2d_ref(attrs, ins):
    x, w = ins
    g = attrs["groups"]
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    oh, ow = conv_output_hw(x.shape[2:], (kh, kw), attrs)
    cols = _columns(x, w.shape, attrs, oh, ow)
    y = np.matmul(w.reshape(g, o // g, cg * kh * kw), cols)          # (g, O/g, N*oh*ow)
    y = y.reshape(g, o // g, n, oh, ow).transpose(2, 0, 1, 3, 4)
    return np.ascontiguousarray(y).reshape(n, o, oh, ow)


def _col2im(dcols, x_shape, w_shape, attrs, oh, ow):
    """Sum the column gradients (g, C/g*kh*kw, N*oh*ow) back into an input-shaped array."""
    g = attrs["groups"]
    n, c, h, w = x_shape
    kh, kw = w_shape[2:]
    t, b, le, r = attrs["pad"]
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    d = dcols.reshape(g, c // g, kh, kw, n, oh, ow).transpose(4, 0, 1, 2, 3, 5, 6)
    d = d.reshape(n, c, kh, kw, oh, ow)
    hp, wp = h + t + b, w + le + r
    dxp = np.zeros((n, c, hp, wp), dcols.dtype)
    for i in range(kh):
        r0 = i * dh
        for j in range(kw):
            c0 = j * dw
            dxp[:, :, r0:r0 + (oh - 1) * sh + 1:sh, c0:c0 + (ow - 1) * sw + 1:sw] += d[:, :, i, j]
    if t or b or le or r:
        return np.ascontiguousarray(dxp[:, :, t:t + h, le:le + w])
    return dxp


def _backprop_input_ref(attrs, ins):
    dy, w = ins
    g = attrs["groups"]
    o, cg, kh, kw = w.shape
    oh, ow = dy.shape[2:]
    wt = w.reshape(g, o // g, cg * kh * kw).transpose(0, 2, 1)
    dcols = np.matmul(wt, _dy_matrix(dy, g))                  # (g, C/g*kh*kw, N*oh*ow)
    return _col2im(dcols, attrs["x_shape"], w.shape, attrs, oh, ow)


def _backprop_filter_ref(attrs, ins):
    x, dy = ins
    g = attrs["groups"]
    w_shape = attrs["w_shape"]
    oh, ow = dy.shape[2:]
    cols = _columns(x, w_shape, attrs, oh, ow)
    with _batch_threads.one_blas_thread():
        dw = np.matmul(_dy_matrix(dy, g), cols.transpose(0, 2, 1))    # (g, O/g, C/g*kh*kw)
    return dw.reshape(w_shape)


# ================================================================== Numba kernels (float32, float64)
# The reference kernels above gather the columns through a window view and transpose the products'
# output and the output gradient with NumPy copies. The kernels below work on chunks of samples,
# the padding read as zeros (no padded copy of the input), into reused buffers:
#   forward          per sample y = W @ cols         Numba writes the chunk's columns sample by
#                                                    sample (n, C*kH*kW, oH*oW); one batched matmul
#                                                    writes every sample's product into its NCHW output
#   input gradient   per sample dcols = W.T @ dy     the NCHW output gradient read as it is, then
#                                                    col2im one Numba pass into the input gradient
#   filter gradient  dW += dy @ cols.T               columns (C*kH*kW, n, oH*oW) and the output
#                                                    gradient laid out as (O, n*oH*oW) in one pass (a
#                                                    view for one sample): the inner dimension spans
#                                                    the chunk's samples
# Per-sample products need no transpose of the output or of the output gradient; measured on the
# ResNet-ish step's layers (bench/resnet_bench.py) forward and input gradient took 2-9% less time
# than one product per chunk and the two transposes, even for 8x8 outputs; the filter gradient's
# per-sample terms (then summed) were no faster than its one product per chunk.
# The columns of a 3x3 convolution are 9x its input: written for the whole batch they stream
# through memory twice (measured here: as slow as the products); a chunk of at most _CHUNK_BYTES
# stays in cache between im2col and its product. Measured on the ResNet-ish step's layers
# (bench/resnet_bench.py): chunks of 512 KiB to 4 MiB within a few percent of each other, 2 MiB
# the fastest, the whole batch about 15% slower. Chunks hold as many samples as fit, so the filter
# gradient of small late layers is still one product over the whole batch.
_SCRATCH = threading.local()
_SCRATCH_MAX = 1 << 25          # bytes: larger matrices are allocated per call, not kept
_CHUNK_BYTES = 1 << 21          # bytes of one chunk's columns (see above)


def _scratch(shape, dtype, slot=0):
    """An uninitialised array of ``shape`` in this thread's reused buffer ``slot`` (grown as needed).

    Only for the matrices a kernel fills and consumes within one call: a
    thread runs one kernel at a time, so one buffer per dtype and slot suffices
    (slot 0 the columns, 1 the products' output, 2 the output gradient's matrix).
    """
    size = math.prod(shape)
    nbytes = size * dtype.itemsize
    if nbytes > _SCRATCH_MAX:
        return np.empty(shape, dtype)
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    buf = bufs.get((dtype, slot))
    if buf is None or buf.size < size:
        buf = bufs[(dtype, slot)] = np.empty(size, dtype)
    return buf[:size].reshape(shape)


def _fast(x, w):
    """Whether the Numba kernels take these operands (float32/float64 of one dtype)."""
    return x.dtype in _cnn_loops.FLOATS and x.dtype == w.dtype


def _loop_args(attrs, kh, kw, oh, ow):
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    t, _, le, _ = attrs["pad"]
    return kh, kw, sh, sw, dh, dw, t, le, oh, ow


def _chunk(n, rows, p, itemsize):
    """Samples per chunk: as many as keep one chunk's columns (``rows`` x ``p`` each) within ``_CHUNK_BYTES``."""
    return max(1, min(n, _CHUNK_BYTES // max(1, rows * p * itemsize)))


# Columns smaller than this run on the calling thread (BLAS with the budget's threads) rather than
# split among the pool's threads: measured on the ResNet-ish step's im2col layers, alternating one
# and two threads step by step in one process, the pool gave 1.4-1.5x on the strided 3x3 input
# gradients (2.4-4.7 MB of columns) and 1.37x on the 1x1 layer with 512 KiB, and 0.72-0.83x on the
# 1x1 layer with 256 KiB (a hand-off of 50-60 us against a few hundred of work).
_MIN_SPLIT_BYTES = 1 << 19


def _chunks(n, rows, p, itemsize):
    """The batch's chunks ``[(b0, b1), ...]`` and how many threads run them (``_batch_threads``): at least
    one chunk per thread of the budget, so a small layer's single chunk is split too."""
    step = _chunk(n, rows, p, itemsize)
    workers = _batch_threads.workers_for(n) if n * rows * p * itemsize >= _MIN_SPLIT_BYTES else 1
    if workers > 1:
        step = min(step, -(-n // workers))
        workers = min(workers, -(-n // step))
    return [(b0, min(n, b0 + step)) for b0 in range(0, n, step)], workers


def _blas_for(workers):
    """One BLAS thread while ``workers`` > 1 threads run products at once; BLAS as set otherwise."""
    return _batch_threads.one_blas_thread() if workers > 1 else contextlib.nullcontext()


def _batch_columns(x, kh, kw, attrs, oh, ow):
    """The column matrix of the samples ``x``, (C*kH*kW, N, oH*oW) (contiguous), in the scratch buffer."""
    n, c = x.shape[:2]
    cols = _scratch((c * kh * kw, n, oh * ow), x.dtype)
    _cnn_loops.get("im2col_batch")(x, cols, *_loop_args(attrs, kh, kw, oh, ow), x.dtype.type(0))
    return cols


def _dy_channels_major(dy):
    """The output gradient of samples (N, O, oH, oW) as its (O, N*oH*oW) matrix (a view for one sample)."""
    n, o, oh, ow = dy.shape
    if n == 1:
        return dy.reshape(o, oh * ow)
    t = _scratch((o, n, oh * ow), dy.dtype, 2)
    _cnn_loops.get("to_channels_major")(dy.reshape(n, o, oh * ow), t)
    return t.reshape(o, n * oh * ow)


def _conv2d_compute(attrs, ins):
    x, w = ins
    if not _fast(x, w):
        return _conv2d_ref(attrs, ins)
    oh, ow = conv_output_hw(x.shape[2:], w.shape[2:], attrs)
    y = np.empty((x.shape[0], w.shape[0], oh, ow), x.dtype)
    conv2d_products_into(attrs, x, w, y)
    return y


def _backprop_input_compute(attrs, ins, out=None):
    """The input gradient; into ``out`` (C-contiguous, of the input's shape) where given (graph replays)."""
    dy, w = ins
    if not _fast(dy, w):
        if out is None:
            return _backprop_input_ref(attrs, ins)
        np.copyto(out, _backprop_input_ref(attrs, ins))
        return out
    dy, w = np.ascontiguousarray(dy), np.ascontiguousarray(w)
    g = attrs["groups"]
    o, cg, kh, kw = w.shape
    n, _, oh, ow = dy.shape
    x_shape = attrs["x_shape"]
    dx = np.empty(x_shape, dy.dtype) if out is None else out
    if _conv_direct.applies(dy, w, attrs, w.shape, o, x_shape[2] * x_shape[3]) \
            and _conv_direct.input_pads(attrs, w.shape) is not None and np.isfinite(w).all():
        return _conv_direct.backprop_input(dy, w, dx, attrs)
    wt = w.reshape(g, o // g, cg * kh * kw).transpose(0, 2, 1)
    col2im = _cnn_loops.get("col2im")
    args = _loop_args(attrs, kh, kw, oh, ow)

    def work(share):
        for b0, b1 in share:
            dcols = _scratch((b1 - b0, g, cg * kh * kw, oh * ow), dy.dtype)
            np.matmul(wt, dy[b0:b1].reshape(b1 - b0, g, o // g, oh * ow), out=dcols)
            col2im(dcols.reshape(b1 - b0, x_shape[1] * kh * kw, oh * ow), dx[b0:b1], *args, dy.dtype.type(0))

    chunks, workers = _chunks(n, x_shape[1] * kh * kw, oh * ow, dy.itemsize)
    with _blas_for(workers):
        _batch_threads.over_chunks(chunks, work, workers)
    return dx


def _backprop_filter_compute(attrs, ins):
    x, dy = ins
    if not _fast(x, dy):
        return _backprop_filter_ref(attrs, ins)
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    g = attrs["groups"]
    w_shape = attrs["w_shape"]
    if _conv_direct.applies(x, dy, attrs, w_shape, x.shape[1], dy.shape[2] * dy.shape[3]):
        dw = _conv_direct.backprop_filter(x, dy, w_shape, attrs)
        if not np.isnan(dw).any():
            return dw
        # a NaN may be a non-finite input value times the zero of a dropped position: im2col's sums decide
    o, cg, kh, kw = w_shape
    n, _, oh, ow = dy.shape
    dw = np.empty(w_shape, x.dtype) if n else np.zeros(w_shape, x.dtype)     # an empty batch: no terms
    dw3 = dw.reshape(g, o // g, cg * kh * kw)
    if not n:
        return dw

    def work(share):
        """The share's term of the filter gradient: its first chunk's product, the others added to it
        (into ``dw`` itself for the share holding the batch's first chunk, the caller's)."""
        acc = part = None
        for b0, b1 in share:
            cols = _batch_columns(x[b0:b1], kh, kw, attrs, oh, ow).reshape(g, cg * kh * kw, -1)
            dyt = _dy_channels_major(dy[b0:b1]).reshape(g, o // g, -1)
            if acc is None:
                acc = dw3 if b0 == 0 else np.empty_like(dw3)
                np.matmul(dyt, cols.transpose(0, 2, 1), out=acc)
            else:
                if part is None:
                    part = np.empty_like(dw3)
                np.matmul(dyt, cols.transpose(0, 2, 1), out=part)
                acc += part
        return acc

    chunks, workers = _chunks(n, x.shape[1] * kh * kw, oh * ow, x.itemsize)
    with _batch_threads.one_blas_thread():
        terms = _batch_threads.over_chunks(chunks, work, workers)
    for term in terms[1:]:                  # the other threads' terms, in a fixed order
        dw3 += term
    return dw


# ================================================================== shape and type rules
def _check_conv(name, x_shape, w_shape, attrs):
    """Validate an (x, w) pair and return the output shape."""
    if len(x_shape) != 4:
        raise ValueError(f"op '{name}': the input must be 4-D (N, C, H, W), got shape {list(x_shape)}")
    if len(w_shape) != 4:
        raise ValueError(f"op '{name}': the weight must be 4-D (O, C/group, kH, kW), got shape {list(w_shape)}")
    g = attrs["groups"]
    n, c, h, w = x_shape
    o, cg, kh, kw = w_shape
    if c % g or o % g:
        raise ValueError(f"op '{name}': in_channels {c} and out_channels {o} must both be divisible by "
                         f"group {g}")
    if cg * g != c:
        raise ValueError(f"op '{name}': the weight {list(w_shape)} expects {cg * g} input channels "
                         f"(C/group = {cg}, group = {g}), got an input of shape {list(x_shape)}")
    oh, ow = conv_output_hw((h, w), (kh, kw), attrs)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"op '{name}': kernel {kh}x{kw} (dilation {attrs['dilation']}) does not fit the "
                         f"input {h}x{w} padded by {attrs['pad']}: output would be {oh}x{ow}")
    return [n, o, oh, ow]


def _conv2d_shape(attrs, shapes):
    return shapes, [_check_conv("conv2d", shapes[0], shapes[1], attrs)]


def _backprop_input_shape(attrs, shapes):
    dy, w = shapes
    x_shape = list(attrs["x_shape"])
    expect = _check_conv("conv2d_backprop_input", x_shape, w, attrs)
    if list(dy) != expect:
        raise ValueError(f"op 'conv2d_backprop_input': the output gradient must have shape {expect} for an "
                         f"input of shape {x_shape} and weight {list(w)}, got {list(dy)}")
    return shapes, [x_shape]


def _backprop_filter_shape(attrs, shapes):
    x, dy = shapes
    expect = _check_conv("conv2d_backprop_filter", x, attrs["w_shape"], attrs)
    if list(dy) != expect:
        raise ValueError(f"op 'conv2d_backprop_filter': the output gradient must have shape {expect}, "
                         f"got {list(dy)}")
    return shapes, [list(attrs["w_shape"])]


def _float_same(name):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if not _dt.is_floating(d):
                raise TypeError(f"op '{name}': input {i} must be float16, float32 or float64, got {d.name}")
        if dtypes[0] is not dtypes[1]:
            raise TypeError(f"op '{name}': both inputs must have the same dtype, got {dtypes[0].name} "
                            f"and {dtypes[1].name}")
        return dtypes, [dtypes[0]]
    return infer


def _base_attrs(attrs):
    return {k: attrs[k] for k in ("stride", "pad", "dilation", "groups")}


def _conv2d_grad(ins, outs, g, a, needs=None):
    """The input and filter gradients; ``needs`` (see ``FGradientNeeds``) skips what no target needs
    (a network's data: its input gradient is never computed)."""
    x, w = ins
    gx = backprop_input(g[0], w, x.shape, a) if needs is None or needs[0] else None
    gw = backprop_filter(x, g[0], w.shape, a) if needs is None or needs[1] else None
    return [gx, gw]


def _backprop_input_grad(ins, outs, g, a):
    dy, w = ins
    return [_conv(g[0], w, a), backprop_filter(g[0], dy, w.shape, a)]


def _backprop_filter_grad(ins, outs, g, a):
    x, dy = ins
    return [backprop_input(dy, g[0], x.shape, a), _conv(x, g[0], a)]


_CONV2D = defop("conv2d", 2, _conv2d_compute, _conv2d_shape, _float_same("conv2d"), _conv2d_grad,
                doc="2-D convolution, NCHW, im2col + matmul", arg_names=("x", "weight"))
_CONV2D.set_attr("FGradientNeeds", True)
_BACKPROP_INPUT = defop("conv2d_backprop_input", 2, _backprop_input_compute, _backprop_input_shape,
                        _float_same("conv2d_backprop_input"), _backprop_input_grad,
                        doc="gradient of conv2d w.r.t. its input (transposed convolution)",
                        arg_names=("dy", "weight"))
_BACKPROP_FILTER = defop("conv2d_backprop_filter", 2, _backprop_filter_compute, _backprop_filter_shape,
                         _float_same("conv2d_backprop_filter"), _backprop_filter_grad,
                         doc="gradient of conv2d w.r.t. its weight", arg_names=("x", "dy"))


# ---------------------------------------------------------------- convolution with its bias, one op
# ``conv2d(x, w, bias)`` with a bias of the output channels (O,) in the same dtype: the products write
# NCHW, then one broadcast add per channel; the gradient adds the bias's, the output gradient summed
# over (N, H, W) (what ``add``'s gradient of the former ``y + bias.reshape(1, -1, 1, 1)`` gave).
# Graph replays run it into their buffers and, followed by ReLU, as one kernel: the products,
# then the bias add and the ReLU in one Numba pass (``graph_mode/kernels.py``).
def _add_bias(y, b):
    y += b.reshape(-1, 1, 1)


def direct_forward(attrs, x, w, y, bias=None, act=None, bn=None):
    """``y = conv2d(x, w)`` by the direct loops, with what ``conv_direct.forward`` writes in the same
    pass (a bias, the ReLU of ``y`` or an inference BatchNorm of ``y`` into ``act``): True where the
    loops take these operands (C-contiguous outputs, a bias of ``x``'s dtype), False otherwise
    (nothing written)."""
    if not y.flags.c_contiguous or (act is not None and not act.flags.c_contiguous) \
            or (bias is not None and bias.dtype != x.dtype) \
            or not _conv_direct.applies(x, w, attrs, w.shape, x.shape[1], y.shape[2] * y.shape[3]):
        return False
    _conv_direct.forward(x, w, y, attrs, bias=bias, act=act, bn=bn)
    return True


def _conv2d_bias_compute(attrs, ins):
    x, w, b = ins
    if _fast(x, w):
        oh, ow = conv_output_hw(x.shape[2:], w.shape[2:], attrs)
        y = np.empty((x.shape[0], w.shape[0], oh, ow), x.dtype)
        conv2d_bias_into(attrs, ins, (y,))
        return y
    y = _conv2d_ref(attrs, (x, w))
    _add_bias(y, b)
    return y


def conv2d_bias_into(attrs, ins, outs):
    """``conv2d`` with its bias written into ``outs[0]`` (an NCHW C-contiguous array of the output)."""
    x, w, b = ins
    y = outs[0]
    if not _fast(x, w) or not y.flags.c_contiguous:
        np.copyto(y, _conv2d_bias_compute(attrs, ins))
        return
    if direct_forward(attrs, x, w, y, bias=b):
        return
    conv2d_products_into(attrs, x, w, y)
    _add_bias(y, b)


def conv2d_products_into(attrs, x, w, y):
    """The products of a float32/float64 convolution written into the C-contiguous NCHW ``y``."""
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    if direct_forward(attrs, x, w, y):
        return
    g = attrs["groups"]
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    oh, ow = y.shape[2:]
    w3 = w.reshape(g, o // g, cg * kh * kw)
    im2col = _cnn_loops.get("im2col")
    args = _loop_args(attrs, kh, kw, oh, ow)

    def work(share):
        for b0, b1 in share:
            cols = _scratch((b1 - b0, x.shape[1] * kh * kw, oh * ow), x.dtype)
            im2col(x[b0:b1], cols, *args, x.dtype.type(0))
            np.matmul(w3, cols.reshape(b1 - b0, g, cg * kh * kw, oh * ow),
                      out=y[b0:b1].reshape(b1 - b0, g, o // g, oh * ow))

    chunks, workers = _chunks(n, x.shape[1] * kh * kw, oh * ow, x.itemsize)
    with _blas_for(workers):
        _batch_threads.over_chunks(chunks, work, workers)


def _conv2d_bias_shape(attrs, shapes):
    out = _check_conv("conv2d", shapes[0], shapes[1], attrs)
    if list(shapes[2]) != [out[1]]:
        raise ValueError(f"op 'conv2d_bias': the bias must have shape [{out[1]}] (the output channels), "
                         f"got {list(shapes[2])}")
    return shapes, [out]


def _conv2d_bias_type(attrs, dtypes):
    _float_same("conv2d_bias")(attrs, dtypes[:2])
    if dtypes[2] is not dtypes[0]:
        raise TypeError(f"op 'conv2d_bias': the bias must have the input's dtype {dtypes[0].name}, "
                        f"got {dtypes[2].name}")
    return dtypes, [dtypes[0]]


def _conv2d_bias_grad(ins, outs, g, a, needs=None):
    x, w, b = ins
    gx, gw = _conv2d_grad((x, w), outs, g, a, None if needs is None else needs[:2])
    gb = F.reduce_sum(g[0], (0, 2, 3), False) if needs is None or needs[2] else None
    return [gx, gw, gb]


_CONV2D_BIAS = defop("conv2d_bias", 3, _conv2d_bias_compute, _conv2d_bias_shape, _conv2d_bias_type,
                     _conv2d_bias_grad, doc="2-D convolution, NCHW, plus a bias per output channel",
                     arg_names=("x", "weight", "bias"))
_CONV2D_BIAS.set_attr("FGradientNeeds", True)


def _conv(x, w, attrs):
    return call(_CONV2D, (x, w), _base_attrs(attrs))


def backprop_input(dy, w, x_shape, attrs):
    """The gradient of ``conv2d`` w.r.t. an input of ``x_shape`` (differentiable)."""
    a = _base_attrs(attrs)
    a["x_shape"] = tuple(int(s) for s in x_shape)
    return call(_BACKPROP_INPUT, (dy, w), a)


def backprop_filter(x, dy, w_shape, attrs):
    """The gradient of ``conv2d`` w.r.t. a weight of ``w_shape`` (differentiable)."""
    a = _base_attrs(attrs)
    a["w_shape"] = tuple(int(s) for s in w_shape)
    return call(_BACKPROP_FILTER, (x, dy), a)


# ================================================================== public functions
def _conv_attrs(name, x, w, stride, pad_mode, padding, dilation, groups):
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(f"{name}: expects a 4-D input (N, C, H, W) and a 4-D weight, got shapes "
                         f"{list(x.shape)} and {list(w.shape)}")
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool) or groups < 1:
        raise ValueError(f"{name}: group must be a positive int, got {groups!r}")
    stride = _int_pair(stride, name, "stride")
    dilation = _int_pair(dilation, name, "dilation")
    pad = resolve_pads(name, pad_mode, padding, x.shape[2:], w.shape[2:], stride, dilation)
    return {"stride": stride, "pad": pad, "dilation": dilation, "groups": int(groups)}


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa: A002
           groups=1):
    """2-D convolution of ``input`` (N, C, H, W) with ``weight`` (O, C/groups, kH, kW).

    ``pad_mode``: "valid" (the default of ``ops.conv2d``), "same" or "pad" (then
    ``padding`` is an int or (top, bottom, left, right)). ``bias``: None or (O,).

    Example::

        ops.conv2d(x, w, pad_mode="same")        # same H, W as x for stride 1
    """
    x, w = tensor_arg(input, "conv2d"), tensor_arg(weight, "conv2d")
    attrs = _conv_attrs("conv2d", x, w, stride, pad_mode, padding, dilation, groups)
    if bias is None:
        return call(_CONV2D, (x, w), attrs)
    b = tensor_arg(bias, "conv2d")
    if b._data.shape == (w._data.shape[0],) and b._data.dtype == x._data.dtype == w._data.dtype:
        return call(_CONV2D_BIAS, (x, w, b), attrs)
    return F.add(call(_CONV2D, (x, w), attrs), F.reshape(b, (1, -1, 1, 1)))


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa: A002
           groups=1):
    """1-D convolution of ``input`` (N, C, L) with ``weight`` (O, C/groups, K).

    ``padding`` is an int or (left, right) for ``pad_mode="pad"``. Runs as a
    ``conv2d`` over a height of 1.
    """
    x, w = tensor_arg(input, "conv1d"), tensor_arg(weight, "conv1d")
    if x.ndim != 3 or w.ndim != 3:
        raise ValueError(f"conv1d: expects a 3-D input (N, C, L) and a 3-D weight (O, C/group, K), got "
                         f"shapes {list(x.shape)} and {list(w.shape)}")
    if isinstance(padding, (tuple, list)):
        if len(padding) != 2:
            raise TypeError(f"conv1d: padding must be an int or a tuple of 2 ints, got {padding!r}")
        pad4 = (0, 0, padding[0], padding[1])
    else:
        pad4 = (0, 0, padding, padding) if isinstance(padding, (int, np.integer)) else padding
    stride = (1, _int_pair(stride, "conv1d", "stride")[0])
    dilation = (1, _int_pair(dilation, "conv1d", "dilation")[0])
    x4 = F.expand_dims(x, 2)
    w4 = F.expand_dims(w, 2)
    y = call(_CONV2D, (x4, w4), _conv_attrs("conv1d", x4, w4, stride, pad_mode, pad4, dilation, groups))
    y = F.squeeze(y, 2)
    if bias is not None:
        y = F.add(y, F.reshape(tensor_arg(bias, "conv1d"), (1, -1, 1)))
    return y


def conv_transpose_output_hw(name, hw, kernel, stride, dilation, pad_mode, padding, output_padding=(0, 0)):
    """Output size and padding of a transposed convolution, as MindSpore's Conv2dTranspose defines them."""
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    out, pads = [], []
    p = _padding4(padding, name)
    if mode != "pad" and any(p):
        raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}")
    for ax in range(2):
        h, k, s, d = hw[ax], kernel[ax], stride[ax], dilation[ax]
        if mode == "same":
            size = h * s
            lo, hi = same_pads(size, k, s, d)
        elif mode == "valid":
            size = (h - 1) * s + d * (k - 1) + 1
            lo, hi = 0, 0
        else:
            lo, hi = p[2 * ax], p[2 * ax + 1]
            size = (h - 1) * s - lo - hi + d * (k - 1) + 1 + output_padding[ax]
            if output_padding[ax] >= max(s, d):
                raise ValueError(f"{name}: output_padding must be smaller than stride or dilation, got "
                                 f"{output_padding[ax]} with stride {s} and dilation {d}")
            hi = max(hi - output_padding[ax], 0)      # the extra rows lie past every window
        if size <= 0:
            raise ValueError(f"{name}: the output size along axis {ax + 2} would be {size}")
        out.append(size)
        pads += [lo, hi]
    return tuple(out), tuple(pads)


def conv2d_transpose(input, weight, stride=1, pad_mode="same", padding=0, dilation=1, groups=1,  # noqa: A002
                     output_padding=0):
    """Transposed 2-D convolution: ``input`` (N, Cin, H, W), ``weight`` (Cin, Cout/groups, kH, kW).

    The output size follows MindSpore's ``nn.Conv2dTranspose``: "same" gives
    ``H * stride``, "valid" ``(H - 1) * stride + dilation * (kH - 1) + 1``, "pad"
    subtracts ``top + bottom`` from that and adds ``output_padding``.
    """
    x, w = tensor_arg(input, "conv2d_transpose"), tensor_arg(weight, "conv2d_transpose")
    name = "conv2d_transpose"
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(f"{name}: expects a 4-D input and a 4-D weight (Cin, Cout/group, kH, kW), got "
                         f"shapes {list(x.shape)} and {list(w.shape)}")
    if w.shape[0] != x.shape[1]:
        raise ValueError(f"{name}: the weight {list(w.shape)} expects {w.shape[0]} input channels, got an "
                         f"input of shape {list(x.shape)}")
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool) or groups < 1 or \
            x.shape[1] % groups:
        raise ValueError(f"{name}: group must be a positive int dividing in_channels {x.shape[1]}, "
                         f"got {groups!r}")
    stride = _int_pair(stride, name, "stride")
    dilation = _int_pair(dilation, name, "dilation")
    output_padding = _int_pair(output_padding, name, "output_padding", minimum=0)
    hw, pads = conv_transpose_output_hw(name, x.shape[2:], w.shape[2:], stride, dilation, pad_mode,
                                        padding, output_padding)
    attrs = {"stride": stride, "pad": pads, "dilation": dilation, "groups": int(groups)}
    x_shape = (x.shape[0], w.shape[1] * groups) + hw
    return backprop_input(x, w, x_shape, attrs)


__all__ = ["conv1d", "conv2d", "conv2d_transpose"]
