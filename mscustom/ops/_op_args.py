"""Argument helpers shared by the op modules of MindSpore's array surface."""

import numpy as np

from ..tensor import Tensor
from ._builtin import normalize_axis


def c_array(a):
    """``a`` as a C-contiguous array, 0-d arrays staying 0-d (``np.ascontiguousarray`` makes them 1-d)."""
    return np.asarray(a, order="C")


def int_arg(name, what, v):
    """``v`` as a Python int (a one-element integer Tensor too); TypeError naming the op otherwise."""
    if isinstance(v, Tensor) and v.size == 1 and v._data.dtype.kind in "iu":
        v = int(v.item())
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"op '{name}': {what} must be an int, got {v!r}")
    return int(v)


def axis1(name, axis, ndim):
    """One axis, normalized; a 0-d tensor accepts 0 and -1 (its one implicit axis)."""
    axis = int_arg(name, "axis", axis)
    if ndim == 0 and axis in (0, -1):
        return 0
    return normalize_axis(name, axis, ndim)[0]
