"""The shared-memory all-reduce's one-pass loop (``communication/_shared.py``), loaded like the
built-in kernels' loops (``_loop_loader``: in a background thread once a program is past its first
calls; NumPy serves until then, with the same bits).

For two ranks, a rank's slice of the sums is ``(a + b) * scale``, written into its own result area
and the other rank's. NumPy needs three passes for that (add, multiply, copy); the loop reads each
input once and writes both outputs in the same pass, rounding as NumPy does: the sum rounded to the
dtype, then the product (Numba compiles without fast-math, so no fused multiply-add; a scale of 1
changes no value).
"""

import numpy as np

from .. import _loop_loader

__all__ = ["sum_scale_twice"]

DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_KERNEL = []


def _compile():
    def sum_scale_twice_loop(a, b, scale, out, out2):
        for i in range(a.size):
            v = (a[i] + b[i]) * scale
            out[i] = v
            out2[i] = v

    return _loop_loader.njit(sum_scale_twice_loop)


def _load():
    kernel = _compile()
    for dt in DTYPES:
        a = np.zeros(1, dt)
        kernel(a, a, dt.type(1), a.copy(), a.copy())
    return kernel


def _publish(kernel):
    if not _KERNEL:
        _KERNEL.append(kernel)


_loop_loader.register(_load, _publish)


def sum_scale_twice(a, b, scale, out, out2):
    """``out[:] = out2[:] = (a + b) * scale`` for 1-D arrays of one dtype in ``DTYPES`` (``scale`` of
    that dtype) in one pass; False (nothing done) until the loop is loaded, which this asks for."""
    if not _KERNEL:
        _loop_loader.request()
        if not _KERNEL:
            return False
    _KERNEL[0](a, b, scale, out, out2)
    return True
