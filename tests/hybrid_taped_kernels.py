"""Hybrid kernels that overwrite values their gradient needs: derived by taping (``grad_tape``)."""

from mscustom.ops import kernel


@kernel
def row_softmax(x):
    """MindSpore-style row softmax: running max and sum temporaries updated from themselves."""
    y = output_tensor(x.shape, x.dtype)
    row_max = allocate((x.shape[0],), x.dtype)
    row_sum = allocate((x.shape[0],), x.dtype)
    for i in range(x.shape[0]):
        row_max[i] = x[i, 0]
        for j in range(x.shape[1]):
            row_max[i] = max(row_max[i], x[i, j])
        row_sum[i] = 0.0
        for j in range(x.shape[1]):
            y[i, j] = exp(x[i, j] - row_max[i])
            row_sum[i] = row_sum[i] + y[i, j]
        for j in range(x.shape[1]):
            y[i, j] = y[i, j] / row_sum[i]
    return y


@kernel
def row_softmax_scalars(x):
    """The same with the running max and sum in scalars."""
    y = output_tensor(x.shape, x.dtype)
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(x.shape[1]):
            y[i, j] = exp(x[i, j] - m)
            s = s + y[i, j]
        for j in range(x.shape[1]):
            y[i, j] = y[i, j] / s
    return y


@kernel
def unit_lower_solve(l, b):
    """Forward substitution with a unit diagonal, accumulating into x[i]."""
    x = output_tensor(b.shape, b.dtype)
    for i in range(b.shape[0]):
        x[i] = b[i]
        for j in range(i):
            x[i] = x[i] - l[i, j] * x[j]
    return x


@kernel
def clipped_decay(a, w):
    """A running state that is clipped (a branch) and decays: s = min(w * s + a[i], 1)."""
    y = output_tensor(a.shape, a.dtype)
    s = 0.0
    for i in range(a.shape[0]):
        s = w[0] * s + a[i]
        if s > 1.0:
            s = 1.0
        y[i] = s * s
    return y


@kernel
def power_iteration(a, v0):
    """Three steps of the power method, normalising v in place each step (nested carried loops)."""
    v = output_tensor(v0.shape, v0.dtype)
    t = allocate(v0.shape, v0.dtype)
    for i in range(v0.shape[0]):
        v[i] = v0[i]
    for k in range(3):
        for i in range(a.shape[0]):
            t[i] = 0.0
            for j in range(a.shape[1]):
                t[i] = t[i] + a[i, j] * v[j]
        n = 0.0
        for i in range(a.shape[0]):
            n = n + t[i] * t[i]
        for i in range(a.shape[0]):
            v[i] = t[i] / sqrt(n)
    return v


@kernel
def every_other_square(a):
    """A loop with a step: neither generator reverses it."""
    y = output_tensor(a.shape, a.dtype)
    for i in range(0, a.shape[0], 2):
        y[i] = a[i] * a[i]
    return y


@kernel
def transcendentals(a):
    """exp, log, tanh, erf, sin, cos, expm1, rsqrt of every element (vectorizable on the CPU)."""
    y = output_tensor((8, a.shape[0]), a.dtype)
    for i in range(a.shape[0]):
        y[0, i] = exp(a[i])
        y[1, i] = log(abs(a[i]) + 1.0)
        y[2, i] = tanh(a[i])
        y[3, i] = erf(a[i])
        y[4, i] = sin(a[i])
        y[5, i] = cos(a[i])
        y[6, i] = expm1(a[i])
        y[7, i] = rsqrt(abs(a[i]) + 1.0)
    return y


@kernel
def branch_sized_loop(a):
    """A loop whose extent is set under a data-dependent branch: the tape cannot be sized, refused."""
    y = output_tensor(a.shape, a.dtype)
    n = a.shape[0]
    if a[0] > 0.0:
        n = 1
    for i in range(n):
        y[i] = y[i] * a[i] + a[i]
    for i in range(n):
        y[i] = y[i] * y[i]
    return y
