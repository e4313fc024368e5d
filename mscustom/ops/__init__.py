"""The public ops namespace: built-in ops, the operator registry and custom ops."""

from . import _moved  # the op modules' old flat paths stay importable (_moved.MOVED)
_moved.install()
from . import _packages  # the concern packages: registered now, their __init__ run after the core ops (below)
_packages.create(__name__, ("math", "array", "nn", "linalg", "random", "sparse", "spectral"))
from . import functional
from .functional import *  # noqa: F401,F403
from .._core.registry import get_op, list_ops
from ..extend import register_op     # NNVM-style registration, built through the extension surface
from ..autograd import GradOperation, grad, value_and_grad
from .operations import *  # noqa: F401,F403  (MindSpore's primitive classes: ops.Add(), ops.MatMul() ...)
from .operations import Primitive, PrimitiveWithInfer, PrimitiveWithCheck, prim_attr_register
from .custom import Custom, CustomRegOp, DataType, custom_info_register, custom_op_report, custom_op_usage

# the hybrid DSL's decorators (ops.kernel, ops.ms_kernel) load on first use: see the lazy names at the end
from ._dynamic import ConvertToDynamic

# layers' ops (convolution, pooling, normalization, activations, random, creation)
from .nn.conv import conv1d, conv2d, conv2d_transpose
from .nn.pool import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from .nn.norm import batch_norm, group_norm, layer_norm
from .nn.activation_extra import dropout, erf, gelu, leaky_relu, relu6, silu
from .array.assign import assign, assign_add, assign_sub
from .nn import loss_fused as _loss_fused  # noqa: F401,E402  (fused sparse softmax cross entropy: nn losses)
from .array import setitem as _setitem  # noqa: F401,E402  (x[index] = value as a recorded op)
from .array.creation import (arange, argmax, argmin, cat, clamp, clip_by_value, full, gather, ones, split,
                             standard_normal, uniform, zeros)

from .graph_mode import kernels as _graph_kernels  # noqa: E402

_graph_kernels.install()        # ufunc / write-into / view kernels that graph-mode replays use
from .nn.pool import adaptive_max_pool2d
from ._print_ops import Print

# MindSpore's module paths that real code imports (mindspore.ops.operations._inner_ops, .custom_ops ...)
from . import _operations, operations as _operations_module  # noqa: E402
_operations.install(_operations_module)
_operations_module.Print = Print        # mindspore.ops.operations.Print: the same class

# more math, array and loss functions with MindSpore's names (math/elementwise_more.py, array/shape_more.py, nn/loss.py)
from .math.elementwise_more import *  # noqa: F401,F403,E402
from .math.elementwise_more import div  # noqa: E402  (ops.div(input, other, *, rounding_mode=None))
from .array.shape_more import *  # noqa: F401,F403,E402
from .nn.loss import *  # noqa: F401,F403,E402

# collective communication ops over MPI (mscustom.communication): differentiable, replayed by graph mode;
# imported on first use (AllGather, AllReduce, AlltoAll, Broadcast, ReduceOp, ReduceScatter: lazy names below)

# MindSpore's dot of two tensors of rank >= 2 (NumPy's N-D dot); Tensor.dot calls it
from .linalg.dot import dot  # noqa: E402

# batched products and the fused scaled-dot-product attention (nn.MultiheadAttention and the Transformer layers)
from .linalg.bmm import baddbmm, bmm  # noqa: E402
from .nn.attention import scaled_dot_product_attention  # noqa: E402
# functions with MindSpore 2.10's names: tril, triu, flip, isclose, outer, addmm, lerp, cdist ...
from ._ms_names_ops import *  # noqa: F401,F403,E402

# Functions laid out by concern (mscustom/ops/<concern>/): each package's __all__ is re-exported here when
# one of their names is first looked up (mscustom/_core/deferred.py): their hundreds of names cost more to
# import than the rest of mscustom, and most programs use few of them.
_CORE_NAMES = dict(globals())           # what the core bound before this point (see _load_concerns)


def _load_concerns():
    """Run the concern packages' ``__init__`` and re-export their ``__all__`` here (``from .math import *``
    and so on, in that order). A name that the core bound after this point in this file keeps that
    binding, as it would had the packages been imported eagerly at this point."""
    import sys
    namespace = globals()
    bound_later = {name for name, value in namespace.items() if value is not _CORE_NAMES.get(name, _CORE_NAMES)}
    _packages.finish()
    for concern in ("math", "array", "nn", "linalg", "random", "sparse", "spectral"):
        package = sys.modules[f"{__name__}.{concern}"]
        for name in package.__all__:
            if name not in bound_later:     # else bound later in this file: an eager import's later statement wins
                namespace[name] = getattr(package, name)


from .._core import deferred as _deferred  # noqa: E402
_deferred.add_loader(_load_concerns)

# Names imported on first use (mscustom/_lazy.py): MPI communication and the hybrid DSL stay unimported
# by programs that never touch them.
from .._lazy import lazy_attrs as _lazy_attrs, with_deferred as _with_deferred  # noqa: E402
__getattr__, __dir__ = _lazy_attrs(__name__, globals(), {
    **{name: ".comm.collective:" + name
       for name in ("AllGather", "AllReduce", "AlltoAll", "Broadcast", "ReduceOp", "ReduceScatter")},
    "kernel": ".custom.hybrid:kernel", "ms_kernel": ".custom.hybrid:ms_kernel",
})
# MindSpore 2.10's functional communication (ops.init_process_group, ops.all_reduce, ops.send ...), on first use
from . import distributed as _distributed  # noqa: E402
__getattr__.targets.update({name: ".distributed:" + name for name in _distributed.__all__})
# Function transforms (ops.vjp, ops.jvp, ops.vmap, ops.jacrev, ops.jacfwd, ops.derivative, ops.jet, ops.linearize).
from ..autograd_transforms import vjp, jvp, vmap, jacrev, jacfwd, derivative, jet, linearize  # noqa: E402


__getattr__, __dir__ = _with_deferred(__getattr__, __dir__, globals())
