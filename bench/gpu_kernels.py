"""A GPU kernel the GPU benchmark runs (importing this module imports numba.cuda)."""

from numba import cuda


def square_cuda(x, out):
    """jit on the GPU (numba-cuda): one thread per element."""
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * x[i]
