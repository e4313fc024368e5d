"""The public ops namespace: built-in ops, the operator registry and custom ops."""

from . import functional
from .functional import *  # noqa: F401,F403
from .._core.registry import register_op, get_op, list_ops
from ..autograd import GradOperation, grad, value_and_grad
from .operations import *  # noqa: F401,F403  (MindSpore's primitive classes: ops.Add(), ops.MatMul() ...)
from .operations import Primitive, PrimitiveWithInfer, PrimitiveWithCheck, prim_attr_register
from .custom import Custom, CustomRegOp, DataType, custom_info_register, custom_op_report, custom_op_usage

from .custom.hybrid import kernel, ms_kernel
