"""Padding Cells with MindSpore's names: ``Pad`` (CONSTANT / REFLECT / SYMMETRIC, per-axis pairs) and
``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d`` (trailing axes, last axis first).

Example::

    nn.ReflectionPad1d((1, 2))(x)                  # x[..., 1:0:-1], x, x[..., -2:-4:-1]
    nn.Pad(((0, 0), (1, 1)), mode="SYMMETRIC")(x)  # repeat the edge column
"""

from .. import ops
from ..ops.array.pad_resize import pad_mode_op
from ..tensor import Tensor
from .cell import Cell

__all__ = ["Pad", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d"]


def _input(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
    return x


class Pad(Cell):
    """Pad axis ``i`` by ``paddings[i] = (before, after)``; the pairs cover the leading axes in order.

    ``mode``: "CONSTANT" (zeros), "REFLECT" (mirror without the edge, pads smaller than the
    axis) or "SYMMETRIC" (mirror with the edge, pads at most the axis).
    """

    _MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(paddings, (tuple, list)) or not all(
                isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                     for v in p) for p in paddings):
            raise TypeError(f"Pad: paddings must be a tuple of (before, after) int pairs, got {paddings!r}")
        if not isinstance(mode, str) or mode.upper() not in self._MODES:
            raise ValueError(f"Pad: mode must be one of {list(self._MODES)}, got {mode!r}")
        if any(v < 0 for p in paddings for v in p):
            raise ValueError(f"Pad: paddings must be non-negative, got {paddings!r}")
        self.paddings, self.mode = tuple(tuple(p) for p in paddings), mode.upper()

    def construct(self, x):
        x = _input(x, "Pad")
        if len(self.paddings) > x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} pairs of paddings for a {x.ndim}-D input")
        for i, (a, b) in enumerate(self.paddings):
            n = x.shape[i]
            if self.mode == "REFLECT" and (a >= n or b >= n) and (a or b):
                raise ValueError(f"Pad: REFLECT padding of axis {i} must be less than its size {n}, got {(a, b)}")
            if self.mode == "SYMMETRIC" and (a > n or b > n):
                raise ValueError(f"Pad: SYMMETRIC padding of axis {i} must be at most its size {n}, got {(a, b)}")
        flat = []
        for a, b in reversed(self.paddings):
            flat += [a, b]
        return pad_mode_op(x, flat, self._MODES[self.mode])


def _padding(padding, n, name):
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * (2 * n)
    if (isinstance(padding, (tuple, list)) and len(padding) == 2 * n
            and all(isinstance(p, int) and not isinstance(p, bool) for p in padding)):
        return tuple(padding)
    raise TypeError(f"{name}: padding must be an int or a tuple of {2 * n} ints, got {padding!r}")


class _TrailingPad(Cell):
    _dims = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _padding(padding, self._dims, type(self).__name__)

    def construct(self, x):
        name = type(self).__name__
        x = _input(x, name)
        d = self._dims
        if x.ndim not in (d + 1, d + 2):
            raise ValueError(f"{name}: the input must be {d + 1}-D or {d + 2}-D, got shape {list(x.shape)}")
        if self._mode == "reflect":
            for i in range(d):
                n = x.shape[-1 - i]
                a, b = self.padding[2 * i], self.padding[2 * i + 1]
                if a >= n or b >= n:
                    raise ValueError(f"{name}: the padding of axis {-1 - i} must be less than its size {n}, "
                                     f"got {(a, b)}")
        return ops.pad(x, self.padding, mode=self._mode)

    def extend_repr(self):
        return f"padding={self.padding}"


class ReflectionPad1d(_TrailingPad):
    """Mirror-pad the last axis of a ``(C, W)`` / ``(N, C, W)`` input by ``(left, right)`` (or an int)."""
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_TrailingPad):
    """Mirror-pad the last two axes by ``(left, right, top, bottom)`` (or an int)."""
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_TrailingPad):
    """Mirror-pad the last three axes by ``(left, right, top, bottom, front, back)`` (or an int)."""
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_TrailingPad):
    """Repeat the edge values of the last axis: ``(left, right)`` (or an int)."""
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_TrailingPad):
    """Repeat the edge values of the last two axes: ``(left, right, top, bottom)`` (or an int)."""
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_TrailingPad):
    """Repeat the edge values of the last three axes: ``(left, right, top, bottom, front, back)``."""
    _dims, _mode = 3, "replicate"
