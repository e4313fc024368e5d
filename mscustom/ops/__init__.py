"""The public ops namespace: built-in ops, the operator registry and custom ops."""

from .. import tensor as _tensor
from . import functional
from .functional import *  # noqa: F401,F403
from .._core.registry import register_op, get_op, list_ops
from ..autograd import GradOperation
from .custom import Custom, CustomRegOp, DataType, custom_info_register, custom_op_report, custom_op_usage

_tensor._F = functional
from .custom.hybrid import kernel, ms_kernel
