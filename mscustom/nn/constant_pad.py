"""``nn.ConstantPad1d``, ``ConstantPad2d``, ``ConstantPad3d``: pad the last 1, 2 or 3 axes with a value.

As in MindSpore 2.10, ``padding`` is an int (the same amount on both sides of every padded axis)
or a tuple (left, right[, top, bottom[, front, back]]), last axis first; a shorter tuple pads fewer
axes, and negative amounts crop. An integer tensor takes the value truncated to its dtype. The
gradient comes from ``getitem``'s (cropping) and ``pad``'s.

Example::

    nn.ConstantPad2d((1, 0, 0, 1), -1.0)(ms.Tensor(np.ones((1, 2, 3), np.float32))).shape   # (1, 3, 4)
"""

from .. import ops
from ..tensor import Tensor
from .cell import Cell


class _ConstantPadNd(Cell):
    """The shared work of ConstantPad1d/2d/3d (``_AXES`` axes)."""

    _AXES = 1

    def __init__(self, padding, value):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self._AXES)
        if not isinstance(padding, (tuple, list)) or any(isinstance(p, bool) or not isinstance(p, int)
                                                         for p in padding):
            raise TypeError(f"{name}: padding must be an int or a tuple of ints, got {padding!r}")
        if not padding or len(padding) % 2 or len(padding) > 2 * self._AXES:
            raise ValueError(f"{name}: padding must hold 2"
                             f"{'' if self._AXES == 1 else ' to %d' % (2 * self._AXES)} ints (an even number), "
                             f"got {len(padding)}: {padding!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name}: value must be an int or a float, got {value!r}")
        self.padding = tuple(padding)
        self.value = value

    def construct(self, x):
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
        pairs = [self.padding[i:i + 2] for i in range(0, len(self.padding), 2)]     # last axis first
        if x.ndim < len(pairs):
            raise ValueError(f"{name}: padding {self.padding!r} needs an input of at least {len(pairs)} axes, "
                             f"got shape {list(x.shape)}")
        crop = [slice(None)] * x.ndim
        for k, (before, after) in enumerate(pairs):
            axis = x.ndim - 1 - k
            lo, hi = max(-before, 0), x.shape[axis] - max(-after, 0)
            if hi <= lo:
                raise ValueError(f"{name}: padding {self.padding!r} crops axis {axis} of shape {list(x.shape)} "
                                 f"to nothing")
            crop[axis] = slice(lo, hi)
        if any(min(pair) < 0 for pair in pairs):
            x = ops.getitem(x, tuple(crop))
        grow = tuple(max(p, 0) for p in self.padding)
        return ops.pad(x, grow, value=self.value) if any(grow) else x

    def extend_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last axis with ``value``: ``padding`` an int or (left, right)."""

    _AXES = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two axes with ``value``: ``padding`` an int or (left, right, top, bottom)."""

    _AXES = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three axes with ``value``: ``padding`` an int or (left, right, top, bottom, front, back)."""

    _AXES = 3
