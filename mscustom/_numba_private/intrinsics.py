"""Numba's ``intrinsic`` decorator, for code that emits LLVM IR into njit callers (``ops/custom/vecmath``).

``numba.extending.intrinsic`` hands its typer Numba's LLVM builder and
context: code built on it depends on Numba's code generation (llvmlite IR
types, ``cgutils``), which Numba does not promise to keep. Going through
here keeps such uses in this package, where ``tests/test_numba_private.py``
finds them.
"""

__all__ = ["intrinsic"]


def intrinsic(typer):
    """``numba.extending.intrinsic(typer)`` (Numba imported on first use)."""
    from numba.extending import intrinsic as _intrinsic
    return _intrinsic(typer)
