"""``p -= lr * g`` in one pass over memory, for plain SGD on large parameters.

NumPy needs two passes for the update (``w = g * lr`` then ``p -= w``): the
gradient is read twice and a full-size array written once more. A Numba loop
reads ``g`` and ``p`` once and writes ``p`` once; with the weights of a large
layer that is most of the update's time. The loop does what NumPy does, in
the same precision and order per element (``lr`` rounded to the arrays' dtype,
the product rounded, then the difference; no fused multiply-add, as Numba
compiles without fast-math), so the parameters are bit-identical to the
two-pass update (tests check it).

Used when a parameter has at least ``MIN_SIZE`` elements (smaller ones stay
in cache, where the two ufunc calls cost about as much), so small models never
load Numba. ``sub_scaled_all`` updates every parameter of a plain SGD step
this way once one of them is large: one loop call per parameter (about 0.5 us)
is then cheaper than two ufunc calls, and the checks are made once per
parameter in one Python loop. The first such update in a process asks for the
loop (``ops/_loop_loader.py``: Numba imported and the loop loaded from its
disk cache in a background thread, about 0.7 s; 1-2 s the very first time,
when it compiles) and updates with NumPy until it is there; both give the
same bits.
"""

import numpy as np

from ...ops import _loop_loader

__all__ = ["sub_scaled", "sub_scaled_all"]

_KERNEL = []
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _compile():
    def sub_scaled_nd(p, g, lr):
        pf = p.reshape(p.size)          # C-contiguous: flat views, no copies
        gf = g.reshape(g.size)
        for i in range(pf.size):
            pf[i] = pf[i] - lr * gf[i]

    return _loop_loader.njit(sub_scaled_nd)


def _load():
    """The loop, called once per float dtype and rank 1-4 (the parameters' usual signatures)."""
    kernel = _compile()
    for dt in _DTYPES:
        for nd in range(1, 5):
            a = np.zeros((1,) * nd, dt)
            kernel(a, a, dt.type(0))
    return kernel


def _publish(kernel):
    if not _KERNEL:
        _KERNEL.append(kernel)


def _loaded():
    """Whether the loop is loaded; if not, asks for it (loaded in the background) and says False."""
    if _KERNEL:
        return True
    _loop_loader.request()
    return bool(_KERNEL)


_loop_loader.register(_load, _publish)


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
    if not _loaded():
        return False
    _KERNEL[0](p, g, p.dtype.type(scale))
    return True


def sub_scaled_all(params, grads, scale):
    """``p._data -= scale * g`` for every Parameter ``p`` and gradient array ``g``; False (nothing done)
    unless every pair fits the loop (as ``sub_scaled``: same shape and float dtype, C-contiguous, at
    least one dimension) and one parameter has ``MIN_SIZE`` elements or the loop is already loaded.
    """
    t = type(scale)
    if t is not float and t is not int:
        return False
    arrays = []
    large = bool(_KERNEL)
    for prm, g in zip(params, grads):
        p = prm._data
        if g is None:                       # updated already (graph mode's products)
            arrays.append(None)
            continue
        if p.shape != g.shape or p.dtype != g.dtype or p.dtype not in _DTYPES or not p.ndim \
                or not p.flags.c_contiguous or not g.flags.c_contiguous:
            return False
        if p.size >= MIN_SIZE:
            large = True
        arrays.append(p)
    if not large or not _loaded():
        return False
    kernel = _KERNEL[0]
    dt = None
    for p, g in zip(arrays, grads):
        if p is None:
            continue
        if p.dtype is not dt:
            dt = p.dtype
            lr = dt.type(scale)             # rounded to the arrays' dtype, as NumPy does with a Python float
        kernel(p, g, lr)
    return True
