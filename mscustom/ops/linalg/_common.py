"""Helpers shared by the ``ops.linalg`` modules."""

import numpy as np

from ...tensor import Tensor
from .._builtin import tensor_arg


def const(array, like=None):
    """A constant Tensor from a NumPy array or number (in ``like``'s dtype when given)."""
    a = np.asarray(array, like._data.dtype) if like is not None else np.asarray(array)
    return Tensor._wrap(np.array(a, order="C"))


def tensor_of_rank(x, name, what, rank=None, min_rank=None, float_only=False):
    """``x`` as a Tensor of the given rank (or at least ``min_rank``); errors name the op."""
    t = tensor_arg(x, name)
    if rank is not None and t.ndim != rank:
        raise ValueError(f"op '{name}': {what} must be {rank}-D, got shape {list(t.shape)}")
    if min_rank is not None and t.ndim < min_rank:
        raise ValueError(f"op '{name}': {what} must have at least {min_rank} dimensions, got shape {list(t.shape)}")
    if float_only and t._data.dtype.kind not in "fc":
        raise TypeError(f"op '{name}': {what} must be a float or complex tensor, got {t.dtype}")
    return t


def square_matrices(x, name, what="input"):
    """``x`` as a float/complex Tensor of square matrices (..., n, n)."""
    t = tensor_of_rank(x, name, what, min_rank=2, float_only=True)
    if t.shape[-1] != t.shape[-2]:
        raise ValueError(f"op '{name}': {what} must be square matrices (..., n, n), got shape {list(t.shape)}")
    return t


def mT(x):
    """The transpose of the last two axes."""
    from .. import functional as F
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return F.transpose(x, perm)
