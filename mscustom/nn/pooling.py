"""Pooling layers: ``MaxPool2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d`` (NCHW).

MindSpore's defaults: ``kernel_size=1``, ``stride=1``, ``pad_mode="valid"``.

Example::

    pool = nn.MaxPool2d(kernel_size=2, stride=2)
    pool(ms.Tensor(np.zeros((8, 6, 24, 24), np.float32))).shape         # (8, 6, 12, 12)
"""

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveMaxPool2d"]


def _pad_only(name, pad_mode, padding, dilation, return_indices, ceil_mode):
    """MindSpore's rule: padding, dilation, return_indices and ceil_mode need pad_mode "pad"."""
    if pad_mode != "pad" and (padding not in (0, (0, 0), (0, 0, 0, 0)) or dilation not in (1, (1, 1))
                              or return_indices or ceil_mode):
        raise ValueError(f"For {name}, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can "
                         f"not be set to non-default value when pad_mode is not 'pad', but got pad_mode:{pad_mode}.")


class _Pool2d(Cell):
    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, data_format):
        super().__init__()
        name = type(self).__name__
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
        _pad_only("MaxPool2d", self.pad_mode, padding, dilation, return_indices, ceil_mode)
        if dilation not in (1, (1, 1)):
            raise ValueError(f"MaxPool2d: dilation other than 1 is not supported, got {dilation!r}")
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)

    def construct(self, x):
        x, unbatched = self._input(x)
        y = ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, return_indices=self.return_indices,
                           ceil_mode=self.ceil_mode, pad_mode=self.pad_mode)
        if not unbatched:
            return y
        return tuple(ops.squeeze(t, 0) for t in y) if self.return_indices else ops.squeeze(y, 0)


class AvgPool2d(_Pool2d):
    """Mean over ``kernel_size`` windows moved by ``stride``; ``count_include_pad``/``divisor_override`` as MindSpore."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override
        self.ceil_mode = bool(ceil_mode)

    def construct(self, x):
        x, unbatched = self._input(x)
        y = ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
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


def _int1(v, name, what):
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name}: {what} must be an int, got {v!r}")
    return v


class _Pool1d(Cell):
    """A 1-D pool (N, C, L) or (C, L) as the 2-D one over (N, C, 1, L)."""

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        name = type(self).__name__
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.kernel_size = _int1(kernel_size, name, "kernel_size")
        self.stride = _int1(stride, name, "stride")
        self.padding = _int1(padding, name, "padding")
        if self.kernel_size < 1 or self.stride < 1 or self.padding < 0:
            raise ValueError(f"{name}: kernel_size and stride must be >= 1 and padding >= 0, got "
                             f"{kernel_size!r}, {stride!r}, {padding!r}")
        self.pad_mode, self.ceil_mode = pad_mode.lower(), bool(ceil_mode)

    def _input(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"{type(self).__name__}: the input must be a Tensor, got {type(x).__name__}")
        if x.ndim not in (2, 3):
            raise ValueError(f"For '{type(self).__name__}', the input must has 3 dim, but got {x.ndim}")
        if x.ndim == 2:                  # (C, L): MindSpore accepts an unbatched input
            return ops.expand_dims(ops.expand_dims(x, 0), -2), True
        return ops.expand_dims(x, -2), False

    def _output(self, y, unbatched):
        y = ops.squeeze(y, -2)
        return ops.squeeze(y, 0) if unbatched else y

    def _geometry(self):
        return (1, self.kernel_size), (1, self.stride), (0, 0, self.padding, self.padding)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool1d(_Pool1d):
    """Max over ``kernel_size`` windows of the last axis of (N, C, L) or (C, L), moved by ``stride``.

    ``padding``, ``return_indices`` (int64 positions along L) and ``ceil_mode``
    need ``pad_mode="pad"``, as in MindSpore.

    Example::

        nn.MaxPool1d(3, 2)(ms.Tensor(np.ones((1, 2, 7), np.float32))).shape     # (1, 2, 3)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        _pad_only("MaxPool1d", self.pad_mode, padding, dilation, return_indices, ceil_mode)
        if dilation not in (1, (1,)):
            raise ValueError(f"MaxPool1d: dilation other than 1 is not supported, got {dilation!r}")
        self.return_indices = bool(return_indices)

    def construct(self, x):
        x, unbatched = self._input(x)
        k, s, p = self._geometry()
        y = ops.max_pool2d(x, k, s, p, return_indices=self.return_indices, ceil_mode=self.ceil_mode,
                           pad_mode=self.pad_mode)
        if self.return_indices:
            return self._output(y[0], unbatched), self._output(y[1], unbatched)
        return self._output(y, unbatched)


class AvgPool1d(_Pool1d):
    """Mean over ``kernel_size`` windows of the last axis of (N, C, L) or (C, L), moved by ``stride``.

    ``count_include_pad`` counts the padded zeros in the divisor ("same"
    padding only with ``ceil_mode``, as MindSpore); ``ceil_mode`` rounds the
    output size up in every ``pad_mode``.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        if self.pad_mode != "pad" and self.padding:
            raise ValueError(f"AvgPool1d: padding must be 0 when pad_mode is {self.pad_mode!r}, got {padding!r}")
        self.count_include_pad = bool(count_include_pad)

    def construct(self, x):
        x, unbatched = self._input(x)
        k, s, p = self._geometry()
        y = ops.avg_pool2d(x, k, s, p, self.ceil_mode, self.count_include_pad, pad_mode=self.pad_mode)
        return self._output(y, unbatched)


class AdaptiveMaxPool2d(Cell):
    """Max pooling to ``output_size`` (an int or (H, W); None keeps that dimension).

    Output bin ``i`` of an axis of length L covers ``[floor(i*L/out),
    ceil((i+1)*L/out))``; ``return_indices`` also returns the int64 flat index
    (row * W + column) of each bin's first maximum. Input (N, C, H, W) or (C, H, W).

    Example::

        nn.AdaptiveMaxPool2d((2, 3))(x)          # (N, C, 2, 3)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, bool(return_indices)

    def construct(self, x):
        return ops.adaptive_max_pool2d(x, self.output_size, self.return_indices)

    def extend_repr(self):
        return f"output_size={self.output_size}, return_indices={self.return_indices}"
