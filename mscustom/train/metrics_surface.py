"""Segmentation surface metrics with MindSpore's names: ``HausdorffDistance``, ``MeanSurfaceDistance`` and
``RootMeanSquareDistance``.

``update(y_pred, y, label_idx)`` takes two label images (or boolean masks) of the same shape; the
surface of a mask is the mask minus its binary erosion (face neighbours, outside counts as
background). Distances from each surface voxel to the other surface are Euclidean, "chessboard"
(L-infinity) or "taxicab" (L1), computed exactly between the surface voxels.

Example::

    m = HausdorffDistance()
    m.update(pred, label, 1)
    m.eval()
"""

import numpy as np

from .metrics import Metric, _np
from .metrics_more import rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

_METRICS = ("euclidean", "chessboard", "taxicab")


def _erode(mask):
    """Binary erosion by the cross-shaped structuring element (border outside the image is background)."""
    p = np.pad(mask, 1, constant_values=False)
    out = p.copy()
    for axis in range(mask.ndim):
        out &= np.roll(p, 1, axis) & np.roll(p, -1, axis)
    return out[tuple(slice(1, -1) for _ in range(mask.ndim))]


def _edges(mask):
    return _erode(mask) ^ mask


def _surface_distance(a_edges, b_edges, metric):
    """Distances from each voxel of ``a_edges`` to the nearest voxel of ``b_edges`` (inf when b is empty)."""
    a = np.argwhere(a_edges)
    if a.size == 0:
        return np.array([])
    b = np.argwhere(b_edges)
    if b.size == 0:
        return np.full(a.shape[0], np.inf)
    diff = np.abs(a[:, None, :] - b[None, :, :]).astype(np.float64)
    if metric == "euclidean":
        d = np.sqrt((diff ** 2).sum(-1))
    elif metric == "chessboard":
        d = diff.max(-1)
    else:
        d = diff.sum(-1)
    return d.min(1)


def _masks(self, inputs):
    who = type(self).__name__
    if len(inputs) != 3:
        raise ValueError(f"{who}.update: expected 3 inputs (y_pred, y, label_idx), got {len(inputs)}")
    y_pred, y = _np(inputs[0], f"{who}.update"), _np(inputs[1], f"{who}.update")
    label_idx = inputs[2]
    if isinstance(label_idx, bool) or not isinstance(label_idx, (int, float)):
        raise ValueError(f"{who}.update: label_idx must be an int or float, got {type(label_idx).__name__}")
    if label_idx not in y_pred and label_idx not in y:
        raise ValueError(f"{who}.update: label_idx {label_idx} is in neither y_pred nor y")
    if y_pred.size == 0 or y_pred.shape != y.shape:
        raise ValueError(f"{who}.update: y_pred and y must be non-empty and of one shape, got "
                         f"{list(y_pred.shape)} and {list(y.shape)}")
    y_pred = y_pred if y_pred.dtype == bool else y_pred == label_idx
    y = y if y.dtype == bool else y == label_idx
    return y_pred, y


def _check_metric(distance_metric, who):
    if distance_metric not in _METRICS:
        raise ValueError(f"{who}: distance_metric must be one of {list(_METRICS)}, got {distance_metric!r}")
    return distance_metric


class HausdorffDistance(Metric):
    """``max(h(pred, y), h(y, pred))`` with ``h(A, B)`` the largest distance from A's surface to B's
    (``directed``: ``h(pred, y)`` only; ``percentile``: that percentile instead of the maximum). ``crop``
    first cuts both images to the bounding box of their union (the distances do not change)."""

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        self.distance_metric = _check_metric(distance_metric, "HausdorffDistance")
        if percentile is not None and not isinstance(percentile, float):
            raise TypeError(f"HausdorffDistance: percentile must be a float or None, got {percentile!r}")
        self.percentile, self.directed, self.crop = percentile, bool(directed), bool(crop)
        super().__init__()

    def clear(self):
        self.y_pred_edges, self.y_edges = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _masks(self, inputs)
        if self.crop and (y_pred | y).any():
            idx = np.argwhere(y_pred | y)
            box = tuple(slice(lo, hi + 1) for lo, hi in zip(idx.min(0), idx.max(0)))
            y_pred, y = y_pred[box], y[box]
        self.y_pred_edges, self.y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def _directed(self, a, b):
        d = _surface_distance(a, b, self.distance_metric)
        if d.shape == (0,):
            return np.inf
        if not self.percentile:
            return d.max()
        if not 0 <= self.percentile <= 100:
            raise ValueError(f"HausdorffDistance: percentile must be in [0, 100], got {self.percentile}")
        return np.percentile(d, self.percentile)

    def eval(self):
        if not self._is_update:
            raise RuntimeError("HausdorffDistance: call update before eval")
        hd = self._directed(self.y_pred_edges, self.y_edges)
        return hd if self.directed else max(hd, self._directed(self.y_edges, self.y_pred_edges))


class _SurfaceMetric(Metric):
    def __init__(self, symmetric=False, distance_metric="euclidean"):
        if not isinstance(symmetric, bool):
            raise TypeError(f"{type(self).__name__}: symmetric must be a bool, got {symmetric!r}")
        self.symmetric = symmetric
        self.distance_metric = _check_metric(distance_metric, type(self).__name__)
        super().__init__()

    def clear(self):
        self._y_pred_edges = self._y_edges = None
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _masks(self, inputs)
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def _distances(self):
        if not self._is_update:
            raise RuntimeError(f"{type(self).__name__}: call update before eval")
        d1 = _surface_distance(self._y_pred_edges, self._y_edges, self.distance_metric)
        if d1.shape == (0,):
            return None
        if not self.symmetric:
            return d1
        d2 = _surface_distance(self._y_edges, self._y_pred_edges, self.distance_metric)
        return None if d2.shape == (0,) else np.concatenate([d1, d2])


class MeanSurfaceDistance(_SurfaceMetric):
    """The mean distance from the prediction's surface voxels to the label's surface (``symmetric``: over the
    surface voxels of both, each to the other surface); inf when a surface is empty."""

    def eval(self):
        d = self._distances()
        return np.inf if d is None else d.mean()


class RootMeanSquareDistance(_SurfaceMetric):
    """The root mean square of the distances MeanSurfaceDistance averages (``symmetric``: over both surfaces)."""

    def eval(self):
        d = self._distances()
        return np.inf if d is None else np.sqrt((d ** 2).mean())
