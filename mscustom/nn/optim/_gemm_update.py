"""``p -= lr * (op(a) @ op(b))`` as one BLAS call (GEMM with alpha = -lr, beta = 1), for graph-mode SGD.

A Dense layer's weight gradient is a matrix product (``dy.T @ x``) that only
the optimizer reads. NumPy computes it into a full-size array, and the update
reads that array back; for a 784x256 layer both passes cost as much as a
tenth of the product. GEMM itself can add a scaled product to ``p`` in place:
``p = p + (-lr) * (op(a) @ op(b))``, with no gradient array at all. Graph-mode
replays hand such products to plain SGD (``Optimizer._apply``'s ``products``).

Knowingly not bit-identical: BLAS kernels add the scaled product with a fused
multiply-add (one rounding instead of NumPy's two, so the result is the
exactly rounded ``p - lr * g`` where NumPy may be one unit in the last place
off), and a long inner dimension is summed in blocks. Parameters therefore
differ from eager mode's by about one rounding per step; graph mode uses it
for parameters of ``MIN_SIZE`` (32768) elements or more only, where the saved
passes matter, so small models stay bit-identical to eager mode.

The BLAS is NumPy's own OpenBLAS (found through threadpoolctl, so
``threadpool_limits`` governs it as it governs ``np.matmul``), called through
its 64-bit-integer CBLAS entry points with ctypes, then, once the background
loader (``ops/_loop_loader.py``) has imported cffi, with cffi. Where NumPy uses another BLAS
or those entry points are missing, ``available()`` is False and nothing
changes. ``fits`` checks a product once per record against NumPy on the
recorded shapes (random data) before graph mode uses it.
"""

import os
import weakref

import numpy as np

from ...ops import _loop_loader
from ._one_pass import MIN_SIZE

__all__ = ["available", "fits", "sub_product"]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_STATE = {}             # "fns": {dtype: gemm function} or None (not available)
_CHECKED = {}           # (shapes, dtype, flags) -> bool, from the probe
_PTRS = {}              # id(array) -> (weak reference, address): replays pass the same arrays every step
_MAX_PTRS = 256


def _numpy_openblas():
    """The path of the OpenBLAS library NumPy itself loaded, or None."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    np_dir = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    for info in threadpool_info():
        path = info.get("filepath") or ""
        if info.get("internal_api") == "openblas" and os.path.abspath(path).startswith(np_dir) \
                and "numpy" in path:
            return path
    return None


def _load():
    """The GEMM functions through ctypes (no C parser to import: cheap in a process's first step)."""
    import ctypes
    fns = None
    path = _numpy_openblas()
    if path is not None:
        try:
            lib = ctypes.CDLL(path)
            i, i64, ptr = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
            for prefix in ("scipy_cblas_", "cblas_"):          # ILP64 entry points end in 64_
                try:
                    got = {}
                    for ch, ct, dt in (("s", ctypes.c_float, np.float32), ("d", ctypes.c_double, np.float64)):
                        fn = getattr(lib, f"{prefix}{ch}gemm64_")
                        fn.restype = None
                        fn.argtypes = [i, i, i, i64, i64, i64, ct, ptr, i64, ptr, i64, ct, ptr, i64]
                        got[np.dtype(dt)] = fn
                except AttributeError:
                    continue
                fns = dict(got, _keep=(lib, path, prefix))
                break
        except Exception:
            fns = None
    _STATE["fns"] = fns
    return fns


def _load_cffi():
    """The same functions through cffi (about 2 us cheaper a call than ctypes), for ``_loop_loader``:
    importing cffi's C parser takes about 0.1 s, so it happens in the background, after a few steps."""
    fns = _STATE.get("fns")
    if not fns:
        return None
    import cffi
    lib_ct, path, prefix = fns["_keep"][:3]
    ffi = cffi.FFI()
    for ch, ct in (("s", "float"), ("d", "double")):
        ffi.cdef(f"void {prefix}{ch}gemm64_(int, int, int, int64_t, int64_t, int64_t, {ct}, intptr_t, int64_t, "
                 f"intptr_t, int64_t, {ct}, intptr_t, int64_t);", override=True)
    lib = ffi.dlopen(path)
    return {np.dtype(np.float32): getattr(lib, f"{prefix}sgemm64_"),
            np.dtype(np.float64): getattr(lib, f"{prefix}dgemm64_"), "_keep": (lib_ct, path, prefix, ffi, lib)}


def _publish_cffi(fns):
    if fns is not None and _STATE.get("fns"):
        _STATE["fns"] = fns


_loop_loader.register(_load_cffi, _publish_cffi)


def available():
    """True where NumPy's BLAS is OpenBLAS with 64-bit-integer CBLAS entry points."""
    fns = _STATE.get("fns", False)
    if fns is False:
        fns = _load()
    return fns is not None


def _addr(a):
    """The data address of ``a``, remembered per live array (asking NumPy costs about 1 us)."""
    hit = _PTRS.get(id(a))
    if hit is not None and hit[0]() is a:
        return hit[1]
    if len(_PTRS) >= _MAX_PTRS:
        _PTRS.clear()
    ptr = a.__array_interface__["data"][0]
    _PTRS[id(a)] = (weakref.ref(a), ptr)
    return ptr


def _dims(p, a, b, ta, tb):
    """(M, N, K, lda, ldb) of ``p (M, N) = op(a) (M, K) @ op(b) (K, N)``, or None if the shapes disagree."""
    if p.ndim != 2 or a.ndim != 2 or b.ndim != 2:
        return None
    m, n = p.shape
    am, ak = (a.shape[1], a.shape[0]) if ta else a.shape
    bk, bn = (b.shape[1], b.shape[0]) if tb else b.shape
    if am != m or bn != n or ak != bk or not ak:
        return None
    return m, n, ak, a.shape[1], b.shape[1]


def sub_product(p, a, b, ta, tb, scale):
    """``p -= scale * (op(a) @ op(b))`` in place with one GEMM; False (nothing done) where it cannot.

    ``op`` transposes where ``ta`` / ``tb``. All three arrays must be
    C-contiguous 2-D arrays of one float dtype, ``scale`` a Python number.
    """
    fns = _STATE.get("fns")
    if not fns:
        return False
    dt = p.dtype
    fn = fns.get(dt)
    t = type(scale)
    if fn is None or a.dtype != dt or b.dtype != dt or (t is not float and t is not int) \
            or not (p.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous):
        return False
    dims = _dims(p, a, b, ta, tb)
    if dims is None:
        return False
    m, n, k, lda, ldb = dims
    fn(_ROW_MAJOR, _TRANS if ta else _NO_TRANS, _TRANS if tb else _NO_TRANS, m, n, k, -float(dt.type(scale)),
       _addr(a), lda, _addr(b), ldb, 1.0, _addr(p), n)
    return True


def fits(p, a, b, ta, tb):
    """Whether graph mode may update ``p`` from the product ``op(a) @ op(b)`` with ``sub_product``.

    ``p`` must have ``MIN_SIZE`` elements or more, and the BLAS call must
    agree with NumPy's two-pass update to rounding on these shapes (checked
    once per shape on random data, so a BLAS that behaves otherwise is never
    used).
    """
    if p.size < MIN_SIZE or p.dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or not available():
        return False
    if a.dtype != p.dtype or b.dtype != p.dtype or _dims(p, a, b, ta, tb) is None:
        return False
    key = (p.shape, a.shape, b.shape, p.dtype.str, ta, tb)
    ok = _CHECKED.get(key)
    if ok is None:
        rng = np.random.default_rng(0)
        pa, aa, ba = (rng.standard_normal(x.shape, dtype=p.dtype) for x in (p, a, b))   # no float64 draw
        want = pa.copy()
        g = np.matmul(aa.T if ta else aa, ba.T if tb else ba)
        g *= 0.01
        want -= g
        got = pa.copy()
        eps = np.finfo(p.dtype).eps
        ok = bool(sub_product(got, aa, ba, ta, tb, 0.01)) \
            and bool(np.allclose(got, want, rtol=8 * eps, atol=8 * eps * float(np.abs(g).max() + 1)))
        _CHECKED[key] = ok
    return ok
