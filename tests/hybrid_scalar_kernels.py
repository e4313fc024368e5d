"""Hybrid DSL kernels with scalar parameters, for tests/test_hybrid_scalars.py (the DSL needs source files)."""

from mscustom.ops import kernel


@kernel
def scale_shift(a, s):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i] * s + s
    return c


@kernel
def axpy(x, alpha, y):
    z = output_tensor(x.shape, x.dtype)
    for i in parallel(x.shape[0]):
        z[i] = alpha * x[i] * x[i] + y[i]
    return z


@kernel
def clip_rows(a, lo, hi, flip):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            v = a[i, j]
            if flip:
                v = -v
            c[i, j] = min(max(v, lo), hi)
    return c


@kernel
def indexes_scalar(a, s):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i] + s[i]
    return c


@kernel
def sized_by_scalar(a, n):
    c = output_tensor((n,), a.dtype)
    for i in range(n):
        c[i] = a[0]
    return c
