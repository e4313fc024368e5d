"""``mindspore.common.dtype``: the dtype objects, so ``from mscustom.common import dtype as mstype`` works.

Example::

    from mscustom.common import dtype as mstype
    ms.Tensor([1, 2], mstype.float32)
"""

from ..dtype import (DType, bool_, float16, float32, float64, int8, int16, int32, int64,  # noqa: F401
                     uint8, uint16, uint32, uint64)
from ..dtype import dtype_to_nptype, dtype_to_pytype, pytype_to_dtype  # noqa: F401

half = float16
single = float32
double = float64

__all__ = ["DType", "bool_", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "half", "single", "double",
           "dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype"]
