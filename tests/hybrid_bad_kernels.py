"""Hybrid DSL kernels that break the DSL's rules (each checked for its error and line)."""


def uses_break(a):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i]
        break
    return c


def uses_while(a):
    c = output_tensor(a.shape, a.dtype)
    while True:
        c[0] = a[0]
    return c


def bad_attribute(a):
    c = output_tensor(a.shape, a.dtype)
    c[0] = a.size
    return c


def undeclared(a):
    c = output_tensor(a.shape, a.dtype)
    c[0] = a[0] + offset  # noqa: F821
    return c


def returns_temp(a):
    t = allocate(a.shape, a.dtype)
    t[0] = a[0]
    return t


def forgets_output(a):
    c = output_tensor(a.shape, a.dtype)
    d = output_tensor(a.shape, a.dtype)
    c[0] = a[0]
    d[0] = a[0]
    return c


def calls_numpy(a):
    c = output_tensor(a.shape, a.dtype)
    c[0] = np.sum(a)  # noqa: F821
    return c


def uses_continue(a):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        continue
    return c
