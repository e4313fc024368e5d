"""Resizing and padding layers: ``Upsample`` and ``ZeroPad2d``.

``Upsample`` supports MindSpore's modes "nearest" and "nearest-exact" (3-D or
4-D input), "linear" (3-D), "bilinear" (4-D) and "area" (adaptive average
pooling, as MindSpore computes it); "bicubic" (4-D), "trilinear" (5-D) and
5-D "nearest" / "area" resize through ``ops.interpolate`` at the output size
computed here. Linear and bilinear resizing are matrix products with fixed
interpolation matrices, nearest is an integer-array gather, so all gradients
come from ``matmul``'s and ``getitem``'s.

Example::

    up = nn.Upsample(size=(6, 8), mode="bilinear", align_corners=True)
    up(ms.Tensor(np.ones((1, 3, 3, 4), np.float32))).shape       # (1, 3, 6, 8)
"""

import math

import numpy as np

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["Upsample", "ZeroPad2d"]

_MODES = ['nearest', 'linear', 'bilinear', 'bicubic', 'area', 'nearest-exact', 'trilinear']
_DIMS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "area": (3, 4, 5), "nearest-exact": (3, 4),
         "bicubic": (4,), "trilinear": (5,)}
_INTERPOLATED = {"bicubic", "trilinear"}      # and 5-D "nearest" / "area": ops.interpolate at the output size


def _nearest_index(size, out):
    """Source index of each output position (MindSpore's "nearest": floor(i * size / out))."""
    return np.minimum((np.arange(out) * size) // out, size - 1).astype(np.int64)


def _nearest_exact_index(size, out):
    """Source index of each output position for "nearest-exact": floor((i + 0.5) * size / out)."""
    return np.minimum(((np.arange(out) + 0.5) * size / out).astype(np.int64), size - 1)


def _linear_matrix(size, out, align_corners, dtype):
    """(out, size) matrix of linear interpolation weights."""
    m = np.zeros((out, size), np.float64)
    for i in range(out):
        if align_corners:
            src = i * (size - 1) / (out - 1) if out > 1 else 0.0
        else:
            src = max((i + 0.5) * size / out - 0.5, 0.0)
        lo = min(int(math.floor(src)), size - 1)
        hi = min(lo + 1, size - 1)
        frac = src - lo
        m[i, lo] += 1.0 - frac
        m[i, hi] += frac
    return m.astype(dtype)


class Upsample(Cell):
    """Resize the spatial axes of (N, C, L) or (N, C, H, W) to ``size`` or by ``scale_factor``.

    Exactly one of ``size`` and ``scale_factor`` is given. As in MindSpore,
    ``scale_factor`` needs ``recompute_scale_factor=True`` (the output size is
    then ``floor(in * scale_factor)``), and ``align_corners`` applies only to
    "linear" and "bilinear".
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def _out_sizes(self, x):
        spatial = x.shape[2:]
        nd = len(spatial)
        if self.size is not None and self.scale_factor is not None:
            raise ValueError("For 'interpolate', 'size' and 'scale_factor' cannot be set simultaneously")
        if self.size is None and self.scale_factor is None:
            raise ValueError("For 'interpolate', 'size' and 'scale_factor' cannot be both empty")
        if self.size is not None:
            size = (self.size,) * nd if isinstance(self.size, int) else tuple(self.size)
            if len(size) != nd or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in size):
                raise ValueError(f"Upsample: size must be a positive int or a tuple of {nd} positive ints "
                                 f"for a {x.ndim}-D input, got {self.size!r}")
            return size
        if not self.recompute_scale_factor and self.mode != "area":      # MindSpore lets "area" scale without
            raise ValueError(f"For 'interpolate', 'scale_factor' option cannot currently be set with the mode = "
                             f"{self.mode} and dim = {x.ndim}D.")
        sf = self.scale_factor
        sf = (sf,) * nd if isinstance(sf, (int, float)) else tuple(sf)
        if len(sf) != nd or any(not isinstance(s, (int, float)) or s <= 0 for s in sf):
            raise ValueError(f"Upsample: scale_factor must be a positive float or a tuple of {nd} of them, "
                             f"got {self.scale_factor!r}")
        return tuple(max(1, int(math.floor(n * s))) for n, s in zip(spatial, sf))

    def construct(self, x):
        if self.mode not in _MODES:
            raise ValueError(f"For 'interpolate', 'mode' must be in '{_MODES}', but got {self.mode}")
        if not isinstance(x, Tensor):
            raise TypeError(f"Upsample: the input must be a Tensor, got {type(x).__name__}")
        if x.ndim not in _DIMS[self.mode]:
            raise ValueError(f"For 'interpolate', {self.mode} only support '{list(_DIMS[self.mode])}'D, but got "
                             f"{x.ndim}D")
        if self.align_corners is not None and self.mode in ("nearest", "area", "nearest-exact"):
            raise ValueError(f"For 'interpolate', 'align_corners' option cannot currently be set with the mode = "
                             f"{self.mode}, and dim = {x.ndim}D")
        out = self._out_sizes(x)
        if self.mode in _INTERPOLATED or x.ndim == 5:
            return ops.interpolate(x, size=out, mode=self.mode, align_corners=self.align_corners)
        if self.mode == "area":
            return self._area(x, out)
        if self.mode in ("nearest", "nearest-exact"):
            pick = _nearest_index if self.mode == "nearest" else _nearest_exact_index
            y = x
            for axis, (n, o) in enumerate(zip(x.shape[2:], out)):
                index = (slice(None),) * (2 + axis) + (pick(n, o),)
                y = ops.getitem(y, index)
            return y
        dt = x._data.dtype
        ac = bool(self.align_corners)
        mw_t = Tensor._wrap(np.ascontiguousarray(_linear_matrix(x.shape[-1], out[-1], ac, dt).T))
        y = ops.matmul(x, mw_t)
        if x.ndim == 4:
            y = ops.matmul(Tensor._wrap(_linear_matrix(x.shape[2], out[0], ac, dt)), y)
        return y

    @staticmethod
    def _area(x, out):
        """MindSpore's "area": adaptive average pooling (1-D: the length a multiple of the size, as there)."""
        if x.ndim == 4:
            return ops.adaptive_avg_pool2d(x, out)
        n = x.shape[-1]
        if n < out[0]:
            raise ValueError(f"For adaptive_avg_pool1d input's last dimension must be greater or equal to output "
                             f"size {out[0]}, but got {n}.")
        if n % out[0]:
            raise ValueError(f"For adaptive_avg_pool1d input's last dimension must be divisible by output size "
                             f"{out[0]}, but got {n}.")
        return ops.squeeze(ops.adaptive_avg_pool2d(ops.expand_dims(x, 2), (1, out[0])), 2)

    def extend_repr(self):
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class ZeroPad2d(Cell):
    """Pad the last two axes with zeros: ``padding`` an int, (left, right) or (left, right, top, bottom).

    Negative amounts crop, as in MindSpore.

    Example::

        nn.ZeroPad2d((1, 0, 2, 1))(ms.Tensor(np.ones((1, 1, 2, 3), np.float32))).shape    # (1, 1, 5, 4)
    """

    def __init__(self, padding):
        super().__init__()
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * 4
        if not isinstance(padding, (tuple, list)) or len(padding) not in (2, 4) or any(
                isinstance(p, bool) or not isinstance(p, int) for p in padding):
            raise TypeError(f"ZeroPad2d: padding must be an int or a tuple of 2 or 4 ints, got {padding!r}")
        self.padding = tuple(padding)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"ZeroPad2d: the input must be a Tensor, got {type(x).__name__}")
        pads = [self.padding[i:i + 2] for i in range(0, len(self.padding), 2)]  # last axis first
        if x.ndim < len(pads):
            raise ValueError(f"ZeroPad2d: padding {self.padding!r} needs an input of at least {len(pads)} axes, "
                             f"got shape {list(x.shape)}")
        for k, (before, after) in enumerate(pads):
            axis = x.ndim - 1 - k
            n = x.shape[axis]
            if before < 0 or after < 0:
                lo, hi = max(-before, 0), n - max(-after, 0)
                if hi <= lo:
                    raise ValueError(f"ZeroPad2d: padding {self.padding!r} crops axis {axis} of shape "
                                     f"{list(x.shape)} to nothing")
                x = ops.getitem(x, (slice(None),) * axis + (slice(lo, hi),))
            parts = []
            for amount in (before, after):
                if amount > 0:
                    shape = list(x.shape)
                    shape[axis] = amount
                    parts.append(Tensor._wrap(np.zeros(shape, x._data.dtype)))
                else:
                    parts.append(None)
            if parts[0] is not None or parts[1] is not None:
                x = ops.concat([p for p in (parts[0], x, parts[1]) if p is not None], axis)
        return x

    def extend_repr(self):
        return f"padding={self.padding}"
