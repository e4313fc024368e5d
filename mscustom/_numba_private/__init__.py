"""Code that relies on Numba's private internals, kept in one place.

Everything mscustom does with APIs Numba does not promise to keep lives here:

- ``aot_caller``: the Numba-compiled caller of aot symbols (an ``intrinsic``
  calling a C function pointer), the fast path of hot CPU aot plans;
- ``cache``: loading a jit kernel's machine code straight from Numba's disk
  cache, without the 130 ms Numba spends building its compiler contexts;
- ``forksafe``: re-arming Numba's GNU OpenMP threading layer and replacing
  Numba's compiler lock in a forked child;
- ``simd``: an eight-lane float32 value type for njit code (a Numba type, its
  data model and ``intrinsic`` operations on LLVM vectors), the register
  tiles of the direct convolution loops (``ops/nn/conv_direct.py``).

They were written for Numba 0.68.x. ``supported()`` says whether the installed
Numba is that series; each use is gated on it, and with any other Numba the
callers take Numba's public path instead: aot plans keep calling through
cffi, jit kernels load through ``dispatcher.compile`` (Numba's own cache
lookup), and a forked child keeps Numba's own fork check (its omp layer
refuses to run parallel kernels in the child), and convolutions keep im2col
and BLAS.

Nothing here is imported by ``import mscustom``; ``supported()`` and the
``forksafe`` hooks never import Numba themselves.
"""

__all__ = ["supported", "WRITTEN_FOR"]

WRITTEN_FOR = (0, 68)          # the Numba release series this package was written against
_answer = []                   # supported()'s answer, once read


def _installed_series():
    """``(major, minor)`` of the installed Numba from its metadata, or None (never imports Numba)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            found = version("numba")
        except PackageNotFoundError:
            return None
        major, minor = (int(p) for p in found.split(".")[:2])
    except (ValueError, ImportError):
        return None
    return major, minor


def supported():
    """Whether the installed Numba is the series this package was written for (reads its metadata once).

    Example::

        from mscustom import _numba_private
        if _numba_private.supported():
            from mscustom._numba_private import aot_caller
    """
    if not _answer:
        _answer.append(_installed_series() == WRITTEN_FOR)
    return _answer[0]
