"""Pooling layers: ``MaxPool2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d`` (NCHW).

MindSpore's defaults: ``kernel_size=1``, ``stride=1``, ``pad_mode="valid"``.

Example::

    pool = nn.MaxPool2d(kernel_size=2, stride=2)
    pool(ms.Tensor(np.zeros((8, 6, 24, 24), np.float32))).shape         # (8, 6, 12, 12)
"""

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class _Pool2d(Cell):
    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, data_format):
        super().__init__()
        name = type(self).__name__
        if ceil_mode:
            raise ValueError(f"{name}: ceil_mode=True is not supported")
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.kernel_size, self.stride, self.pad_mode, self.padding = kernel_size, stride, pad_mode.lower(), padding

    def _input(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"{type(self).__name__}: the input must be a Tensor, got {type(x).__name__}")
        if x.ndim == 3:                  # (C, H, W): MindSpore accepts an unbatched input
            return ops.expand_dims(x, 0), True
        if x.ndim != 4:
            raise ValueError(f"{type(self).__name__}: expects a 3-D or 4-D input, got shape {list(x.shape)}")
        return x, False

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    """Max over ``kernel_size`` windows moved by ``stride`` (``pad_mode`` "valid", "same" or "pad")."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        if dilation not in (1, (1, 1)) or return_indices:
            raise ValueError("MaxPool2d: dilation other than 1 and return_indices=True are not supported")

    def construct(self, x):
        x, unbatched = self._input(x)
        y = ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, pad_mode=self.pad_mode)
        return ops.squeeze(y, 0) if unbatched else y


class AvgPool2d(_Pool2d):
    """Mean over ``kernel_size`` windows moved by ``stride``; ``count_include_pad``/``divisor_override`` as MindSpore."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def construct(self, x):
        x, unbatched = self._input(x)
        y = ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, False, self.count_include_pad,
                           self.divisor_override or 0, pad_mode=self.pad_mode)
        return ops.squeeze(y, 0) if unbatched else y


class AdaptiveAvgPool2d(Cell):
    """Average pooling to ``output_size`` (an int or (H, W); None keeps that dimension)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_avg_pool2d(x, self.output_size)

    def extend_repr(self):
        return f"output_size={self.output_size}"
