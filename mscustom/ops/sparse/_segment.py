"""``sparse_segment_mean``: means of rows of ``x`` picked by ``indices``, grouped by sorted ``segment_ids``.

Example::

    ops.sparse_segment_mean(x, ms.Tensor([0, 1, 2], ms.int32), ms.Tensor([0, 0, 1], ms.int32))
"""

import numpy as np

from ...tensor import Tensor
from ._common import const, row_sum

__all__ = ["sparse_segment_mean"]


def sparse_segment_mean(x, indices, segment_ids):
    """``out[s] = mean of x[indices[i]] over i with segment_ids[i] == s``; segments with no rows are 0.

    ``segment_ids`` must be sorted; the output has ``segment_ids[-1] + 1`` rows. Differentiable in ``x``.
    """
    from ..array.creation import gather
    for what, t in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
        if not isinstance(t, Tensor):
            raise TypeError(f"op 'sparse_segment_mean': {what} must be a Tensor, got {type(t).__name__}")
    if x.asnumpy().dtype.kind != "f":
        raise TypeError(f"op 'sparse_segment_mean': x must be float16, float32 or float64, got {x.dtype}")
    idx, seg = indices.asnumpy(), segment_ids.asnumpy()
    if idx.ndim != 1 or seg.shape != idx.shape or idx.dtype.kind not in "iu" or seg.dtype.kind not in "iu":
        raise ValueError("op 'sparse_segment_mean': indices and segment_ids must be 1-D int Tensors of one length, "
                         f"got {idx.dtype} {idx.shape} and {seg.dtype} {seg.shape}")
    if idx.size and (idx.min() < 0 or idx.max() >= x.shape[0]):
        raise ValueError(f"op 'sparse_segment_mean': indices must lie in [0, {x.shape[0]}), got {idx.tolist()}")
    if seg.size and (seg[0] < 0 or np.any(np.diff(seg) < 0)):
        raise ValueError(f"op 'sparse_segment_mean': segment_ids must be sorted and >= 0, got {seg.tolist()}")
    n = int(seg[-1]) + 1 if seg.size else 0
    counts = np.maximum(np.bincount(seg, minlength=n), 1).astype(x.asnumpy().dtype)
    sums = row_sum(seg, gather(x, const(idx.astype(np.int64)), 0), n)
    return sums / const(counts.reshape((n,) + (1,) * (x.ndim - 1)))
