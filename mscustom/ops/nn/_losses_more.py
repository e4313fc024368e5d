"""Losses with MindSpore 2.10's functional names: ``huber_loss``, ``margin_ranking_loss``,
``cosine_embedding_loss``, ``hinge_embedding_loss``,
``multi_margin_loss``, ``multilabel_soft_margin_loss``, ``gaussian_nll_loss``.

Each is a composition of existing differentiable ops (gradients come from theirs); ``reduction`` is
``'mean'`` (default), ``'sum'`` or ``'none'``.
"""

import math

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from .. import functional as F
from ..math.elementwise_more import softplus
from ..array.creation import gather
from .._builtin import tensor_arg
from ._common import check_reduction, const, float_tensor, reduce_loss


def _pair(name, x, y, what=("input", "target")):
    x = float_tensor(x, name, what[0])
    y = tensor_arg(y, name)
    if y._data.dtype != x._data.dtype:
        y = F.cast(y, x.dtype)
    return x, y


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002 - MindSpore's names
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, with ``d = input - target``."""
    check_reduction("huber_loss", reduction)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
        raise ValueError(f"op 'huber_loss': delta must be a positive float, got {delta!r}")
    x, y = _pair("huber_loss", input, target)
    d = F.abs(F.sub(x, y))
    quad = F.mul(F.square(d), 0.5)
    lin = F.mul(F.sub(d, 0.5 * delta), float(delta))
    return reduce_loss(F.where(F.less(d, const(delta, d)), quad, lin), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    check_reduction("margin_ranking_loss", reduction)
    x1, x2 = _pair("margin_ranking_loss", input1, input2, ("input1", "input2"))
    _, t = _pair("margin_ranking_loss", x1, target)
    loss = F.add(F.neg(F.mul(t, F.sub(x1, x2))), float(margin))
    return reduce_loss(F.maximum(loss, const(0, loss)), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it is -1; the
    cosine is taken along axis 1."""
    check_reduction("cosine_embedding_loss", reduction)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not -1.0 <= margin <= 1.0:
        raise ValueError(f"op 'cosine_embedding_loss': margin must be a float in [-1, 1], got {margin!r}")
    x1, x2 = tensor_arg(input1, "cosine_embedding_loss"), tensor_arg(input2, "cosine_embedding_loss")
    if x1._data.dtype.kind in "iu":
        x1 = F.cast(x1, "float32")
    if x2._data.dtype.kind in "iu":
        x2 = F.cast(x2, "float32")
    t = tensor_arg(target, "cosine_embedding_loss")
    expect = x1.shape[:1] + x1.shape[2:]
    if tuple(t.shape) != tuple(expect):
        raise ValueError(f"op 'cosine_embedding_loss': target must have shape {list(expect)} (input1's without "
                         f"axis 1), got {list(t.shape)}")
    dot = F.sum(F.mul(x1, x2), 1)
    denom = F.mul(F.sqrt(F.sum(F.square(x1), 1)), F.sqrt(F.sum(F.square(x2), 1)))
    cos = F.div(dot, denom)
    zero = F.zeros_like(cos)
    pos = F.where(F.equal(t, const(1, t)), F.sub(1.0, cos), zero)
    neg = F.where(F.equal(t, const(-1, t)), F.maximum(F.sub(cos, float(margin)), zero), zero)
    return reduce_loss(F.add(pos, neg), reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """``inputs`` where ``targets`` is 1, ``max(0, margin - inputs)`` where it is -1."""
    check_reduction("hinge_embedding_loss", reduction)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"op 'hinge_embedding_loss': margin must be a float, got {margin!r}")
    x, t = _pair("hinge_embedding_loss", inputs, targets, ("inputs", "targets"))
    zero = F.zeros_like(F.add(x, t))
    pos = F.where(F.equal(t, const(1, t)), x, zero)
    neg = F.where(F.equal(t, const(-1, t)), F.maximum(F.sub(float(margin), x), zero), zero)
    return reduce_loss(F.add(pos, neg), reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):  # noqa: A002
    """Multi-class hinge loss: ``sum_{j != y} w[y] max(0, margin - x[y] + x[j])^p / C`` per row of the
    (N, C) ``input`` with class indices ``target`` (N,); ``p`` is 1 or 2."""
    name = "multi_margin_loss"
    check_reduction(name, reduction)
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"op '{name}': p must be 1 or 2, got {p!r}")
    x = float_tensor(input, name)
    t = tensor_arg(target, name)
    if x.ndim != 2 or t.shape != (x.shape[0],):
        raise ValueError(f"op '{name}': input must be (N, C) and target (N,), got shapes {list(x.shape)} and "
                         f"{list(t.shape)}")
    n, c = x.shape
    onehot = const(np.arange(c)[None, :] == _capture.read_values(t).reshape(-1, 1).astype(np.int64))
    x_y = F.sum(F.where(onehot, x, F.zeros_like(x)), 1, keepdims=True)
    m = F.add(F.sub(x, x_y), float(margin))
    m = F.where(onehot, F.zeros_like(m), F.maximum(m, const(0, m)))
    if p == 2:
        m = F.square(m)
    if weight is not None:
        w = gather(F.cast(tensor_arg(weight, name), x.dtype), t, 0)
        m = F.mul(m, F.reshape(w, (n, 1)))
    return reduce_loss(F.div(F.sum(m, 1), float(c)), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    """``-mean_c w_c (y log sigmoid(x) + (1 - y) log sigmoid(-x))`` per row of the (N, C) ``input``."""
    name = "multilabel_soft_margin_loss"
    check_reduction(name, reduction)
    x, y = _pair(name, input, target)
    if x.ndim != 2:
        raise ValueError(f"op '{name}': input must be 2-D (N, C), got shape {list(x.shape)}")
    # y log sigmoid(x) + (1 - y) log sigmoid(-x) = -(y softplus(-x) + (1 - y) softplus(x))
    loss = F.add(F.mul(y, softplus(F.neg(x))), F.mul(F.sub(1.0, y), softplus(x)))
    if weight is not None:
        loss = F.mul(loss, F.cast(tensor_arg(weight, name), x.dtype))
    return reduce_loss(F.mean(loss, 1), reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 (log(max(var, eps)) + (x - target)^2 / max(var, eps))`` (``+ 0.5 log(2 pi)`` when ``full``);
    ``var`` may lack the last axis or have size 1 there."""
    name = "gaussian_nll_loss"
    check_reduction(name, reduction)
    if not isinstance(full, bool):
        raise TypeError(f"op '{name}': full must be a bool, got {full!r}")
    if isinstance(eps, bool) or not isinstance(eps, float) or eps <= 0:
        raise ValueError(f"op '{name}': eps must be a positive float, got {eps!r}")
    x, t = _pair(name, x, target, ("x", "target"))
    v = F.cast(tensor_arg(var, name), x.dtype)
    if v.ndim == x.ndim - 1 and tuple(v.shape) == tuple(x.shape[:-1]):
        v = F.expand_dims(v, -1)
    v = F.maximum(v, const(eps, v))
    loss = F.mul(F.add(F.log(v), F.div(F.square(F.sub(x, t)), v)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return reduce_loss(loss, reduction)


__all__ = ["huber_loss", "margin_ranking_loss", "cosine_embedding_loss",
           "hinge_embedding_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
           "gaussian_nll_loss"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
