"""``tile``, ``pad`` (constant, reflect, replicate/edge, circular; symmetric for ``MirrorPad``) and
``interpolate`` (nearest, area, linear, bilinear, bicubic, trilinear).

``pad`` and the resizes are linear maps: each has its adjoint as an op
(``pad_grad``, ``resize_grad``) whose gradient is the forward op again. A resize
is one matrix per spatial axis (built once per size and mode), applied with
``tensordot``.

Example::

    ops.pad(x, (1, 1), mode="reflect"); ops.interpolate(img, size=(8, 8), mode="bilinear")
"""

import builtins as _bi
import functools

import numpy as np

from ..._core.dispatch import call
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import (defop, float_only, is_float, same_type, tensor_arg)
from .._op_args import c_array as _c


# ================================================================== tile
def _tile_reps(attrs, ndim):
    reps = tuple(attrs["reps"])
    n = _bi.max(ndim, len(reps))
    return (1,) * (n - len(reps)) + reps, n


def _tile_shape(attrs, shapes):
    src = list(shapes[0])
    if _bi.any(r < 0 for r in attrs["reps"]):
        raise ValueError(f"op 'tile': dims must be non-negative, got {list(attrs['reps'])}")
    reps, n = _tile_reps(attrs, len(src))
    src = [1] * (n - len(src)) + src
    return shapes, [[s * r for s, r in zip(src, reps)]]


def _tile_grad(ins, outs, g, a):
    x = ins[0]
    if not is_float(x):
        return [None]
    reps, n = _tile_reps(a, x.ndim)
    src = (1,) * (n - x.ndim) + tuple(x.shape)
    split = []
    for r, s in zip(reps, src):
        split += [r, s]
    summed = F.reduce_sum(F.reshape(g[0], tuple(split)), tuple(range(0, 2 * n, 2)), False)
    return [F.reshape(summed, x.shape)]


_TILE = defop("tile", 1, lambda a, i: np.tile(i[0], a["reps"]), _tile_shape, same_type, _tile_grad,
              doc="repeat x along each axis (dims may be longer than the rank)", arg_names=("input",))


def tile(input, dims):  # noqa: A002 - MindSpore's names
    """``input`` repeated ``dims[i]`` times along axis ``i``; shorter ``dims`` are padded with 1 in front.

    Example::

        ops.tile(ms.Tensor([1.0, 2.0]), (2, 2))       # [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = tensor_arg(input, "tile")
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        dims = (int(dims),)
    if not isinstance(dims, (tuple, list)) or not _bi.all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                          for d in dims):
        raise TypeError(f"op 'tile': dims must be a tuple of ints, got {dims!r}")
    return call(_TILE, (x,), {"reps": tuple(int(d) for d in dims)})


# ================================================================== pad
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap",
              "edge": "edge"}             # "edge": MindSpore's other name for "replicate"
_OP_MODES = dict(_PAD_MODES, symmetric="symmetric")        # symmetric: MirrorPad's SYMMETRIC


def _pad_width(attrs, ndim):
    pads = attrs["pads"]
    width = [(0, 0)] * ndim
    for i in range(len(pads) // 2):
        width[ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    return width


def _pad_shape(attrs, shapes):
    src = list(shapes[0])
    pads = attrs["pads"]
    if len(pads) % 2 or len(pads) // 2 > len(src):
        raise ValueError(f"op 'pad': padding must hold an even number of values, at most 2 per dimension of "
                         f"the input (rank {len(src)}), got {list(pads)}")
    width = _pad_width(attrs, len(src))
    mode = attrs["mode"]
    for d, (lo, hi) in enumerate(width):
        if lo < 0 or hi < 0:
            raise ValueError(f"op 'pad': padding must be non-negative here, got {list(pads)}")
        if mode == "symmetric" and (lo > src[d] or hi > src[d]):
            raise ValueError(f"op 'pad': symmetric padding ({lo}, {hi}) must be at most the size of dim {d} "
                             f"({src[d]})")
        if mode == "reflect" and (lo >= src[d] or hi >= src[d]) and (lo or hi):
            raise ValueError(f"op 'pad': reflect padding ({lo}, {hi}) must be less than the size of dim {d} "
                             f"({src[d]})")
        if mode in ("replicate", "circular") and src[d] == 0 and (lo or hi):
            raise ValueError(f"op 'pad': {mode} padding of dim {d} needs a non-empty dim")
    return shapes, [[s + lo + hi for s, (lo, hi) in zip(src, width)]]


def _pad_compute(attrs, ins):
    x = ins[0]
    width = _pad_width(attrs, x.ndim)
    if attrs["mode"] == "constant":
        return np.pad(x, width, mode="constant", constant_values=x.dtype.type(attrs["value"]))
    return np.pad(x, width, mode=_OP_MODES[attrs["mode"]])


def _source_index(n, lo, hi, mode):
    """For each position of a padded axis, the input index it copies (-1: a constant)."""
    pos = np.arange(-lo, n + hi)
    if mode == "constant":
        return np.where((pos >= 0) & (pos < n), pos, -1)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    if mode == "circular":
        return np.mod(pos, n)
    if mode == "symmetric":                 # reflect repeating the edge
        m = np.mod(pos, 2 * n)
        return np.where(m < n, m, 2 * n - 1 - m)
    period = 2 * (n - 1)                    # reflect without repeating the edge
    if period == 0:
        return np.zeros_like(pos)
    m = np.mod(pos, period)
    return np.where(m < n, m, period - m)


def _pad_grad_compute(attrs, ins):
    g = ins[0]
    shape = attrs["shape"]
    width = _pad_width(attrs, len(shape))
    out = g
    for d, (lo, hi) in enumerate(width):
        if not lo and not hi:
            continue
        src = _source_index(shape[d], lo, hi, attrs["mode"])
        moved = np.moveaxis(out, d, 0)
        acc = np.zeros((shape[d],) + moved.shape[1:], g.dtype)
        keep = src >= 0
        np.add.at(acc, src[keep], moved[keep])
        out = np.moveaxis(acc, 0, d)
    return _c(out)


_PAD = defop("pad", 1, _pad_compute, _pad_shape, same_type,
             lambda ins, outs, g, a: [call(_PAD_GRAD, (g[0],), dict(a, shape=tuple(ins[0].shape)))
                                      if is_float(ins[0]) else None],
             doc="pad the trailing dims (constant, reflect, replicate, circular)", arg_names=("input_x",))
_PAD_GRAD = defop("pad_grad", 1, _pad_grad_compute, lambda a, s: (s, [list(a["shape"])]), same_type,
                  lambda ins, outs, g, a: [call(_PAD, (g[0],), {k: v for k, v in a.items() if k != "shape"})],
                  doc="the adjoint of pad: padded positions add into the entries they copy", arg_names=("dy",))


def pad_mode_op(x, pads, mode):
    """The pad op with flat ``pads`` (last dim first) in any of its modes, ``"symmetric"`` included."""
    return call(_PAD, (x,), {"pads": tuple(pads), "mode": mode, "value": 0})


def pad(input_x, padding, mode="constant", value=None):
    """Pad the trailing dimensions: ``padding = (left, right, top, bottom, ...)`` from the last dim backwards.

    ``mode``: ``"constant"`` (with ``value``, default 0), ``"reflect"``,
    ``"replicate"`` or ``"circular"``. Negative padding is not supported here.

    Example::

        ops.pad(x, (1, 1), mode="reflect")      # one reflected column on each side
    """
    x = tensor_arg(input_x, "pad")
    if mode not in _PAD_MODES:
        raise ValueError(f"op 'pad': mode must be one of {list(_PAD_MODES)}, got {mode!r}")
    mode = "replicate" if mode == "edge" else mode
    if isinstance(padding, Tensor):
        padding = tuple(int(v) for v in padding._data.reshape(-1))
    if not isinstance(padding, (tuple, list)) or not _bi.all(isinstance(p, (int, np.integer)) and
                                                             not isinstance(p, bool) for p in padding):
        raise TypeError(f"op 'pad': padding must be a tuple of ints, got {padding!r}")
    if value is not None and mode != "constant":
        raise ValueError(f"op 'pad': value is only used with mode='constant', got mode={mode!r}")
    if isinstance(value, Tensor):
        value = value.item()
    return call(_PAD, (x,), {"pads": tuple(int(p) for p in padding), "mode": mode,
                             "value": 0 if value is None else value})


# ================================================================== interpolate (nearest / linear)
@functools.lru_cache(maxsize=256)
def _resize_matrix(n_in, n_out, mode, align_corners):
    """The (n_out, n_in) matrix of one axis of a resize (rows: output positions)."""
    m = np.zeros((n_out, n_in), np.float64)
    j = np.arange(n_out)
    if mode == "nearest":
        if align_corners and n_out > 1:
            src = np.floor(j * (n_in - 1) / (n_out - 1) + 0.5).astype(np.int64)
        else:
            src = np.floor(j * (n_in / n_out)).astype(np.int64)
        m[j, np.minimum(src, n_in - 1)] = 1.0
        return m
    if mode == "linear_asym":               # ResizeBilinearV2's default: out j samples at j * in / out
        pos = np.minimum(j * (n_in / n_out), n_in - 1.0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        np.add.at(m, (j, lo), 1.0 - (pos - lo))
        np.add.at(m, (j, hi), pos - lo)
        return m
    if mode == "area":                      # adaptive average: the input cells each output covers
        for k in range(n_out):
            start, stop = (k * n_in) // n_out, -(-((k + 1) * n_in) // n_out)
            m[k, start:stop] = 1.0 / (stop - start)
        return m
    if align_corners:
        pos = j * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    else:
        pos = (j + 0.5) * (n_in / n_out) - 0.5
    if mode == "cubic":
        # MindSpore's bicubic kernel: cubic convolution with the fraction rounded to 1/1024 (a weight
        # table); pixel centres (align_corners False) use a = -0.5 and drop the taps outside the
        # input, renormalizing the rest; align_corners uses a = -0.75 with taps clamped to the border
        a = -0.75 if align_corners else -0.5
        base = np.floor(pos).astype(np.int64)
        t = np.rint((pos - base) * 1024) / 1024
        weights = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                   ((a + 2) * t - (a + 3)) * t * t + 1,
                   ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1]
        weights.append(1.0 - weights[0] - weights[1] - weights[2])
        taps = base[:, None] + np.arange(-1, 3)[None, :]
        w = np.stack(weights, 1)
        if not align_corners:
            w = w * ((taps >= 0) & (taps < n_in))
            w = w / w.sum(1, keepdims=True)
        for k in range(4):
            np.add.at(m, (j, np.clip(taps[:, k], 0, n_in - 1)), w[:, k])
        return m
    pos = np.maximum(pos, 0.0)
    lo = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = pos - lo
    np.add.at(m, (j, lo), 1.0 - frac)
    np.add.at(m, (j, hi), frac)
    return m


def _apply_axes(x, mats):
    """Multiply the trailing axes of ``x`` by one matrix each."""
    out = x
    nd = x.ndim
    for k, mat in enumerate(mats):
        axis = nd - len(mats) + k
        out = np.moveaxis(np.tensordot(mat.astype(x.dtype), out, axes=([1], [axis])), 0, axis)
    return _c(out)


def _resize_mats(attrs, in_sizes):
    return [_resize_matrix(n, o, attrs["mode"], attrs["align_corners"]) for n, o in zip(in_sizes, attrs["size"])]


def _resize_compute(attrs, ins):
    x = ins[0]
    k = len(attrs["size"])
    return _apply_axes(x, _resize_mats(attrs, x.shape[-k:]))


def _resize_grad_compute(attrs, ins):
    g = ins[0]
    k = len(attrs["size"])
    return _apply_axes(g, [m.T for m in _resize_mats(attrs, attrs["in_shape"][-k:])])


def _resize_shape(attrs, shapes):
    src = list(shapes[0])
    k = len(attrs["size"])
    return shapes, [src[:-k] + list(attrs["size"])]


_RESIZE = defop("resize", 1, _resize_compute, _resize_shape, float_only("resize", promote=False),
                lambda ins, outs, g, a: [call(_RESIZE_GRAD, (g[0],), dict(a, in_shape=tuple(ins[0].shape)))],
                doc="nearest / (bi)linear resize of the trailing spatial dims", arg_names=("input",))
_RESIZE_GRAD = defop("resize_grad", 1, _resize_grad_compute, lambda a, s: (s, [list(a["in_shape"])]),
                     float_only("resize_grad", promote=False),
                     lambda ins, outs, g, a: [call(_RESIZE, (g[0],), {k: v for k, v in a.items() if k != "in_shape"})],
                     doc="the adjoint of resize", arg_names=("dy",))

_INTERP_MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,),
                 "area": (3, 4, 5)}
_KERNEL_MODE = {"nearest": "nearest", "area": "area", "bicubic": "cubic"}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    """Resize the spatial dims of an (N, C, ...) tensor by ``size`` or ``scale_factor``.

    Modes ``"nearest"`` and ``"area"`` (3-, 4- or 5-D), ``"linear"`` (3-D),
    ``"bilinear"`` and ``"bicubic"`` (4-D), ``"trilinear"`` (5-D);
    ``align_corners`` as MindSpore (the default, False, samples at pixel
    centres). Every mode is a linear map per spatial axis, so the gradient is
    its transpose.
    """
    x = tensor_arg(input, "interpolate")
    if mode not in _INTERP_MODES:
        raise ValueError(f"op 'interpolate': mode must be one of {list(_INTERP_MODES)} here, got {mode!r}")
    if x.ndim not in _INTERP_MODES[mode]:
        raise ValueError(f"op 'interpolate': mode {mode!r} needs a {' or '.join(f'{d}-D' for d in _INTERP_MODES[mode])} "
                         f"input, got {x.ndim}-D")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(f"op 'interpolate': align_corners is only for the linear and cubic modes, not {mode!r}")
    k = x.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("op 'interpolate': give exactly one of size and scale_factor")
    if size is not None:
        size = (size,) * k if isinstance(size, int) else tuple(size)
    else:
        scale = (scale_factor,) * k if isinstance(scale_factor, (int, float)) else tuple(scale_factor)
        if len(scale) != k:
            raise ValueError(f"op 'interpolate': scale_factor needs {k} values, got {scale_factor!r}")
        size = tuple(int(np.floor(n * s)) for n, s in zip(x.shape[2:], scale))
    if len(size) != k or not _bi.all(isinstance(s, (int, np.integer)) and s > 0 for s in size):
        raise ValueError(f"op 'interpolate': size must be {k} positive ints, got {size!r}")
    if mode == "area" and k == 1 and x.shape[2] % size[0]:
        raise ValueError(f"op 'interpolate': mode 'area' on a 3-D input needs its length ({x.shape[2]}) to be "
                         f"divisible by the output size ({size[0]}), as MindSpore's adaptive_avg_pool1d")
    return call(_RESIZE, (x,), {"size": tuple(int(s) for s in size), "mode": _KERNEL_MODE.get(mode, "linear"),
                                "align_corners": bool(align_corners)})


def resize_bilinear(x, size, align_corners=False, half_pixel_centers=False):
    """``ops.ResizeBilinearV2``'s computation on the last two dims of a 4-D tensor."""
    x = tensor_arg(x, "ResizeBilinearV2")
    if align_corners and half_pixel_centers:
        raise ValueError("op 'ResizeBilinearV2': align_corners and half_pixel_centers cannot both be True")
    mode = "linear" if align_corners or half_pixel_centers else "linear_asym"
    return call(_RESIZE, (x,), {"size": tuple(int(s) for s in size), "mode": mode,
                                "align_corners": bool(align_corners)})


def resize_nearest_neighbor(x, size, align_corners=False):
    """``ops.ResizeNearestNeighbor``'s computation on the last two dims of a 4-D tensor."""
    x = tensor_arg(x, "ResizeNearestNeighbor")
    return call(_RESIZE, (x,), {"size": tuple(int(s) for s in size), "mode": "nearest",
                                "align_corners": bool(align_corners)})


__all__ = ["tile", "pad", "interpolate"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
