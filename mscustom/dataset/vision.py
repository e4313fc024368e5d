"""Image transforms for ``Dataset.map``, as ``mindspore.dataset.vision``: Rescale, Normalize, HWC2CHW.

Example::

    data = data.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], input_columns="image")
"""

import numpy as np

from .transforms import _array

__all__ = ["Rescale", "Normalize", "HWC2CHW"]


class Rescale:
    """``image * rescale + shift``, as float32."""

    def __init__(self, rescale, shift):
        self.rescale, self.shift = float(rescale), float(shift)

    def __call__(self, img):
        return (_array(img).astype(np.float32) * np.float32(self.rescale) + np.float32(self.shift))


class Normalize:
    """``(image - mean) / std`` per channel, as float32; channels last unless ``is_hwc=False``."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, np.float32).reshape(-1)
        self.std = np.asarray(std, np.float32).reshape(-1)
        if self.mean.shape != self.std.shape:
            raise ValueError(f"Normalize: mean and std must have one value per channel each, got "
                             f"{self.mean.size} and {self.std.size}")
        if np.any(self.std <= 0):
            raise ValueError(f"Normalize: std must be > 0, got {self.std.tolist()}")
        self.is_hwc = bool(is_hwc)

    def __call__(self, img):
        img = _array(img).astype(np.float32)
        if img.ndim == 2:
            img = img[..., None] if self.is_hwc else img[None]
            squeeze = True
        elif img.ndim == 3:
            squeeze = False
        else:
            raise ValueError(f"Normalize: expected an image of shape <H, W> or <H, W, C>, got {list(img.shape)}")
        channels = img.shape[-1] if self.is_hwc else img.shape[0]
        if self.mean.size not in (1, channels):
            raise ValueError(f"Normalize: {self.mean.size} mean/std values for an image with {channels} channels")
        shape = (1, 1, -1) if self.is_hwc else (-1, 1, 1)
        out = (img - self.mean.reshape(shape)) / self.std.reshape(shape)
        return out[..., 0] if squeeze and self.is_hwc else (out[0] if squeeze else out)


class HWC2CHW:
    """Transpose an image from <H, W, C> to <C, H, W>."""

    def __call__(self, img):
        img = _array(img)
        if img.ndim != 3:
            raise ValueError(f"HWC2CHW: expected an image of shape <H, W, C>, got {list(img.shape)}")
        return np.ascontiguousarray(img.transpose(2, 0, 1))


# geometric transforms and their enums (``_vision_geometry``)
from ._vision_geometry import Border, CenterCrop, Inter, RandomCrop, RandomHorizontalFlip, Resize  # noqa: E402

__all__ += ["Inter", "Border", "Resize", "CenterCrop", "RandomCrop", "RandomHorizontalFlip"]
