"""``ops.Custom`` and its registration API (MindSpore names).

Kernel kinds live one per module (``pyfunc``, ``jit``, ``aot``) and load on
first use, so ``import mscustom`` imports neither Numba nor cffi.

Example::

    from mscustom.ops import Custom, CustomRegOp, DataType
    sq = Custom(lambda x: x * x, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")
"""

from .custom import Custom, custom_op_report, custom_op_usage
from .reginfo import CustomRegOp, DataType, custom_info_register, parse_reg_info

__all__ = ["Custom", "CustomRegOp", "DataType", "custom_info_register", "custom_op_report", "custom_op_usage",
           "parse_reg_info"]
