"""Hybrid kernels that carry values across loop iterations, for the automatic gradient's tests."""
from mscustom.ops import kernel


@kernel
def running_sum(a):
    c = output_tensor(a.shape, a.dtype)
    s = 0.0
    for i in range(a.shape[0]):
        s = s + a[i]
        c[i] = s
    return c


@kernel
def cumsum_rec(a):
    c = output_tensor(a.shape, a.dtype)
    c[0] = a[0]
    for i in range(1, a.shape[0]):
        c[i] = c[i - 1] + a[i]
    return c


@kernel
def cumprod_rec(a):
    c = output_tensor(a.shape, a.dtype)
    c[0] = a[0]
    for i in range(1, a.shape[0]):
        c[i] = c[i - 1] * a[i]
    return c


@kernel
def lower_solve(l, b):
    x = output_tensor(b.shape, b.dtype)
    for i in range(b.shape[0]):
        s = b[i]
        for j in range(i):
            s = s - l[i, j] * x[j]
        x[i] = s / l[i, i]
    return x


@kernel
def decay_filter(a, w):
    y = output_tensor(a.shape, a.dtype)
    y[0] = a[0]
    for i in range(1, a.shape[0]):
        y[i] = w[0] * y[i - 1] + (1.0 - w[0]) * a[i]
    return y


@kernel
def running_product(a):
    out = output_tensor((1,), a.dtype)
    p = 1.0
    for i in range(a.shape[0]):
        p = p * a[i]
    out[0] = p
    return out


@kernel
def reads_ahead(a):
    y = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0] - 1):
        y[i] = y[i + 1] * a[i] + a[i]
    return y


@kernel
def squares_twice(a):
    y = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        y[i] = a[i]
    for i in range(a.shape[0]):
        y[i] = y[i] * y[i]
    return y


@kernel
def row_products(a):
    out = output_tensor((a.shape[0],), a.dtype)
    for i in range(a.shape[0]):
        p = 1.0
        for j in range(a.shape[1]):
            p = p * a[i, j]
        out[i] = p
    return out


@kernel
def horner(c, x):
    y = output_tensor(x.shape, x.dtype)
    for i in range(x.shape[0]):
        acc = 0.0
        for k in range(c.shape[0]):
            acc = acc * x[i] + c[k]
        y[i] = acc
    return y


@kernel
def triangle_products(a):
    out = output_tensor((a.shape[0],), a.dtype)
    for i in range(a.shape[0]):
        p = 1.0
        for j in range(i + 1):
            p = p * a[i, j]
        out[i] = p
    return out
