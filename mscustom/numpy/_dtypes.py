"""The dtype names mindspore.numpy exports, and its promotion queries.

``float_`` and ``int_`` are float32 and int32 (mindspore.numpy's defaults, where NumPy has
float64 / int64). Promotion follows the ops' rule: a float wins over integers without
widening (``int64`` with ``float16`` is float16), otherwise NumPy's promotion applies.
"""

import builtins

import numpy as np

from .. import dtype as _dt
from ..ops._builtin import result_dtype
from ..tensor import Tensor
from ._utils import to_dtype

bool_ = _dt.bool_
int8, int16, int32, int64 = _dt.int8, _dt.int16, _dt.int32, _dt.int64
uint8, uint16, uint32, uint64 = _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64
float16, float32, float64 = _dt.float16, _dt.float32, _dt.float64
float_ = _dt.float32
int_ = _dt.int32

__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "float_", "int_", "promote_types", "result_type"]


def promote_types(type1, type2):
    """The dtype both ``type1`` and ``type2`` convert to without losing their kind."""
    a, b = to_dtype(type1, "promote_types"), to_dtype(type2, "promote_types")
    return _dt.from_numpy(result_dtype([a.np_dtype, b.np_dtype]))


def _dtype_of(value):
    if isinstance(value, Tensor):
        return value.dtype.np_dtype
    if isinstance(value, builtins.bool):
        return np.dtype(np.bool_)
    if isinstance(value, builtins.int):
        return np.dtype(np.int32)
    if isinstance(value, builtins.float):
        return np.dtype(np.float32)
    if isinstance(value, np.ndarray):
        return value.dtype
    return to_dtype(value, "result_type").np_dtype


def result_type(*arrays_and_dtypes):
    """The dtype an operation on all the arguments (tensors, numbers, dtypes) gives."""
    if not arrays_and_dtypes:
        raise ValueError("op 'result_type': at least one array or dtype is required")
    return _dt.from_numpy(result_dtype([_dtype_of(v) for v in arrays_and_dtypes]))
