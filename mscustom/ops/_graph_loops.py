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

Graph replays use them from ``_graph_kernels.py``; eager kernels (``dense``,
``relu_grad``) use them too once Numba is loaded anyway (``ready()``), so a
small eager program never pays Numba's import.

Each does NumPy's per-element operations in NumPy's order and precision:
``maximum`` keeps NaN and gives +0.0 for -0.0; ``dy * 0.0`` keeps the sign
and NaN of the product; a sum over axis 0 of a C-contiguous array starts at
+0.0 and adds the rows in order, as ``np.add.reduce`` does. Results are
therefore the NumPy kernels' values, signed zeros included (tests compare
them); only the sign bit of a NaN made by ``inf - inf`` in a sum may differ
(the compiler may swap an addition's operands). Numba compiles without
fast-math, so no operation is reordered or fused.

``get()`` compiles on first use (Numba's disk cache makes later processes
load them in well under a second); callers check dtypes, shapes and
contiguity first (``fits``), so Numba never compiles a new specialisation
for an unexpected layout.
"""

import sys

import numpy as np

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


def get():
    """The compiled loops ``(bias_add, bias_relu, relu_grad_sum, relu_grad)``."""
    if not _LOOPS:
        import numba
        fns = (_bias_add, _bias_relu, _relu_grad_sum, _relu_grad)
        try:
            loops = tuple(numba.njit(nogil=True, cache=True)(f) for f in fns)
        except Exception:       # no writable cache location: compile in memory only
            loops = tuple(numba.njit(nogil=True)(f) for f in fns)
        _LOOPS[:] = loops
    return _LOOPS


def rows_fit(o, b, *more):
    """Whether the row loops take a 2-D output ``o`` with a 1-D bias-like ``b`` (and ``more`` like ``o``)."""
    return o.ndim == 2 and b.ndim == 1 and o.size >= MIN_SIZE and fits(o, b, *more)


def rows_never(o, b):
    """Whether ``rows_fit(o, b, ...)`` is False whatever the strides (it depends on shapes and dtypes only)."""
    return not (o.ndim == 2 and b.ndim == 1 and o.size >= MIN_SIZE and o.dtype in FLOATS)


def ready():
    """Whether eager kernels should take the loops: compiled already, or Numba imported by something else."""
    return bool(_LOOPS) or "numba" in sys.modules


def fits(*arrays):
    """True when every array is C-contiguous with the first one's float dtype (float32/float64)."""
    dt = arrays[0].dtype
    if dt not in FLOATS:
        return False
    for a in arrays:
        if a.dtype != dt or not a.flags.c_contiguous:
            return False
    return True
