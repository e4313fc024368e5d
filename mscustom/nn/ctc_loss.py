"""``CTCLoss``: connectionist temporal classification, the negative log-likelihood of each target over all
alignments, computed by the forward (alpha) recursion in log space.

The recursion is composed of differentiable ops (gather, where, exp/log), so the gradient with respect
to ``log_probs`` comes from them. Impossible alignments (a target too long for its input) give an
infinite loss; ``zero_infinity`` sets those losses, and their gradients, to 0.

Example::

    loss = nn.CTCLoss(blank=0)(log_probs, targets, input_lengths, target_lengths)   # log_probs (T, N, C)
"""

import numpy as np

from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .loss import LossBase

__all__ = ["CTCLoss"]

_NEG = -1e30          # log(0) stand-in: finite, so masked branches carry no NaN into gradients


def _lse(*xs):
    m = ops.stop_gradient(xs[0])
    for x in xs[1:]:
        m = ops.maximum(m, ops.stop_gradient(x))
    total = None
    for x in xs:
        e = ops.exp(ops.sub(x, m))
        total = e if total is None else ops.add(total, e)
    return ops.add(m, ops.log(total))


class CTCLoss(LossBase):
    """CTC loss of ``log_probs`` (T, N, C) (log-softmax outputs) against padded ``targets`` (N, S).

    ``input_lengths`` / ``target_lengths`` (N,) give each sample's frames and labels. ``reduction``
    "mean" averages ``loss / target_length`` (the length at least 1) over the batch, "sum" adds the
    losses, "none" returns them (N,). The gradient with respect to ``log_probs`` is MindSpore's:
    ``exp(log_probs) - posterior`` on each sample's frames (the gradient through the log-softmax that
    produced ``log_probs``).
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"CTCLoss: blank must be a non-negative int, got {blank!r}")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"CTCLoss: zero_infinity must be a bool, got {zero_infinity!r}")
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        if not isinstance(log_probs, Tensor) or log_probs.ndim != 3 or log_probs._data.dtype.kind != "f":
            raise ValueError(f"CTCLoss: log_probs must be a 3-D float Tensor (T, N, C), got "
                             f"{list(getattr(log_probs, 'shape', [type(log_probs).__name__]))}")
        t_max, n, c = log_probs.shape
        if not 0 <= self.blank < c:
            raise ValueError(f"CTCLoss: blank ({self.blank}) must be a class index in [0, {c})")
        if not isinstance(targets, Tensor) or targets.ndim != 2 or targets.shape[0] != n:
            raise ValueError(f"CTCLoss: targets must be (N, S) with N = {n}, got "
                             f"{list(getattr(targets, 'shape', [type(targets).__name__]))}")
        for what, t in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
            if not isinstance(t, Tensor) or t._data.dtype.kind not in "iu" or t.shape != (n,):
                raise ValueError(f"CTCLoss: {what} must be an int Tensor of shape ({n},), got "
                                 f"{getattr(t, 'dtype', type(t).__name__)} {list(getattr(t, 'shape', []))}")
        s_max = 2 * targets.shape[1] + 1
        s_len = targets.shape[1]
        dt = log_probs._data.dtype
        blank = self.blank

        def masks(tg, il, tl):
            # every value-dependent array of the recursion (redone at every graph replay)
            tg, il, tl = tg.astype(np.int64), il.astype(np.int64), tl.astype(np.int64)
            if (il > t_max).any() or (il < 0).any() or (tl > s_len).any() or (tl < 0).any():
                raise ValueError(f"CTCLoss: lengths out of range: input_lengths {il.tolist()} (T = {t_max}), "
                                 f"target_lengths {tl.tolist()} (S = {s_len})")
            ext = np.full((n, s_max), blank, np.int64)
            ext[:, 1::2] = tg
            # a skip over a blank from s - 2 is allowed onto a label that differs from the one two back
            skip = np.zeros((n, s_max), bool)
            skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
            start = np.zeros((n, s_max), bool)
            start[:, 0] = True
            start[:, 1] = tl > 0
            active = np.broadcast_to((np.arange(t_max)[:, None] < il[None, :])[:, :, None], (t_max, n, s_max)).copy()
            last = 2 * tl                        # the final blank; the final label is last - 1
            end1 = np.zeros((n, s_max), bool)
            end1[np.arange(n), last] = True
            end2 = np.zeros((n, s_max), bool)
            end2[np.arange(n)[tl > 0], last[tl > 0] - 1] = True
            frames = (np.arange(t_max)[:, None] < il[None, :]).astype(dt)[..., None]
            return (ext, skip, start, active, end1, end2, tl > 0, frames, np.maximum(tl, 1).astype(dt))
        ext_t, skip_t, start_t, active_t, end1_t, end2_t, has_label, frames, denom = _capture.host_op(
            masks, (targets, input_lengths, target_lengths), Tensor._wrap)
        neg = Tensor(np.full((n, s_max), _NEG, dt))
        lp0 = ops.gather_elements(log_probs[0], 1, ext_t)
        alpha = ops.where(start_t, lp0, neg)
        col1 = Tensor(np.full((n, 1), _NEG, dt))
        col2 = Tensor(np.full((n, 2), _NEG, dt))
        for t in range(1, t_max):
            a1 = ops.concat([col1, alpha[:, :-1]], 1)
            a2 = ops.where(skip_t, ops.concat([col2, alpha[:, :-2]], 1), neg)
            new = ops.add(_lse(alpha, a1, a2), ops.gather_elements(log_probs[t], 1, ext_t))
            alpha = ops.where(active_t[t], new, alpha)
        e1 = ops.reduce_sum(ops.where(end1_t, alpha, ops.zeros_like(alpha)), 1)
        e2 = ops.reduce_sum(ops.where(end2_t, alpha, ops.zeros_like(alpha)), 1)
        e2 = ops.where(has_label, e2, Tensor(np.full((n,), _NEG, dt)))
        loss = ops.neg(_lse(e1, e2))
        # MindSpore's (and the CTC kernels') gradient is exp(log_probs) - posterior over the active frames: the
        # gradient through a log-softmax. Add a zero-valued term whose gradient is exp(log_probs) there.
        p = ops.exp(log_probs)
        extra = ops.reduce_sum(ops.mul(ops.sub(p, ops.stop_gradient(p)), frames), (0, 2))
        loss = ops.add(loss, extra)
        impossible = ops.greater(ops.stop_gradient(loss), 1e29)
        if self.zero_infinity:
            loss = ops.where(impossible, ops.zeros_like(loss), loss)
        else:
            loss = ops.where(impossible, ops.add(ops.zeros_like(loss), float("inf")), loss)
        if self.reduction == "mean":
            return ops.reduce_mean(ops.div(loss, denom))
        if self.reduction == "sum":
            return ops.reduce_sum(loss)
        return loss
