"""Small helpers shared by the ``ops.nn`` modules: constants, argument checks, loss reductions."""

import numpy as np

from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg


def const(array, like=None):
    """A constant Tensor from a NumPy array or number (in ``like``'s dtype when given)."""
    a = np.asarray(array, like._data.dtype) if like is not None else np.asarray(array)
    return Tensor._wrap(np.array(a, order="C"))


def float_tensor(x, name, what="input"):
    """``x`` as a float Tensor; TypeError naming the op otherwise."""
    t = tensor_arg(x, name)
    if t._data.dtype.kind != "f":
        raise TypeError(f"op '{name}': {what} must be a float16, float32 or float64 tensor, got {t.dtype}")
    return t


def int_arg(value, name, what, minimum=None):
    """A Python int argument (bools refused), optionally at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"op '{name}': {what} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"op '{name}': {what} must be >= {minimum}, got {value}")
    return int(value)


def int_tuple(value, n, name, what, minimum=None):
    """An int or a sequence of ``n`` ints as a tuple of ``n`` ints."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * n
        if len(value) != n:
            raise ValueError(f"op '{name}': {what} must be an int or {n} ints, got {value!r}")
        return tuple(int_arg(v, name, what, minimum) for v in value)
    return (int_arg(value, name, what, minimum),) * n


def check_reduction(name, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"op '{name}': reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def reduce_loss(loss, reduction):
    """The elementwise ``loss`` reduced as MindSpore's losses do ("none": as it is)."""
    if reduction == "mean":
        return F.reduce_mean(loss)
    if reduction == "sum":
        return F.reduce_sum(loss)
    return loss
