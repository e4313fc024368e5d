"""Rearranging channels: ``PixelShuffle`` (depth to space), ``PixelUnshuffle`` (space to depth) and
``ChannelShuffle`` (interleave channel groups), as reshape/transpose compositions.

Example::

    nn.PixelShuffle(2)(x)        # (N, 4C, H, W) -> (N, C, 2H, 2W)
"""

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


def _factor(v, what, name):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
    return v


def _input(x, name, min_rank):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
    if x.ndim < min_rank:
        raise ValueError(f"{name}: the input must have at least {min_rank} dimensions, got shape {list(x.shape)}")
    return x


class PixelShuffle(Cell):
    """``(*, C * r * r, H, W) -> (*, C, H * r, W * r)`` with ``r = upscale_factor``."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = _factor(upscale_factor, "upscale_factor", "PixelShuffle")

    def construct(self, x):
        x = _input(x, "PixelShuffle", 3)
        r = self.upscale_factor
        *lead, c, h, w = x.shape
        if c % (r * r):
            raise ValueError(f"PixelShuffle: the channels ({c}) must be divisible by upscale_factor ** 2 ({r * r})")
        lead = tuple(lead)
        n = len(lead)
        y = ops.reshape(x, lead + (c // (r * r), r, r, h, w))
        perm = tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2)
        return ops.reshape(ops.transpose(y, perm), lead + (c // (r * r), h * r, w * r))


class PixelUnshuffle(Cell):
    """``(*, C, H * r, W * r) -> (*, C * r * r, H, W)`` with ``r = downscale_factor``."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = _factor(downscale_factor, "downscale_factor", "PixelUnshuffle")

    def construct(self, x):
        x = _input(x, "PixelUnshuffle", 3)
        r = self.downscale_factor
        *lead, c, h, w = x.shape
        if h % r or w % r:
            raise ValueError(f"PixelUnshuffle: height and width ({h}, {w}) must be divisible by downscale_factor {r}")
        lead = tuple(lead)
        n = len(lead)
        y = ops.reshape(x, lead + (c, h // r, r, w // r, r))
        perm = tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3)
        return ops.reshape(ops.transpose(y, perm), lead + (c * r * r, h // r, w // r))


class ChannelShuffle(Cell):
    """Split the channels (axis 1) into ``groups`` and interleave them: ``(N, g, C/g, ...) -> (N, C/g, g, ...)``."""

    def __init__(self, groups):
        super().__init__()
        self.groups = _factor(groups, "groups", "ChannelShuffle")

    def construct(self, x):
        x = _input(x, "ChannelShuffle", 3)
        g = self.groups
        n, c, *rest = x.shape
        if c % g:
            raise ValueError(f"ChannelShuffle: the channels ({c}) must be divisible by groups ({g})")
        y = ops.reshape(x, (n, g, c // g) + tuple(rest))
        return ops.reshape(ops.swapaxes(y, 1, 2), x.shape)
