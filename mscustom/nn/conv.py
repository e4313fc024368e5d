"""Convolution layers: ``Conv1d``, ``Conv2d``, ``Conv2dTranspose`` (NCHW), with MindSpore's arguments.

Defaults follow MindSpore 2.x: ``pad_mode="same"``, ``has_bias=False``, and
with ``weight_init=None`` / ``bias_init=None`` a HeUniform(negative_slope=sqrt(5))
weight and a bias uniform in ``+-1/sqrt(fan_in)``.

Example::

    conv = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
    conv(ms.Tensor(np.zeros((8, 1, 28, 28), np.float32))).shape        # (8, 6, 24, 24)
"""

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..ops.nn import conv as _conv
from ..tensor import Parameter, Tensor
from . import init as _init
from .cell import Cell

__all__ = ["Conv1d", "Conv2d", "Conv2dTranspose"]


def _positive(name, what, v):
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
    return int(v)


class _Conv(Cell):
    """Shared construction: argument checks, weight and bias Parameters."""

    def __init__(self, name, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                 group, has_bias, weight_init, bias_init, weight_shape, data_format, dtype):
        super().__init__()
        self.in_channels = _positive(name, "in_channels", in_channels)
        self.out_channels = _positive(name, "out_channels", out_channels)
        self.group = _positive(name, "group", group)
        if self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        if self.pad_mode != "pad" and any(np.atleast_1d(padding)):
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}; "
                             "use pad_mode='pad'")
        self.kernel_size, self.stride, self.dilation, self.padding = kernel_size, stride, dilation, padding
        self.has_bias = bool(has_bias)
        receptive = int(np.prod(weight_shape[2:]))
        weight_init, bias_init = _init.dense_defaults(weight_init, bias_init, weight_shape[1] * receptive)
        self.weight = Parameter(self._make(name, "weight_init", weight_init, weight_shape, dtype))
        self.bias = Parameter(self._make(name, "bias_init", bias_init, (self.out_channels,), dtype)) \
            if self.has_bias else None

    @staticmethod
    def _make(name, what, init, shape, dtype):
        try:
            return _init.initializer(init, shape, dtype)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name}: bad {what}: {exc}") from None

    def _check_input(self, x, ndim):
        if not isinstance(x, Tensor):
            raise TypeError(f"{type(self).__name__}: the input must be a Tensor, got {type(x).__name__}")
        if x.ndim != ndim or x.shape[1] != self.in_channels:
            raise ValueError(f"{type(self).__name__}(in_channels={self.in_channels}): expects an input of "
                             f"rank {ndim} with {self.in_channels} channels on axis 1, got shape {list(x.shape)}")

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W); weight (C_out, C_in/group, kH, kW).

    ``pad_mode``: "same" (output ``ceil(H / stride)``), "valid" (no padding) or
    "pad" (``padding`` an int or (top, bottom, left, right)).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCHW",
                 dtype=_dt.float32):
        kernel = _conv._int_pair(kernel_size, "Conv2d", "kernel_size")
        _conv._int_pair(stride, "Conv2d", "stride")
        _conv._int_pair(dilation, "Conv2d", "dilation")
        _conv._padding4(padding, "Conv2d")
        super().__init__("Conv2d", in_channels, out_channels, kernel, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init,
                         (out_channels, _positive("Conv2d", "in_channels", in_channels) //
                          _positive("Conv2d", "group", group)) + kernel, data_format, dtype)

    def construct(self, x):
        self._check_input(x, 4)
        return ops.conv2d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding,
                          self.dilation, self.group)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L); weight (C_out, C_in/group, 1, K) as MindSpore stores it (so
    checkpoints move both ways). ``padding``: int or (left, right)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype=_dt.float32):
        k = _positive("Conv1d", "kernel_size", kernel_size)
        _positive("Conv1d", "stride", stride)
        _positive("Conv1d", "dilation", dilation)
        pad4 = (0, 0) + tuple(padding) if isinstance(padding, (tuple, list)) else padding
        _conv._padding4(pad4, "Conv1d")
        super().__init__("Conv1d", in_channels, out_channels, k, stride, pad_mode,
                         0 if pad4 == (0, 0, 0, 0) else padding, dilation, group, has_bias, weight_init,
                         bias_init, (out_channels, _positive("Conv1d", "in_channels", in_channels) //
                                     _positive("Conv1d", "group", group), 1, k), "NCHW", dtype)
        self.padding = padding
        self._kernel_shape = (out_channels, in_channels // group, k)

    def construct(self, x):
        self._check_input(x, 3)
        return ops.conv1d(x, ops.reshape(self.weight, self._kernel_shape), self.bias, self.stride,
                          self.pad_mode, self.padding, self.dilation, self.group)


class Conv2dTranspose(_Conv):
    """Transposed 2-D convolution; weight (C_in, C_out/group, kH, kW).

    Output size: "same" ``H * stride``; "valid" ``(H - 1) * stride + dilation * (kH - 1) + 1``;
    "pad" that minus ``top + bottom`` plus ``output_padding``.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=_dt.float32):
        kernel = _conv._int_pair(kernel_size, "Conv2dTranspose", "kernel_size")
        _conv._padding4(padding, "Conv2dTranspose")
        super().__init__("Conv2dTranspose", in_channels, out_channels, kernel, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init,
                         (in_channels, _positive("Conv2dTranspose", "out_channels", out_channels) //
                          _positive("Conv2dTranspose", "group", group)) + kernel, "NCHW", dtype)
        self.output_padding = output_padding

    def construct(self, x):
        self._check_input(x, 4)
        y = ops.conv2d_transpose(x, self.weight, self.stride, self.pad_mode, self.padding, self.dilation,
                                 self.group, self.output_padding)
        if self.bias is not None:
            y = ops.add(y, ops.reshape(self.bias, (1, -1, 1, 1)))
        return y
