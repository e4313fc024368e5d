"""The public ops namespace: built-in ops, the operator registry and custom ops."""

from . import functional
from .functional import *  # noqa: F401,F403
from .._core.registry import get_op, list_ops
from ..extend import register_op     # NNVM-style registration, built through the extension surface
from ..autograd import GradOperation, grad, value_and_grad
from .operations import *  # noqa: F401,F403  (MindSpore's primitive classes: ops.Add(), ops.MatMul() ...)
from .operations import Primitive, PrimitiveWithInfer, PrimitiveWithCheck, prim_attr_register
from .custom import Custom, CustomRegOp, DataType, custom_info_register, custom_op_report, custom_op_usage

from .custom.hybrid import kernel, ms_kernel
from ._dynamic import ConvertToDynamic

# layers' ops (convolution, pooling, normalization, activations, random, creation)
from ._conv_ops import conv1d, conv2d, conv2d_transpose
from ._pool_ops import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from ._norm_ops import batch_norm, group_norm, layer_norm
from ._activation_ops import dropout, erf, gelu, leaky_relu, relu6, silu
from ._assign_ops import assign, assign_add, assign_sub
from . import _loss_ops           # the fused sparse softmax cross entropy (used by nn losses)
from ._tensor_ops import (arange, argmax, argmin, cat, clamp, clip_by_value, full, gather, ones, split,
                          standard_normal, uniform, zeros)

from . import _graph_kernels

_graph_kernels.install()        # ufunc / write-into / view kernels that graph-mode replays use

# collective communication ops over MPI (mscustom.communication): differentiable, replayed by graph mode
from ._comm_ops import AllGather, AllReduce, AlltoAll, Broadcast, ReduceOp, ReduceScatter
