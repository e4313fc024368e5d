"""More of MindSpore's losses: FocalLoss, DiceLoss, MultiClassDiceLoss, RMSELoss, MAELoss, MultiMarginLoss,
MultiLabelSoftMarginLoss, HingeEmbeddingLoss, TripletMarginWithDistanceLoss, GaussianNLLLoss, PoissonNLLLoss.

Each is a composition of differentiable ops, so gradients come from the ops' own.

Example::

    nn.FocalLoss(gamma=2.0)(logits, labels)         # logits (N, C), labels (N, 1) indices or (N, C) one-hot
"""

import math

import numpy as np

from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .cell import Cell
from .layers import get_activation
from .loss import LossBase, MSELoss

__all__ = ["FocalLoss", "DiceLoss", "MultiClassDiceLoss", "RMSELoss", "MAELoss", "MultiMarginLoss",
           "MultiLabelSoftMarginLoss", "HingeEmbeddingLoss", "TripletMarginWithDistanceLoss", "GaussianNLLLoss",
           "PoissonNLLLoss"]


def _tensors(name, **named):
    for what, t in named.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: '{what}' must be a Tensor, got {type(t).__name__}")


def _check_reduction(reduction, name):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _log_softmax(x, axis):
    return ops.sub(x, ops.logsumexp(x, axis, True))


def _log_sigmoid(x):
    """``log(sigmoid(x))`` without overflow: ``min(x, 0) - log(1 + exp(-|x|))``."""
    return ops.sub(ops.minimum(x, ops.zeros_like(x)), ops.log1p(ops.exp(ops.neg(ops.abs(x)))))


class FocalLoss(LossBase):
    """``-(1 - p)^gamma * log(p)`` of the softmax probability ``p`` of the true class (axis 1).

    ``labels``: class indices of shape ``(N, 1, ...)`` or one-hot ``(N, C, ...)`` int32, with
    ``logits``' rank (2 to 4). ``weight``: per-class factors (C,). Per sample, the loss is the mean
    over the spatial positions (index labels: shape (N,)), or over positions per class (one-hot:
    (N, C)); ``reduction`` then reduces that.
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)):
            raise TypeError(f"FocalLoss: gamma must be a float, got {gamma!r}")
        if weight is not None:
            if not isinstance(weight, Tensor):
                raise TypeError(f"FocalLoss: weight must be a Tensor or None, got {type(weight).__name__}")
            if weight.ndim != 1:
                raise ValueError(f"FocalLoss: weight must be 1-D, got shape {list(weight.shape)}")
        self.weight, self.gamma = weight, float(gamma)

    def construct(self, logits, labels):
        _tensors("FocalLoss", logits=logits, labels=labels)
        if labels.ndim not in (2, 3, 4):
            raise ValueError(f"FocalLoss: labels must be 2-D to 4-D, got shape {list(labels.shape)}")
        if logits.ndim != labels.ndim:
            raise ValueError(f"FocalLoss: logits and labels must have the same rank, got shapes "
                             f"{list(logits.shape)} and {list(labels.shape)}")
        c = logits.shape[1]
        if labels.shape[1] not in (1, c):
            raise ValueError(f"FocalLoss: labels' axis 1 must be 1 (indices) or {c} (one-hot), got "
                             f"{labels.shape[1]}")
        if labels._data.dtype != np.int32:
            raise TypeError(f"FocalLoss: labels must be int32, got {labels.dtype.name}")
        n = logits.shape[0]
        x = ops.reshape(logits, (n, c, -1))
        y = ops.reshape(labels, (n, labels.shape[1], -1))
        logp = _log_softmax(x, 1)
        if labels.shape[1] == 1:
            logp = ops.gather_elements(logp, 1, y)                   # (n, 1, L)
            p = ops.exp(logp)
            if self.weight is not None:
                w = ops.gather(ops.cast(self.weight, x.dtype), ops.reshape(y, (-1,)), 0)
                logp = ops.mul(logp, ops.reshape(w, logp.shape))
            loss = ops.mul(ops.pow(ops.sub(1.0, p), self.gamma), ops.neg(logp))
            loss = ops.reduce_mean(ops.reshape(loss, (n, -1)), 1)     # (n,)
        else:
            p = ops.exp(logp)
            if self.weight is not None:
                logp = ops.mul(logp, ops.reshape(ops.cast(self.weight, x.dtype), (1, c, 1)))
            loss = ops.mul(ops.mul(ops.pow(ops.sub(1.0, p), self.gamma), ops.cast(y, x.dtype)), ops.neg(logp))
            loss = ops.reduce_mean(loss, 2)                            # (n, c)
        return self.get_loss(loss)


class DiceLoss(Cell):
    """``1 - 2 <x, y> / (|x|^2 + |y|^2 + smooth)`` over all elements (``logits`` and ``label`` alike in shape)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise ValueError(f"DiceLoss: smooth must be a float > 0, got {smooth!r}")
        self.smooth = float(smooth)

    def construct(self, logits, label):
        _tensors("DiceLoss", logits=logits, labels=label)
        if logits.shape != label.shape:
            raise ValueError(f"DiceLoss: logits and label must have the same shape, got {list(logits.shape)} "
                             f"and {list(label.shape)}")
        x, y = ops.reshape(logits, (-1,)), ops.reshape(ops.cast(label, logits.dtype), (-1,))
        inter = ops.reduce_sum(ops.mul(x, y))
        union = ops.add(ops.reduce_sum(ops.mul(x, x)), ops.reduce_sum(ops.mul(y, y)))
        return ops.sub(1.0, ops.div(ops.mul(inter, 2.0), ops.add(union, self.smooth)))


class MultiClassDiceLoss(Cell):
    """The mean over classes (axis 1) of ``DiceLoss`` on each class's slice, after ``activation``.

    ``weights``: a (C, 1) Tensor of per-class factors; ``ignore_indiex`` (MindSpore's spelling): a
    class left out of the sum (the mean still divides by C). ``activation``: "softmax",
    "logsoftmax", "relu", "relu6", "tanh", "sigmoid", a Cell, or None.
    """

    _ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        if weights is not None and (not isinstance(weights, Tensor) or weights.ndim != 2):
            raise ValueError(f"MultiClassDiceLoss: weights must be a 2-D Tensor (C, 1), got {weights!r}")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"MultiClassDiceLoss: ignore_indiex must be an int or None, got {ignore_indiex!r}")
        if isinstance(activation, str):
            if activation not in self._ACTIVATIONS:
                raise ValueError(f"MultiClassDiceLoss: activation must be one of {list(self._ACTIVATIONS)}, "
                                 f"got {activation!r}")
            activation = get_activation(activation)
        elif activation is not None and not isinstance(activation, Cell):
            raise TypeError(f"MultiClassDiceLoss: activation must be a name, a Cell or None, got {activation!r}")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation
        self.binarydiceloss = DiceLoss(smooth=1e-5)

    def construct(self, logits, label):
        _tensors("MultiClassDiceLoss", logits=logits, labels=label)
        if logits.shape != label.shape or logits.ndim < 2:
            raise ValueError(f"MultiClassDiceLoss: logits and label must have the same shape (N, C, ...), got "
                             f"{list(logits.shape)} and {list(label.shape)}")
        c = label.shape[1]
        if self.weights is not None and self.weights.shape[0] != c:
            raise ValueError(f"MultiClassDiceLoss: weights must have {c} rows (one per class), got shape "
                             f"{list(self.weights.shape)}")
        if self.activation is not None:
            logits = self.activation(logits)
        total = None
        for i in range(c):
            if i == self.ignore_indiex:
                continue
            loss = self.binarydiceloss(logits[:, i], label[:, i])
            if self.weights is not None:
                loss = ops.mul(loss, ops.cast(self.weights[i], loss.dtype))
            total = loss if total is None else ops.add(total, loss)
        if total is None:
            return Tensor(np.zeros((), logits._data.dtype))
        return ops.div(total, float(c))


class RMSELoss(Cell):
    """``sqrt(mean((logits - label) ** 2))``."""

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()

    def construct(self, logits, label):
        return ops.sqrt(self.MSELoss(logits, label))


class MAELoss(LossBase):
    """``|logits - label|``, reduced by ``reduction`` (they broadcast together)."""

    def construct(self, logits, label):
        _tensors("MAELoss", logits=logits, labels=label)
        return self.get_loss(ops.abs(ops.sub(logits, label)))


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: per sample ``sum_{i != y} w[y] * max(0, margin - x[y] + x[i])^p / C``.

    ``x`` (N, C) or (C,), ``target`` int64 class indices; ``p`` is 1 or 2. ``weight`` (C,) may be
    given to the constructor or to ``construct`` (the latter wins).
    """

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        if p not in (1, 2) or isinstance(p, bool):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)):
            raise TypeError(f"MultiMarginLoss: margin must be a float, got {margin!r}")
        self.p, self.margin, self.weight = p, float(margin), weight

    def construct(self, x, target, weight=None):
        _tensors("MultiMarginLoss", x=x, target=target)
        if target._data.dtype != np.int64:
            raise TypeError(f"MultiMarginLoss: target must be int64, got {target.dtype.name}")
        weight = self.weight if weight is None else weight
        squeeze = x.ndim == 1
        if squeeze:
            x, target = ops.reshape(x, (1, -1)), ops.reshape(target, (1,))
        if x.ndim != 2 or target.shape != (x.shape[0],):
            raise ValueError(f"MultiMarginLoss: x must be (N, C) and target (N,), got {list(x.shape)} and "
                             f"{list(target.shape)}")
        n, c = x.shape
        idx = ops.reshape(target, (n, 1))
        xy = ops.gather_elements(x, 1, idx)                                   # (n, 1)
        z = ops.relu(ops.add(ops.sub(x, xy), self.margin))
        if self.p == 2:
            z = ops.mul(z, z)
        not_target = ops.sub(1.0, ops.one_hot(target, c, Tensor(np.asarray(1, x._data.dtype)),
                                              Tensor(np.asarray(0, x._data.dtype))))
        z = ops.mul(z, not_target)
        if weight is not None:
            wy = ops.gather(ops.cast(weight, x.dtype), target, 0)
            z = ops.mul(z, ops.reshape(wy, (n, 1)))
        loss = ops.div(ops.reduce_sum(z, 1), float(c))
        if squeeze and self.reduction == "none":
            loss = ops.reshape(loss, ())
        return self.get_loss(loss)


class MultiLabelSoftMarginLoss(LossBase):
    """Per sample ``-mean_c(w_c * (y log sigmoid(x) + (1 - y) log sigmoid(-x)))``; ``x`` and ``target`` (N, C)."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        _tensors("MultiLabelSoftMarginLoss", x=x, target=target)
        if x.ndim != 2 or x.shape != target.shape:
            raise ValueError(f"MultiLabelSoftMarginLoss: x and target must have the same shape (N, C), got "
                             f"{list(x.shape)} and {list(target.shape)}")
        y = ops.cast(target, x.dtype)
        loss = ops.neg(ops.add(ops.mul(y, _log_sigmoid(x)), ops.mul(ops.sub(1.0, y), _log_sigmoid(ops.neg(x)))))
        if self.weight is not None:
            loss = ops.mul(loss, ops.cast(self.weight, x.dtype))
        return self.get_loss(ops.reduce_mean(loss, 1))


class HingeEmbeddingLoss(LossBase):
    """``x`` where ``label == 1``, ``max(0, margin - x)`` where ``label == -1`` (other labels: both terms)."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)):
            raise TypeError(f"HingeEmbeddingLoss: margin must be a float, got {margin!r}")
        self.margin = float(margin)

    def construct(self, logits, labels):
        _tensors("HingeEmbeddingLoss", logits=logits, labels=labels)
        y = ops.cast(labels, logits.dtype)
        zeros = ops.zeros_like(ops.add(logits, y))
        pos = ops.where(ops.not_equal(y, 1.0), zeros, ops.add(logits, zeros))
        neg = ops.where(ops.not_equal(y, -1.0), zeros, ops.relu(ops.sub(self.margin, ops.add(logits, zeros))))
        return self.get_loss(ops.add(pos, neg))


class TripletMarginWithDistanceLoss(LossBase):
    """``max(d(x, positive) - d(x, negative) + margin, 0)``; ``d`` defaults to the L2 norm of ``|a - b|``
    along axis 1. ``swap``: ``d(x, negative)`` becomes ``min(d(x, negative), d(positive, negative))``."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"TripletMarginWithDistanceLoss: distance_function must be callable, got "
                            f"{distance_function!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)):
            raise TypeError(f"TripletMarginWithDistanceLoss: margin must be a float, got {margin!r}")
        self.distance_function = distance_function or self._pairwise_distance
        self.swap, self.margin = bool(swap), float(margin)

    @staticmethod
    def _pairwise_distance(a, b):
        d = ops.sub(a, b)
        if d.ndim == 0:
            raise ValueError("TripletMarginWithDistanceLoss: the inputs must have at least 1 dimension")
        return ops.sqrt(ops.reduce_sum(ops.square(d), 1 if d.ndim > 1 else 0))

    def construct(self, x, positive, negative):
        _tensors("TripletMarginWithDistanceLoss", x=x, positive=positive, negative=negative)
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(ops.relu(ops.add(ops.sub(d1, d2), self.margin)))


def _non_negative_var(a):
    if np.any(a < 0):
        raise ValueError("GaussianNLLLoss: var must be non-negative")


class GaussianNLLLoss(LossBase):
    """``0.5 * (log(max(var, eps)) + (logits - labels)^2 / max(var, eps))`` (+ ``0.5 log(2 pi)`` when ``full``).

    ``var`` has ``logits``' shape or one fewer trailing size (1 there); its clamp to ``eps`` passes
    no gradient below ``eps``.
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
            raise ValueError(f"GaussianNLLLoss: eps must be a float > 0, got {eps!r}")
        self.full, self.eps = bool(full), float(eps)

    def construct(self, logits, labels, var):
        _tensors("GaussianNLLLoss", logits=logits, labels=labels, var=var)
        if var.shape != logits.shape:
            if var.ndim == logits.ndim and var.shape[-1] == 1 and var.shape[:-1] == logits.shape[:-1]:
                pass
            elif var.shape == logits.shape[:-1]:
                var = ops.expand_dims(var, -1)
            else:
                raise ValueError(f"GaussianNLLLoss: var of shape {list(var.shape)} does not fit logits of shape "
                                 f"{list(logits.shape)}")
        _capture.check(_non_negative_var, var)          # repeated by every graph replay
        v = ops.maximum(var, Tensor(np.asarray(self.eps, var._data.dtype)))
        loss = ops.mul(ops.add(ops.log(v), ops.div(ops.square(ops.sub(logits, labels)), v)), 0.5)
        if self.full:
            loss = ops.add(loss, 0.5 * math.log(2 * math.pi))
        return self.get_loss(loss)


class PoissonNLLLoss(LossBase):
    """``exp(x) - t * x`` (``log_input``) or ``x - t * log(x + eps)``; ``full`` adds Stirling's term
    ``t log t - t + 0.5 log(2 pi t)`` where ``t > 1``."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise TypeError(f"PoissonNLLLoss: eps must be a float, got {eps!r}")
        self.log_input, self.full, self.eps = bool(log_input), bool(full), float(eps)

    def construct(self, input, target):  # noqa: A002 - MindSpore's name
        _tensors("PoissonNLLLoss", input=input, target=target)
        x, t = input, ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.sub(ops.exp(x), ops.mul(t, x))
        else:
            loss = ops.sub(x, ops.mul(t, ops.log(ops.add(x, self.eps))))
        if self.full:
            tc = ops.maximum(t, Tensor(np.asarray(self.eps, x._data.dtype)))
            stirling = ops.add(ops.sub(ops.mul(ops.add(tc, 0.5), ops.log(tc)), tc), 0.5 * math.log(2 * math.pi))
            loss = ops.add(loss, ops.where(ops.greater(tc, 1.0), stirling, ops.zeros_like(stirling)))
        return self.get_loss(loss)
