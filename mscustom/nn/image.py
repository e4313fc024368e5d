"""Image Cells with MindSpore's names: ``ImageGradients``, ``CentralCrop``, ``PSNR``, ``SSIM`` and ``MSSSIM``.

SSIM uses MindSpore's Gaussian window (``filter_size`` x ``filter_size``, ``filter_sigma``) as a
frozen ``Conv2d`` weight (``conv.weight``; MSSSIM: ``multi_convs_list.<i>.weight``), applied per
channel without padding. Integer images are scaled by their dtype's maximum first.

Example::

    nn.SSIM()(img1, img2)          # (N,) SSIM of each image pair, img (N, C, H, W)
"""

import math

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Tensor
from .cell import Cell, CellList
from .conv import Conv2d

__all__ = ["ImageGradients", "CentralCrop", "PSNR", "SSIM", "MSSSIM"]


def _image(x, name, ranks=(4,)):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the images must be Tensors, got {type(x).__name__}")
    if x.ndim not in ranks:
        raise ValueError(f"{name}: the images must be {' or '.join(map(str, ranks))}-D, got shape {list(x.shape)}")
    return x


def _to_float32(img):
    """Integer images scaled by their dtype's maximum, floats as they are, in float32."""
    kind = img._data.dtype.kind
    out = ops.cast(img, _dt.float32)
    if kind in "iu":
        out = ops.mul(out, 1.0 / float(np.iinfo(img._data.dtype).max))
    return out


def _window(size, sigma):
    """MindSpore's (1, 1, size, size) Gaussian window (its grid runs from -size//2 + 1 to size//2)."""
    y, x = np.mgrid[-size // 2 + 1:size // 2 + 1, -size // 2 + 1:size // 2 + 1]
    g = np.exp(-(x.astype(np.float32) ** 2 + y.astype(np.float32) ** 2) / (2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32)[None, None]


def _window_conv(size, sigma):
    conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=Tensor(_window(size, sigma)))
    conv.weight.requires_grad = False
    return conv


def _ssim_and_cs(c1, c2, img1, img2, conv):
    """Per-channel SSIM and contrast-structure maps, averaged over H and W: two (N, C) Tensors."""
    ssims, css = [], []
    for a, b in zip(ops.split(img1, 1, 1), ops.split(img2, 1, 1)):
        mu1, mu2 = conv(a), conv(b)
        mu1_sq, mu2_sq, mu12 = ops.mul(mu1, mu1), ops.mul(mu2, mu2), ops.mul(mu1, mu2)
        s1 = ops.sub(conv(ops.mul(a, a)), mu1_sq)
        s2 = ops.sub(conv(ops.mul(b, b)), mu2_sq)
        s12 = ops.sub(conv(ops.mul(a, b)), mu12)
        v1 = ops.add(ops.mul(s12, 2.0), c2)
        v2 = ops.add(ops.add(s1, s2), c2)
        num = ops.mul(ops.add(ops.mul(mu12, 2.0), c1), v1)
        den = ops.mul(ops.add(ops.add(mu1_sq, mu2_sq), c1), v2)
        ssims.append(ops.div(num, den))
        css.append(ops.div(v1, v2))
    return ops.reduce_mean(ops.concat(ssims, 1), (2, 3)), ops.reduce_mean(ops.concat(css, 1), (2, 3))


def _check_number(v, what, name, positive=True):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{name}: {what} must be a number, got {v!r}")
    if positive and not v > 0:
        raise ValueError(f"{name}: {what} must be > 0, got {v!r}")
    return v


class ImageGradients(Cell):
    """``(dy, dx)``: forward differences along H and W of ``(N, C, H, W)`` images, 0 in the last row/column."""

    def construct(self, images):
        x = _image(images, "ImageGradients")
        n, c, h, w = x.shape
        zeros_row = Tensor(np.zeros((n, c, 1, w), x._data.dtype))
        zeros_col = Tensor(np.zeros((n, c, h, 1), x._data.dtype))
        dy = zeros_row if h == 1 else ops.concat([ops.sub(x[:, :, 1:, :], x[:, :, :h - 1, :]), zeros_row], 2)
        dx = zeros_col if w == 1 else ops.concat([ops.sub(x[:, :, :, 1:], x[:, :, :, :w - 1]), zeros_col], 3)
        return dy, dx


class CentralCrop(Cell):
    """The central ``central_fraction`` (in (0, 1]) of H and W of ``(C, H, W)`` or ``(N, C, H, W)`` images.

    The crop starts at ``int((n - n * fraction) / 2)`` and keeps as much on the other side.
    """

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"CentralCrop: central_fraction must be a float, got {central_fraction!r}")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0, 1], got {central_fraction}")
        self.central_fraction = central_fraction

    def construct(self, image):
        x = _image(image, "CentralCrop", (3, 4))
        if self.central_fraction == 1.0:
            return x
        h, w = x.shape[-2:]
        hs = int((float(h) - float(h * self.central_fraction)) / 2)
        ws = int((float(w) - float(w * self.central_fraction)) / 2)
        return x[..., hs:h - hs, ws:w - ws]


class PSNR(Cell):
    """Peak signal-to-noise ratio per image: ``10 log10(max_val^2 / mean((img1 - img2)^2))``, shape (N,)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _check_number(max_val, "max_val", "PSNR")

    def construct(self, img1, img2):
        a, b = _image(img1, "PSNR"), _image(img2, "PSNR")
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"PSNR: img1 and img2 must have the same shape and dtype, got {list(a.shape)} "
                             f"{a.dtype.name} and {list(b.shape)} {b.dtype.name}")
        a, b = _to_float32(a), _to_float32(b)
        mse = ops.reduce_mean(ops.square(ops.sub(a, b)), (-3, -2, -1))
        return ops.mul(ops.log(ops.div(float(self.max_val) ** 2, mse)), 10.0 / math.log(10.0))


class SSIM(Cell):
    """Structural similarity per image pair (the mean over channels and positions), shape (N,)."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _check_number(max_val, "max_val", "SSIM")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
            raise ValueError(f"SSIM: filter_size must be a positive int, got {filter_size!r}")
        self.filter_size = filter_size
        self.filter_sigma = float(_check_number(filter_sigma, "filter_sigma", "SSIM"))
        for what, v in (("k1", k1), ("k2", k2)):
            if not isinstance(v, float):
                raise TypeError(f"SSIM: {what} must be a float, got {v!r}")
        self.k1, self.k2 = k1, k2
        self.conv = _window_conv(filter_size, self.filter_sigma)

    def construct(self, img1, img2):
        a, b = _image(img1, "SSIM"), _image(img2, "SSIM")
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"SSIM: img1 and img2 must have the same shape and dtype, got {list(a.shape)} and "
                             f"{list(b.shape)}")
        if a.shape[2] < self.filter_size or a.shape[3] < self.filter_size:
            raise ValueError(f"SSIM: the images ({a.shape[2]} x {a.shape[3]}) must be at least filter_size "
                             f"({self.filter_size}) high and wide")
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        ssim, _ = _ssim_and_cs(c1, c2, _to_float32(a), _to_float32(b), self.conv)
        return ops.reduce_mean(ssim, -1)


class MSSSIM(Cell):
    """Multi-scale SSIM: per scale (halved by 2x2 average pooling) the contrast-structure term, and SSIM at the
    last scale, each (relu'd) raised to its ``power_factors`` entry and multiplied; the mean over channels,
    shape (N,)."""

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
                 filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _check_number(max_val, "max_val", "MSSSIM")
        if not isinstance(power_factors, (tuple, list)) or not power_factors:
            raise TypeError(f"MSSSIM: power_factors must be a tuple or list of floats, got {power_factors!r}")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
            raise ValueError(f"MSSSIM: filter_size must be a positive int, got {filter_size!r}")
        self.filter_size = filter_size
        self.filter_sigma = float(_check_number(filter_sigma, "filter_sigma", "MSSSIM"))
        self.k1, self.k2 = float(k1), float(k2)
        self.level = len(power_factors)
        self.power_factors = tuple(float(p) for p in power_factors)
        self.multi_convs_list = CellList([_window_conv(filter_size, self.filter_sigma) for _ in range(self.level)])

    def construct(self, img1, img2):
        a, b = _image(img1, "MSSSIM"), _image(img2, "MSSSIM")
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"MSSSIM: img1 and img2 must have the same shape and dtype, got {list(a.shape)} and "
                             f"{list(b.shape)}")
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        a, b = _to_float32(a), _to_float32(b)
        mcs = []
        for i in range(self.level):
            if a.shape[2] < self.filter_size or a.shape[3] < self.filter_size:
                raise ValueError(f"MSSSIM: at scale {i} the images ({a.shape[2]} x {a.shape[3]}) are smaller than "
                                 f"filter_size ({self.filter_size})")
            sim, cs = _ssim_and_cs(c1, c2, a, b, self.multi_convs_list[i])
            mcs.append(ops.relu(cs))
            a = ops.avg_pool2d(a, 2, 2)
            b = ops.avg_pool2d(b, 2, 2)
        terms = ops.stack(mcs[:-1] + [ops.relu(sim)], -1)
        powered = ops.pow(terms, Tensor(np.asarray(self.power_factors, np.float32)))
        return ops.reduce_mean(ops.reduce_prod(powered, -1), -1)
