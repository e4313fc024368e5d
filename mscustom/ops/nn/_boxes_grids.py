"""Boxes and sampling grids with MindSpore 2.10's names: ``iou``, ``bounding_box_encode``,
``bounding_box_decode``, ``check_valid``, ``affine_grid``, ``grid_sample``, ``crop_and_resize``.

Box coordinates are (x1, y1, x2, y2) with MindSpore's inclusive pixel convention (a box's width is
``x2 - x1 + 1``). Sampling gathers the corner pixels with a differentiable gather and weights them with
differentiable arithmetic, so ``grid_sample`` has gradients for both the input and the grid.
"""

import math

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from ... import dtype as _dt
from .. import functional as F
from .._builtin import tensor_arg
from ..array.creation import gather
from ._common import const, float_tensor


def _boxes(t, name, what):
    b = float_tensor(t, name, what)
    if b.ndim != 2 or b.shape[1] < 4:
        raise ValueError(f"op '{name}': {what} must be (N, 4), got shape {list(b.shape)}")
    return b


def _cols(b):
    return [b[:, i] for i in range(4)]


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """The overlap of every ground-truth box with every anchor: (M, N) for M ``gt_boxes`` and N
    ``anchor_boxes``; ``mode`` 'iou' (over the union) or 'iof' (over the ground truth's area)."""
    if mode not in ("iou", "iof"):
        raise ValueError(f"op 'iou': mode must be 'iou' or 'iof', got {mode!r}")
    a = _boxes(anchor_boxes, "iou", "anchor_boxes")
    g = _boxes(gt_boxes, "iou", "gt_boxes")
    ax1, ay1, ax2, ay2 = (F.reshape(c, (1, -1)) for c in _cols(a))
    gx1, gy1, gx2, gy2 = (F.reshape(c, (-1, 1)) for c in _cols(g))
    zero = const(0, a)
    iw = F.maximum(F.add(F.sub(F.minimum(ax2, gx2), F.maximum(ax1, gx1)), 1.0), zero)
    ih = F.maximum(F.add(F.sub(F.minimum(ay2, gy2), F.maximum(ay1, gy1)), 1.0), zero)
    inter = F.mul(iw, ih)
    area_a = F.mul(F.add(F.sub(ax2, ax1), 1.0), F.add(F.sub(ay2, ay1), 1.0))
    area_g = F.mul(F.add(F.sub(gx2, gx1), 1.0), F.add(F.sub(gy2, gy1), 1.0))
    denom = F.sub(F.add(area_a, area_g), inter) if mode == "iou" else F.broadcast_to(area_g, tuple(inter.shape))
    return F.div(inter, denom)


def _center(b):
    x1, y1, x2, y2 = _cols(b)
    w, h = F.add(F.sub(x2, x1), 1.0), F.add(F.sub(y2, y1), 1.0)
    return F.add(x1, F.mul(F.sub(w, 1.0), 0.5)), F.add(y1, F.mul(F.sub(h, 1.0), 0.5)), w, h


def _floats4(v, name, what):
    if not isinstance(v, (tuple, list)) or len(v) != 4 or not all(isinstance(e, float) for e in v):
        raise TypeError(f"op '{name}': {what} must be 4 floats, got {v!r}")
    return [float(e) for e in v]


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas (dx, dy, dw, dh) taking each anchor box to its ground-truth box, normalized by
    ``means`` and ``stds``."""
    m = _floats4(means, "bounding_box_encode", "means")
    s = _floats4(stds, "bounding_box_encode", "stds")
    a = _boxes(anchor_box, "bounding_box_encode", "anchor_box")
    g = _boxes(groundtruth_box, "bounding_box_encode", "groundtruth_box")
    px, py, pw, ph = _center(a)
    gx, gy, gw, gh = _center(g)
    deltas = [F.div(F.sub(gx, px), pw), F.div(F.sub(gy, py), ph), F.log(F.div(gw, pw)), F.log(F.div(gh, ph))]
    return F.stack([F.div(F.sub(d, mm), ss) for d, mm, ss in zip(deltas, m, s)], 1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """The boxes the ``deltas`` make of the anchor boxes (``bounding_box_encode``'s inverse), the log size
    ratios clipped to ``|log(wh_ratio_clip)|`` and the boxes to ``max_shape`` (height, width)."""
    m = _floats4(means, "bounding_box_decode", "means")
    s = _floats4(stds, "bounding_box_decode", "stds")
    a = _boxes(anchor_box, "bounding_box_decode", "anchor_box")
    d = _boxes(deltas, "bounding_box_decode", "deltas")
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
        raise TypeError(f"op 'bounding_box_decode': max_shape must be (height, width), got {max_shape!r}")
    dx, dy, dw, dh = (F.add(F.mul(c, ss), mm) for c, ss, mm in zip(_cols(d), s, m))
    limit = abs(math.log(wh_ratio_clip))
    lo, hi = const(-limit, dw), const(limit, dw)
    dw, dh = F.minimum(F.maximum(dw, lo), hi), F.minimum(F.maximum(dh, lo), hi)
    px, py, pw, ph = _center(a)
    gx, gy = F.add(px, F.mul(pw, dx)), F.add(py, F.mul(ph, dy))
    gw, gh = F.mul(pw, F.exp(dw)), F.mul(ph, F.exp(dh))
    hw, hh = F.mul(F.sub(gw, 1.0), 0.5), F.mul(F.sub(gh, 1.0), 0.5)
    zero = const(0, gx)
    xmax, ymax = const(float(max_shape[1]), gx), const(float(max_shape[0]), gx)
    clip = lambda v, top: F.minimum(F.maximum(v, zero), top)   # noqa: E731
    return F.stack([clip(F.sub(gx, hw), xmax), clip(F.sub(gy, hh), ymax), clip(F.add(gx, hw), xmax),
                    clip(F.add(gy, hh), ymax)], 1)


def check_valid(bboxes, img_metas):
    """Whether each box (x1, y1, x2, y2) lies inside the image ``img_metas`` = (height, width, ratio):
    ``x1, y1 >= 0``, ``x2 <= width * ratio - 1``, ``y2 <= height * ratio - 1``."""
    b = _capture.read_values(_boxes(bboxes, "check_valid", "bboxes"))
    m = tensor_arg(img_metas, "check_valid")._data.astype(np.float64).reshape(-1)
    if m.shape != (3,):
        raise ValueError(f"op 'check_valid': img_metas must hold (height, width, ratio), got {m.tolist()}")
    h, w = m[0] * m[2] - 1, m[1] * m[2] - 1
    ok = (b[:, 0] >= 0) & (b[:, 1] >= 0) & (b[:, 2] <= w) & (b[:, 3] <= h)
    return Tensor._wrap(np.array(ok, order="C"))


# ================================================================== grids
def _base_coords(n, align_corners, dtype):
    if align_corners:
        return np.linspace(-1.0, 1.0, n, dtype=np.float64).astype(dtype) if n > 1 else np.zeros(1, dtype)
    return ((np.arange(n, dtype=np.float64) * 2 + 1) / n - 1).astype(dtype)


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) for an output ``size`` (N, C, H, W):
    (N, H, W, 2) of (x, y) in [-1, 1] (3-D: theta (N, 3, 4), size (N, C, D, H, W), grid (N, D, H, W, 3))."""
    t = float_tensor(theta, "affine_grid", "theta")
    size = tuple(int(v) for v in (size._data.reshape(-1) if isinstance(size, Tensor) else size))
    nd = len(size) - 2
    if nd not in (2, 3) or t.shape != (size[0], nd, nd + 1):
        raise ValueError(f"op 'affine_grid': theta (N, {nd}, {nd + 1}) and size (N, C, ...) must match, got "
                         f"{list(t.shape)} and {list(size)}")
    dt = t._data.dtype
    axes = [_base_coords(n, align_corners, dt) for n in size[2:]]       # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [mesh[-1], mesh[-2]] + ([mesh[0]] if nd == 3 else [])       # x, y (, z)
    base = np.stack(coords + [np.ones_like(mesh[0])], -1).reshape(-1, nd + 1)
    grid = F.matmul(F.broadcast_to(const(base), (size[0],) + base.shape), F.transpose(t, (0, 2, 1)))
    return F.reshape(grid, (size[0],) + size[2:] + (nd,))


def _unnormalize(g, n, align_corners):
    if align_corners:
        return F.mul(F.add(g, 1.0), (n - 1) / 2.0)
    return F.div(F.sub(F.mul(F.add(g, 1.0), float(n)), 1.0), 2.0)


def _reflect(v, lo2, hi2):
    """``v`` reflected into [lo2 / 2, hi2 / 2] (twice the bounds, as integers)."""
    if lo2 == hi2:
        return F.zeros_like(v)
    mn, span = lo2 / 2.0, (hi2 - lo2) / 2.0
    d = F.abs(F.sub(v, mn))
    flips = np.floor(_capture.read_values(d) / span)
    extra = F.sub(d, F.mul(const(flips, d), span))
    odd = const(flips % 2 == 1)
    return F.where(odd, F.sub(span + mn, extra), F.add(extra, mn))


def _source_coord(g, n, padding_mode, align_corners):
    v = _unnormalize(g, n, align_corners)
    if padding_mode == "border":
        v = F.minimum(F.maximum(v, const(0, v)), const(n - 1, v))
    elif padding_mode == "reflection":
        v = _reflect(v, 0, 2 * (n - 1)) if align_corners else _reflect(v, -1, 2 * n - 1)
        v = F.minimum(F.maximum(v, const(0, v)), const(n - 1, v))
    return v


def _round_half_away(v):
    """Rounding with halves away from zero (MindSpore's nearest sampling)."""
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)


def _gather_pixels(flat, n_idx, yy, xx, h, w):
    """``flat`` (N*H*W, C) rows at (n, yy, xx) (clipped in range; callers mask the outside)."""
    yc, xc = np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)
    rows = (n_idx * h + yc) * w + xc
    return gather(flat, const(rows.reshape(-1).astype(np.int64)), 0)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """Samples of the (N, C, H, W) ``input`` at the (x, y) points of ``grid`` (N, Ho, Wo, 2) in [-1, 1]:
    (N, C, Ho, Wo). ``mode`` 'bilinear' or 'nearest'; ``padding_mode`` 'zeros', 'border' or
    'reflection' for points outside."""
    x = float_tensor(input, "grid_sample")
    g = float_tensor(grid, "grid_sample", "grid")
    if x.ndim != 4 or g.ndim != 4 or g.shape[-1] != 2 or g.shape[0] != x.shape[0]:
        raise ValueError(f"op 'grid_sample': input (N, C, H, W) and grid (N, Ho, Wo, 2) expected, got "
                         f"{list(x.shape)} and {list(g.shape)}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"op 'grid_sample': mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"op 'grid_sample': padding_mode must be 'zeros', 'border' or 'reflection', got "
                         f"{padding_mode!r}")
    ac = bool(align_corners)
    n, c, h, w = x.shape
    ho, wo = g.shape[1:3]
    ix = _source_coord(g[..., 0], w, padding_mode, ac)
    iy = _source_coord(g[..., 1], h, padding_mode, ac)
    flat = F.reshape(F.transpose(x, (0, 2, 3, 1)), (n * h * w, c))
    n_idx = np.arange(n).reshape(n, 1, 1)

    def corner(yy, xx, weight):
        inside = ((yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)).astype(x._data.dtype)
        vals = F.reshape(_gather_pixels(flat, n_idx, yy, xx, h, w), (n, ho, wo, c))
        return F.mul(vals, F.expand_dims(F.mul(weight, const(inside)), -1))

    if mode == "nearest":
        xn, yn = _round_half_away(_capture.read_values(ix)), _round_half_away(_capture.read_values(iy))
        out = corner(yn, xn, F.ones_like(ix))
    else:
        x0 = np.floor(_capture.read_values(ix)).astype(np.int64)
        y0 = np.floor(_capture.read_values(iy)).astype(np.int64)
        fx = F.sub(ix, const(x0, ix))
        fy = F.sub(iy, const(y0, iy))
        gx, gy = F.sub(1.0, fx), F.sub(1.0, fy)
        out = F.add(F.add(corner(y0, x0, F.mul(gx, gy)), corner(y0, x0 + 1, F.mul(fx, gy))),
                    F.add(corner(y0 + 1, x0, F.mul(gx, fy)), corner(y0 + 1, x0 + 1, F.mul(fx, fy))))
    return F.transpose(out, (0, 3, 1, 2))


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0):
    """Crops of the (N, H, W, C) ``image`` at the normalized boxes (y1, x1, y2, x2) of images
    ``box_indices``, resized to ``crop_size`` (h, w): (M, h, w, C) float32. Points outside the image
    take ``extrapolation_value``; ``method`` 'bilinear' or 'nearest'."""
    img = tensor_arg(image, "crop_and_resize")
    if img._data.dtype.kind != "f":
        img = F.cast(img, _dt.float32)
    else:
        img = F.cast(img, _dt.float32)
    b = float_tensor(boxes, "crop_and_resize", "boxes")
    bi = _capture.read_values(tensor_arg(box_indices, "crop_and_resize")).astype(np.int64).reshape(-1)
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"op 'crop_and_resize': method must be 'bilinear', 'nearest' or 'bilinear_v2', got "
                         f"{method!r}")
    if img.ndim != 4 or b.ndim != 2 or b.shape[1] != 4 or bi.shape != (b.shape[0],):
        raise ValueError(f"op 'crop_and_resize': image (N, H, W, C), boxes (M, 4) and box_indices (M,) expected, "
                         f"got {list(img.shape)}, {list(b.shape)} and {list(bi.shape)}")
    ch, cw = (int(v) for v in crop_size)
    n, h, w, c = img.shape
    m = b.shape[0]

    def coords(lo, hi, size, steps):
        if steps > 1:
            return F.add(F.mul(F.expand_dims(lo, 1), float(size - 1)),
                         F.mul(F.expand_dims(F.sub(hi, lo), 1),
                               const(np.arange(steps) * (size - 1) / (steps - 1), lo)))
        return F.expand_dims(F.mul(F.add(lo, hi), 0.5 * (size - 1)), 1)
    ys = coords(b[:, 0], b[:, 2], h, ch)              # (M, ch)
    xs = coords(b[:, 1], b[:, 3], w, cw)              # (M, cw)
    yy = F.broadcast_to(F.reshape(ys, (m, ch, 1)), (m, ch, cw))
    xx = F.broadcast_to(F.reshape(xs, (m, 1, cw)), (m, ch, cw))
    inside = const(((_capture.read_values(yy) >= 0) & (_capture.read_values(yy) <= h - 1) & (_capture.read_values(xx) >= 0) & (_capture.read_values(xx) <= w - 1))
                   .astype(np.float32))
    flat = F.reshape(img, (n * h * w, c))
    n_idx = bi.reshape(m, 1, 1)

    def pix(yi, xi):
        return F.reshape(_gather_pixels(flat, n_idx, yi, xi, h, w), (m, ch, cw, c))
    if method == "nearest":
        out = pix(_round_half_away(_capture.read_values(yy)), _round_half_away(_capture.read_values(xx)))
    else:
        y0, x0 = np.floor(_capture.read_values(yy)).astype(np.int64), np.floor(_capture.read_values(xx)).astype(np.int64)
        fy, fx = F.expand_dims(F.sub(yy, const(y0, yy)), -1), F.expand_dims(F.sub(xx, const(x0, xx)), -1)
        top = F.add(pix(y0, x0), F.mul(F.sub(pix(y0, x0 + 1), pix(y0, x0)), fx))
        bottom = F.add(pix(y0 + 1, x0), F.mul(F.sub(pix(y0 + 1, x0 + 1), pix(y0 + 1, x0)), fx))
        out = F.add(top, F.mul(F.sub(bottom, top), fy))
    mask = F.expand_dims(inside, -1)
    return F.add(F.mul(out, mask), F.mul(F.sub(1.0, mask), float(extrapolation_value)))


__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "affine_grid", "grid_sample",
           "crop_and_resize"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
