"""3-D and 1-D transposed convolutions with MindSpore's arguments: ``Conv3d``, ``Conv3dTranspose``,
``Conv1dTranspose``.

``Conv3d`` is a sum over the kernel's depth offsets of 2-D convolutions (each on the strided depth
slices of the padded input), so its gradients are the 2-D convolution's. ``Conv3dTranspose`` is a
stride-1 ``Conv3d`` of the input with zeros inserted between elements (``stride - 1`` of them),
padded by ``dilation * (k - 1) - padding``, with the kernel flipped and its channel axes swapped.
``Conv1dTranspose`` is ``Conv2dTranspose`` on a height-1 image (weight (C_in, C_out/group, 1, k), as
MindSpore stores it).

Example::

    conv = nn.Conv3d(2, 4, kernel_size=3, pad_mode="pad", padding=1, has_bias=True)
    conv(x)                     # (N, 2, D, H, W) -> (N, 4, D, H, W)
"""

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Parameter, Tensor
from . import init as _init
from .cell import Cell

__all__ = ["Conv3d", "Conv3dTranspose", "Conv1dTranspose"]


def _triple(v, what, name, low=1):
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,) * 3
    if not isinstance(v, (tuple, list)) or len(v) != 3 or not all(isinstance(a, int) and not isinstance(a, bool)
                                                                   for a in v) or min(v) < low:
        raise ValueError(f"{name}: {what} must be an int or a tuple of 3 ints >= {low}, got {v!r}")
    return tuple(v)


def _padding6(padding, name):
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = (padding,) * 6
    if not isinstance(padding, (tuple, list)) or len(padding) != 6 or not all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in padding):
        raise ValueError(f"{name}: padding must be an int or a tuple of 6 non-negative ints (head, tail, top, "
                         f"bottom, left, right), got {padding!r}")
    return tuple(padding)


def _conv3d(x, w, stride, dilation, groups):
    """Valid 3-D convolution of an already padded ``x`` (N, C, D, H, W) with ``w`` (O, C/groups, kd, kh, kw)."""
    n, c, d = x.shape[:3]
    kd = w.shape[2]
    sd, dd = stride[0], dilation[0]
    d_out = (d - dd * (kd - 1) - 1) // sd + 1
    if d_out < 1:
        raise ValueError(f"Conv3d: the kernel does not fit the (padded) input of shape {list(x.shape)}")
    total = None
    for k in range(kd):
        sl = x[:, :, k * dd:k * dd + (d_out - 1) * sd + 1:sd]                      # (N, C, d_out, H, W)
        planes = ops.reshape(ops.transpose(sl, (0, 2, 1, 3, 4)), (n * d_out, c) + tuple(sl.shape[3:]))
        y = ops.conv2d(planes, w[:, :, k], None, stride[1:], "valid", 0, dilation[1:], groups)
        total = y if total is None else ops.add(total, y)
    o, ho, wo = total.shape[1:]
    return ops.transpose(ops.reshape(total, (n, d_out, o, ho, wo)), (0, 2, 1, 3, 4))


def _same_pads(sizes, kernel, stride, dilation):
    pads = []
    for n, k, s, d in zip(sizes, kernel, stride, dilation):
        out = -(-n // s)
        total = max((out - 1) * s + d * (k - 1) + 1 - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _flat_pad(pads6):
    """(head, tail, top, bottom, left, right) as ops.pad's last-axis-first list."""
    return (pads6[4], pads6[5], pads6[2], pads6[3], pads6[0], pads6[1])


class _Conv3dBase(Cell):
    def __init__(self, name, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                 has_bias, weight_init, bias_init, data_format, dtype, transpose):
        super().__init__()
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels), ("group", group)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
        if in_channels % group or out_channels % group:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        if data_format != "NCDHW":
            raise ValueError(f"{name}: only data_format='NCDHW' is supported, got {data_format!r}")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.kernel_size = _triple(kernel_size, "kernel_size", name)
        self.stride = _triple(stride, "stride", name)
        self.dilation = _triple(dilation, "dilation", name)
        self.pad_mode = pad_mode.lower()
        self.padding = _padding6(padding, name)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}")
        self.has_bias = bool(has_bias)
        self.data_format = data_format
        shape = ((in_channels, out_channels // group) if transpose else
                 (out_channels, in_channels // group)) + self.kernel_size
        fan_in = shape[1] * int(np.prod(self.kernel_size))
        weight_init, bias_init = _init.dense_defaults(weight_init, bias_init, fan_in)
        self.weight = Parameter(_init.initializer(weight_init, shape, dtype), name="weight")
        self.bias = Parameter(_init.initializer(bias_init, (out_channels,), dtype), name="bias") \
            if self.has_bias else None

    def _check(self, x, name):
        if not isinstance(x, Tensor) or x.ndim != 5 or x.shape[1] != self.in_channels:
            raise ValueError(f"{name}(in_channels={self.in_channels}): expects a 5-D input with {self.in_channels} "
                             f"channels on axis 1, got {list(getattr(x, 'shape', [type(x).__name__]))}")

    def _add_bias(self, y):
        if self.bias is None:
            return y
        return ops.add(y, ops.reshape(ops.cast(self.bias, y.dtype), (1, -1, 1, 1, 1)))

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


class Conv3d(_Conv3dBase):
    """3-D convolution over ``(N, C_in, D, H, W)``; weight ``(C_out, C_in/group, kd, kh, kw)``.

    ``pad_mode``: "same" (output ``ceil(n / stride)``), "valid" or "pad" (``padding`` an int or
    (head, tail, top, bottom, left, right)). Defaults as MindSpore's (HeUniform weight, no bias).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=_dt.float32):
        super().__init__("Conv3d", in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, data_format, dtype, transpose=False)

    def construct(self, x):
        self._check(x, "Conv3d")
        if self.pad_mode == "same":
            pads = _same_pads(x.shape[2:], self.kernel_size, self.stride, self.dilation)
        else:
            pads = self.padding
        if any(pads):
            x = ops.pad(x, _flat_pad(pads))
        return self._add_bias(_conv3d(x, ops.cast(self.weight, x.dtype), self.stride, self.dilation, self.group))


def _dilate(x, axis, s):
    """Insert ``s - 1`` zeros between the elements along ``axis``."""
    if s == 1:
        return x
    n = x.shape[axis]
    z = ops.expand_dims(x, axis + 1)
    pad_shape = list(z.shape)
    pad_shape[axis + 1] = s - 1
    z = ops.concat([z, Tensor(np.zeros(pad_shape, x._data.dtype))], axis + 1)
    shape = list(x.shape)
    shape[axis] = n * s
    z = ops.reshape(z, tuple(shape))
    return z[(slice(None),) * axis + (slice(0, (n - 1) * s + 1),)]


class Conv3dTranspose(_Conv3dBase):
    """Transposed 3-D convolution; weight ``(C_in, C_out/group, kd, kh, kw)``.

    Output size per axis: "same" ``n * stride``; "valid" ``(n - 1) * stride + dilation * (k - 1) + 1``
    (plus ``output_padding``); "pad" that minus the two paddings plus ``output_padding``.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=_dt.float32):
        super().__init__("Conv3dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype, transpose=True)
        self.output_padding = _triple(output_padding, "output_padding", "Conv3dTranspose", low=0)
        if self.dilation[0] != 1:
            raise ValueError(f"Conv3dTranspose: the depth dilation must be 1, got {self.dilation}")
        for op, s, d in zip(self.output_padding, self.stride, self.dilation):
            if op >= max(s, d):
                raise ValueError(f"Conv3dTranspose: output_padding must be smaller than stride or dilation, got "
                                 f"{self.output_padding}")

    def construct(self, x):
        self._check(x, "Conv3dTranspose")
        sizes = x.shape[2:]
        if self.pad_mode == "same":
            pads = []
            for n, k, s, d in zip(sizes, self.kernel_size, self.stride, self.dilation):
                total = max((n - 1) * s + d * (k - 1) + 1 - n * s, 0)
                pads += [total // 2, total - total // 2]
        elif self.pad_mode == "valid":
            pads = [0] * 6
        else:
            pads = list(self.padding)
        y = x
        for a, s in enumerate(self.stride):
            y = _dilate(y, 2 + a, s)
        full = []
        for a, (k, d) in enumerate(zip(self.kernel_size, self.dilation)):
            e = d * (k - 1)
            extra = self.output_padding[a] if self.pad_mode != "same" else 0
            full += [e - pads[2 * a], e - pads[2 * a + 1] + extra]
        if any(p < 0 for p in full):                    # more padding than the kernel reach: crop
            crop = tuple(slice(max(-full[2 * a], 0), y.shape[2 + a] - max(-full[2 * a + 1], 0)) for a in range(3))
            y = y[(slice(None), slice(None)) + crop]
            full = [max(p, 0) for p in full]
        if any(full):
            y = ops.pad(y, _flat_pad(full))
        g, cin, cout = self.group, self.in_channels, self.out_channels
        w = ops.cast(self.weight, x.dtype)
        w = ops.reshape(w, (g, cin // g, cout // g) + self.kernel_size)
        w = ops.transpose(w, (0, 2, 1, 3, 4, 5))
        w = ops.reshape(w, (cout, cin // g) + self.kernel_size)
        w = ops.flip(w, (2, 3, 4))
        return self._add_bias(_conv3d(y, w, (1, 1, 1), self.dilation, g))


class Conv1dTranspose(Cell):
    """Transposed 1-D convolution over ``(N, C_in, L)``; weight ``(C_in, C_out/group, 1, k)``.

    ``padding``: an int (both sides) with ``pad_mode="pad"``; ``weight_init`` may be a Tensor of shape
    (C_in, C_out/group, k). It is Conv2dTranspose's computation on a height-1 image.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=_dt.float32):
        super().__init__()
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels), ("kernel_size", kernel_size),
                        ("stride", stride), ("dilation", dilation), ("group", group)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"Conv1dTranspose: {what} must be a positive int, got {v!r}")
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv1dTranspose: in_channels and out_channels must be divisible by group ({group})")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"Conv1dTranspose: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if isinstance(padding, bool) or not isinstance(padding, int) or padding < 0:
            raise TypeError(f"Conv1dTranspose: padding must be a non-negative int, got {padding!r}")
        pad4 = (0, 0, padding, padding)
        self.pad_mode = pad_mode.lower()
        if self.pad_mode != "pad" and any(pad4):
            raise ValueError(f"Conv1dTranspose: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.dilation, self.padding, self.group = stride, dilation, padding, group
        self._pad4 = pad4
        self.has_bias = bool(has_bias)
        shape = (in_channels, out_channels // group, 1, kernel_size)
        if isinstance(weight_init, Tensor) and weight_init.ndim == 3:
            weight_init = ops.expand_dims(weight_init, 2)
        weight_init, bias_init = _init.dense_defaults(weight_init, bias_init, shape[1] * kernel_size)
        self.weight = Parameter(_init.initializer(weight_init, shape, dtype), name="weight")
        self.bias = Parameter(_init.initializer(bias_init, (out_channels,), dtype), name="bias") \
            if self.has_bias else None

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != 3 or x.shape[1] != self.in_channels:
            raise ValueError(f"Conv1dTranspose(in_channels={self.in_channels}): expects a 3-D input with "
                             f"{self.in_channels} channels on axis 1, got "
                             f"{list(getattr(x, 'shape', [type(x).__name__]))}")
        y = ops.conv2d_transpose(ops.expand_dims(x, 2), ops.cast(self.weight, x.dtype), (1, self.stride),
                                 self.pad_mode, self._pad4, (1, self.dilation), self.group)
        y = ops.squeeze(y, 2)
        if self.bias is not None:
            y = ops.add(y, ops.reshape(ops.cast(self.bias, y.dtype), (1, -1, 1)))
        return y
