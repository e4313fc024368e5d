"""Random tensors: ``rand`` (uniform on [0, 1)), ``randn`` (standard normal), ``randint``.

Drawn by ``ops.uniform`` / ``ops.standard_normal`` from the ``ms.set_seed`` generator, so graph
mode replays draw fresh numbers, as eager calls do.
"""

import builtins

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ..tensor import Tensor
from ._utils import to_dtype

__all__ = ["rand", "randn", "randint"]


def _shape(shape, name):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if not all(isinstance(s, (builtins.int, np.integer)) and s >= 0 for s in shape):
        raise TypeError(f"op '{name}': the shape must be non-negative ints, got {shape!r}")
    return tuple(builtins.int(s) for s in shape)


def _float_dtype(dtype, name):
    dtype = to_dtype(dtype, name) or _dt.float32
    if not _dt.is_floating(dtype):
        raise TypeError(f"op '{name}': dtype must be a float type, got {dtype}")
    return dtype


def rand(*shape, dtype=_dt.float32):
    """Uniform samples on [0, 1) of the given shape (ints, or one tuple); float32 by default."""
    dtype = _float_dtype(dtype, "rand")
    out = _ops.uniform(_shape(shape, "rand"), F.cast(_scalar(0.0), _dt.float32), F.cast(_scalar(1.0), _dt.float32))
    return out if out.dtype == dtype else F.cast(out, dtype)


def randn(*shape, dtype=_dt.float32):
    """Standard normal samples of the given shape (ints, or one tuple); float32 by default."""
    dtype = _float_dtype(dtype, "randn")
    out = _ops.standard_normal(_shape(shape, "randn"))
    return out if out.dtype == dtype else F.cast(out, dtype)


def randint(minval, maxval=None, shape=None, dtype=_dt.int32):
    """Uniform integers in ``[minval, maxval)`` (``[0, minval)`` without ``maxval``); int32 by default."""
    if maxval is None:
        minval, maxval = 0, minval
    if not isinstance(minval, (builtins.int, np.integer)) or not isinstance(maxval, (builtins.int, np.integer)):
        raise TypeError(f"op 'randint': minval and maxval must be ints, got {minval!r} and {maxval!r}")
    if maxval <= minval:
        raise ValueError(f"op 'randint': maxval must be greater than minval, got {minval} and {maxval}")
    dtype = to_dtype(dtype, "randint") or _dt.int32
    shape = () if shape is None else _shape((shape,) if isinstance(shape, builtins.int) else tuple(shape), "randint")
    u = _ops.uniform(shape, F.cast(_scalar(0.0), _dt.float32), F.cast(_scalar(1.0), _dt.float32))
    span = float(maxval - minval)
    out = F.add(_ops.floor(F.mul(F.cast(u, _dt.float64), span)), float(minval))
    out = _ops.clamp(out, float(minval), float(maxval - 1))
    return F.cast(out, dtype)


def _scalar(v):
    return Tensor(np.asarray(v, np.float32))
