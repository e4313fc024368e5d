"""General transforms for ``Dataset.map``, as ``mindspore.dataset.transforms``: TypeCast, OneHot, Compose.

Each is a callable on NumPy arrays (Tensors are accepted too).

Example::

    data = data.map(transforms.TypeCast(ms.int32), input_columns="label")
"""

import numpy as np

from ..dtype import to_numpy
from ..tensor import Tensor

__all__ = ["TypeCast", "OneHot", "Compose"]


def _array(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


class TypeCast:
    """Cast to ``data_type`` (an mscustom dtype, a NumPy dtype or a name)."""

    def __init__(self, data_type):
        try:
            self.np_dtype = to_numpy(data_type)
        except (TypeError, ValueError, KeyError):
            try:
                self.np_dtype = np.dtype(data_type)
            except TypeError:
                raise TypeError(f"TypeCast: data_type must be a dtype, got {data_type!r}") from None

    def __call__(self, x):
        return _array(x).astype(self.np_dtype)


class OneHot:
    """Integer labels (any shape) to one-hot rows of ``num_classes``; ``smoothing_rate`` spreads
    that much probability over the classes: ``onehot * (1 - rate) + rate / num_classes``."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes = int(num_classes)
        self.smoothing_rate = float(smoothing_rate)

    def __call__(self, label):
        label = _array(label)
        if not np.issubdtype(label.dtype, np.integer):
            raise TypeError(f"OneHot: labels must be integers, got dtype {label.dtype}")
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes}), got values from "
                             f"{label.min()} to {label.max()}")
        out = np.eye(self.num_classes, dtype=label.dtype)[label]
        if self.smoothing_rate:
            out = out.astype(np.float32) * (1 - self.smoothing_rate) + self.smoothing_rate / self.num_classes
        return out


class Compose:
    """Apply ``transforms`` in order; a transform returning a tuple feeds all its values to the next."""

    def __init__(self, transforms):
        transforms = list(transforms) if isinstance(transforms, (list, tuple)) else None
        if not transforms or not all(callable(t) for t in transforms):
            raise TypeError("Compose: transforms must be a non-empty list of callables")
        self.transforms = transforms

    def __call__(self, *args):
        for t in self.transforms:
            out = t(*args)
            args = out if isinstance(out, tuple) else (out,)
        return args if len(args) > 1 else args[0]
