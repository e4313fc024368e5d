"""``mindspore.ops.op_info_register``: Custom ops' registration information (CustomRegOp, DataType)."""

from .custom import CustomRegOp, DataType, custom_info_register

__all__ = ["CustomRegOp", "DataType", "custom_info_register"]
