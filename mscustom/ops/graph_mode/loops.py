"""Numba row loops for kernels that NumPy would run as several passes or slow broadcasts.

A Dense layer's ``o += b`` is a broadcast add, which NumPy runs row by row
(several times slower than a contiguous add); ``np.maximum(h, 0)`` with a
scalar zero takes NumPy's slow strided loop; relu's gradient is two passes
(``x > 0`` as floats, then the product), and the bias gradient a third. The
loops here do that work in one pass each:

- ``bias_add(o, b)``: ``o += b`` over the rows of a 2-D ``o``;
- ``bias_relu(o, b, a)``: ``o += b`` and ``a = maximum(o, 0)`` (a Dense layer
  followed by ReLU: both values are kept, the gradient reads ``o``);
- ``relu_grad_sum(dy, x, o, db)``: ``o = dy * (x > 0)`` and ``db = o.sum(0)``
  (relu's gradient followed by the bias gradient of the Dense before it);
- ``relu_grad(dy, x, o)``: ``o = dy * (x > 0)`` over 1-D (raveled) arrays.

Graph replays use them from ``kernels.py``, eager kernels (``dense``,
``relu_grad``) too, once they are loaded (``ready()``): the first call that
fits one starts loading them in a background thread (``_loop_loader.py``)
and NumPy serves until then, so no step waits for Numba's import, and a small
model that no loop fits never loads it.

Each does NumPy's per-element operations in NumPy's order and precision:
``maximum`` keeps NaN and gives +0.0 for -0.0; ``dy * 0.0`` keeps the sign
and NaN of the product; a sum over axis 0 of a C-contiguous array starts at
+0.0 and adds the rows in order, as ``np.add.reduce`` does. Results are
therefore the NumPy kernels' values, signed zeros included (tests compare
them); only the sign bit of a NaN made by ``inf - inf`` in a sum may differ
(the compiler may swap an addition's operands). Numba compiles without
fast-math, so no operation is reordered or fused.

``get()`` loads them at once (compiling them the first time on a machine;
Numba's disk cache makes later processes load them in well under a second);
callers check dtypes, shapes and contiguity first (``fits``), so Numba never
compiles a new specialisation for an unexpected layout.
"""

import numpy as np

from .. import _loop_loader

__all__ = ["get", "fits", "rows_fit", "rows_never", "ready", "MIN_SIZE", "FLOATS"]

_LOOPS = []
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))   # the dtypes the loops take
MIN_SIZE = 512          # elements; below this NumPy's calls are as cheap, and small models need no Numba


def _bias_add(o, b):
    n, m = o.shape
    for i in range(n):
        for j in range(m):
            o[i, j] = o[i, j] + b[j]


def _bias_relu(o, b, a):
    n, m = o.shape
    for i in range(n):
        for j in range(m):
            v = o[i, j] + b[j]
            o[i, j] = v
            if v > 0 or v != v:             # np.maximum(v, 0): NaN stays NaN, -0.0 and 0.0 give 0.0
                a[i, j] = v
            else:
                a[i, j] = 0


def _relu_grad_sum(dy, x, o, db, zero):
    n, m = o.shape
    for j in range(m):
        db[j] = zero                        # np.add.reduce starts from the identity, +0.0
    for i in range(n):
        for j in range(m):
            v = dy[i, j]
            if not x[i, j] > 0:
                v = v * zero                # dy * 0.0: signed zero, or NaN for inf/NaN, as NumPy
            o[i, j] = v
            db[j] = db[j] + v


def _relu_grad(dy, x, o, zero):
    for i in range(o.shape[0]):
        v = dy[i]
        if not x[i] > 0:
            v = v * zero
        o[i] = v


def _compile():
    return tuple(_loop_loader.njit(f) for f in (_bias_add, _bias_relu, _relu_grad_sum, _relu_grad))


# relu's gradient over large arrays split among the thread budget's threads: one chunk of the raveled
# arrays per thread, run at once on Numba's threads (``nn/_batch_threads.py``); each element's value is
# the one-thread loop's.
SPLIT_BYTES = 1 << 19
prange = chunk_bounds = _relu_grad_c = None        # bound by _batch_threads.parallel_njit
_DRIVER = []


def _relu_grad_chunks(dy, x, o, zero, workers):
    n = o.shape[0]
    for t in prange(workers):
        i0, i1 = chunk_bounds(n, workers, t)
        _relu_grad_c(dy[i0:i1], x[i0:i1], o[i0:i1], zero)


def _chunks_driver():
    if not _DRIVER:
        from ..nn import _batch_threads
        _DRIVER.append(_batch_threads.parallel_njit(_relu_grad_chunks, {"_relu_grad_c": get()[3]}))
    return _DRIVER[0]


def relu_grad_split(dy, x, o):
    """``o = dy * (x > 0)`` (raveled, C-contiguous, one float dtype) split among the budget's threads
    when ``o`` has ``SPLIT_BYTES`` or more and the budget has two or more; False where it did nothing."""
    if o.nbytes < SPLIT_BYTES or not ready():
        return False
    from ..nn import _batch_threads
    workers = _batch_threads.numba_workers(o.size)
    if workers < 2:
        return False
    _chunks_driver()(dy, x, o, o.dtype.type(0), workers)
    return True


def relu_grad_flat(dy, x, o):
    """``o = dy * (x > 0)`` over raveled C-contiguous arrays of one float dtype by the loops: split among
    the budget's threads where ``relu_grad_split`` does, else the one-thread loop; False (nothing
    done) while the loops are not loaded (``ready()``)."""
    if not ready():
        return False
    if not relu_grad_split(dy, x, o):
        get()[3](dy, x, o, o.dtype.type(0))
    return True


def get():
    """The compiled loops ``(bias_add, bias_relu, relu_grad_sum, relu_grad)``, loaded now if need be."""
    if not _LOOPS:
        _LOOPS[:] = _compile()
    return _LOOPS


def _load():
    """The loops, each called once per float dtype with the argument types the kernels pass."""
    loops = _compile()
    bias_add, bias_relu, relu_grad_sum, relu_grad = loops
    for dt in FLOATS:
        o, b = np.zeros((1, 1), dt), np.zeros(1, dt)
        bias_add(o, b)
        bias_relu(o, b, np.zeros((1, 1), dt))
        relu_grad_sum(o, o, np.zeros((1, 1), dt), b, dt.type(0))
        relu_grad(b, b, np.zeros(1, dt), dt.type(0))
    return loops


def _publish(loops):
    if not _LOOPS:
        _LOOPS[:] = loops


_loop_loader.register(_load, _publish)


def rows_fit(o, b, *more):
    """Whether the row loops take a 2-D output ``o`` with a 1-D bias-like ``b`` (and ``more`` like ``o``)."""
    return o.ndim == 2 and b.ndim == 1 and o.size >= MIN_SIZE and fits(o, b, *more)


def rows_never(o, b):
    """Whether ``rows_fit(o, b, ...)`` is False whatever the strides (it depends on shapes and dtypes only)."""
    return not (o.ndim == 2 and b.ndim == 1 and o.size >= MIN_SIZE and o.dtype in FLOATS)


def ready():
    """Whether kernels should take the loops now: True once they are loaded; otherwise asks for them
    (``_loop_loader``: loaded in a background thread) and says False, so the caller uses NumPy.

    Callers ask only once a loop fits (size, dtype, layout): small models never load Numba.
    """
    if _LOOPS:
        return True
    _loop_loader.request()
    return bool(_LOOPS)


def fits(*arrays):
    """True when every array is C-contiguous with the first one's float dtype (float32/float64)."""
    return _loop_loader.fits(arrays, FLOATS)
