"""Matrix products for the kernels: ``np.matmul`` laid out for BLAS and for the thread budget.

``matmul(x, y, out=None)`` is ``np.matmul(x, y, out=out)`` (same values, dtypes
and errors) with two cases done differently:

* **A stack times one matrix** -- ``(..., M, K) @ (K, N)``, ``x`` C-contiguous,
  as a Dense layer on ``(batch, seq, features)`` input computes -- is one
  ``(prod(...) * M, K) @ (K, N)`` product. NumPy makes one BLAS call per
  matrix of the stack (16 calls of 64 rows for a batch of 16 sequences), too
  small for BLAS to thread and slower on one thread too. The stacked rows'
  product has the same sums, up to the order BLAS adds them in (the last
  bit may differ from NumPy's per-matrix calls).
* **A stack of small products** -- attention's ``(batch, heads, L, E) @
  (batch, heads, E, S)``, each product under BLAS's own threading threshold --
  is split along its first axis among the thread budget's workers
  (``ops/nn/_batch_threads``, BLAS on one thread meanwhile) when it is large
  enough to pay for the hand-off. Each matrix is still one BLAS call, so the
  values do not depend on the split.
"""

import math

import numpy as np

__all__ = ["matmul", "MIN_SPLIT_FLOPS"]

MIN_SPLIT_FLOPS = 1 << 22       # a stack of products under this (about 0.1 ms on one thread) stays on one thread


def matmul(x, y, out=None):
    """``np.matmul(x, y, out=out)``; see the module's docstring."""
    if x.ndim > 2 and y.ndim == 2 and x.flags.c_contiguous and x.size and y.size \
            and (out is None or (out.flags.c_contiguous and out.shape == x.shape[:-1] + y.shape[-1:])):
        k, n = y.shape
        if x.shape[-1] == k:
            if out is None:
                out = np.empty(x.shape[:-1] + (n,), np.result_type(x, y))
            np.matmul(x.reshape(-1, k), y, out=out.reshape(-1, n))
            return out
    if out is not None and out.ndim > 2 and _split(x, y, out):
        return out
    return np.matmul(x, y) if out is None else np.matmul(x, y, out=out)


def _split(x, y, out):
    """Run ``out[b0:b1] = x[b0:b1] @ y[b0:b1]`` over shares of the first axis on the budget's threads;
    False (nothing done) where one thread is meant or the products are too small to split."""
    n = out.shape[0]
    if n < 2 or x.ndim < 2 or y.ndim < 2 or 2 * math.prod(out.shape) * x.shape[-1] < MIN_SPLIT_FLOPS:
        return False
    from .nn import _batch_threads
    workers = _batch_threads.workers_for(n)
    if workers < 2:
        return False
    if x.shape[-1] != y.shape[-2] or np.broadcast_shapes(x.shape[:-2], y.shape[:-2]) != out.shape[:-2]:
        return False                    # NumPy's own call raises (or broadcasts) as it does

    def rows(a, b0, b1):
        """The operand's share, or all of it where it broadcasts along the first axis."""
        return a[b0:b1] if a.ndim == out.ndim and a.shape[0] == n else a

    def work(share):
        for b0, b1 in share:
            np.matmul(rows(x, b0, b1), rows(y, b0, b1), out=out[b0:b1])

    step = -(-n // workers)
    chunks = [(b0, min(n, b0 + step)) for b0 in range(0, n, step)]
    with _batch_threads.one_blas_thread():
        _batch_threads.over_chunks(chunks, work, len(chunks))
    return True
