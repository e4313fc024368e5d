"""Numba row loops for the fused attention op's softmax and its gradient (``attention.py``).

The attention's products are BLAS's (stacks of small products, split among
the thread budget's threads by ``ops/_products.py``); between them NumPy's
form runs the softmax as five passes over the (batch, heads, L, S) scores
(scale, row maximum, subtract, exp, divide by the row sum) and its gradient
as four, each on one thread. The loops here do each in one sweep per row
while the row is in cache, and take the rows in chunks, one per thread of the
budget (``_batch_threads``: Numba's threads).

- ``softmax``: ``row = exp(row * scale - max) / sum`` (``vecmath.exp``,
  within 1 ulp and vectorized; the row sum in float64, rounded once);
- ``softmax_grad``: ``da = (da - sum(da * p)) * p * scale`` (the sum in float64).

NaN propagates as in NumPy's form: a row with a NaN score, or whose every key
is masked (all ``-inf``), comes out NaN. Values equal NumPy's form within
float rounding (its float32 sums are pairwise; these are float64) and do not
depend on the thread budget (rows are independent).
"""

import threading

import numpy as np

from .. import _loop_loader
from . import _batch_threads

__all__ = ["takes", "softmax", "softmax_grad"]

_LOOPS = {}
_LOCK = threading.Lock()
_MIN_SPLIT_BYTES = 1 << 17      # smaller score arrays run on the calling thread
# Unsigned indices in the rows' loops: a signed one makes Numba check for a negative index, which
# keeps LLVM from vectorizing the loop (as in conv_direct.py).
_U = np.uint64


# Names the loops call, bound by _get() and _batch_threads.parallel_njit before their first compile.
vexp = prange = chunk_bounds = _softmax_rows_c = _softmax_grad_rows_c = None


def _softmax_rows(s, scale, r0, r1):
    """Rows ``r0`` to ``r1`` of ``s`` (R, S) replaced by the softmax of ``row * scale``."""
    n = s.shape[1]
    cast = np.empty(1, s.dtype)             # a float64 sum rounded to the dtype
    for r in range(r0, r1):
        row = s[r]
        for j in range(n):
            row[_U(j)] *= scale
        top = row[0]                        # the maximum; NaN when any is NaN, as np.max
        for j in range(1, n):
            v = row[_U(j)]
            if v > top or v != v:
                top = v
        for j in range(n):
            row[_U(j)] = vexp(row[_U(j)] - top)
        total = 0.0
        for j in range(n):
            total += row[_U(j)]
        cast[0] = total
        t = cast[0]
        for j in range(n):
            row[_U(j)] /= t


def _softmax_grad_rows(da, p, scale, r0, r1):
    """Rows ``r0`` to ``r1`` of ``da`` (R, S) replaced by ``(da - sum(da * p)) * p * scale``."""
    n = da.shape[1]
    cast = np.empty(1, da.dtype)
    for r in range(r0, r1):
        row, pr = da[r], p[r]
        dot = 0.0
        for j in range(n):
            dot += np.float64(row[_U(j)]) * np.float64(pr[_U(j)])
        cast[0] = dot
        c = cast[0]
        for j in range(n):
            row[_U(j)] = (row[_U(j)] - c) * pr[_U(j)] * scale


def _softmax_chunks(s, scale, workers):
    n = s.shape[0]
    for t in prange(workers):
        r0, r1 = chunk_bounds(n, workers, t)
        _softmax_rows_c(s, scale, r0, r1)


def _softmax_grad_chunks(da, p, scale, workers):
    n = da.shape[0]
    for t in prange(workers):
        r0, r1 = chunk_bounds(n, workers, t)
        _softmax_grad_rows_c(da, p, scale, r0, r1)


def _get(name):
    fn = _LOOPS.get(name)
    if fn is not None:
        return fn
    with _LOCK:
        if not _LOOPS:
            from ..custom import vecmath
            g = globals()
            g["vexp"] = vecmath.exp
            # NumPy's error model: a division by zero gives inf/NaN as NumPy's does, with no check that
            # would keep LLVM from vectorizing the division loop
            _LOOPS.update(softmax=_loop_loader.njit(_softmax_rows, boundscheck=False, error_model="numpy"),
                          softmax_grad=_loop_loader.njit(_softmax_grad_rows, boundscheck=False, error_model="numpy"))
        if name not in _LOOPS:
            driver, calls = {"softmax_chunks": (_softmax_chunks, {"_softmax_rows_c": _LOOPS["softmax"]}),
                             "softmax_grad_chunks": (_softmax_grad_chunks,
                                                     {"_softmax_grad_rows_c": _LOOPS["softmax_grad"]})}[name]
            _LOOPS[name] = _batch_threads.parallel_njit(driver, calls, boundscheck=False, error_model="numpy")
        return _LOOPS[name]


def takes(*arrays):
    """Whether the loops take these score-shaped arrays: float32/float64 of one dtype, C-contiguous,
    not empty, with Numba's series that ``vecmath`` was written for."""
    if arrays[0].size == 0 or not _loop_loader.fits(arrays, (np.dtype(np.float32), np.dtype(np.float64))):
        return False
    from ... import _numba_private
    return _numba_private.supported()


def _workers(a):
    if a.nbytes < _MIN_SPLIT_BYTES:
        return 1
    return _batch_threads.numba_workers(a.shape[0])


def _rows(a):
    return a.reshape(-1, a.shape[-1])


def softmax(s, scale):
    """``s`` (C-contiguous, rows on its last axis) replaced in place by ``softmax(s * scale)``."""
    rows = _rows(s)
    workers = _workers(rows)
    if workers > 1:
        _get("softmax_chunks")(rows, s.dtype.type(scale), workers)
    else:
        _get("softmax")(rows, s.dtype.type(scale), 0, rows.shape[0])


def softmax_grad(da, p, scale):
    """``da`` replaced in place by ``(da - rowsum(da * p)) * p * scale`` (``p`` the softmax)."""
    rows, prow = _rows(da), _rows(p)
    workers = _workers(rows)
    if workers > 1:
        _get("softmax_grad_chunks")(rows, prow, da.dtype.type(scale), workers)
    else:
        _get("softmax_grad")(rows, prow, da.dtype.type(scale), 0, rows.shape[0])

