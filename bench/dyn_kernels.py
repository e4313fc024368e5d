"""Hybrid kernels for bench/run.py's dynamic-shape and scalar-parameter figures (the DSL needs a file)."""

from mscustom.ops import kernel


@kernel
def scale_shift(a, s):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i] * s + s
    return c
