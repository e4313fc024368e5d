"""Losses beyond ``loss.py``'s: ``HuberLoss``, ``CosineEmbeddingLoss``, ``MarginRankingLoss``.

Example::

    nn.HuberLoss(delta=0.5)(pred, target)
    nn.MarginRankingLoss(margin=0.3)(x1, x2, ms.Tensor([1.0, -1.0]))
"""

from .. import ops
from ..tensor import Tensor
from .loss import LossBase

__all__ = ["HuberLoss", "CosineEmbeddingLoss", "MarginRankingLoss"]


def _tensors(name, **named):
    for what, t in named.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{name}', the '{what}' must be a Tensor, got {type(t).__name__}")


def _same_dtype(name, a_name, a, b_name, b):
    if a.dtype != b.dtype:
        raise TypeError(f"For {name}, the {b_name} dtype should be equal to {a_name} dtype, but got "
                        f"{b_name} dtype:{b.dtype.name.capitalize()}, {a_name} dtype:{a.dtype.name.capitalize()}.")


def _margin(name, margin, lo=None, hi=None):
    if not isinstance(margin, float):
        raise TypeError(f"For '{name}', the 'margin' must be a float, got {type(margin).__name__}")
    if lo is not None and not lo <= margin <= hi:
        raise ValueError(f"For '{name}', the 'margin' must be in [{lo}, {hi}], got {margin}")
    return margin


class HuberLoss(LossBase):
    """``0.5 * d**2`` where ``|d| <= delta``, else ``delta * (|d| - 0.5 * delta)``; ``d = logits - labels``.

    ``logits`` and ``labels`` broadcast together, as in MindSpore.

    Example::

        nn.HuberLoss()(ms.Tensor([0.0, 3.0]), ms.Tensor([0.5, 0.0]))     # (0.125 + 2.5) / 2
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
            raise ValueError(f"For 'HuberLoss', the 'delta' must be a positive float, got {delta!r}")
        self.delta = float(delta)

    def construct(self, logits, labels):
        _tensors("HuberLoss", logits=logits, labels=labels)
        _same_dtype("HuberLoss", "logits", logits, "labels", labels)
        d = ops.sub(logits, labels)
        ad = ops.abs(d)
        quad = ops.mul(ops.square(d), 0.5)
        lin = ops.mul(ops.sub(ad, 0.5 * self.delta), self.delta)
        return self.get_loss(ops.where(ops.less_equal(ad, self.delta), quad, lin))

    def extend_repr(self):
        return f"reduction={self.reduction}, delta={self.delta}"


class CosineEmbeddingLoss(LossBase):
    """``1 - cos(x1, x2)`` where ``labels == 1``, ``max(0, cos(x1, x2) - margin)`` where ``labels == -1``.

    The cosine is taken over axis 1 (MindSpore's); ``labels`` has the inputs'
    shape without that axis. ``margin`` is a float in [-1, 1].
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _margin("CosineEmbeddingLoss", margin, -1.0, 1.0)

    def construct(self, logits_x1, logits_x2, labels):
        _tensors("CosineEmbeddingLoss", logits_x1=logits_x1, logits_x2=logits_x2, labels=labels)
        if logits_x1.shape != logits_x2.shape or logits_x1.dtype != logits_x2.dtype:
            raise TypeError(f"For 'CosineEmbeddingLoss', logits_x1 and logits_x2 must have the same shape and "
                            f"dtype, got {list(logits_x1.shape)} {logits_x1.dtype} and {list(logits_x2.shape)} "
                            f"{logits_x2.dtype}")
        if logits_x1.ndim < 2:
            raise ValueError(f"For 'CosineEmbeddingLoss', the inputs need an axis 1, got shape "
                             f"{list(logits_x1.shape)}")
        prod = ops.reduce_sum(ops.mul(logits_x1, logits_x2), (1,))
        denom = ops.mul(ops.sqrt(ops.reduce_sum(ops.square(logits_x1), (1,))),
                        ops.sqrt(ops.reduce_sum(ops.square(logits_x2), (1,))))
        cosine = ops.div(prod, denom)
        pos = ops.sub(1.0, cosine)
        neg = ops.maximum(ops.sub(cosine, self.margin), ops.zeros_like(cosine))
        zeros = ops.zeros_like(cosine)
        out = ops.add(ops.where(ops.equal(labels, 1), pos, zeros), ops.where(ops.equal(labels, -1), neg, zeros))
        return self.get_loss(out)

    def extend_repr(self):
        return f"margin={self.margin}, reduction={self.reduction}"


class MarginRankingLoss(LossBase):
    """``max(0, -target * (input1 - input2) + margin)``; ``target`` holds 1 or -1 in input1's dtype.

    Example::

        nn.MarginRankingLoss()(ms.Tensor([0.3864, -2.4093, -1.4076]), ms.Tensor([-0.6012, -1.6681, 1.2928]),
                               ms.Tensor([-1.0, -1.0, 1.0]))                  # 1.2293333
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _margin("MarginRankingLoss", margin)

    def construct(self, input1, input2, target):
        name = "margin_ranking_loss"
        _tensors(name, input1=input1, input2=input2, target=target)
        _same_dtype(name, "input1", input1, "input2", input2)
        _same_dtype(name, "input1", input1, "target", target)
        if input1.shape != input2.shape or input1.shape != target.shape:
            raise ValueError(f"For {name}, input1, input2 and target must have the same shape, got "
                             f"{list(input1.shape)}, {list(input2.shape)} and {list(target.shape)}")
        x = ops.add(ops.mul(ops.neg(target), ops.sub(input1, input2)), self.margin)
        return self.get_loss(ops.where(ops.greater(x, 0), x, ops.zeros_like(x)))

    def extend_repr(self):
        return f"margin={self.margin}, reduction={self.reduction}"
