"""``LRN`` (local response normalization across channels) and ``MultiFieldEmbeddingLookup`` (embeddings of
sparse features, weighted and merged per field).

Example::

    nn.LRN(depth_radius=2, bias=1.0, alpha=1e-4, beta=0.75)(x)         # x (N, C, H, W)
    nn.MultiFieldEmbeddingLookup(100, 8, field_size=3)(ids, values, field_ids)   # (N, 3, 8)
"""

import numpy as np

from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .cell import Cell
from .layers_more import EmbeddingLookup

__all__ = ["LRN", "MultiFieldEmbeddingLookup"]

_FLT_MAX = float(np.finfo(np.float32).max)


class LRN(Cell):
    """``x / (bias + alpha * s) ** beta`` where ``s`` sums ``x**2`` over the channels within ``depth_radius``
    (axis 1 of ``(N, C, H, W)``). Only ``norm_region="ACROSS_CHANNELS"`` exists, as in MindSpore."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
            raise ValueError(f"LRN: depth_radius must be a non-negative int, got {depth_radius!r}")
        for what, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"LRN: {what} must be a float, got {v!r}")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, float(bias), float(alpha), float(beta)
        self.norm_region = norm_region

    def construct(self, input_x):
        x = input_x
        if not isinstance(x, Tensor) or x.ndim != 4 or x._data.dtype.kind != "f":
            raise ValueError(f"LRN: the input must be a 4-D float Tensor, got "
                             f"{list(getattr(x, 'shape', [type(x).__name__]))}")
        r, c = self.depth_radius, x.shape[1]
        sq = ops.pad(ops.square(x), (0, 0, 0, 0, r, r))
        s = None
        for k in range(2 * r + 1):
            part = sq[:, k:k + c]
            s = part if s is None else ops.add(s, part)
        return ops.div(x, ops.pow(ops.add(ops.mul(s, self.alpha), self.bias), self.beta))


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """Look up ``input_indices`` (N, L), weight each row by ``input_values`` (N, L) and merge the rows of each
    field (``field_ids`` (N, L) in [0, field_size)) with ``operator``: "SUM", "MEAN" (the sum over the
    sum of ``|values|``, 0 for an empty field) or "MAX" (zero-weight rows left out, 0 for an empty field).
    The output is (N, field_size, embedding_size); the Parameter is ``embedding_table``.
    """

    OPERATOR_SUM, OPERATOR_MAX, OPERATOR_MEAN = "SUM", "MAX", "MEAN"

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=None):
        from .. import dtype as _dt
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, feature_num_list, max_norm,
                         sparse, dtype=_dt.float32 if dtype is None else dtype)
        if isinstance(field_size, bool) or not isinstance(field_size, int) or field_size <= 0:
            raise ValueError(f"MultiFieldEmbeddingLookup: field_size must be a positive int, got {field_size!r}")
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"MultiFieldEmbeddingLookup: operator must be 'SUM', 'MAX' or 'MEAN', got {operator!r}")
        self.field_size, self.operator = field_size, operator

    def construct(self, input_indices, input_values, field_ids):
        name = "MultiFieldEmbeddingLookup"
        for what, t, kinds in (("input_indices", input_indices, "iu"), ("input_values", input_values, "f"),
                               ("field_ids", field_ids, "iu")):
            if not isinstance(t, Tensor) or t.ndim != 2 or t._data.dtype.kind not in kinds:
                raise ValueError(f"{name}: {what} must be a 2-D {'float' if kinds == 'f' else 'int'} Tensor, got "
                                 f"{getattr(t, 'dtype', type(t).__name__)} of shape {list(getattr(t, 'shape', []))}")
        out = super().construct(input_indices)                                   # (N, L, E)
        w = ops.expand_dims(ops.cast(input_values, out.dtype), -1)
        emb = ops.mul(w, out)
        fsize, dt = self.field_size, out._data.dtype
        # (N, F, L): 1 where row l belongs to field f (a host computation on field_ids, redone at every replay)
        sel = _capture.host_op(lambda f: (np.ascontiguousarray(np.swapaxes(
            (f.astype(np.int64)[..., None] == np.arange(fsize)).astype(dt), 1, 2)),), (field_ids,), Tensor._wrap)[0]
        if self.operator == "MAX":
            zero_w = ops.cast(ops.equal(w, 0.0), out.dtype)
            masked = ops.add(emb, ops.mul(zero_w, -_FLT_MAX))
            fields = []
            for f in range(self.field_size):
                inside = ops.greater(ops.expand_dims(sel[:, f], -1), 0.5)
                cand = ops.where(inside, masked, ops.add(ops.zeros_like(masked), -_FLT_MAX))
                fields.append(ops.reduce_max(cand, 1))
            merged = ops.stack(fields, 1)
            count = ops.matmul(sel, ops.expand_dims(ops.abs(ops.cast(input_values, out.dtype)), -1))
            return ops.mul(merged, ops.cast(ops.not_equal(count, 0.0), out.dtype))
        merged = ops.matmul(sel, emb)                                              # (N, F, E)
        if self.operator == "MEAN":
            count = ops.matmul(sel, ops.expand_dims(ops.abs(ops.cast(input_values, out.dtype)), -1))
            safe = ops.where(ops.equal(count, 0.0), ops.ones_like(count), count)
            merged = ops.where(ops.equal(count, 0.0), ops.zeros_like(merged), ops.div(merged, safe))
        return merged
