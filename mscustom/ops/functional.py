"""Built-in ops and their functional forms, with MindSpore's names.

Each op is an OpDef registered through ``_builtin.defop`` with a shape rule, a
dtype rule, a NumPy kernel and a gradient built from ops (so gradients are
differentiable too). The functional wrappers only turn Python scalars into
Tensors and pack attributes; validation lives in the shape and dtype rules,
which the dispatcher runs once per input signature and then caches.

The ops live in the concern packages (``math/elementwise.py``, ``math/reduce.py``,
``nn/activation.py`` ...); this module is the one public namespace of the core ones
(``mscustom.ops`` re-exports it, and ``Tensor`` methods call it). It is the top of
the op layer: op modules import each other directly, never this module's names at import.

Example::

    from mscustom import ops
    x = ms.Tensor([[1.0, -2.0], [3.0, 4.0]])
    ops.softmax(ops.matmul(x, x.T), axis=-1)
"""

from .math.elementwise import (abs, add, div, equal, exp, greater, greater_equal,  # noqa: A004
                        less, less_equal, log, matmul, maximum, minimum, mul, neg, not_equal, pow,
                        sign, sqrt, square, sub)
from .nn.activation import dense, log_softmax, one_hot, relu, relu_grad, sigmoid, softmax, tanh
from .array.shape import (broadcast_to, cast, concat, expand_dims, ones_like, reshape, squeeze, stack,
                         stop_gradient, sum_to, transpose, where, zeros_like)
from .math.reduce import (amax, amin, max, mean, min, reduce_max, reduce_mean, reduce_min,  # noqa: A004
                          reduce_sum, sum)
from .array.index import getitem, getitem_grad

__all__ = [
    # arithmetic
    "add", "sub", "mul", "div", "neg", "pow", "square",
    # elementwise math
    "exp", "log", "sqrt", "abs", "sign", "maximum", "minimum",
    # activations
    "relu", "sigmoid", "tanh", "softmax", "log_softmax",
    # comparisons
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    # dtype and constants
    "cast", "zeros_like", "ones_like", "stop_gradient", "where", "one_hot",
    # shapes
    "reshape", "broadcast_to", "expand_dims", "squeeze", "transpose", "concat", "stack",
    # linear algebra
    "matmul", "dense",
    # reductions
    "reduce_sum", "sum", "reduce_mean", "mean", "reduce_max", "amax", "max",
    "reduce_min", "amin", "min",
    # indexing
    "getitem",
    # building blocks of gradients (differentiable themselves)
    "sum_to", "relu_grad", "getitem_grad",
]

from .._core.registry import register_function as _register_function  # noqa: E402

for _name in __all__:
    _register_function(_name, globals()[_name])
del _name
