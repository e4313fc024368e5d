"""``ops.Custom`` and its registration API (MindSpore names).

Kernel kinds are registered by name (``kind.register_kind``); the built-in
ones (``pyfunc``, ``jit``, ``aot``) load their modules on first use, so
``import mscustom`` imports neither Numba nor cffi.

Example::

    from mscustom.ops import Custom, CustomRegOp, DataType
    sq = Custom(lambda x: x * x, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")
"""

from . import _registered  # noqa: F401  (the built-in kernel kinds, registered by name; loaded on first use)
from .custom import Custom, custom_op_report, custom_op_usage
from .kind import get_kind, kinds, register_kind
from .reginfo import CustomRegOp, DataType, custom_info_register, parse_reg_info

__all__ = ["Custom", "CustomRegOp", "DataType", "custom_info_register", "custom_op_report", "custom_op_usage",
           "parse_reg_info", "register_kind", "get_kind", "kinds"]
