"""``p -= lr * g`` in one pass over memory, for plain SGD on large parameters.

NumPy needs two passes for the update (``w = g * lr`` then ``p -= w``): the
gradient is read twice and a full-size array written once more. A Numba loop
reads ``g`` and ``p`` once and writes ``p`` once; with the weights of a large
layer that is most of the update's time. The loop does what NumPy does, in
the same precision and order per element (``lr`` rounded to the arrays' dtype,
the product rounded, then the difference; no fused multiply-add, as Numba
compiles without fast-math), so the parameters are bit-identical to the
two-pass update (tests check it).

Used for arrays of at least ``MIN_SIZE`` elements only (smaller ones stay in
cache, where the two ufunc calls cost about as much), so small models never
load Numba. The first such update in a process imports Numba and loads the
compiled loop from Numba's disk cache (about 0.7 s; 1-2 s the very first
time, when it compiles).
"""

import numpy as np

__all__ = ["sub_scaled"]

_KERNEL = []
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _compile():
    import numba

    def sub_scaled_1d(p, g, lr):
        for i in range(p.size):
            p[i] = p[i] - lr * g[i]

    try:
        return numba.njit(nogil=True, cache=True)(sub_scaled_1d)
    except Exception:        # no writable cache location: compile in memory only
        return numba.njit(nogil=True)(sub_scaled_1d)


MIN_SIZE = 1 << 15     # smaller arrays stay in cache: two NumPy calls cost about as much (and need no Numba)


def sub_scaled(p, g, scale):
    """``p -= scale * g`` in place in one pass; False (nothing done) where it cannot match NumPy exactly
    or would not be faster.

    ``scale`` must be a Python float or int (NumPy rounds it to the arrays'
    dtype); ``p`` and ``g`` C-contiguous float32 or float64 arrays of one
    shape and dtype, with at least ``MIN_SIZE`` elements.
    """
    t = type(scale)
    if p.size < MIN_SIZE or (t is not float and t is not int) or p.dtype not in _DTYPES or g.dtype != p.dtype \
            or g.shape != p.shape or not p.flags.c_contiguous or not g.flags.c_contiguous:
        return False
    if not _KERNEL:
        _KERNEL.append(_compile())
    _KERNEL[0](p.reshape(-1), g.reshape(-1), p.dtype.type(scale))
    return True
