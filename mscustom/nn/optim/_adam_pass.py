"""AdamW's update of one parameter in one pass over memory (``adam.AdamW._update``).

NumPy's form is thirteen passes over the parameter's size (the moments'
updates, the bias corrections, the square root, the step). A Numba loop
reads the parameter, its gradient and both moments once and writes them
once, doing per element what NumPy does, in the same order and precision:
each Python float constant rounded to the arrays' dtype as NumPy rounds a
Python scalar, every product, sum, quotient and square root rounded in that
dtype (Numba compiles without fast-math: no fused multiply-add, no
reordering). The parameters and moments are therefore bit-identical to
NumPy's form (tests check it). Large parameters are also split among the
thread budget's threads (one chunk per thread, ``nn/_batch_threads.py``);
each element's value is the same either way.

Used for float32/float64 C-contiguous parameters of at least ``MIN_SIZE``
elements without ``amsgrad``; loaded in the background like the other
built-in loops (``ops/_loop_loader.py``), NumPy serving until then.
"""

import threading

import numpy as np

from ...ops import _loop_loader

__all__ = ["update", "MIN_SIZE"]

MIN_SIZE = 1 << 14              # smaller parameters stay in cache: NumPy's passes cost about as much
SPLIT_SIZE = 1 << 17            # elements from which the update is split among the budget's threads
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_KERNEL = []
_DRIVER = []
_LOCK = threading.Lock()
_U = np.uint64          # unsigned indices: no negative-index checks in the loop
prange = chunk_bounds = _adamw_c = None         # bound by _batch_threads.parallel_njit


def _adamw(p, g, m, v, c, i0, i1):
    """Elements ``i0`` to ``i1`` of the flat arrays; ``c`` holds the constants in the dtype:
    (1 - lr*wd, 1 - b2, b2, 1 - b1, b1, 1 - b2**t, eps, lr / (1 - b1**t), sign, keep) with ``sign``
    -1 for ``maximize`` (else 1) and ``keep`` the decay factor (1 without decay): multiplying by
    them changes no bits but the sign, as NumPy's negation and skipped decay. Constants in locals,
    unsigned indices and NumPy's error model (no zero-division check) let LLVM vectorize the loop,
    square root and division included (IEEE-exact vector instructions)."""
    c1, c2, c3, c4, c5, c6, c7, sign, keep = c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]
    for k in range(i0, i1):
        i = _U(k)
        gi = g[i] * sign
        pi = p[i] * keep
        s = gi * gi
        s = s * c1
        vi = v[i] * c2
        vi = vi + s
        gi = gi * c3
        mi = m[i] * c4
        mi = mi + gi
        s = vi / c5
        s = np.sqrt(s)
        s = s + c6
        s = mi / s
        s = s * c7
        p[i] = pi - s
        m[i] = mi
        v[i] = vi


def _adamw_chunks(p, g, m, v, c, workers):
    n = p.shape[0]
    for t in prange(workers):
        i0, i1 = chunk_bounds(n, workers, t)
        _adamw_c(p, g, m, v, c, i0, i1)


def _load():
    kernel = _loop_loader.njit(_adamw, boundscheck=False, error_model="numpy")
    for dt in _DTYPES:
        a = np.zeros(1, dt)
        kernel(a, a.copy(), a.copy(), a.copy(), np.ones(10, dt), 0, 1)
    return kernel


def _publish(kernel):
    if not _KERNEL:
        _KERNEL.append(kernel)


_loop_loader.register(_load, _publish)


def _driver():
    if not _DRIVER:
        with _LOCK:
            if not _DRIVER:
                from ...ops.nn import _batch_threads
                _DRIVER.append(_batch_threads.parallel_njit(_adamw_chunks, {"_adamw_c": _KERNEL[0]},
                                                            error_model="numpy"))
    return _DRIVER[0]


def update(p, g, m, v, lr, wd, b1, b2, t, eps, maximize):
    """The AdamW step on ``p`` (and the moments ``m``, ``v``) in one pass; False (nothing done) where the
    loop does not apply (dtype, layout, size) or is not loaded yet. ``g`` is only read."""
    if p.size < MIN_SIZE or p.dtype not in _DTYPES or not all(
            a.dtype == p.dtype and a.shape == p.shape and a.flags.c_contiguous for a in (p, g, m, v)):
        return False
    if not all(type(x) in (float, int) for x in (lr, wd, b1, b2, eps)):
        return False        # a NumPy scalar would make NumPy's form compute in its precision instead
    if not _KERNEL:
        _loop_loader.request()
        if not _KERNEL:
            return False
    c = np.array([1.0 - lr * wd, 1.0 - b2, b2, 1.0 - b1, b1, 1.0 - b2 ** t, eps, lr / (1.0 - b1 ** t),
                  -1.0 if maximize else 1.0, (1.0 - lr * wd) if wd else 1.0],
                 np.float64).astype(p.dtype)           # each Python float rounded once, as NumPy does
    flat = [a.reshape(-1) for a in (p, g, m, v)]
    workers = 1
    if p.size >= SPLIT_SIZE:
        from ...ops.nn import _batch_threads
        workers = _batch_threads.numba_workers(p.size)
    if workers > 1:
        _driver()(*flat, c, workers)
    else:
        _KERNEL[0](*flat, c, 0, p.size)
    return True
