"""Losses: ``MSELoss``, ``L1Loss``, ``SmoothL1Loss``, ``SoftmaxCrossEntropyWithLogits``,
``CrossEntropyLoss``, ``NLLLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss``.

Each loss computes per-element values from ops and then applies its
``reduction``: "mean" (the default, except for the cross entropy, whose
MindSpore default is "none"), "sum" or "none".

Example::

    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    loss = loss_fn(logits, ms.Tensor([0, 2, 1]))     # a scalar Tensor
"""

import numpy as np

from .._core import capture as _capture
from .. import ops
from ..ops.nn import loss_fused as _loss_fused
from ..tensor import Tensor
from .cell import Cell

__all__ = ["LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss",
           "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]

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


    def _check_broadcast(self, logits, labels):
        """MSELoss and L1Loss broadcast logits and labels together, as in MindSpore."""
        if not isinstance(logits, Tensor) or not isinstance(labels, Tensor):
            bad = logits if not isinstance(logits, Tensor) else labels
            raise TypeError(f"{type(self).__name__}: logits and labels must be Tensors, "
                            f"got {type(bad).__name__}")
        try:
            np.broadcast_shapes(tuple(logits.shape), tuple(labels.shape))
        except ValueError:
            raise ValueError(f"{type(self).__name__}: logits and labels must have shapes that broadcast "
                             f"together, got {list(logits.shape)} and {list(labels.shape)}") from None


class MSELoss(LossBase):
    """Mean squared error: ``(logits - labels) ** 2`` (the two broadcast together), then the reduction.

    Example::

        nn.MSELoss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0]))     # 2.0
    """

    def construct(self, logits, labels):
        self._check_broadcast(logits, labels)
        return self.get_loss(ops.square(ops.sub(logits, labels)))


class L1Loss(LossBase):
    """Mean absolute error: ``|logits - labels|`` (the two broadcast together), then the reduction.

    Example::

        nn.L1Loss(reduction="sum")(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 4.0]))   # 3.0
    """

    def construct(self, logits, labels):
        self._check_broadcast(logits, labels)
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
            self._check_indices(logits, labels)
            # one fused op each way (loss; softmax - onehot), its labels checked now and in graph replays
            return _loss_fused.sparse_softmax_cross_entropy(logits, labels, self.reduction,
                                                          who="SoftmaxCrossEntropyWithLogits")
        if logits.shape != labels.shape:
            raise ValueError(f"SoftmaxCrossEntropyWithLogits: with sparse=False, labels must have the "
                             f"logits' shape {list(logits.shape)}, got {list(labels.shape)}")
        per_sample = ops.neg(ops.reduce_sum(ops.mul(ops.log_softmax(logits, -1), labels), -1))
        return self.get_loss(per_sample)

    @staticmethod
    def _check_indices(logits, labels):
        if labels._data.dtype.kind not in "iu":
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: with sparse=True, labels must be "
                            f"integer class indices, got {labels.dtype.name}")
        if labels._data.shape != logits._data.shape[:-1]:
            raise ValueError(f"SoftmaxCrossEntropyWithLogits: with sparse=True, labels must have shape "
                             f"{list(logits.shape[:-1])} for logits of shape {list(logits.shape)}, "
                             f"got {list(labels.shape)}")

    def extend_repr(self):
        return f"sparse={self.sparse}, reduction={self.reduction}"


# ================================================================== class-index losses
def _class_weights(weight, n_classes, dtype, who):
    """The per-class weight vector as a Tensor of ``dtype`` (ones when ``weight`` is None)."""
    if weight is None:
        return Tensor._wrap(np.ones(n_classes, dtype))
    w = weight._data if isinstance(weight, Tensor) else np.asarray(weight)
    if w.shape != (n_classes,):
        raise ValueError(f"{who}: weight must have shape [{n_classes}] (one per class), got {list(w.shape)}")
    return Tensor._wrap(w.astype(dtype))


_LabelRange = _loss_fused.LabelRange      # raises on a class index out of range (graph replays repeat it)


class _IndexTargets:
    """One-hot of the class indices along axis 1 and the mask of the samples not ignored (a host op)."""

    def __init__(self, who, n_classes, ignore_index, dtype, moved):
        self.check = _LabelRange(who, n_classes, ignore_index)
        self.n_classes, self.ignore_index, self.dtype, self.moved = n_classes, ignore_index, dtype, moved

    def __call__(self, data):
        self.check(data)
        keep = data != self.ignore_index
        safe = np.where(keep, data, 0).astype(np.int64)
        hot = np.zeros(safe.shape + (self.n_classes,), self.dtype)
        np.put_along_axis(hot, safe[..., None], 1, axis=-1)
        if self.moved:
            hot = np.moveaxis(hot, -1, 1)
        return np.ascontiguousarray(hot), keep.astype(self.dtype)


def _index_targets(logp, labels, ignore_index, who):
    """One-hot of the class indices along axis 1 and the mask of the samples not ignored."""
    n_classes = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    expect = (logp.shape[:1] + logp.shape[2:]) if logp.ndim > 1 else ()
    if tuple(labels.shape) != tuple(expect):
        raise ValueError(f"{who}: class-index labels must have shape {list(expect)} for inputs of shape "
                         f"{list(logp.shape)}, got {list(labels.shape)}")
    fn = _IndexTargets(who, n_classes, ignore_index, logp._data.dtype, logp.ndim > 1)
    hot, keep = _capture.host_op(fn, (labels,), Tensor._wrap)
    return hot, keep


def _weighted_count(w, hot, keep, cls_axis):
    """The summed class weight of the counted samples ("mean"'s denominator), 1 when it is 0."""
    per = (w.reshape(-1)[np.argmax(hot, axis=cls_axis)] * keep).sum()
    return (np.asarray(per if per else 1.0, w.dtype),)


def _class_axis_shape(logp):
    return (1, logp.shape[1]) + (1,) * (logp.ndim - 2) if logp.ndim > 1 else (logp.shape[0],)


def _weighted_nll(logp, labels, weight, ignore_index, reduction, label_smoothing, who):
    """Negative log-likelihood of class indices, with weights, ignore_index and label smoothing."""
    n_classes = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    cls_axis = 1 if logp.ndim > 1 else 0
    w = ops.reshape(_class_weights(weight, n_classes, logp._data.dtype, who), _class_axis_shape(logp))
    hot, keep = _index_targets(logp, labels, ignore_index, who)
    wlogp = ops.mul(logp, w)
    per = ops.neg(ops.reduce_sum(ops.mul(wlogp, hot), cls_axis))
    if label_smoothing:
        smooth = ops.neg(ops.div(ops.reduce_sum(wlogp, cls_axis), n_classes))
        per = ops.add(ops.mul(per, 1.0 - label_smoothing), ops.mul(smooth, label_smoothing))
    per = ops.mul(per, keep)
    if reduction == "none":
        return per
    if reduction == "sum":
        return ops.reduce_sum(per)
    (denom,) = _capture.host_op(lambda wa, ha, ka: _weighted_count(wa, ha, ka, cls_axis), (w, hot, keep),
                                Tensor._wrap)
    return ops.div(ops.reduce_sum(per), denom)


def _check_reduction(who, reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"{who}: reduction must be one of {list(allowed)}, got {reduction!r}")


class NLLLoss(LossBase):
    """Negative log-likelihood of class indices given log-probabilities (N, C) or (N, C, d1, ...).

    ``weight`` rescales each class; samples whose label is ``ignore_index``
    count nothing; "mean" divides by the summed weight of the counted samples.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, int(ignore_index)

    def construct(self, logits, labels):
        if not isinstance(logits, Tensor) or not isinstance(labels, Tensor):
            raise TypeError("NLLLoss: logits and labels must be Tensors")
        if labels._data.dtype.kind not in "iu":
            raise TypeError(f"NLLLoss: labels must be integer class indices, got {labels.dtype.name}")
        return _weighted_nll(logits, labels, self.weight, self.ignore_index, self.reduction, 0.0, "NLLLoss")


class CrossEntropyLoss(LossBase):
    """Cross entropy between ``softmax(logits)`` along axis 1 and the labels.

    ``logits``: (C,), (N, C) or (N, C, d1, ...). ``labels``: integer class
    indices ((N,) / (N, d1, ...)) or class probabilities of the logits' shape.
    ``weight`` (C,) rescales classes, ``ignore_index`` drops samples (indices
    only), ``label_smoothing`` mixes the target with the uniform distribution.
    With indices, "mean" divides by the summed weight of the counted samples;
    with probabilities, by the number of samples.

    Example::

        nn.CrossEntropyLoss()(ms.Tensor([[2.0, 0.0], [0.0, 2.0]]), ms.Tensor([0, 1]))    # 0.127
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        if not 0.0 <= float(label_smoothing) <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got {label_smoothing!r}")
        self.weight, self.ignore_index = weight, int(ignore_index)
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits, labels):
        if not isinstance(logits, Tensor) or not isinstance(labels, Tensor):
            raise TypeError("CrossEntropyLoss: logits and labels must be Tensors")
        if logits.ndim < 1 or logits._data.dtype.kind != "f":
            raise TypeError(f"CrossEntropyLoss: logits must be a float tensor with a class axis, got "
                            f"{logits.dtype.name} of shape {list(logits.shape)}")
        cls_axis = 1 if logits.ndim > 1 else 0
        if labels._data.dtype.kind in "iu" and logits.ndim <= 2 and self.weight is None \
                and not self.label_smoothing:
            # the classes are the last axis: the fused op gives the same loss (ignored samples count 0,
            # "mean" divides by the others' count, or 1) in one op each way
            expect = logits._data.shape[:-1]
            if labels._data.shape != expect:
                raise ValueError(f"CrossEntropyLoss: class-index labels must have shape {list(expect)} for "
                                 f"inputs of shape {list(logits.shape)}, got {list(labels.shape)}")
            return _loss_fused.sparse_softmax_cross_entropy(logits, labels, self.reduction, self.ignore_index,
                                                          who="CrossEntropyLoss")
        logp = ops.log_softmax(logits, cls_axis)
        if labels._data.dtype.kind in "iu":
            return _weighted_nll(logp, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing, "CrossEntropyLoss")
        if labels.shape != logits.shape:
            raise ValueError(f"CrossEntropyLoss: probability labels must have the logits' shape "
                             f"{list(logits.shape)}, got {list(labels.shape)}")
        n_classes = logits.shape[cls_axis]
        target = labels
        if self.label_smoothing:
            target = ops.add(ops.mul(labels, 1.0 - self.label_smoothing), self.label_smoothing / n_classes)
        w = ops.reshape(_class_weights(self.weight, n_classes, logits._data.dtype, "CrossEntropyLoss"),
                        _class_axis_shape(logp))
        per = ops.neg(ops.reduce_sum(ops.mul(ops.mul(logp, w), target), cls_axis))
        return self.get_loss(per)

    def extend_repr(self):
        return (f"ignore_index={self.ignore_index}, reduction={self.reduction}, "
                f"label_smoothing={self.label_smoothing}")


# ================================================================== elementwise losses
class SmoothL1Loss(LossBase):
    """``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta`` (d = logits - labels).

    MindSpore's defaults: ``beta=1.0``, ``reduction="none"``.
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"SmoothL1Loss: beta must be a positive number, got {beta!r}")
        self.beta = float(beta)

    def construct(self, logits, labels):
        self._check_same_shape(logits, labels)
        d = ops.sub(logits, labels)
        a = ops.abs(d)
        quad = ops.div(ops.mul(ops.square(d), 0.5), self.beta)
        return self.get_loss(ops.where(ops.less(a, self.beta), quad, ops.sub(a, 0.5 * self.beta)))


def _clamped_log(x):
    """log(x) with log(0) taken as -100 (as the binary cross entropies clamp it), gradient 0 there."""
    pos = ops.greater(x, 0)
    safe = ops.where(pos, x, ops.ones_like(x))
    return ops.maximum(ops.where(pos, ops.log(safe), ops.mul(ops.ones_like(x), -100.0)), -100.0)


class BCELoss(LossBase):
    """Binary cross entropy of probabilities: ``-w * (y * log(x) + (1 - y) * log(1 - x))``.

    The logs are clamped at -100, so a probability of exactly 0 or 1 gives a
    finite loss. ``weight`` broadcasts against the inputs.
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        self._check_same_shape(logits, labels)
        one = ops.ones_like(logits)
        per = ops.neg(ops.add(ops.mul(labels, _clamped_log(logits)),
                              ops.mul(ops.sub(one, labels), _clamped_log(ops.sub(one, logits)))))
        return self.get_loss(per, 1.0 if self.weight is None else self.weight)


def _log_sigmoid(x):
    """log(sigmoid(x)) = -(max(-x, 0) + log(1 + exp(-|x|))), stable for any x."""
    return ops.neg(ops.add(ops.relu(ops.neg(x)), ops.log(ops.add(ops.exp(ops.neg(ops.abs(x))), 1.0))))


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy on logits (sigmoid folded in, stable for large |x|).

    ``-w * (pos_weight * y * log(sigmoid(x)) + (1 - y) * log(sigmoid(-x)))``.
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits, labels):
        self._check_same_shape(logits, labels)
        pos = ops.mul(labels, _log_sigmoid(logits))
        if self.pos_weight is not None:
            pos = ops.mul(pos, self.pos_weight)
        neg = ops.mul(ops.sub(ops.ones_like(labels), labels), _log_sigmoid(ops.neg(logits)))
        per = ops.neg(ops.add(pos, neg))
        return self.get_loss(per, 1.0 if self.weight is None else self.weight)


class KLDivLoss(LossBase):
    """Kullback-Leibler divergence ``target * (log(target) - logits)``, with ``logits`` log-probabilities.

    Elements with ``target == 0`` contribute 0. ``reduction``: "mean" (over
    elements; MindSpore's default), "batchmean" (sum / batch size), "sum" or "none".
    """

    def __init__(self, reduction="mean"):
        _check_reduction("KLDivLoss", reduction, _REDUCTIONS + ("batchmean",))
        super().__init__("sum" if reduction == "batchmean" else reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        self._check_same_shape(logits, labels)
        pos = ops.greater(labels, 0)
        safe = ops.where(pos, labels, ops.ones_like(labels))
        per = ops.where(pos, ops.mul(labels, ops.sub(ops.log(safe), logits)), ops.zeros_like(labels))
        if self.reduction == "batchmean":
            return ops.div(ops.reduce_sum(per), logits.shape[0] if logits.ndim else 1)
        return self.get_loss(per)
