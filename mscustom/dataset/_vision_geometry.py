"""Geometric image transforms: ``Resize`` (with ``Inter``), ``CenterCrop``, ``RandomCrop``, ``RandomHorizontalFlip``.

Images are NumPy arrays <H, W> or <H, W, C> (Tensors are accepted too).
``Resize`` follows OpenCV's ``cv2.resize`` (which MindSpore calls):
pixel centres at ``(i + 0.5) * in / out - 0.5``, border pixels repeated,
``NEAREST`` taking ``floor(i * in / out)``, ``BICUBIC`` with a = -0.75 and
``AREA`` averaging the covered input area when shrinking. Float images are
computed in float64; uint8 images resized by BILINEAR, BICUBIC or enlarging
AREA use OpenCV's 11-bit fixed-point weights and its rounding steps, so most
pixels equal MindSpore's exactly (enlarging, a few may still differ by 1). The random transforms draw from NumPy's global generator, which
``dataset.config.set_seed`` seeds (as MindSpore seeds it), so a seeded
pipeline repeats its crops and flips.

Example::

    from mscustom.dataset import vision
    vision.Resize((32, 32), vision.Inter.BILINEAR)(image)
"""

import enum
import math
import numbers

import numpy as np

from .transforms import _array

__all__ = ["Inter", "Border", "Resize", "CenterCrop", "RandomCrop", "RandomHorizontalFlip"]


class Inter(enum.IntEnum):
    """Interpolation modes, with MindSpore's values (``LINEAR`` and ``CUBIC`` are aliases)."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    BICUBIC = 3
    AREA = 4
    PILCUBIC = 5
    LINEAR = 2
    CUBIC = 3


class Border(str, enum.Enum):
    """Padding modes of ``RandomCrop``."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def _image(img, who):
    img = _array(img)
    if img.ndim not in (2, 3):
        raise ValueError(f"{who}: expected an image of shape <H, W> or <H, W, C>, got shape {list(img.shape)}")
    return img


def _size_pair(size, who, low=1, high=2147483647):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        pair = (int(size),)
    elif isinstance(size, (tuple, list)) and len(size) == 2 and all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
        pair = (int(size[0]), int(size[1]))
    else:
        raise TypeError(f"{who}: size must be an int or a sequence of two ints, got {size!r}")
    for dim, s in enumerate(pair):
        if not low <= s <= high:
            raise ValueError(f"{who}: input size at dim {dim} is not within the required interval of [{low}, "
                             f"{high}], got {s}")
    return pair


# ------------------------------------------------------------------ resize weights (out, in) per axis
def _nearest(n_in, n_out):
    m = np.zeros((n_out, n_in))
    src = np.minimum(np.floor(np.arange(n_out) * (n_in / n_out)).astype(np.int64), n_in - 1)
    m[np.arange(n_out), src] = 1.0
    return m


def _linear(n_in, n_out):
    m = np.zeros((n_out, n_in))
    scale = n_in / n_out
    for i in range(n_out):
        src = (i + 0.5) * scale - 0.5
        lo = math.floor(src)
        frac = src - lo
        if lo < 0:
            lo, frac = 0, 0.0
        if lo >= n_in - 1:
            lo, frac = n_in - 1, 0.0
        m[i, lo] += 1.0 - frac
        m[i, min(lo + 1, n_in - 1)] += frac
    return m


def _cubic(n_in, n_out, a=-0.75):
    m = np.zeros((n_out, n_in))
    scale = n_in / n_out
    for i in range(n_out):
        src = (i + 0.5) * scale - 0.5
        lo = math.floor(src)
        x = src - lo
        w0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
        w1 = ((a + 2) * x - (a + 3)) * x * x + 1
        w2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
        for k, w in zip(range(lo - 1, lo + 3), (w0, w1, w2, 1.0 - w0 - w1 - w2)):
            m[i, min(max(k, 0), n_in - 1)] += w
    return m


def _area(n_in, n_out):
    if n_out > n_in:                 # enlarging: OpenCV's INTER_AREA is a linear blend at the cell edges
        m = np.zeros((n_out, n_in))
        scale, inv = n_in / n_out, n_out / n_in
        for i in range(n_out):
            lo = math.floor(i * scale)
            frac = (i + 1) - (lo + 1) * inv
            frac = 0.0 if frac <= 0 else frac - math.floor(frac)
            if lo >= n_in - 1:
                lo, frac = n_in - 1, 0.0
            m[i, lo] += 1.0 - frac
            m[i, min(lo + 1, n_in - 1)] += frac
        return m
    m = np.zeros((n_out, n_in))
    scale = n_in / n_out
    for i in range(n_out):
        start, stop = i * scale, (i + 1) * scale
        for k in range(int(math.floor(start)), min(int(math.ceil(stop)), n_in)):
            m[i, k] = (min(stop, k + 1) - max(start, k)) / scale
    return m


_WEIGHTS = {Inter.NEAREST: _nearest, Inter.BILINEAR: _linear, Inter.BICUBIC: _cubic, Inter.AREA: _area}


def _cast_back(out, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype)


def _taps(m):
    """The non-zero columns of each row of ``m`` as (index, weight) arrays of shape (out, taps)."""
    taps = max(1, int((m != 0).sum(axis=1).max()))
    idx = np.zeros((m.shape[0], taps), np.int64)
    w = np.zeros((m.shape[0], taps))
    for i, row in enumerate(m):
        nz = np.nonzero(row)[0]
        idx[i, :nz.size], w[i, :nz.size] = nz, row[nz]
    return idx, w


def _resize_u8_fixed(img, mh, mw, linear):
    """OpenCV's uint8 path: weights scaled by 2048 and rounded, rows summed in int, then the vertical pass."""
    x = img.astype(np.int64)
    if x.ndim == 2:
        x = x[..., None]
    rows = np.einsum("pw,hwc->hpc", np.rint(mw * 2048).astype(np.int64), x)         # scale 2048
    idx, w = _taps(mh)
    b = np.rint(w * 2048).astype(np.int64)
    if linear:               # OpenCV's vector path: each term shifted before the sum
        acc = sum((b[:, k, None, None] * (rows[idx[:, k]] >> 4)) >> 16 for k in range(idx.shape[1]))
        out = (acc + 2) >> 2
    else:
        out = (sum(b[:, k, None, None] * rows[idx[:, k]] for k in range(idx.shape[1])) + (1 << 21)) >> 22
    out = np.clip(out, 0, 255).astype(np.uint8)
    return out[..., 0] if img.ndim == 2 else out


class Resize:
    """Resize to ``size`` (h, w), or scale the shorter side to ``size`` (an int) keeping the aspect ratio.

    ``interpolation``: an ``Inter`` (BILINEAR by default); NEAREST, BILINEAR
    (LINEAR), BICUBIC (CUBIC) and AREA are supported here.
    """

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self.size = _size_pair(size, "Resize")
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Argument interpolation with value {interpolation} is not of type [<enum 'Inter'>], "
                            f"but got {type(interpolation)}.")
        if interpolation not in _WEIGHTS:
            raise ValueError(f"Resize: interpolation {interpolation.name} is not supported here; use NEAREST, "
                             "BILINEAR, BICUBIC or AREA")
        self.interpolation = interpolation

    def _out_size(self, h, w):
        if len(self.size) == 2:
            return self.size
        s = self.size[0]
        if h <= w:
            return s, max(1, int(s * w / h))
        return max(1, int(s * h / w)), s

    def __call__(self, img):
        img = _image(img, "Resize")
        h, w = img.shape[:2]
        oh, ow = self._out_size(h, w)
        make = _WEIGHTS[self.interpolation]
        mh, mw = make(h, oh), make(w, ow)
        if img.dtype == np.uint8 and (self.interpolation in (Inter.BILINEAR, Inter.BICUBIC) or (
                self.interpolation == Inter.AREA and oh > h and ow > w)):
            return _resize_u8_fixed(img, mh, mw, self.interpolation != Inter.BICUBIC)
        x = img.astype(np.float64)
        out = np.einsum("oh,hw...->ow...", mh, x)
        out = np.einsum("pw,ow...->op...", mw, out)
        return _cast_back(out, img.dtype)


def _crop_pad(img, top, left, h, w, fill=0):
    """``img[top:top+h, left:left+w]``, zero-filled (``fill``) where the window leaves the image."""
    out = np.full((h, w) + img.shape[2:], fill, img.dtype)
    r0, r1 = max(top, 0), min(top + h, img.shape[0])
    c0, c1 = max(left, 0), min(left + w, img.shape[1])
    if r1 > r0 and c1 > c0:
        out[r0 - top:r1 - top, c0 - left:c1 - left] = img[r0:r1, c0:c1]
    return out


class CenterCrop:
    """The central ``size`` (h, w) window (an int: square); a window larger than the image is zero-padded."""

    def __init__(self, size):
        self.size = _size_pair(size, "CenterCrop", high=16777216)
        if len(self.size) == 1:
            self.size = self.size * 2

    def __call__(self, img):
        img = _image(img, "CenterCrop")
        h, w = self.size
        top = (img.shape[0] - h) // 2
        left = (img.shape[1] - w) // 2
        return _crop_pad(img, top, left, h, w)


def _padding4(padding):
    """MindSpore's padding: an int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""
    if padding is None:
        return (0, 0, 0, 0)
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        p = (int(padding),) * 4
    elif isinstance(padding, (tuple, list)) and len(padding) in (2, 4) and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in padding):
        p = tuple(int(v) for v in padding)
        p = (p[0], p[1], p[0], p[1]) if len(p) == 2 else p
    else:
        raise TypeError(f"RandomCrop: padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")
    if min(p) < 0:
        raise ValueError(f"RandomCrop: input padding is not within the required interval of [0, 2147483647], "
                         f"got {padding!r}")
    return p


def _pad_image(img, left, top, right, bottom, mode, fill):
    widths = ((top, bottom), (left, right)) + ((0, 0),) * (img.ndim - 2)
    if mode is Border.CONSTANT:
        if isinstance(fill, (tuple, list)):
            if img.ndim != 3 or len(fill) != img.shape[2]:
                raise ValueError(f"RandomCrop: fill_value {fill!r} needs one value per channel of the image "
                                 f"{list(img.shape)}")
            out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right) + img.shape[2:], img.dtype)
            out[...] = np.asarray(fill, img.dtype)
            out[top:top + img.shape[0], left:left + img.shape[1]] = img
            return out
        return np.pad(img, widths, mode="constant", constant_values=fill)
    return np.pad(img, widths, mode={"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}[mode.value])


class RandomCrop:
    """A random ``size`` (h, w) window of the image, after optional padding.

    ``padding``: an int, (left/right, top/bottom) or (left, top, right,
    bottom); ``pad_if_needed`` pads both sides of an axis by what the window
    lacks; ``fill_value`` (an int or one per channel) fills ``Border.CONSTANT``
    padding; ``padding_mode`` is a ``Border``.
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size_pair(size, "RandomCrop", high=16777216)
        if len(self.size) == 1:
            self.size = self.size * 2
        self.padding = _padding4(padding)
        if not isinstance(pad_if_needed, bool):
            raise TypeError(f"RandomCrop: pad_if_needed must be a bool, got {type(pad_if_needed).__name__}")
        if not isinstance(padding_mode, Border):
            raise TypeError(f"RandomCrop: padding_mode must be a Border, got {padding_mode!r}")
        self.pad_if_needed, self.fill_value, self.padding_mode = pad_if_needed, fill_value, padding_mode

    def __call__(self, img):
        img = _image(img, "RandomCrop")
        left, top, right, bottom = self.padding
        if any(self.padding):
            img = _pad_image(img, left, top, right, bottom, self.padding_mode, self.fill_value)
        h, w = self.size
        if self.pad_if_needed and (img.shape[0] < h or img.shape[1] < w):
            dh, dw = max(h - img.shape[0], 0), max(w - img.shape[1], 0)
            img = _pad_image(img, dw, dh, dw, dh, self.padding_mode, self.fill_value)
        if img.shape[0] < h or img.shape[1] < w:
            raise ValueError(f"RandomCrop: invalid crop size, crop size is bigger than the image dimensions, got "
                             f"crop height: {h}, crop width: {w}, image height: {img.shape[0]}, image width: "
                             f"{img.shape[1]}")
        top = int(np.random.randint(0, img.shape[0] - h + 1))
        left = int(np.random.randint(0, img.shape[1] - w + 1))
        return np.ascontiguousarray(img[top:top + h, left:left + w])


class RandomHorizontalFlip:
    """Mirror the image left-right with probability ``prob``."""

    def __init__(self, prob=0.5):
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomHorizontalFlip: input prob is not within the required interval of [0.0, 1.0], "
                             f"got {prob!r}")
        self.prob = float(prob)

    def __call__(self, img):
        img = _image(img, "RandomHorizontalFlip")
        if np.random.random_sample() < self.prob:
            return np.ascontiguousarray(img[:, ::-1])
        return img
