"""Pooling with MindSpore 2.10's names: ``avg_pool1d``, ``avg_pool3d``, ``max_pool3d``, ``lp_pool1d``,
``lp_pool2d``, ``adaptive_avg_pool1d``, ``adaptive_avg_pool3d``, ``adaptive_max_pool1d``,
``adaptive_max_pool3d``, ``max_unpool1d``, ``max_unpool2d``, ``max_unpool3d``.

Window pooling reduces ``im2col``'s windows (``_windows``), adaptive pooling reduces each output bin's
slice, unpooling scatters: all compositions of differentiable ops. Indices (``return_indices``) are
flat positions in each (N, C) plane of the unpadded input, as MindSpore gives them.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg
from ._common import const, float_tensor, int_tuple
from ._windows import im2col


def _check_rank(x, rank, name):
    if x.ndim != rank:
        raise ValueError(f"op '{name}': input must be {rank}-D (N, C, *spatial), got shape {list(x.shape)}")


def _ceil_extra(size, k, s, d, lo, hi):
    """Extra high padding that ``ceil_mode`` adds so the last partial window is kept (a window must
    still start inside the input or its low padding)."""
    eff = d * (k - 1) + 1
    n = size + lo + hi - eff
    out = -(-n // s) + 1
    if (out - 1) * s >= size + lo:
        out -= 1
    return max(0, (out - 1) * s + eff - (size + lo + hi))


def _pool_geometry(name, x, nd, kernel_size, stride, padding, dilation, ceil_mode, pad_pairs=None):
    k = int_tuple(kernel_size, nd, name, "kernel_size", 1)
    s = k if stride is None or stride == 0 or stride == () else int_tuple(stride, nd, name, "stride", 1)
    d = int_tuple(dilation, nd, name, "dilation", 1)
    if pad_pairs is None:
        p = int_tuple(padding, nd, name, "padding", 0)
        pads = [(v, v) for v in p]
    else:
        pads = pad_pairs
    for kk, (lo, hi) in zip(k, pads):
        if lo > kk // 2 or hi > kk // 2:
            raise ValueError(f"op '{name}': padding must be at most half the kernel size, got padding {pads} "
                             f"for kernel {list(k)}")
    spatial = x.shape[-nd:]
    extra = [_ceil_extra(n, kk, ss, dd, lo, hi) if ceil_mode else 0
             for n, kk, ss, dd, (lo, hi) in zip(spatial, k, s, d, pads)]
    return k, s, d, pads, extra


def _window_axes(x, nd):
    """The axes of ``im2col``'s kernel dimensions in (N, C, *kernel, *out)."""
    return tuple(range(x.ndim - nd, x.ndim))


def _avg_pool(name, x, nd, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=0,
              pad_pairs=None):
    k, s, d, pads, extra = _pool_geometry(name, x, nd, kernel_size, stride, padding, 1, ceil_mode, pad_pairs)
    full = [(lo, hi + e) for (lo, hi), e in zip(pads, extra)]
    cols = im2col(x, k, s, d, full, 0.0)
    axes = tuple(range(x.ndim - nd, x.ndim))
    total = F.sum(cols, axes)
    if divisor_override:
        return F.div(total, float(divisor_override))
    # the divisor: window elements inside the input (and inside the padding when count_include_pad)
    spatial = x.shape[-nd:]
    region = np.ones(tuple(n + lo + hi for n, (lo, hi) in zip(spatial, pads)), np.float64)
    if not count_include_pad:
        region[...] = 0
        region[tuple(slice(lo, lo + n) for n, (lo, hi) in zip(spatial, pads))] = 1
    region = np.pad(region, [(0, e) for e in extra])
    wins = im2col(Tensor._wrap(region), k, s, d, [(0, 0)] * nd, 0.0)._data
    count = wins.reshape((int(np.prod(k)),) + wins.shape[nd:]).sum(0)
    return F.div(total, const(np.maximum(count, 1), x))


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window along the last axis of (N, C, L)."""
    x = float_tensor(input_x, "avg_pool1d", "input_x")
    _check_rank(x, 3, "avg_pool1d")
    return _avg_pool("avg_pool1d", x, 1, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _pads3d(padding, name):
    if isinstance(padding, (tuple, list)) and len(padding) == 6:
        vals = [int(v) for v in padding]
        return [(vals[0], vals[1]), (vals[2], vals[3]), (vals[4], vals[5])]
    p = int_tuple(padding, 3, name, "padding", 0)
    return [(v, v) for v in p]


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """The mean of each window over the last three axes of (N, C, D, H, W); ``padding`` is an int, 3 ints
    or (front, back, top, bottom, left, right); ``divisor_override`` replaces the window count."""
    x = float_tensor(input_x, "avg_pool3d", "input_x")
    _check_rank(x, 5, "avg_pool3d")
    pads = _pads3d(padding, "avg_pool3d")
    return _avg_pool("avg_pool3d", x, 3, kernel_size, stride, None, ceil_mode, count_include_pad,
                     int(divisor_override or 0), pad_pairs=pads)


def _indices_op(compute, tensor, dtype):
    """The maxima's indices, computed from ``tensor``'s values by a host op (a graph replay recomputes
    them from that call's values)."""
    return _capture.host_op(lambda a: (np.array(compute(a), dtype, order="C"),), (tensor,), Tensor._wrap)[0]


def _flat_indices(cols_np, x_shape, nd, k, s, d, pads):
    """Flat input positions (per (N, C) plane) of each window's maximum."""
    kk = int(np.prod(k))
    flat = cols_np.reshape(cols_np.shape[:-2 * nd] + (kk,) + cols_np.shape[-nd:])
    arg = np.argmax(flat, axis=-nd - 1)
    koff = np.unravel_index(arg, k)
    outs = cols_np.shape[-nd:]
    grids = np.meshgrid(*[np.arange(o) for o in outs], indexing="ij")
    pos = [g * ss + ko * dd - lo for g, ss, ko, dd, (lo, _) in zip(grids, s, koff, d, pads)]
    spatial = x_shape[-nd:]
    pos = [np.clip(p, 0, n - 1) for p, n in zip(pos, spatial)]
    return np.ravel_multi_index(pos, spatial)


def max_pool_dilated(name, x, nd, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """Max pooling over the last ``nd`` axes through the window op (any dilation); ``return_indices``
    also gives each maximum's flat position in its unpadded plane (int64)."""
    t = float_tensor(x, name, "x")
    k, s, d, pads, extra = _pool_geometry(name, t, nd, kernel_size, stride, padding, dilation, ceil_mode)
    full = [(lo, hi + e) for (lo, hi), e in zip(pads, extra)]
    cols = im2col(t, k, s, d, full, -np.inf)
    out = F.amax(cols, tuple(range(2, 2 + nd)))
    if not return_indices:
        return out
    return out, _indices_op(lambda c: _flat_indices(c, t.shape, nd, k, s, d, full), cols, np.int64)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window over the last three axes of (N, C, D, H, W); ``return_indices`` also
    gives each maximum's flat position in its D*H*W plane (int64)."""
    t = float_tensor(x, "max_pool3d", "x")
    _check_rank(t, 5, "max_pool3d")
    k, s, d, pads, extra = _pool_geometry("max_pool3d", t, 3, kernel_size, stride, padding, dilation, ceil_mode)
    full = [(lo, hi + e) for (lo, hi), e in zip(pads, extra)]
    cols = im2col(t, k, s, d, full, -np.inf)
    out = F.amax(cols, (2, 3, 4))
    if not return_indices:
        return out
    return out, _indices_op(lambda c: _flat_indices(c, t.shape, 3, k, s, d, full), cols, np.int64)


def _lp_pool(name, x, nd, norm_type, kernel_size, stride, ceil_mode):
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type <= 0:
        raise ValueError(f"op '{name}': norm_type must be a positive number, got {norm_type!r}")
    k = int_tuple(kernel_size, nd, name, "kernel_size", 1)
    p = float(norm_type)
    powered = x if p == 1 else F.pow(x, p)
    # the window mean of x^p times the window size: a partial (ceil_mode) window counts as full
    total = F.mul(_avg_pool(name, powered, nd, k, stride, 0, ceil_mode, True), float(np.prod(k)))
    return total if p == 1 else F.pow(total, 1.0 / p)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum x^p)^(1/p)`` over each window along the last axis of (N, C, L) or (C, L)."""
    t = float_tensor(x, "lp_pool1d", "x")
    if t.ndim not in (2, 3):
        raise ValueError(f"op 'lp_pool1d': x must be 2-D or 3-D, got shape {list(t.shape)}")
    return _lp_pool("lp_pool1d", t, 1, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum x^p)^(1/p)`` over each window of the last two axes of (N, C, H, W)."""
    t = float_tensor(x, "lp_pool2d", "x")
    _check_rank(t, 4, "lp_pool2d")
    return _lp_pool("lp_pool2d", t, 2, norm_type, kernel_size, stride, ceil_mode)


# ================================================================== adaptive pooling
def _bins(size, out):
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_sizes(name, x, nd, output_size):
    spatial = x.shape[-nd:]
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != nd:
            raise ValueError(f"op '{name}': output_size must be an int or {nd} values, got {output_size!r}")
        sizes = [n if o is None else int(o) for o, n in zip(output_size, spatial)]
    else:
        sizes = [int(output_size)] * nd
    if any(o <= 0 for o in sizes):
        raise ValueError(f"op '{name}': output_size must be positive, got {output_size!r}")
    return sizes


def _adaptive(x, nd, sizes, reduce):
    """``reduce`` over each bin, axis by axis (both mean and max pool separably)."""
    out = x
    for j, o in enumerate(sizes):
        axis = x.ndim - nd + j
        n = out.shape[axis]
        parts = []
        for lo, hi in _bins(n, o):
            idx = [slice(None)] * out.ndim
            idx[axis] = slice(lo, hi)
            parts.append(reduce(out[tuple(idx)], axis))
        out = F.concat(parts, axis) if len(parts) > 1 else parts[0]
    return out


def _mean_keep(t, axis):
    return F.mean(t, axis, True)


def _max_keep(t, axis):
    return F.amax(t, axis, True)


def _adaptive_indices(x_np, nd, sizes, dtype):
    spatial = x_np.shape[-nd:]
    lead = x_np.shape[:-nd]
    out = np.zeros(lead + tuple(sizes), dtype)
    for cell in np.ndindex(*sizes):
        sl = [_bins(n, o)[c] for n, o, c in zip(spatial, sizes, cell)]
        block = x_np[(Ellipsis,) + tuple(slice(lo, hi) for lo, hi in sl)]
        arg = np.argmax(block.reshape(lead + (-1,)), -1)
        local = np.unravel_index(arg, tuple(hi - lo for lo, hi in sl))
        pos = [lc + lo for lc, (lo, _) in zip(local, sl)]
        out[(Ellipsis,) + cell] = np.ravel_multi_index(pos, spatial)
    return out


def _divisible(name, x, out):
    if not isinstance(out, (int, np.integer)) or isinstance(out, bool) or out <= 0:
        raise ValueError(f"op '{name}': output_size must be a positive int, got {out!r}")
    if x.shape[-1] % out:
        raise ValueError(f"op '{name}': the input's last dimension ({x.shape[-1]}) must be divisible by "
                         f"output_size ({out})")


def adaptive_avg_pool1d(input, output_size):  # noqa: A002 - MindSpore's names
    """Means over ``output_size`` equal bins of the last axis of (N, C, L) (L divisible by it)."""
    x = float_tensor(input, "adaptive_avg_pool1d")
    _check_rank(x, 3, "adaptive_avg_pool1d")
    _divisible("adaptive_avg_pool1d", x, output_size)
    return _adaptive(x, 1, [int(output_size)], _mean_keep)


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    """Maxima over ``output_size`` equal bins of the last axis of (N, C, L) (L divisible by it)."""
    x = float_tensor(input, "adaptive_max_pool1d")
    _check_rank(x, 3, "adaptive_max_pool1d")
    _divisible("adaptive_max_pool1d", x, output_size)
    return _adaptive(x, 1, [int(output_size)], _max_keep)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """Means over adaptive bins of the last three axes (``output_size``: an int or 3 values, None keeps
    an axis)."""
    x = float_tensor(input, "adaptive_avg_pool3d")
    if x.ndim not in (4, 5):
        raise ValueError(f"op 'adaptive_avg_pool3d': input must be 4-D or 5-D, got shape {list(x.shape)}")
    return _adaptive(x, 3, _adaptive_sizes("adaptive_avg_pool3d", x, 3, output_size), _mean_keep)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """Maxima over adaptive bins of the last three axes; ``return_indices`` also gives each maximum's flat
    position in its D*H*W plane (int32)."""
    x = float_tensor(input, "adaptive_max_pool3d")
    if x.ndim not in (4, 5):
        raise ValueError(f"op 'adaptive_max_pool3d': input must be 4-D or 5-D, got shape {list(x.shape)}")
    sizes = _adaptive_sizes("adaptive_max_pool3d", x, 3, output_size)
    out = _adaptive(x, 3, sizes, _max_keep)
    if not return_indices:
        return out
    return out, _indices_op(lambda a: _adaptive_indices(a, 3, sizes, np.int32), x, np.int32)


# ================================================================== unpooling
def _max_unpool(name, x, indices, nd, kernel_size, stride, padding, output_size):
    t = float_tensor(x, name, "x")
    idx = tensor_arg(indices, name)
    if t.ndim not in (nd + 1, nd + 2) or tuple(idx.shape) != tuple(t.shape):
        raise ValueError(f"op '{name}': x must be {nd + 1}-D or {nd + 2}-D with indices of the same shape, got "
                         f"{list(t.shape)} and {list(idx.shape)}")
    k = int_tuple(kernel_size, nd, name, "kernel_size", 1)
    s = k if stride is None or stride == 0 else int_tuple(stride, nd, name, "stride", 1)
    p = int_tuple(padding, nd, name, "padding", 0)
    spatial = [(n - 1) * ss - 2 * pp + kk for n, ss, pp, kk in zip(t.shape[-nd:], s, p, k)]
    if output_size is not None and len(output_size):
        spatial = [int(v) for v in tuple(output_size)[-nd:]]
    lead = tuple(t.shape[:-nd])
    plane = int(np.prod(spatial))
    flat_idx = _capture.read_values(idx).reshape(lead + (-1,)).astype(np.int64)
    if flat_idx.size and (flat_idx.min() < 0 or flat_idx.max() >= plane):
        raise ValueError(f"op '{name}': indices must be in [0, {plane}) for the output's {spatial} plane")
    nplanes = int(np.prod(lead))
    offs = (np.arange(nplanes, dtype=np.int64) * plane).reshape(lead + (1,))
    target = (flat_idx + offs).reshape(-1)
    # the output as a gather from [values, 0]: each position takes the (last) value scattered to it
    src = np.full(nplanes * plane, target.size, np.int64)
    src[target] = np.arange(target.size)
    vals = F.concat((F.reshape(t, (-1,)), const(np.zeros(1), t)), 0)
    return F.reshape(vals[const(src)], lead + tuple(spatial))


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d``: each value of ``x`` placed at its flat index in a zero (N, C, L_out)."""
    return _max_unpool("max_unpool1d", x, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d``: each value of ``x`` placed at its flat index in a zero (N, C, H, W)."""
    return _max_unpool("max_unpool2d", x, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d``: each value of ``x`` placed at its flat index in a zero (N, C, D, H, W)."""
    return _max_unpool("max_unpool3d", x, indices, 3, kernel_size, stride, padding, output_size)


__all__ = ["avg_pool1d", "avg_pool3d", "max_pool3d", "lp_pool1d", "lp_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d",
           "max_unpool3d"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
