"""Convolution-shaped functions with MindSpore 2.10's names: ``conv3d``, ``conv3d_transpose``, ``fold``,
``unfold``, ``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``.

Convolutions are products of ``im2col``'s windows with the weight (a transposed convolution adds the
products back with ``col2im``), so gradients for input and weight come from those ops and ``matmul``.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg
from ._common import float_tensor, int_arg, int_tuple
from ._windows import col2im, im2col


def _same_pads(size, k, s, d):
    eff = d * (k - 1) + 1
    total = max((-(-size // s) - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def _conv_pads(name, pad_mode, padding, spatial, k, s, d):
    nd = len(spatial)
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"op '{name}': pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if pad_mode == "same":
        return [_same_pads(n, kk, ss, dd) for n, kk, ss, dd in zip(spatial, k, s, d)]
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * nd:
        vals = [int_arg(v, name, "padding", 0) for v in padding]
        pads = [(vals[2 * i], vals[2 * i + 1]) for i in range(nd)]
    else:
        pads = [(p, p) for p in int_tuple(padding, nd, name, "padding", 0)]
    if pad_mode == "valid" and any(p != (0, 0) for p in pads):
        raise ValueError(f"op '{name}': padding must be 0 when pad_mode is 'valid', got {padding!r}")
    return pads


def _grouped_weight(w, groups, name):
    cout = w.shape[0]
    if cout % groups:
        raise ValueError(f"op '{name}': the output channels ({cout}) must be divisible by groups ({groups})")
    return F.reshape(w, (groups, cout // groups, -1))


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa: A002
           groups=1):
    """3-D cross-correlation of (N, C_in, D, H, W) with ``weight`` (C_out, C_in / groups, kD, kH, kW);
    ``pad_mode`` 'valid', 'same' or 'pad' (``padding``: an int or 3 ints, each applied to both sides)."""
    name = "conv3d"
    x = float_tensor(input, name)
    w = float_tensor(weight, name, "weight")
    if x.ndim != 5 or w.ndim != 5:
        raise ValueError(f"op '{name}': input and weight must be 5-D, got shapes {list(x.shape)} and {list(w.shape)}")
    groups = int_arg(groups, name, "groups", 1)
    if x.shape[1] != w.shape[1] * groups:
        raise ValueError(f"op '{name}': input has {x.shape[1]} channels, weight expects {w.shape[1]} x {groups} "
                         f"groups")
    k = tuple(w.shape[2:])
    s = int_tuple(stride, 3, name, "stride", 1)
    d = int_tuple(dilation, 3, name, "dilation", 1)
    if isinstance(padding, (tuple, list)) and len(padding) != 3:
        raise ValueError(f"op '{name}': padding must be an int or 3 ints, got {padding!r}")
    pads = _conv_pads(name, pad_mode, padding, x.shape[2:], k, s, d)
    cols = im2col(x, k, s, d, pads, 0.0)                       # (N, C, kD, kH, kW, oD, oH, oW)
    n, outs = x.shape[0], tuple(cols.shape[5:])
    cols = F.reshape(cols, (n, groups, -1, int(np.prod(outs))))
    out = F.matmul(F.expand_dims(_grouped_weight(w, groups, name), 0), cols)
    out = F.reshape(out, (n, w.shape[0]) + outs)
    if bias is not None:
        out = F.add(out, F.reshape(tensor_arg(bias, name), (-1, 1, 1, 1)))
    return out


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1,
                     output_padding=0):
    """The transpose (gradient) of ``conv3d``: (N, C_in, D, H, W) with ``weight`` (C_in, C_out / group,
    kD, kH, kW); output size ``(L - 1) * stride - pads + dilation * (k - 1) + 1 + output_padding``
    ('same': ``L * stride``)."""
    name = "conv3d_transpose"
    x = float_tensor(inputs, name, "inputs")
    w = float_tensor(weight, name, "weight")
    if x.ndim != 5 or w.ndim != 5:
        raise ValueError(f"op '{name}': inputs and weight must be 5-D, got shapes {list(x.shape)} and "
                         f"{list(w.shape)}")
    groups = int_arg(group, name, "group", 1)
    cin = x.shape[1]
    if w.shape[0] != cin or cin % groups:
        raise ValueError(f"op '{name}': weight must have the input's {cin} channels first (divisible by group "
                         f"{groups}), got shape {list(w.shape)}")
    k = tuple(w.shape[2:])
    s = int_tuple(stride, 3, name, "stride", 1)
    d = int_tuple(dilation, 3, name, "dilation", 1)
    op = int_tuple(output_padding, 3, name, "output_padding", 0)
    spatial = tuple(x.shape[2:])
    full = [(n - 1) * ss + dd * (kk - 1) + 1 for n, ss, dd, kk in zip(spatial, s, d, k)]
    if pad_mode == "same":
        sizes = [n * ss for n, ss in zip(spatial, s)]
        crops = [(f - o) for f, o in zip(full, sizes)]
        pads = [(max(c, 0) // 2, c - max(c, 0) // 2) for c in crops]
    else:
        pp = _conv_pads(name, pad_mode, padding, spatial, k, s, d)
        pads = [(lo, hi - o) for (lo, hi), o in zip(pp, op)]
        sizes = [f - lo - hi for f, (lo, hi) in zip(full, pads)]
    n = x.shape[0]
    cout = w.shape[1] * groups
    wg = F.reshape(w, (groups, cin // groups, -1))            # (G, Cin/G, Cout/G * K)
    xg = F.reshape(x, (n, groups, cin // groups, -1))         # (N, G, Cin/G, L)
    wt = F.transpose(wg, (0, 2, 1))
    cols = F.matmul(F.expand_dims(wt, 0), xg)                 # (N, G, Cout/G * K, L)
    cols = F.reshape(cols, (n, cout) + k + spatial)
    short = [max(-hi, 0) for _, hi in pads]
    inner = [sz - sh for sz, sh in zip(sizes, short)]
    out = col2im(cols, (n, cout) + tuple(inner), k, s, d, [(lo, max(hi, 0)) for lo, hi in pads])
    if any(short):
        from ..array.pad_resize import pad
        flat_pads = []
        for sh in reversed(short):
            flat_pads += [0, sh]
        out = pad(out, tuple(flat_pads))
    return out


def _window_args(name, kernel_size, dilation, padding, stride):
    k = int_tuple(kernel_size, 2, name, "kernel_size", 1)
    d = int_tuple(dilation, 2, name, "dilation", 1)
    p = int_tuple(padding, 2, name, "padding", 0)
    s = int_tuple(stride, 2, name, "stride", 1)
    return k, d, [(v, v) for v in p], s


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The sliding windows of (N, C, H, W) as columns: (N, C * kH * kW, L)."""
    x = float_tensor(input, "unfold")
    if x.ndim != 4:
        raise ValueError(f"op 'unfold': input must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    k, d, pads, s = _window_args("unfold", kernel_size, dilation, padding, stride)
    cols = im2col(x, k, s, d, pads, 0.0)
    return F.reshape(cols, (x.shape[0], x.shape[1] * k[0] * k[1], -1))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The inverse arrangement of ``unfold``: columns (N, C * kH * kW, L) summed into (N, C, H, W) with
    ``output_size`` (H, W) (a 2-element int Tensor or a pair)."""
    x = float_tensor(input, "fold")
    if x.ndim != 3:
        raise ValueError(f"op 'fold': input must be 3-D (N, C * kH * kW, L), got shape {list(x.shape)}")
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in _capture.read_values(output_size).reshape(-1))
    hw = int_tuple(output_size, 2, "fold", "output_size", 1)
    k, d, pads, s = _window_args("fold", kernel_size, dilation, padding, stride)
    kk = k[0] * k[1]
    outs = [(n + 2 * p[0] - dd * (kq - 1) - 1) // ss + 1 for n, p, dd, kq, ss in zip(hw, pads, d, k, s)]
    if x.shape[1] % kk or x.shape[2] != outs[0] * outs[1]:
        raise ValueError(f"op 'fold': input of shape {list(x.shape)} does not hold {outs[0]} x {outs[1]} windows "
                         f"of {k[0]} x {k[1]}")
    c = x.shape[1] // kk
    cols = F.reshape(x, (x.shape[0], c) + k + tuple(outs))
    return col2im(cols, (x.shape[0], c) + hw, k, s, d, pads)


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """(..., C * r^2, H, W) rearranged to (..., C, H * r, W * r)."""
    x = tensor_arg(input, "pixel_shuffle")
    r = int_arg(upscale_factor, "pixel_shuffle", "upscale_factor", 1)
    if x.ndim < 3 or x.shape[-3] % (r * r):
        raise ValueError(f"op 'pixel_shuffle': input must be (..., C * {r}^2, H, W), got shape {list(x.shape)}")
    lead = tuple(x.shape[:-3])
    c, h, w = x.shape[-3] // (r * r), x.shape[-2], x.shape[-1]
    t = F.reshape(x, (-1, c, r, r, h, w))
    t = F.transpose(t, (0, 1, 4, 2, 5, 3))
    return F.reshape(t, lead + (c, h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """(..., C, H * r, W * r) rearranged to (..., C * r^2, H, W)."""
    x = tensor_arg(input, "pixel_unshuffle")
    r = int_arg(downscale_factor, "pixel_unshuffle", "downscale_factor", 1)
    if x.ndim < 3 or x.shape[-2] % r or x.shape[-1] % r:
        raise ValueError(f"op 'pixel_unshuffle': input must be (..., C, H * {r}, W * {r}), got shape "
                         f"{list(x.shape)}")
    lead = tuple(x.shape[:-3])
    c, h, w = x.shape[-3], x.shape[-2] // r, x.shape[-1] // r
    t = F.reshape(x, (-1, c, h, r, w, r))
    t = F.transpose(t, (0, 1, 3, 5, 2, 4))
    return F.reshape(t, lead + (c * r * r, h, w))


def channel_shuffle(x, groups):
    """(N, C, ...) with its channels regrouped: (N, g, C/g, ...) transposed to (N, C/g, g, ...)."""
    t = tensor_arg(x, "channel_shuffle")
    g = int_arg(groups, "channel_shuffle", "groups", 1)
    if t.ndim < 4:
        raise TypeError(f"op 'channel_shuffle': x must have at least 4 dimensions (N, C, ...), got shape "
                        f"{list(t.shape)}")
    if t.shape[1] % g:
        raise ValueError(f"op 'channel_shuffle': the channels ({t.shape[1]}) must be divisible by groups {g}")
    shape = tuple(t.shape)
    u = F.reshape(t, (shape[0], g, shape[1] // g) + shape[2:])
    u = F.transpose(u, (0, 2, 1) + tuple(range(3, u.ndim)))
    return F.reshape(u, shape)


__all__ = ["conv3d", "conv3d_transpose", "fold", "unfold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]

for _name in __all__:
    register_function(_name, globals()[_name], method=_name in ("fold", "unfold"))
del _name
