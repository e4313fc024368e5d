"""Kernels the benchmarks run, kept in a file so Numba can cache them on disk."""

import numba
import numpy as np


def square_py(x):
    """pyfunc: NumPy in, NumPy out."""
    return x * x


def square_grad_py(x, dout):
    return 2 * x * dout


def square_kernel(x, out):
    """jit, serial: destination passing."""
    for i in range(x.size):
        out[i] = x[i] * x[i]


def square_parallel(x, out):
    """jit, parallel over both cores with prange."""
    for i in numba.prange(x.size):
        out[i] = x[i] * x[i]


__all__ = ["square_py", "square_grad_py", "square_kernel", "square_parallel", "np"]
