"""Functional losses with MindSpore's names, arguments and reduction defaults.

``cross_entropy``, ``nll_loss``, ``mse_loss``, ``l1_loss``, ``kl_div``,
``binary_cross_entropy`` and ``binary_cross_entropy_with_logits`` reduce by
``"mean"`` unless told otherwise; ``smooth_l1_loss`` returns the elementwise
loss (``reduction="none"``), as MindSpore 2.10 does. Each is a composition of
differentiable ops (``log_softmax``, ``gather_elements``, ``softplus`` ...), so
gradients and graph-mode replays come with them.

Example::

    loss = ops.cross_entropy(logits, labels, label_smoothing=0.1)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg
from ._common import reduce_loss as _reduce
from ..array.shape_more import gather_elements
from ..math.elementwise_more import softplus
from ..array.creation import gather as _gather

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(name, reduction, extra=()):
    if reduction not in _REDUCTIONS + tuple(extra):
        allowed = ", ".join(repr(r) for r in _REDUCTIONS + tuple(extra))
        raise ValueError(f"op '{name}': reduction must be one of {allowed}, got {reduction!r}")


def _pair(name, x, y):
    x = tensor_arg(x, name)
    y = tensor_arg(y, name) if isinstance(y, Tensor) else Tensor._wrap(np.asarray(y, x._data.dtype))
    if not x.dtype.name.startswith("float"):
        raise TypeError(f"op '{name}': input must be a float tensor, got {x.dtype.name}")
    return x, y


def _weighted(loss, weight, shape_of, axis):
    """``loss * weight`` with a per-class ``weight`` broadcast along the class ``axis``."""
    if weight is None:
        return loss
    shape = [1] * len(shape_of)
    shape[axis] = shape_of[axis]
    return F.mul(loss, F.reshape(weight, tuple(shape)))


# ================================================================== classification
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """The negative log-likelihood of ``target`` classes under log-probabilities ``inputs``.

    ``inputs`` is (N, C) or (N, C, d1, ...); ``target`` holds class indices
    (N,) or (N, d1, ...). ``weight`` scales each class; targets equal to
    ``ignore_index`` count for nothing. ``"mean"`` divides by the summed
    weights of the counted targets.

    Example::

        ops.nll_loss(ops.log_softmax(logits, 1), ms.Tensor([2, 1]))
    """
    name = "nll_loss"
    _check_reduction(name, reduction)
    x = tensor_arg(inputs, name)
    t = tensor_arg(target, name)
    if not x.dtype.name.startswith("float"):
        raise TypeError(f"op '{name}': inputs must be a float tensor, got {x.dtype.name}")
    if t.dtype.name not in ("int32", "int64", "int16", "int8", "uint8"):
        raise TypeError(f"op '{name}': target must be an integer tensor of class indices, got {t.dtype.name}")
    if x.ndim < 1 or (x.ndim == 1 and t.ndim != 0) or (x.ndim > 1 and tuple(t.shape) != (x.shape[0],) + tuple(x.shape[2:])):
        raise ValueError(f"op '{name}': target shape {list(t.shape)} does not match inputs shape {list(x.shape)} "
                         "(expected inputs (N, C, ...) and target (N, ...))")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"op '{name}': label_smoothing must be in [0, 1], got {label_smoothing!r}")
    cls = 1 if x.ndim > 1 else 0
    n_cls = x.shape[cls]
    keep = F.not_equal(t, ignore_index)
    safe = F.where(keep, t, F.zeros_like(t))
    picked = F.squeeze(gather_elements(x, cls, F.expand_dims(F.cast(safe, _dt.int64), cls)), cls)
    w_t = F.ones_like(picked) if weight is None else _gather(weight, F.cast(safe, _dt.int64), 0)
    w_t = F.where(keep, w_t, F.zeros_like(w_t))
    loss = F.neg(F.mul(picked, w_t))
    if label_smoothing:
        smooth = F.neg(F.reduce_sum(_weighted(x, weight, x.shape, cls), cls))
        smooth = F.where(keep, smooth, F.zeros_like(smooth))
        loss = F.add(F.mul(loss, 1.0 - label_smoothing), F.mul(smooth, label_smoothing / n_cls))
    if reduction == "mean":
        return F.div(F.reduce_sum(loss), F.reduce_sum(w_t))
    return _reduce(loss, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """Softmax cross entropy of logits ``input`` (N, C, ...) against class indices or class probabilities.

    With class indices it is ``nll_loss(log_softmax(input, 1), ...)``; with a
    float ``target`` of ``input``'s shape, ``-sum(weight * target * log_softmax)``
    per sample (``"mean"`` then averages over samples).

    Example::

        ops.cross_entropy(logits, ms.Tensor([2, 1]))      # mean over the batch
    """
    name = "cross_entropy"
    _check_reduction(name, reduction)
    x = tensor_arg(input, name)
    t = tensor_arg(target, name)
    if not x.dtype.name.startswith("float"):
        raise TypeError(f"op '{name}': input must be a float tensor, got {x.dtype.name}")
    cls = 1 if x.ndim > 1 else 0
    logp = F.log_softmax(x, cls)
    if not t.dtype.name.startswith("float"):
        return nll_loss(logp, t, weight, ignore_index, reduction, label_smoothing)
    if tuple(t.shape) != tuple(x.shape):
        raise ValueError(f"op '{name}': a probability target must have the input's shape {list(x.shape)}, "
                         f"got {list(t.shape)}")
    if label_smoothing:
        t = F.add(F.mul(t, 1.0 - label_smoothing), label_smoothing / x.shape[cls])
    loss = F.neg(F.reduce_sum(_weighted(F.mul(logp, t), weight, x.shape, cls), cls))
    if reduction == "mean":
        return F.div(F.reduce_sum(loss), float(max(x.shape[0] if x.ndim > 1 else 1, 1)) * (
            float(np.prod(x.shape[2:])) if x.ndim > 2 else 1.0))
    return _reduce(loss, reduction)


# ================================================================== regression
def mse_loss(input, target, reduction="mean"):  # noqa: A002
    """``(input - target) ** 2``, broadcast, reduced by ``reduction``."""
    _check_reduction("mse_loss", reduction)
    x, y = _pair("mse_loss", input, target)
    return _reduce(F.square(F.sub(x, y)), reduction)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """``|input - target|``, broadcast, reduced by ``reduction``."""
    _check_reduction("l1_loss", reduction)
    x, y = _pair("l1_loss", input, target)
    return _reduce(F.abs(F.sub(x, y)), reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002
    """``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta``; elementwise by default."""
    _check_reduction("smooth_l1_loss", reduction)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
        raise ValueError(f"op 'smooth_l1_loss': beta must be a positive number, got {beta!r}")
    x, y = _pair("smooth_l1_loss", input, target)
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"op 'smooth_l1_loss': input and target need the same shape, got {list(x.shape)} "
                         f"and {list(y.shape)}")
    d = F.sub(x, y)
    a = F.abs(d)
    loss = F.where(F.less(a, beta), F.div(F.mul(F.square(d), 0.5), float(beta)), F.sub(a, 0.5 * beta))
    return _reduce(loss, reduction)


def kl_div(logits, labels, reduction="mean"):
    """``labels * (log(labels) - logits)`` with ``logits`` log-probabilities (0 where ``labels`` is 0).

    ``reduction``: ``"mean"`` (over every element), ``"batchmean"`` (the sum
    divided by the batch size), ``"sum"`` or ``"none"``.
    """
    _check_reduction("kl_div", reduction, ("batchmean",))
    x, y = _pair("kl_div", logits, labels)
    positive = F.greater(y, 0.0)
    ylogy = F.where(positive, F.mul(y, F.log(F.where(positive, y, F.ones_like(y)))), F.zeros_like(y))
    loss = F.sub(ylogy, F.mul(y, x))
    if reduction == "batchmean":
        return F.div(F.reduce_sum(loss), float(x.shape[0] if x.ndim else 1))
    return _reduce(loss, reduction)


# ================================================================== binary
def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """``-weight * (labels * log(p) + (1 - labels) * log(1 - p))`` for probabilities ``logits``.

    The logarithms are clamped at -100, so p of 0 or 1 gives a finite loss.
    """
    _check_reduction("binary_cross_entropy", reduction)
    p, y = _pair("binary_cross_entropy", logits, labels)
    log_p = F.maximum(F.log(p), -100.0)
    log_q = F.maximum(F.log(F.sub(1.0, p)), -100.0)
    loss = F.neg(F.add(F.mul(y, log_p), F.mul(F.sub(1.0, y), log_q)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):  # noqa: A002
    """Binary cross entropy on logits, computed stably: ``-w * (pw * y * log s(x) + (1 - y) * log s(-x))``."""
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    x, y = _pair("binary_cross_entropy_with_logits", input, target)
    log_sig = F.neg(softplus(F.neg(x)))          # log sigmoid(x)
    log_sig_neg = F.neg(softplus(x))             # log sigmoid(-x)
    pos = F.mul(y, log_sig)
    if pos_weight is not None:
        pos = F.mul(pos, pos_weight)
    loss = F.neg(F.add(pos, F.mul(F.sub(1.0, y), log_sig_neg)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "kl_div", "binary_cross_entropy",
           "binary_cross_entropy_with_logits"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
