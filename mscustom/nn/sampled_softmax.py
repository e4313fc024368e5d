"""``SampledSoftmaxLoss``: softmax cross-entropy over the true classes and a sample of the others.

Example::

    loss = nn.SampledSoftmaxLoss(num_sampled=4, num_classes=7)(weights, biases, labels, inputs)   # (N,)
"""

import numpy as np

from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .loss import LossBase

__all__ = ["SampledSoftmaxLoss"]


class SampledSoftmaxLoss(LossBase):
    """Per example: logits ``inputs @ W[ids].T + b[ids] - log(expected count)`` for the ``num_true`` labels and the
    ``num_sampled`` sampled classes, and the cross-entropy against ``1/num_true`` on the labels.

    ``sampled_values``: ``(sampled_candidates (num_sampled,), true_expected_count (N, num_true),
    sampled_expected_count (num_sampled,))``; without it, ``num_sampled`` distinct classes are drawn uniformly
    (``remove_accidental_hits``: none of the batch's labels) with expected counts ``num_sampled / num_classes``.
    As in MindSpore, the result is the per-example loss (N,) whatever ``reduction`` says.
    """

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None, remove_accidental_hits=True,
                 seed=0, reduction="none"):
        super().__init__(reduction)
        for what, v in (("num_sampled", num_sampled), ("num_classes", num_classes), ("num_true", num_true)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"SampledSoftmaxLoss: {what} must be a positive int, got {v!r}")
        if num_sampled > num_classes:
            raise ValueError(f"SampledSoftmaxLoss: num_sampled ({num_sampled}) must be <= num_classes ({num_classes})")
        if sampled_values is not None and (not isinstance(sampled_values, (tuple, list)) or len(sampled_values) != 3):
            raise TypeError("SampledSoftmaxLoss: sampled_values must be a tuple (sampled_candidates, "
                            "true_expected_count, sampled_expected_count)")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values, self.remove_accidental_hits, self.seed = sampled_values, bool(remove_accidental_hits), seed

    def _sample(self, labels_flat):
        from .init import rng
        pool = np.arange(self.num_classes)
        if self.remove_accidental_hits:
            pool = np.setdiff1d(pool, labels_flat)
        if pool.size < self.num_sampled:
            pool = np.arange(self.num_classes)
        return rng().choice(pool, self.num_sampled, replace=False).astype(np.int64)

    def construct(self, weights, biases, labels, logits):
        name = "SampledSoftmaxLoss"
        for what, t in (("weights", weights), ("biases", biases), ("labels", labels), ("logits", logits)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
        if labels._data.dtype.kind not in "iu":
            raise TypeError(f"{name}: labels must be an int Tensor, got {labels.dtype.name}")
        n = int(np.prod(labels.shape)) // self.num_true
        q = self.num_sampled / self.num_classes
        if self.sampled_values is not None:
            sampled, true_q, sampled_q = self.sampled_values
            ids = _capture.host_op(lambda lab, smp: (np.concatenate([lab.reshape(-1), smp.reshape(-1)])
                                                     .astype(np.int64),), (labels, sampled), Tensor._wrap)[0]
        else:
            # a fresh sample at every call (and graph replay)
            ids = _capture.host_op(lambda lab: (np.concatenate([lab.reshape(-1), self._sample(lab.reshape(-1))])
                                                .astype(np.int64),), (labels,), Tensor._wrap)[0]
            true_q = Tensor(np.full((n, self.num_true), q, np.float32))
            sampled_q = Tensor(np.full((self.num_sampled,), q, np.float32))
        all_w = ops.gather(weights, ids, 0)
        all_b = ops.gather(biases, ids, 0)
        n_true = n * self.num_true
        true_w = ops.reshape(all_w[:n_true], (n, self.num_true, -1))
        sampled_w = all_w[n_true:]
        true_logits = ops.add(ops.reduce_sum(ops.mul(ops.expand_dims(logits, 1), true_w), 2),
                              ops.reshape(all_b[:n_true], (n, self.num_true)))
        sampled_logits = ops.add(ops.matmul(logits, ops.transpose(sampled_w, (1, 0))), all_b[n_true:])
        true_logits = ops.sub(true_logits, ops.log(ops.cast(true_q, true_logits.dtype)))
        sampled_logits = ops.sub(sampled_logits, ops.log(ops.cast(sampled_q, sampled_logits.dtype)))
        out = ops.concat([true_logits, sampled_logits], 1)
        target = np.concatenate([np.full((n, self.num_true), 1.0 / self.num_true),
                                 np.zeros((n, self.num_sampled))], 1).astype(out._data.dtype)
        shifted = ops.sub(out, ops.stop_gradient(ops.reduce_max(out, 1, True)))
        e = ops.exp(shifted)
        pred = ops.div(e, ops.reduce_sum(e, 1, True))
        return ops.neg(ops.reduce_sum(ops.mul(Tensor(target), ops.log(ops.add(pred, 1e-20))), 1))
