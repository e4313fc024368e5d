"""Pooling (NCHW): ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d``.

Float32 and float64 pooling run as Numba loops (``cnn_loops.py``), one pass
each way. Max pooling keeps the first maximum of each window (as MindSpore
does): the op ``max_pool2d`` has a second, int32 output, the flat input
position of that element per window (-1 where it is padding), and its
gradient adds each output gradient there without recomputing the forward.
Other float dtypes run the NumPy reference kernels below (a loop over the
kernel taps, kH * kW strided operations over the whole batch), which the
tests pin the loops to.

The gradient ops close over each other so second derivatives work:
``max_pool2d_grad(dy, argmax)`` (a scatter) has gradient
``max_pool2d_gather(G, argmax)`` w.r.t. ``dy`` and vice versa;
``avg_pool2d_grad`` has gradient ``avg_pool2d``. ``adaptive_avg_pool2d`` is
two matrix products with fixed averaging matrices, so its gradient comes
from ``matmul``'s.

Example::

    ops.max_pool2d(x, kernel_size=2, stride=2)          # (N, C, H//2, W//2)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ...tensor import Tensor
from . import cnn_loops as _cnn_loops
from .. import functional as F
from .._builtin import defop, tensor_arg
from .conv import _int_pair, _pad, resolve_pads   # one NCHW padding for convolution and pooling


# ================================================================== shared geometry
def _out_hw(hw, attrs):
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    t, b, le, r = attrs["pad"]
    return (hw[0] + t + b - kh) // sh + 1, (hw[1] + le + r - kw) // sw + 1


def _taps(attrs, oh, ow):
    """Yield (tap index, row slice, column slice) of the padded input for every kernel tap."""
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    k = 0
    for i in range(kh):
        for j in range(kw):
            yield k, slice(i, i + (oh - 1) * sh + 1, sh), slice(j, j + (ow - 1) * sw + 1, sw)
            k += 1


def _crop(xp, pad, shape):
    t, _, le, _ = pad
    if xp.shape == tuple(shape):
        return xp
    return np.ascontiguousarray(xp[:, :, t:t + shape[2], le:le + shape[3]])


def _pool_shape(name):
    def infer(attrs, shapes):
        s = shapes[0]
        if len(s) != 4:
            raise ValueError(f"op '{name}': the input must be 4-D (N, C, H, W), got shape {list(s)}")
        oh, ow = _out_hw(s[2:], attrs)
        if oh <= 0 or ow <= 0:
            raise ValueError(f"op '{name}': kernel {attrs['kernel']} does not fit the input {list(s[2:])} "
                             f"padded by {attrs['pad']}")
        return shapes, [[s[0], s[1], oh, ow]]
    return infer


def _float_type(name):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if not _dt.is_floating(d):
                raise TypeError(f"op '{name}': input {i} must be float16, float32 or float64, got {d.name}")
        return dtypes, [dtypes[0]]
    return infer


def _same_as_input(attrs, shapes):
    return shapes, [list(shapes[0])]


# ================================================================== max pooling
def _argmax_taps(x, attrs):
    """The pooled maxima and, per output, the tap index of the first maximum of its window."""
    xp = _pad(x, attrs["pad"], -np.inf)
    oh, ow = _out_hw(x.shape[2:], attrs)
    best = idx = None
    for k, rs, cs in _taps(attrs, oh, ow):
        v = xp[:, :, rs, cs]
        if best is None:
            best = v.copy()
            idx = np.zeros(best.shape, np.int32)
            continue
        better = v > best
        np.copyto(best, v, where=better)
        np.copyto(idx, k, where=better)
    return best, idx, xp.shape, oh, ow


def _max_pool_ref(attrs, ins):
    x = ins[0]
    xp = _pad(x, attrs["pad"], -np.inf)
    oh, ow = _out_hw(x.shape[2:], attrs)
    best = None
    for _, rs, cs in _taps(attrs, oh, ow):
        if best is None:
            best = xp[:, :, rs, cs].copy()
        else:
            np.maximum(best, xp[:, :, rs, cs], out=best)
    return best


def _max_pool_grad_ref(attrs, ins):
    x, dy = ins
    _, idx, pshape, oh, ow = _argmax_taps(x, attrs)
    dxp = np.zeros(pshape, dy.dtype)
    for k, rs, cs in _taps(attrs, oh, ow):
        dxp[:, :, rs, cs] += np.where(idx == k, dy, 0)
    return _crop(dxp, attrs["pad"], x.shape)


def _max_pool_gather_ref(attrs, ins):
    x, g = ins
    _, idx, _, oh, ow = _argmax_taps(x, attrs)
    gp = _pad(g, attrs["pad"], 0)
    out = np.zeros(idx.shape, g.dtype)
    for k, rs, cs in _taps(attrs, oh, ow):
        np.copyto(out, gp[:, :, rs, cs], where=idx == k)
    return out


# ---------------------------------------------------------------- max pooling with recorded winners
# The op computes the maxima and, per output, the flat ``h * W + w`` position of its window's first
# maximum in the input (-1 where that is padding, which receives no gradient); the gradient scatters
# the output gradient to those positions (no recomputation of the forward), and the scatter's own
# gradient gathers at them. Float32/float64 run as Numba loops (``cnn_loops.py``), other floats through
# the NumPy reference above, converted to positions.
def _tap_positions(idx, x_shape, attrs):
    """The reference's per-output tap index as flat input positions (-1 for padding)."""
    kw, (sh, sw) = attrs["kernel"][1], attrs["stride"]
    t, _, le, _ = attrs["pad"]
    h, w = x_shape[2:]
    oh, ow = idx.shape[2:]
    y = np.arange(oh)[:, None] * sh + idx // kw - t
    xx = np.arange(ow)[None, :] * sw + idx % kw - le
    return np.where((y >= 0) & (y < h) & (xx >= 0) & (xx < w), y * w + xx, -1).astype(np.int32)


def _max_pool_compute(attrs, ins):
    x = ins[0]
    if x.dtype not in _cnn_loops.FLOATS:
        _, idx, _, _, _ = _argmax_taps(x, attrs)
        return [_max_pool_ref(attrs, ins), _tap_positions(idx, x.shape, attrs)]
    x = np.ascontiguousarray(x)
    oh, ow = _out_hw(x.shape[2:], attrs)
    out = np.empty(x.shape[:2] + (oh, ow), x.dtype)
    idx = np.empty(out.shape, np.int32)
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    _cnn_loops.get("max_pool")(x, out, idx, kh, kw, sh, sw, attrs["pad"][0], attrs["pad"][2], x.dtype.type(-np.inf))
    return [out, idx]


def _max_pool_grad_compute(attrs, ins):
    dy, idx = ins
    n, c, h, w = attrs["x_shape"]
    if dy.dtype not in _cnn_loops.FLOATS:
        dx = np.zeros((n * c, h * w), dy.dtype)
        rows = np.broadcast_to(np.arange(n * c)[:, None], (n * c, idx[0, 0].size))
        flat, d = idx.reshape(n * c, -1), dy.reshape(n * c, -1)
        keep = flat >= 0
        np.add.at(dx, (rows[keep], flat[keep]), d[keep])
        return dx.reshape(n, c, h, w)
    dx = np.empty((n, c, h, w), dy.dtype)
    _cnn_loops.get("max_pool_scatter")(np.ascontiguousarray(dy), np.ascontiguousarray(idx), dx,
                                       dy.dtype.type(0))
    return dx


def _max_pool_gather_compute(attrs, ins):
    g, idx = ins
    if g.dtype not in _cnn_loops.FLOATS:
        n, c = g.shape[:2]
        flat = idx.reshape(n * c, -1)
        got = np.take_along_axis(g.reshape(n * c, -1), np.maximum(flat, 0), 1)
        return np.where(flat >= 0, got, g.dtype.type(0)).reshape(idx.shape)
    out = np.empty(idx.shape, g.dtype)
    _cnn_loops.get("max_pool_gather")(np.ascontiguousarray(g), np.ascontiguousarray(idx), out, g.dtype.type(0))
    return out


def _max_pool_type(attrs, dtypes):
    return _float_type("max_pool2d")(attrs, dtypes)[0], [dtypes[0], _dt.int32]


def _max_pool_two_shape(attrs, shapes):
    ins, outs = _pool_shape("max_pool2d")(attrs, shapes)
    return ins, [outs[0], list(outs[0])]


def _index_input_type(name):
    def infer(attrs, dtypes):
        _float_type(name)(attrs, dtypes[:1])
        if dtypes[1] is not _dt.int32:
            raise TypeError(f"op '{name}': input 1 (the argmax positions) must be int32, got {dtypes[1].name}")
        return dtypes, [dtypes[0]]
    return infer


def _max_pool_grad_shape(attrs, shapes):
    expect = _pool_shape("max_pool2d_grad")(attrs, [list(attrs["x_shape"])])[1][0]
    for i, what in ((0, "output gradient"), (1, "argmax positions")):
        if list(shapes[i]) != expect:
            raise ValueError(f"op 'max_pool2d_grad': the {what} must have shape {expect}, got {list(shapes[i])}")
    return shapes, [list(attrs["x_shape"])]


def _max_pool_gather_shape(attrs, shapes):
    expect = _pool_shape("max_pool2d_gather")(attrs, shapes[:1])[1][0]
    if list(shapes[1]) != expect:
        raise ValueError(f"op 'max_pool2d_gather': the argmax positions must have shape {expect}, "
                         f"got {list(shapes[1])}")
    return shapes, [expect]


def _with_x_shape(attrs, shape):
    return dict(_pool_attrs(attrs), x_shape=tuple(int(s) for s in shape))


_MAX_POOL = defop("max_pool2d", 1, _max_pool_compute, _max_pool_two_shape, _max_pool_type,
                  lambda ins, outs, g, a: [call(_MAX_POOL_GRAD, (g[0], outs[1]), _with_x_shape(a, ins[0].shape))],
                  num_outputs=2, doc="2-D max pooling, NCHW: the maxima and each window's argmax position",
                  arg_names=("x",))
_MAX_POOL_GRAD = defop("max_pool2d_grad", 2, _max_pool_grad_compute, _max_pool_grad_shape,
                       _index_input_type("max_pool2d_grad"),
                       lambda ins, outs, g, a: [call(_MAX_POOL_GATHER, (g[0], ins[1]), _pool_attrs(a)), None],
                       doc="gradient of max_pool2d: dy added at each window's recorded argmax position",
                       arg_names=("dy", "argmax"))
_MAX_POOL_GATHER = defop("max_pool2d_gather", 2, _max_pool_gather_compute, _max_pool_gather_shape,
                         _index_input_type("max_pool2d_gather"),
                         lambda ins, outs, g, a: [call(_MAX_POOL_GRAD, (g[0], ins[1]),
                                                       _with_x_shape(a, ins[0].shape)), None],
                         doc="g read at each window's recorded argmax position", arg_names=("g", "argmax"))


# ================================================================== average pooling
def _divisor(attrs, hw):
    """The divisor of every output: kH*kW, or the count of the elements its window covers.

    Padding asked for counts when ``count_include_pad`` says so; the extra
    bottom/right rows that ``ceil_mode`` adds never count (as MindSpore).
    """
    (kh, kw) = attrs["kernel"]
    if attrs["divisor_override"]:
        return float(attrs["divisor_override"])
    real = attrs.get("real_pad", attrs["pad"])
    if (attrs["count_include_pad"] and real == attrs["pad"]) or not any(attrs["pad"]):
        return float(kh * kw)
    ones = np.ones((1, 1) + tuple(hw))
    if attrs["count_include_pad"]:
        ones = _pad(ones, real, 1.0)
        t, b, le, r = attrs["pad"]
        extra = (0, b - real[1], 0, r - real[3])
        ones = _pad(ones, extra, 0)
    else:
        ones = _pad(ones, attrs["pad"], 0)
    oh, ow = _out_hw(hw, attrs)
    count = np.zeros((1, 1, oh, ow))
    for _, rs, cs in _taps(attrs, oh, ow):
        count += ones[:, :, rs, cs]
    return count


def _avg_pool_ref(attrs, ins):
    x = ins[0]
    xp = _pad(x, attrs["pad"], 0)
    oh, ow = _out_hw(x.shape[2:], attrs)
    out = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
    for _, rs, cs in _taps(attrs, oh, ow):
        out += xp[:, :, rs, cs]
    out /= np.asarray(_divisor(attrs, x.shape[2:]), x.dtype)
    return out


def _avg_pool_grad_ref(attrs, ins):
    dy = ins[0]
    shape = attrs["x_shape"]
    t, b, le, r = attrs["pad"]
    oh, ow = dy.shape[2:]
    share = dy / np.asarray(_divisor(attrs, shape[2:]), dy.dtype)
    dxp = np.zeros((shape[0], shape[1], shape[2] + t + b, shape[3] + le + r), dy.dtype)
    for _, rs, cs in _taps(attrs, oh, ow):
        dxp[:, :, rs, cs] += share
    return _crop(dxp, attrs["pad"], shape)


def _divisor_plane(attrs, hw, oh, ow, dtype):
    """``_divisor`` as a contiguous (oH, oW) array of ``dtype`` (the Numba loops' divisor)."""
    d = _divisor(attrs, hw)
    if np.ndim(d) == 0:
        return np.full((oh, ow), d, dtype)
    return np.ascontiguousarray(d[0, 0], dtype)


def _pool_loop_args(attrs):
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    return kh, kw, sh, sw, attrs["pad"][0], attrs["pad"][2]


def _avg_pool_compute(attrs, ins):
    x = ins[0]
    if x.dtype not in _cnn_loops.FLOATS:
        return _avg_pool_ref(attrs, ins)
    x = np.ascontiguousarray(x)
    oh, ow = _out_hw(x.shape[2:], attrs)
    out = np.empty(x.shape[:2] + (oh, ow), x.dtype)
    div = _divisor_plane(attrs, x.shape[2:], oh, ow, x.dtype)
    _cnn_loops.get("avg_pool")(x, div, out, *_pool_loop_args(attrs), x.dtype.type(0))
    return out


def _avg_pool_grad_compute(attrs, ins):
    dy = ins[0]
    if dy.dtype not in _cnn_loops.FLOATS:
        return _avg_pool_grad_ref(attrs, ins)
    shape = attrs["x_shape"]
    oh, ow = dy.shape[2:]
    dx = np.empty(shape, dy.dtype)
    div = _divisor_plane(attrs, shape[2:], oh, ow, dy.dtype)
    _cnn_loops.get("avg_pool_back")(np.ascontiguousarray(dy), div, dx, *_pool_loop_args(attrs), dy.dtype.type(0))
    return dx


def _avg_pool_grad_shape(attrs, shapes):
    shape = list(attrs["x_shape"])
    expect = _pool_shape("avg_pool2d_grad")(attrs, [shape])[1][0]
    if list(shapes[0]) != expect:
        raise ValueError(f"op 'avg_pool2d_grad': the output gradient must have shape {expect}, "
                         f"got {list(shapes[0])}")
    return shapes, [shape]


def _pool_attrs(attrs):
    return {k: v for k, v in attrs.items() if k != "x_shape"}


_AVG_POOL = defop("avg_pool2d", 1, _avg_pool_compute, _pool_shape("avg_pool2d"), _float_type("avg_pool2d"),
                  lambda ins, outs, g, a: [call(_AVG_POOL_GRAD, (g[0],),
                                                dict(a, x_shape=tuple(ins[0].shape)))],
                  doc="2-D average pooling, NCHW", arg_names=("x",))
_AVG_POOL_GRAD = defop("avg_pool2d_grad", 1, _avg_pool_grad_compute, _avg_pool_grad_shape,
                       _float_type("avg_pool2d_grad"),
                       lambda ins, outs, g, a: [call(_AVG_POOL, (g[0],), _pool_attrs(a))],
                       doc="gradient of avg_pool2d: each output gradient shared over its window",
                       arg_names=("dy",))


# ================================================================== public functions
def _ceil_extra(size, k, s, lo, hi):
    """Rows added after ``hi`` so the output has MindSpore's ``ceil_mode`` size.

    ``ceil((size + lo + hi - k) / s) + 1`` outputs, less one when the last
    window would start in the padding after the input.
    """
    out = -(-(size + lo + hi - k) // s) + 1
    if (out - 1) * s >= size + lo:
        out -= 1
    return max(0, (out - 1) * s + k - (size + lo + hi))


def _attrs(name, x, kernel_size, stride, pad_mode, padding, ceil_mode=False, **extra):
    if x.ndim != 4:
        raise ValueError(f"{name}: the input must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    kernel = _int_pair(kernel_size, name, "kernel_size")
    stride = kernel if stride is None else _int_pair(stride, name, "stride")
    if isinstance(padding, (tuple, list)) and len(padding) == 1:
        padding = padding[0]
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        padding = (padding[0], padding[0], padding[1], padding[1])
    pad = resolve_pads(name, pad_mode, padding, x.shape[2:], kernel, stride, (1, 1))
    if pad_mode == "pad" and (max(pad[:2]) > kernel[0] // 2 or max(pad[2:]) > kernel[1] // 2):
        raise ValueError(f"{name}: padding {padding!r} must be at most half of kernel_size {kernel_size!r}")
    attrs = dict({"kernel": kernel, "stride": stride, "pad": pad}, **extra)
    if ceil_mode:
        t, b, le, r = pad
        eh = _ceil_extra(x.shape[2], kernel[0], stride[0], t, b)
        ew = _ceil_extra(x.shape[3], kernel[1], stride[1], le, r)
        if eh or ew:
            attrs["pad"] = (t, b + eh, le, r + ew)
            attrs["real_pad"] = pad
    return attrs


def _mode(pad_mode, padding):
    """``pad_mode`` None (MindSpore's functional forms) means "pad" when there is padding, else "valid"."""
    if pad_mode is not None:
        return pad_mode
    return "pad" if any(np.atleast_1d(padding)) else "valid"


def _unsupported(name, dilation):
    if dilation not in (1, (1, 1)):
        raise ValueError(f"{name}: dilation other than 1 is not supported, got {dilation!r}")


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False, *,
               pad_mode=None):
    """Max over each ``kernel_size`` window of ``x`` (N, C, H, W), moved by ``stride``.

    MindSpore's functional signature: ``stride`` None means ``kernel_size``;
    ``padding`` an int or (pH, pW) pads both sides (padded elements never win).
    ``ceil_mode`` rounds the output size up (a last, partial window);
    ``return_indices`` also returns, as int64, the flat index (row * W +
    column of the unpadded input) of each window's first maximum.
    The keyword ``pad_mode`` ("valid", "same", "pad") is what ``nn.MaxPool2d``
    uses; "pad" also takes (top, bottom, left, right).

    Example::

        ops.max_pool2d(x, 2)                 # 2x2 windows, stride 2
    """
    x = tensor_arg(x, "max_pool2d")
    if dilation not in (1, (1, 1), [1, 1]) and pad_mode is None:
        if x.ndim != 4:
            raise ValueError(f"max_pool2d: x must be 4-D (N, C, H, W), got shape {list(x.shape)}")
        from ._pooling_more import max_pool_dilated        # the N-d window op serves dilated windows
        return max_pool_dilated("max_pool2d", x, 2, kernel_size, kernel_size if stride is None else stride,
                                padding, dilation, ceil_mode, return_indices)
    _unsupported("max_pool2d", dilation)
    attrs = _attrs("max_pool2d", x, kernel_size, stride, _mode(pad_mode, padding), padding, ceil_mode)
    values, positions = call(_MAX_POOL, (x,), attrs)
    if return_indices:              # the recorded winners are MindSpore's indices (row * W + column)
        return values, F.cast(positions, _dt.int64)
    return values


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0, *, pad_mode=None):
    """Mean over each ``kernel_size`` window of ``input_x`` (N, C, H, W), moved by ``stride``.

    MindSpore's functional signature. With padding, ``count_include_pad`` says
    whether the padded zeros count in the divisor ("same" padding counts only
    with ``ceil_mode``, as MindSpore's "same" mode); a non-zero
    ``divisor_override`` replaces the divisor. ``ceil_mode`` rounds the output
    size up; the rows it adds never count. The keyword ``pad_mode`` is what
    ``nn.AvgPool2d`` uses.
    """
    x = tensor_arg(input_x, "avg_pool2d")
    if divisor_override is None:
        divisor_override = 0
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, int) or divisor_override < 0:
        raise ValueError(f"avg_pool2d: divisor_override must be a non-negative int (0: none), got "
                         f"{divisor_override!r}")
    mode = _mode(pad_mode, padding)
    # MindSpore: "same" padding counts in the divisor only with ceil_mode (and count_include_pad)
    include = bool(count_include_pad) and (mode != "same" or bool(ceil_mode))
    return call(_AVG_POOL, (x,), _attrs("avg_pool2d", x, kernel_size, stride, mode, padding, ceil_mode,
                                        count_include_pad=include, divisor_override=divisor_override))


def _bins_matrix(size, out, dtype):
    """(out, size) averaging matrix of adaptive pooling: bin i covers [floor(i*size/out), ceil((i+1)*size/out))."""
    m = np.zeros((out, size), dtype)
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def _adaptive_size(name, x, output_size):
    if x.ndim not in (3, 4):
        raise ValueError(f"{name}: the input must be 3-D or 4-D, got shape {list(x.shape)}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"{name}: the input must be a float tensor, got {x.dtype.name}")
    h, w = x.shape[-2:]
    if isinstance(output_size, (int, np.integer)):
        output_size = (int(output_size), int(output_size))
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 2:
        raise TypeError(f"{name}: output_size must be an int or a tuple of 2 (int or None), "
                        f"got {output_size!r}")
    oh = h if output_size[0] is None else int(output_size[0])
    ow = w if output_size[1] is None else int(output_size[1])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{name}: output_size must be positive, got {output_size!r}")
    return oh, ow


def adaptive_avg_pool2d(input, output_size):  # noqa: A002 - MindSpore's name
    """Average pooling to a fixed ``output_size`` (an int, or (H, W) where None keeps that size).

    Output bin ``i`` of an axis of length L averages ``[floor(i*L/out), ceil((i+1)*L/out))``.
    Input (N, C, H, W) or (C, H, W).
    """
    x = tensor_arg(input, "adaptive_avg_pool2d")
    oh, ow = _adaptive_size("adaptive_avg_pool2d", x, output_size)
    h, w = x.shape[-2:]
    dt = x._data.dtype
    ph = Tensor._wrap(_bins_matrix(h, oh, dt))
    pwt = Tensor._wrap(np.ascontiguousarray(_bins_matrix(w, ow, dt).T))
    return F.matmul(F.matmul(ph, x), pwt)


# ================================================================== adaptive max pooling
def _bins(size, out):
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _adaptive_argmax(x, out_hw):
    """Per output bin, the flat index (row * W + column) of the first maximum of its window."""
    h, w = x.shape[-2:]
    idx = np.empty(x.shape[:-2] + tuple(out_hw), np.int64)
    for i, (r0, r1) in enumerate(_bins(h, out_hw[0])):
        for j, (c0, c1) in enumerate(_bins(w, out_hw[1])):
            win = x[..., r0:r1, c0:c1].reshape(x.shape[:-2] + (-1,))
            k = np.argmax(win, axis=-1)
            idx[..., i, j] = (r0 + k // (c1 - c0)) * w + c0 + k % (c1 - c0)
    return idx


def _take_flat(x, idx):
    flat = x.reshape(x.shape[:-2] + (-1,))
    return np.take_along_axis(flat, idx.reshape(idx.shape[:-2] + (-1,)), -1).reshape(idx.shape)


def _adaptive_max_compute(attrs, ins):
    idx = _adaptive_argmax(ins[0], attrs["out"])
    return [_take_flat(ins[0], idx), idx]


def _adaptive_max_grad_compute(attrs, ins):
    x, dy = ins
    idx = _adaptive_argmax(x, attrs["out"])
    lead = int(np.prod(x.shape[:-2], dtype=np.int64))
    dx = np.zeros((lead, x.shape[-2] * x.shape[-1]), dy.dtype)
    rows = np.repeat(np.arange(lead), int(np.prod(attrs["out"])))
    np.add.at(dx, (rows, idx.reshape(-1)), dy.reshape(-1))
    return dx.reshape(x.shape)


def _adaptive_max_gather_compute(attrs, ins):
    x, g = ins
    return _take_flat(g, _adaptive_argmax(x, attrs["out"]))


def _adaptive_out(attrs, s):
    return list(s[:-2]) + list(attrs["out"])


_ADAPTIVE_MAX = defop("adaptive_max_pool2d", 1, _adaptive_max_compute,
                      lambda a, s: (s, [_adaptive_out(a, s[0]), _adaptive_out(a, s[0])]),
                      lambda a, d: (d, [_float_type("adaptive_max_pool2d")(a, d)[1][0], _dt.int64]),
                      lambda ins, outs, g, a: [call(_ADAPTIVE_MAX_GRAD, (ins[0], g[0]), a)], num_outputs=2,
                      doc="adaptive 2-D max pooling with the flat index of each maximum", arg_names=("x",))
_ADAPTIVE_MAX_GRAD = defop("adaptive_max_pool2d_grad", 2, _adaptive_max_grad_compute,
                           lambda a, s: (s, [list(s[0])]), _float_type("adaptive_max_pool2d_grad"),
                           lambda ins, outs, g, a: [None, call(_ADAPTIVE_MAX_GATHER, (ins[0], g[0]), a)],
                           doc="gradient of adaptive_max_pool2d: dy routed to each bin's first maximum",
                           arg_names=("x", "dy"))
_ADAPTIVE_MAX_GATHER = defop("adaptive_max_pool2d_gather", 2, _adaptive_max_gather_compute,
                             lambda a, s: (s, [_adaptive_out(a, s[0])]), _float_type("adaptive_max_pool2d_gather"),
                             lambda ins, outs, g, a: [None, call(_ADAPTIVE_MAX_GRAD, (ins[0], g[0]), a)],
                             doc="g read at each adaptive bin's first maximum of x", arg_names=("x", "g"))


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002 - MindSpore's name
    """Max pooling to a fixed ``output_size`` (an int, or (H, W) where None keeps that size).

    Bins as ``adaptive_avg_pool2d``'s; ``return_indices`` also returns the
    int64 flat index (row * W + column) of each bin's first maximum.
    Input (N, C, H, W) or (C, H, W).

    Example::

        ops.adaptive_max_pool2d(x, (2, 3))        # (N, C, 2, 3)
    """
    x = tensor_arg(input, "adaptive_max_pool2d")
    out = call(_ADAPTIVE_MAX, (x,), {"out": _adaptive_size("adaptive_max_pool2d", x, output_size)})
    return tuple(out) if return_indices else out[0]


__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"]
