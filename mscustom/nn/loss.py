"""Losses: ``MSELoss``, ``L1Loss`` and ``SoftmaxCrossEntropyWithLogits``.

Each loss computes per-element values from ops and then applies its
``reduction``: "mean" (the default, except for the cross entropy, whose
MindSpore default is "none"), "sum" or "none".

Example::

    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    loss = loss_fn(logits, ms.Tensor([0, 2, 1]))     # a scalar Tensor
"""

import numpy as np

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits"]

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """Base class of losses: holds ``reduction`` and applies it in ``get_loss``."""

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of {list(_REDUCTIONS)}, "
                             f"got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x, weights=1.0):
        """Reduce the per-element losses ``x`` (times ``weights``, if given) as ``reduction`` says."""
        if not (isinstance(weights, float) and weights == 1.0):
            x = ops.mul(x, weights)
        if self.reduction == "mean":
            return ops.reduce_mean(x)
        if self.reduction == "sum":
            return ops.reduce_sum(x)
        return x

    def extend_repr(self):
        return f"reduction={self.reduction}"

    def _check_same_shape(self, logits, labels):
        if not isinstance(logits, Tensor) or not isinstance(labels, Tensor):
            bad = logits if not isinstance(logits, Tensor) else labels
            raise TypeError(f"{type(self).__name__}: logits and labels must be Tensors, "
                            f"got {type(bad).__name__}")
        if logits.shape != labels.shape:
            raise ValueError(f"{type(self).__name__}: logits and labels must have the same shape, "
                             f"got {list(logits.shape)} and {list(labels.shape)}")


class MSELoss(LossBase):
    """Mean squared error: ``(logits - labels) ** 2``, then the reduction.

    Example::

        nn.MSELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0]))     # 2.0
    """

    def construct(self, logits, labels):
        self._check_same_shape(logits, labels)
        return self.get_loss(ops.square(ops.sub(logits, labels)))


class L1Loss(LossBase):
    """Mean absolute error: ``|logits - labels|``, then the reduction.

    Example::

        nn.L1Loss(reduction="sum")(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 4.0]))   # 3.0
    """

    def construct(self, logits, labels):
        self._check_same_shape(logits, labels)
        return self.get_loss(ops.abs(ops.sub(logits, labels)))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross entropy of ``softmax(logits)`` against the labels, per sample.

    ``logits``: (N, C) floats. ``sparse=False``: ``labels`` are (N, C)
    probabilities (one-hot or soft). ``sparse=True``: ``labels`` are (N,)
    integer class indices in ``[0, C)``. The loss per sample is
    ``-sum(labels * log_softmax(logits), -1)``; log_softmax keeps it finite for
    any logits. ``reduction`` defaults to "none" (a loss per sample), as in
    MindSpore.

    Example::

        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        loss_fn(ms.Tensor([[2.0, 0.0], [0.0, 2.0]]), ms.Tensor([0, 1]))   # 0.127
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = bool(sparse)

    def construct(self, logits, labels):
        if not isinstance(logits, Tensor) or not isinstance(labels, Tensor):
            bad = logits if not isinstance(logits, Tensor) else labels
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: logits and labels must be Tensors, "
                            f"got {type(bad).__name__}")
        if logits.ndim < 1:
            raise ValueError("SoftmaxCrossEntropyWithLogits: logits must have a class dimension, "
                             "got a 0-d tensor")
        if self.sparse:
            labels = self._one_hot(logits, labels)
        elif logits.shape != labels.shape:
            raise ValueError(f"SoftmaxCrossEntropyWithLogits: with sparse=False, labels must have the "
                             f"logits' shape {list(logits.shape)}, got {list(labels.shape)}")
        per_sample = ops.neg(ops.reduce_sum(ops.mul(ops.log_softmax(logits, -1), labels), -1))
        return self.get_loss(per_sample)

    def _one_hot(self, logits, labels):
        data, n_classes = labels._data, logits.shape[-1]
        if data.dtype.kind not in "iu":
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: with sparse=True, labels must be "
                            f"integer class indices, got {labels.dtype.name}")
        if labels.shape != logits.shape[:-1]:
            raise ValueError(f"SoftmaxCrossEntropyWithLogits: with sparse=True, labels must have shape "
                             f"{list(logits.shape[:-1])} for logits of shape {list(logits.shape)}, "
                             f"got {list(labels.shape)}")
        if data.size and (data.min() < 0 or data.max() >= n_classes):
            bad = data.min() if data.min() < 0 else data.max()
            raise ValueError(f"SoftmaxCrossEntropyWithLogits: label {int(bad)} is out of range for "
                             f"{n_classes} classes (expected 0 <= label < {n_classes})")
        dt = logits._data.dtype
        return ops.one_hot(labels, n_classes, Tensor._wrap(np.ones((), dt)), Tensor._wrap(np.zeros((), dt)))

    def extend_repr(self):
        return f"sparse={self.sparse}, reduction={self.reduction}"
