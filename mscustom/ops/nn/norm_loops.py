"""Numba row loops for ``layer_norm_last`` (float32, float64): each direction one sweep per row.

NumPy's form of the forward is seven passes over ``x`` (mean, centring, the
squares' sums, the scaling by gamma and beta) and of the backward ten; the
loops below read a row while it is in cache and write it once. They take the
rows in chunks (``r0`` to ``r1``); the drivers (``*_chunks``) run one chunk per
thread of the budget on Numba's threads (``_batch_threads``), which NumPy's
passes never use.

Values: the row statistics are summed in float64 (NumPy sums float32 rows
pairwise in float32), so the loops' mean and variance are at least as
accurate; every per-element step is done in NumPy's order and in the input's
dtype: ``y = (x - mean) * rstd * gamma + beta``,
``rstd = 1 / sqrt(var + eps)``,
``dx = (g - mean(g) - xhat * mean(g * xhat)) * rstd`` with ``g = dy * gamma``.
The backward's ``dgamma``/``dbeta`` are column sums across the rows: each
chunk sums its rows in float64 into a part of its own, and the parts are
added in chunk order, so values depend on the thread budget (by float
rounding) but never on the run.
"""

import threading

import numpy as np

from .. import _loop_loader
from . import _batch_threads

__all__ = ["get", "forward", "backward"]

_LOOPS = {}
_LOCK = threading.Lock()
_MIN_SPLIT_BYTES = 1 << 18      # smaller inputs run on the calling thread


# Names the drivers call, bound by _batch_threads.parallel_njit before their first compile.
prange = chunk_bounds = _ln_forward_rows_c = _ln_backward_rows_c = None


def _ln_forward_rows(x, gamma, beta, eps, y, mean, rstd, r0, r1):
    """Rows ``r0`` to ``r1`` of ``x`` (R, C): ``mean``/``rstd`` (R,) and ``y`` (R, C)."""
    c = x.shape[1]
    for r in range(r0, r1):
        row = x[r]
        s = 0.0
        for j in range(c):
            s += row[j]
        mu = y.dtype.type(s / c)
        v = 0.0
        for j in range(c):
            d = np.float64(row[j] - mu)
            v += d * d
        k = y.dtype.type(1) / np.sqrt(y.dtype.type(v / c) + eps)
        mean[r] = mu
        rstd[r] = k
        out = y[r]
        for j in range(c):
            out[j] = (row[j] - mu) * k * gamma[j] + beta[j]


def _ln_backward_rows(x, gamma, mean, rstd, dy, dx, dgamma, dbeta, r0, r1):
    """Rows ``r0`` to ``r1``: ``dx`` (R, C), and ``dgamma``/``dbeta`` (C,) float64 += these rows' terms."""
    c = x.shape[1]
    for r in range(r0, r1):
        row, drow, out = x[r], dy[r], dx[r]
        mu, k = mean[r], rstd[r]
        sg = 0.0
        sgx = 0.0
        for j in range(c):
            xh = (row[j] - mu) * k
            g = drow[j] * gamma[j]
            dbeta[j] += drow[j]
            dgamma[j] += np.float64(drow[j]) * np.float64(xh)
            sg += g
            sgx += np.float64(g) * np.float64(xh)
        centre = out.dtype.type(sg / c)
        proj = out.dtype.type(sgx / c)
        for j in range(c):
            xh = (row[j] - mu) * k
            out[j] = (drow[j] * gamma[j] - centre - xh * proj) * k


def _ln_forward_chunks(x, gamma, beta, eps, y, mean, rstd, workers):
    n = x.shape[0]
    for t in prange(workers):
        r0, r1 = chunk_bounds(n, workers, t)
        _ln_forward_rows_c(x, gamma, beta, eps, y, mean, rstd, r0, r1)


def _ln_backward_chunks(x, gamma, mean, rstd, dy, dx, parts):
    n = x.shape[0]
    workers = parts.shape[0]
    for t in prange(workers):
        r0, r1 = chunk_bounds(n, workers, t)
        _ln_backward_rows_c(x, gamma, mean, rstd, dy, dx, parts[t, 0], parts[t, 1], r0, r1)


def get(name):
    """The compiled loop ``name`` (``forward``, ``backward`` or their ``*_chunks`` drivers)."""
    fn = _LOOPS.get(name)
    if fn is not None:
        return fn
    with _LOCK:
        if not _LOOPS:
            _LOOPS.update(forward=_loop_loader.njit(_ln_forward_rows), backward=_loop_loader.njit(_ln_backward_rows))
        if name not in _LOOPS:
            _LOOPS[name] = _batch_threads.parallel_njit(
                *{"forward_chunks": (_ln_forward_chunks, {"_ln_forward_rows_c": _LOOPS["forward"]}),
                  "backward_chunks": (_ln_backward_chunks, {"_ln_backward_rows_c": _LOOPS["backward"]})}[name])
        return _LOOPS[name]


def _workers(x):
    return _batch_threads.numba_workers(x.shape[0]) if x.nbytes >= _MIN_SPLIT_BYTES else 1


def forward(x, gamma, beta, eps, y, mean, rstd):
    """The forward over rows: ``x``/``y`` (R, C), ``mean``/``rstd`` (R,), all C-contiguous, one dtype."""
    workers = _workers(x)
    e = x.dtype.type(eps)
    if workers > 1:
        get("forward_chunks")(x, gamma, beta, e, y, mean, rstd, workers)
    else:
        get("forward")(x, gamma, beta, e, y, mean, rstd, 0, x.shape[0])


def backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta):
    """The backward over rows into ``dx`` (R, C) and ``dgamma``/``dbeta`` (C,)."""
    workers = _workers(x)
    parts = np.zeros((workers, 2, x.shape[1]), np.float64)
    if workers > 1:
        get("backward_chunks")(x, gamma, mean, rstd, dy, dx, parts)
    else:
        get("backward")(x, gamma, mean, rstd, dy, dx, parts[0, 0], parts[0, 1], 0, x.shape[0])
    total = parts[0]
    for t in range(1, _batch_threads.chunk_count(x.shape[0], workers)):     # in chunk order
        total += parts[t]
    dgamma[...] = total[0]
    dbeta[...] = total[1]
