"""``deformable_conv2d`` (MindSpore 2.10's name): a 2-D convolution whose taps sample the input at learned
offsets, weighted by learned masks (Deformable ConvNets v2). The samples are bilinear gathers with
differentiable weights, so gradients reach the input, the weight, the offsets and the masks."""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from .. import functional as F
from ..array.creation import gather
from ._common import const, float_tensor, int_arg


def _four(v, name, what):
    if not isinstance(v, (tuple, list)) or len(v) != 4:
        raise ValueError(f"op 'deformable_conv2d': {what} must be 4 ints, got {v!r}")
    return tuple(int(e) for e in v)


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1),
                      groups=1, deformable_groups=1, modulated=True):
    """Deformable convolution v2 of (N, C_in, H, W) with ``weight`` (C_out, C_in / groups, kH, kW);
    ``offsets`` (N, 3 * deformable_groups * kH * kW, H_out, W_out) holds the x offsets, the y offsets and
    the masks of every tap; ``strides``/``dilations`` are NCHW 4-tuples, ``padding`` (top, bottom, left,
    right)."""
    name = "deformable_conv2d"
    t = float_tensor(x, name, "x")
    w = float_tensor(weight, name, "weight")
    off = float_tensor(offsets, name, "offsets")
    if not modulated:
        raise ValueError(f"op '{name}': only modulated=True (v2) is supported, as in MindSpore")
    kh, kw = (int(v) for v in kernel_size)
    _, _, sh, sw = _four(strides, name, "strides")
    pt, pb, pl, pr = _four(padding, name, "padding")
    _, _, dh, dw = _four(dilations, name, "dilations")
    groups = int_arg(groups, name, "groups", 1)
    dg = int_arg(deformable_groups, name, "deformable_groups", 1)
    n, c, h, wd = t.shape
    ho = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    wo = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    k = kh * kw
    if t.ndim != 4 or w.shape[2:] != (kh, kw) or w.shape[1] * groups != c or c % dg:
        raise ValueError(f"op '{name}': x (N, C, H, W) and weight (C_out, C / groups, {kh}, {kw}) do not match: "
                         f"{list(t.shape)} and {list(w.shape)} (groups {groups}, deformable_groups {dg})")
    if off.shape != (n, 3 * dg * k, ho, wo):
        raise ValueError(f"op '{name}': offsets must have shape {[n, 3 * dg * k, ho, wo]}, got {list(off.shape)}")
    off = F.reshape(off, (n, 3, dg, k, ho, wo))
    dx, dy, mask = off[:, 0], off[:, 1], off[:, 2]                   # (N, dg, K, Ho, Wo)
    ki, kj = np.divmod(np.arange(k), kw)
    base_y = (np.arange(ho) * sh - pt)[None, :, None] + (ki * dh)[:, None, None]     # (K, Ho, 1)
    base_x = (np.arange(wo) * sw - pl)[None, None, :] + (kj * dw)[:, None, None]     # (K, 1, Wo)
    py = F.add(dy, const(np.broadcast_to(base_y, (k, ho, wo)).astype(t._data.dtype)))
    px = F.add(dx, const(np.broadcast_to(base_x, (k, ho, wo)).astype(t._data.dtype)))
    y0, x0 = np.floor(_capture.read_values(py)).astype(np.int64), np.floor(_capture.read_values(px)).astype(np.int64)
    fy, fx = F.sub(py, const(y0, py)), F.sub(px, const(x0, px))
    cg = c // dg
    # x as rows (N * dg * H * W, C / dg): each deformable group samples its own channels
    flat = F.reshape(F.transpose(F.reshape(t, (n, dg, cg, h, wd)), (0, 1, 3, 4, 2)), (n * dg * h * wd, cg))
    plane = (np.arange(n)[:, None] * dg + np.arange(dg)[None, :]).reshape(n, dg, 1, 1, 1) * (h * wd)

    def corner(yy, xx, weight_):
        inside = ((yy >= 0) & (yy < h) & (xx >= 0) & (xx < wd)).astype(t._data.dtype)
        rows = plane + np.clip(yy, 0, h - 1) * wd + np.clip(xx, 0, wd - 1)
        vals = F.reshape(gather(flat, const(rows.reshape(-1)), 0), (n, dg, k, ho, wo, cg))
        return F.mul(vals, F.expand_dims(F.mul(weight_, const(inside)), -1))
    gy, gx = F.sub(1.0, fy), F.sub(1.0, fx)
    sampled = F.add(F.add(corner(y0, x0, F.mul(gy, gx)), corner(y0, x0 + 1, F.mul(gy, fx))),
                    F.add(corner(y0 + 1, x0, F.mul(fy, gx)), corner(y0 + 1, x0 + 1, F.mul(fy, fx))))
    sampled = F.mul(sampled, F.expand_dims(mask, -1))                 # (N, dg, K, Ho, Wo, C/dg)
    cols = F.reshape(F.transpose(sampled, (0, 1, 5, 2, 3, 4)), (n, groups, (c // groups) * k, ho * wo))
    wm = F.reshape(w, (groups, w.shape[0] // groups, (c // groups) * k))
    out = F.reshape(F.matmul(F.expand_dims(wm, 0), cols), (n, w.shape[0], ho, wo))
    if bias is not None:
        out = F.add(out, F.reshape(float_tensor(bias, name, "bias"), (-1, 1, 1)))
    return out


__all__ = ["deformable_conv2d"]

register_function("deformable_conv2d", deformable_conv2d)
