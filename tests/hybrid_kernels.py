"""Hybrid DSL kernels shared by the hybrid tests (a module of their own: the DSL needs source files)."""

from mscustom.ops import kernel, ms_kernel


@kernel
def add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        for j in vectorize(a.shape[1]):
            c[i, j] = a[i, j] + b[i, j]
    return c


@kernel
def mul(a, b):
    c = output_tensor(a.shape, a.dtype)
    for arg in grid(a.shape):
        c[arg] = a[arg] * b[arg]
    return c


@ms_kernel
def sin_exp(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i in parallel(a.shape[0]):
        for j in range(a.shape[1]):
            s = sin(a[i, j]) * exp(b[i, j] * 0.5)
            c[i, j] = s + tanh(a[i, j] * b[i, j]) - sqrt(b[i, j] * b[i, j] + 1.0)
    return c


@kernel
def outer_product(a, b):
    d = allocate(a.shape, a.dtype)
    c = output_tensor((a.shape[0], b.shape[1]), a.dtype)
    for i0 in range(a.shape[0]):
        for i1 in range(b.shape[1]):
            c[i0, i1] = 0.0
            for i2 in range(a.shape[1]):
                d[i0, i2] = 2 * a[i0, i2]
                c[i0, i1] = c[i0, i1] + sin(d[i0, i2] * b[i2, i1])
    return c


@kernel
def outer(u, v):
    c = output_tensor((u.shape[0], v.shape[0]), u.dtype)
    for i in parallel(u.shape[0]):
        for j in range(v.shape[0]):
            c[i, j] = u[i] * v[j]
    return c


@kernel
def matmul(a, b):
    c = output_tensor((a.shape[0], b.shape[1]), a.dtype)
    for i in parallel(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0.0
            for k in reduce(a.shape[1]):
                acc = acc + a[i, k] * b[k, j]
            c[i, j] = acc
    return c


@kernel
def power_tmp(a, b):
    t = allocate(a.shape, a.dtype)
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        t[i] = a[i] * a[i] + 1.0
    for i in range(a.shape[0]):
        c[i] = power(t[i], b[i]) + t[i] ** 2
    return c


@kernel
def two_outputs(a, b):
    s = output_tensor(a.shape, a.dtype)
    p = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        s[i] = a[i] + b[i]
        p[i] = a[i] * b[i] * s[i]
    return s, p


@kernel
def row_sum(a):
    n = a.shape[0]
    c = output_tensor((n, 1), "float32")
    for i in range(n):
        c[i, 0] = 0.0
        for j in reduce(a.shape[1]):
            c[i, 0] += float32(a[i, j])
    return c


@kernel
def dtype_and_cast(a, b):
    d = allocate(a.shape, "float16")
    c = output_tensor(a.shape, "float16")
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            d[i0, i1] = float16(1.0)
            c[i0, i1] = d[i0, i1] + float16(a[i0, i1])
            c[i0, i1] = c[i0, i1] * float16(b[i0, i1])
    return c


@kernel
def scale_in_place(a):
    for i in range(a.shape[0]):
        a[i] = a[i] * 3.0
    return a


@kernel
def scatter(a, idx):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[idx[i]] = a[i]
    return c


def clip_relu(a):                       # undecorated: accepted with func_type="akg"
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        if a[i] > 0.0:
            c[i] = min(a[i], 1.0)
        else:
            c[i] = 0.0
    return c
