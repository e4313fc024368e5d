"""``OcclusionSensitivity``: how much a model's score for a label drops when each part of the image is hidden.

For every position of the image (or of the ``b_box`` region), a copy of the image whose patch
``[i - margin, i + margin)`` (per axis, clipped to the image) is set to ``pad_val`` is scored by
the model; ``eval()`` returns ``baseline - score`` per position, where the baseline is the score of
the unoccluded image. The copies go through the model ``n_batch`` at a time.

Example::

    m = OcclusionSensitivity(margin=1)
    m.update(net, image, label)          # image (1, ...): one image; label: an int or one value
    m.eval()                             # the image's spatial shape (less the batch axis)
"""

import numpy as np

from ..tensor import Tensor
from .metrics import Metric, _np
from .metrics_more import rearrange_inputs

__all__ = ["OcclusionSensitivity"]


class OcclusionSensitivity(Metric):
    """Occlusion sensitivity map of one image for one label (see the module's note).

    ``b_box``: ``[min0, max0, min1, max1, ...]`` (inclusive, over the image's axes after the batch axis;
    a negative max means the end of that axis) restricts the positions.
    """

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        if not isinstance(pad_val, float):
            raise TypeError(f"OcclusionSensitivity: pad_val must be a float, got {pad_val!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, list)):
            raise TypeError(f"OcclusionSensitivity: margin must be an int or a list, got {margin!r}")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch < 1:
            raise TypeError(f"OcclusionSensitivity: n_batch must be a positive int, got {n_batch!r}")
        if b_box is not None and not isinstance(b_box, list):
            raise TypeError(f"OcclusionSensitivity: b_box must be a list or None, got {b_box!r}")
        self.pad_val, self.margin, self.n_batch, self.b_box = pad_val, margin, n_batch, b_box
        super().__init__()

    def clear(self):
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    def _box(self, shape):
        if self.b_box is None:
            return None, None
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"OcclusionSensitivity: b_box needs a min and a max for each of the {len(shape)} axes, "
                             f"got {len(self.b_box)} values")
        lo, hi = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        lo[lo < 0] = 0
        hi[hi < 0] = shape[hi < 0] - 1
        if np.any(hi >= shape) or np.any(lo > hi):
            raise ValueError(f"OcclusionSensitivity: b_box {self.b_box} does not fit the image shape {list(shape)}")
        return lo, hi

    @rearrange_inputs
    def update(self, *inputs):
        from ..nn.cell import Cell
        if len(inputs) != 3:
            raise ValueError(f"OcclusionSensitivity.update: expected 3 inputs (model, y_pred, label), got {len(inputs)}")
        model = inputs[0]
        if not isinstance(model, Cell):
            raise TypeError(f"OcclusionSensitivity.update: model must be a Cell, got {type(model).__name__}")
        image = _np(inputs[1], "OcclusionSensitivity.update")
        label = inputs[2]
        if image.shape[0] > 1:
            raise RuntimeError(f"OcclusionSensitivity.update: one image at a time (batch 1), got {image.shape[0]}")
        label = int(np.asarray(label._data if isinstance(label, Tensor) else label).reshape(-1)[0])
        shape = np.array(image.shape[1:])
        lo, hi = self._box(shape)
        self._baseline = np.asarray(model(Tensor(image))._data)[0, label].item()
        out_shape = shape if lo is None else hi - lo + 1
        margins = self.margin if isinstance(self.margin, list) else [self.margin] * len(shape)
        scores, batch = [], []
        total = int(np.prod(out_shape))
        for i in range(total):
            idx = np.array(np.unravel_index(i, out_shape))
            if lo is not None:
                idx = idx + lo
            region = tuple(slice(max(0, p - m), min(n, p + m)) for p, m, n in zip(idx, margins, shape))
            occluded = image.copy()
            occluded[(...,) + region] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == total - 1:
                preds = np.asarray(model(Tensor(np.concatenate(batch, 0)))._data)
                scores.append(preds[:, label])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("OcclusionSensitivity: call update before eval")
        return self._baseline - np.squeeze(self._sensitivity_im)
