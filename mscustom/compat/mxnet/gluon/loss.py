"""``gluon.loss``: ``Loss``, ``SoftmaxCrossEntropyLoss`` (``SoftmaxCELoss``), ``L2Loss``.

As MXNet 1.9.1: a loss is a HybridBlock returning one value per sample (the
mean over every axis but ``batch_axis``), scaled by ``weight`` and by an
optional ``sample_weight`` broadcast against the per-element loss.
``SoftmaxCrossEntropyLoss(axis=-1, sparse_label=True, from_logits=False,
weight=None, batch_axis=0)``: ``-log_softmax(pred)[label]`` (or
``-sum(log_softmax(pred) * label)`` for dense labels); ``L2Loss(weight=1.0,
batch_axis=0)``: ``weight / 2 * (label - pred) ** 2``.

Example::

    loss = gluon.loss.SoftmaxCrossEntropyLoss()(pred, label)   # shape (batch,)
"""

from .block import HybridBlock

__all__ = ["Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "L2Loss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, (int, float)):
            raise TypeError(f"loss: weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(label, pred):
    if tuple(label.shape) == tuple(pred.shape):
        return label
    if label.size != pred.size:
        raise ValueError(f"loss: label has shape {tuple(label.shape)} ({label.size} elements), which cannot be "
                         f"reshaped to the prediction's shape {tuple(pred.shape)}")
    return label.reshape(pred.shape)


class Loss(HybridBlock):
    """Base of the losses: ``weight`` and ``batch_axis``."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")


class SoftmaxCrossEntropyLoss(Loss):
    """Softmax cross entropy of ``pred`` against integer (``sparse_label``) or probability labels."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class L2Loss(Loss):
    """``weight / 2 * (label - pred) ** 2``, averaged over every axis but ``batch_axis``."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)
