"""Built-in ops and their functional forms, with MindSpore's names.

Each op is an OpDef registered through ``_builtin.defop`` with a shape rule, a
dtype rule, a NumPy kernel and a gradient built from ops (so gradients are
differentiable too). The functional wrappers only turn Python scalars into
Tensors and pack attributes; validation lives in the shape and dtype rules,
which the dispatcher runs once per input signature and then caches.

Sections: helpers, arithmetic, elementwise math, activations, comparisons,
dtype and constants, shapes, matmul, reductions, indexing.

Example::

    from mscustom import ops
    x = ms.Tensor([[1.0, -2.0], [3.0, 4.0]])
    ops.softmax(ops.matmul(x, x.T), axis=-1)
"""

import builtins as _bi

import numpy as np

from .. import dtype as _dt
from .._core.dispatch import call
from ..tensor import Tensor, as_tensor
from ._builtin import (broadcast_shape, compare_type, defop, float_only, insert_axis,
                       normalize_axis, numeric_only, numeric_promote, promote_types, result_dtype,
                       same_shape, same_type)

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
    "matmul",
    # reductions
    "reduce_sum", "sum", "reduce_mean", "mean", "reduce_max", "amax", "max",
    "reduce_min", "amin", "min",
    # indexing
    "getitem",
    # helper for gradients
    "sum_to",
]

_NOATTR = {}


# ================================================================== helpers
def _pair(x, y):
    """Both operands as Tensors; a Python scalar takes the other operand's dtype."""
    if type(x) is not Tensor:
        x = as_tensor(x, y if isinstance(y, Tensor) else None)
    if type(y) is not Tensor:
        y = as_tensor(y, x)
    return x, y


def _pair_named(x, y, name):
    """``_pair`` with an error naming the op when an operand is not a number or array."""
    try:
        return _pair(x, y)
    except (TypeError, ValueError) as exc:
        bad = y if isinstance(x, Tensor) else x
        raise TypeError(f"op '{name}': operands must be Tensors, arrays or numbers, "
                        f"got {type(bad).__name__} ({exc})") from None


def _tensor(x, name):
    if isinstance(x, Tensor):
        return x
    try:
        return as_tensor(x)
    except (TypeError, ValueError):
        raise TypeError(f"op '{name}': input must be a Tensor, got {type(x).__name__}") from None


def _flt(t):
    """True when ``t`` is a floating-point tensor (only those carry gradients)."""
    return t._data.dtype.kind == "f"


def sum_to(g, shape):
    """Reduce a broadcast gradient ``g`` back to ``shape`` (differentiable)."""
    shape = tuple(shape)
    gshape = g._data.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and gshape[i + lead] != 1)
    if axes:
        g = reduce_sum(g, axes, False)
    if g._data.shape != shape:
        g = reshape(g, shape)
    return g


# ================================================================== arithmetic
_ADD = defop("add", 2, lambda a, i: np.add(i[0], i[1]), broadcast_shape("add"), promote_types("add"),
             lambda ins, outs, g, a: [sum_to(g[0], ins[0].shape), sum_to(g[0], ins[1].shape)],
             doc="x + y with broadcasting", arg_names=("x", "y"))
_SUB = defop("sub", 2, lambda a, i: np.subtract(i[0], i[1]), broadcast_shape("sub"), numeric_promote("sub"),
             lambda ins, outs, g, a: [sum_to(g[0], ins[0].shape), sum_to(neg(g[0]), ins[1].shape)],
             doc="x - y with broadcasting", arg_names=("x", "y"))
_MUL = defop("mul", 2, lambda a, i: np.multiply(i[0], i[1]), broadcast_shape("mul"), promote_types("mul"),
             lambda ins, outs, g, a: [sum_to(mul(g[0], ins[1]), ins[0].shape),
                                      sum_to(mul(g[0], ins[0]), ins[1].shape)],
             doc="x * y with broadcasting", arg_names=("x", "y"))


def _div_type(attrs, dtypes):
    out = result_dtype([d.np_dtype for d in dtypes])
    if out.kind != "f":                 # true division of integers gives float32, as in MindSpore
        out = np.dtype(np.float32)
    return dtypes, [_dt.from_numpy(out)]


def _div_grad(ins, outs, g, a):
    x, y = ins
    gx = sum_to(div(g[0], y), x.shape)
    gy = sum_to(neg(mul(g[0], div(outs[0], y))), y.shape) if _flt(y) else None
    return [gx, gy]


_DIV = defop("div", 2, lambda a, i: np.true_divide(i[0], i[1]), broadcast_shape("div"), _div_type,
             _div_grad, doc="x / y with broadcasting", arg_names=("x", "y"))
_NEG = defop("neg", 1, lambda a, i: np.negative(i[0]), same_shape, numeric_only("neg"),
             lambda ins, outs, g, a: [neg(g[0])], doc="-x", arg_names=("x",))
_SQUARE = defop("square", 1, lambda a, i: np.square(i[0]), same_shape, numeric_only("square"),
                lambda ins, outs, g, a: [mul(g[0], mul(ins[0], 2))], doc="x * x", arg_names=("x",))


def add(x, y):
    """``x + y`` with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "add")
    return call(_ADD, (x, y), _NOATTR)


def sub(x, y):
    """``x - y`` with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "sub")
    return call(_SUB, (x, y), _NOATTR)


def mul(x, y):
    """``x * y`` with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "mul")
    return call(_MUL, (x, y), _NOATTR)


def div(x, y):
    """``x / y`` (true division) with NumPy broadcasting; integers divide to float32."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "div")
    return call(_DIV, (x, y), _NOATTR)


def neg(x):
    """``-x``."""
    if type(x) is not Tensor:
        x = _tensor(x, "neg")
    return call(_NEG, (x,), _NOATTR)


def square(x):
    """``x * x`` elementwise."""
    if type(x) is not Tensor:
        x = _tensor(x, "square")
    return call(_SQUARE, (x,), _NOATTR)


# ------------------------------------------------------------------ pow
def _pow_compute(attrs, ins):
    try:
        return np.power(ins[0], ins[1])
    except ValueError as exc:          # integers to negative integer powers
        raise ValueError(f"op 'pow': {exc} Cast the base to a float type first.") from None


def _pow_grad(ins, outs, g, a):
    x, y = ins
    gx = gy = None
    if _flt(x):
        gx = sum_to(mul(g[0], mul(y, pow(x, sub(y, 1)))), x.shape)
    if _flt(y):
        # d/dy x**y = x**y * log(x); defined here for x > 0 and taken as 0 elsewhere
        positive = greater(x, 0)
        safe_log = log(where(positive, x, ones_like(x))) if _flt(x) else log(cast(where(positive, x, 1), y.dtype))
        gy = sum_to(mul(g[0], mul(outs[0], safe_log)), y.shape)
    return [gx, gy]


_POW = defop("pow", 2, _pow_compute, broadcast_shape("pow"), numeric_promote("pow"), _pow_grad,
             doc="x ** y with broadcasting", arg_names=("x", "y"))


def _pow_scalar_type(attrs, dtypes):
    d, e = dtypes[0], attrs["exponent"]
    if d.name == "bool":
        raise TypeError("op 'pow': the base must be a number type, got bool")
    if _dt.is_floating(d):
        return dtypes, [d]
    if attrs["float_exponent"]:
        return dtypes, [_dt.float32]
    if e < 0:
        raise ValueError(f"op 'pow': an integer tensor ({d.name}) cannot be raised to the negative "
                         f"integer power {e}; cast it to a float type first")
    return dtypes, [d]


def _pow_scalar_grad(ins, outs, g, a):
    x, e = ins[0], a["exponent"]
    if not _flt(x):
        return [None]
    if e == 0:                          # constant: no log(x), no 0 * inf at x == 0
        return [zeros_like(x)]
    if e == 1:
        return [g[0]]
    if e == 2:
        return [mul(g[0], mul(x, 2))]
    return [mul(g[0], mul(pow(x, e - 1), e))]


_POW_SCALAR = defop("pow_scalar", 1, lambda a, i: np.power(i[0], a["exponent"]), same_shape,
                    _pow_scalar_type, _pow_scalar_grad,
                    doc="x ** exponent for a constant Python number exponent", arg_names=("x",))


def pow(x, y):  # noqa: A001 - MindSpore's name
    """``x ** y`` elementwise with broadcasting.

    A Python number exponent is an attribute of the op (``pow_scalar``), so its
    gradient never takes ``log(x)`` and stays finite for negative bases. For a
    tensor exponent, the exponent's gradient ``x**y * log(x)`` is taken as 0 where
    ``x <= 0``.

    Example::

        ops.pow(ms.Tensor([-2.0, 3.0]), 2)      # [4., 9.]
    """
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        if isinstance(y, np.number):
            y = y.item()
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            return call(_POW_SCALAR, (x,), {"exponent": y, "float_exponent": isinstance(y, float)})
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "pow")
    return call(_POW, (x, y), _NOATTR)


# ================================================================== elementwise math
def _unary(name, compute, type_rule, gradient, doc):
    return defop(name, 1, compute, same_shape, type_rule, gradient, doc=doc, arg_names=("x",))


_EXP = _unary("exp", lambda a, i: np.exp(i[0]), float_only("exp"),
              lambda ins, outs, g, a: [mul(g[0], outs[0])], "e ** x")
_LOG = _unary("log", lambda a, i: np.log(i[0]), float_only("log"),
              lambda ins, outs, g, a: [div(g[0], ins[0])], "natural logarithm")
_SQRT = _unary("sqrt", lambda a, i: np.sqrt(i[0]), float_only("sqrt"),
               lambda ins, outs, g, a: [div(g[0], mul(outs[0], 2))], "square root")
_SIGN = _unary("sign", lambda a, i: np.sign(i[0]), numeric_only("sign"),
               lambda ins, outs, g, a: [None], "-1, 0 or 1 by the sign of x (no gradient)")
_ABS = _unary("abs", lambda a, i: np.abs(i[0]), numeric_only("abs"),
              lambda ins, outs, g, a: [mul(g[0], sign(ins[0]))], "|x| (gradient 0 at 0)")


def exp(x):
    """``e ** x`` elementwise (float tensors only)."""
    if type(x) is not Tensor:
        x = _tensor(x, "exp")
    return call(_EXP, (x,), _NOATTR)


def log(x):
    """Natural logarithm elementwise (float tensors only)."""
    if type(x) is not Tensor:
        x = _tensor(x, "log")
    return call(_LOG, (x,), _NOATTR)


def sqrt(x):
    """Square root elementwise (float tensors only)."""
    if type(x) is not Tensor:
        x = _tensor(x, "sqrt")
    return call(_SQRT, (x,), _NOATTR)


def sign(x):
    """-1, 0 or 1 by the sign of each element; not differentiable (gradient None)."""
    if type(x) is not Tensor:
        x = _tensor(x, "sign")
    return call(_SIGN, (x,), _NOATTR)


def abs(x):  # noqa: A001 - MindSpore's name
    """``|x|`` elementwise; the gradient at 0 is 0."""
    if type(x) is not Tensor:
        x = _tensor(x, "abs")
    return call(_ABS, (x,), _NOATTR)


def _minmax_grad(pick_first):
    """Gradient of maximum/minimum: ties go to the first input."""
    def gradient(ins, outs, g, a):
        x, y = ins
        mask = cast(pick_first(x, y), g[0].dtype)
        gx = mul(g[0], mask)
        return [sum_to(gx, x.shape) if _flt(x) else None,
                sum_to(sub(g[0], gx), y.shape) if _flt(y) else None]
    return gradient


_MAXIMUM = defop("maximum", 2, lambda a, i: np.maximum(i[0], i[1]), broadcast_shape("maximum"),
                 promote_types("maximum"), _minmax_grad(lambda x, y: greater_equal(x, y)),
                 doc="elementwise maximum; where x == y the gradient goes to x",
                 arg_names=("x", "y"))
_MINIMUM = defop("minimum", 2, lambda a, i: np.minimum(i[0], i[1]), broadcast_shape("minimum"),
                 promote_types("minimum"), _minmax_grad(lambda x, y: less_equal(x, y)),
                 doc="elementwise minimum; where x == y the gradient goes to x",
                 arg_names=("x", "y"))


def maximum(x, y):
    """Elementwise maximum with broadcasting; at ties the gradient goes to ``x``."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "maximum")
    return call(_MAXIMUM, (x, y), _NOATTR)


def minimum(x, y):
    """Elementwise minimum with broadcasting; at ties the gradient goes to ``x``."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "minimum")
    return call(_MINIMUM, (x, y), _NOATTR)


# ================================================================== activations
_RELU_GRAD = defop("relu_grad", 2, lambda a, i: np.multiply(i[0], i[1] > 0), same_shape, same_type,
                   lambda ins, outs, g, a: [relu_grad(g[0], ins[1]), None],
                   doc="dy * (x > 0): the gradient of relu", arg_names=("dy", "x"))
_RELU = _unary("relu", lambda a, i: np.maximum(i[0], 0), numeric_only("relu"),
               lambda ins, outs, g, a: [relu_grad(g[0], ins[0])], "max(x, 0)")


def relu_grad(dy, x):
    """``dy * (x > 0)``: relu's gradient as an op, so it is differentiable again."""
    return call(_RELU_GRAD, (dy, x), _NOATTR)


def _sigmoid_compute(attrs, ins):
    x = ins[0]
    e = np.exp(-np.abs(x))              # never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


_SIGMOID = _unary("sigmoid", _sigmoid_compute, float_only("sigmoid"),
                  lambda ins, outs, g, a: [mul(g[0], mul(outs[0], sub(1, outs[0])))],
                  "1 / (1 + exp(-x)), computed without overflow")
_TANH = _unary("tanh", lambda a, i: np.tanh(i[0]), float_only("tanh"),
               lambda ins, outs, g, a: [mul(g[0], sub(1, square(outs[0])))], "hyperbolic tangent")


def relu(x):
    """``max(x, 0)`` elementwise; the gradient at 0 is 0."""
    if type(x) is not Tensor:
        x = _tensor(x, "relu")
    return call(_RELU, (x,), _NOATTR)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` elementwise (float tensors only)."""
    if type(x) is not Tensor:
        x = _tensor(x, "sigmoid")
    return call(_SIGMOID, (x,), _NOATTR)


def tanh(x):
    """Hyperbolic tangent elementwise (float tensors only)."""
    if type(x) is not Tensor:
        x = _tensor(x, "tanh")
    return call(_TANH, (x,), _NOATTR)


def _axis_shape(name):
    """FInferShape for ops that keep the shape and work along ``attrs['axis']``."""
    def infer(attrs, shapes):
        normalize_axis(name, attrs["axis"], len(shapes[0]))
        return shapes, [list(shapes[0])]
    return infer


def _softmax_compute(attrs, ins):
    x, axis = ins[0], attrs["axis"]
    if x.size == 0:
        return x.copy()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_compute(attrs, ins):
    x, axis = ins[0], attrs["axis"]
    if x.size == 0:
        return x.copy()
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _softmax_grad(ins, outs, g, a):
    y = outs[0]
    return [mul(y, sub(g[0], reduce_sum(mul(g[0], y), a["axis"], True)))]


def _log_softmax_grad(ins, outs, g, a):
    return [sub(g[0], mul(exp(outs[0]), reduce_sum(g[0], a["axis"], True)))]


_SOFTMAX = defop("softmax", 1, _softmax_compute, _axis_shape("softmax"), float_only("softmax"),
                 _softmax_grad, doc="exp(x) / sum(exp(x)) along axis", arg_names=("x",))
_LOG_SOFTMAX = defop("log_softmax", 1, _log_softmax_compute, _axis_shape("log_softmax"),
                     float_only("log_softmax"), _log_softmax_grad,
                     doc="x - log(sum(exp(x))) along axis", arg_names=("x",))


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)``, computed stably (float tensors only).

    Example::

        ops.softmax(ms.Tensor([1.0, 2.0, 3.0]))     # [0.090, 0.245, 0.665]
    """
    if type(x) is not Tensor:
        x = _tensor(x, "softmax")
    return call(_SOFTMAX, (x,), {"axis": _axis_attr(axis)})


def log_softmax(x, axis=-1):
    """``x - log(sum(exp(x), axis))``, computed stably (float tensors only)."""
    if type(x) is not Tensor:
        x = _tensor(x, "log_softmax")
    return call(_LOG_SOFTMAX, (x,), {"axis": _axis_attr(axis)})


# ================================================================== comparisons
def _no_grad(ins, outs, g, a):
    return [None] * len(ins)


def _comparison(name, ufunc, doc):
    return defop(name, 2, lambda a, i: ufunc(i[0], i[1]), broadcast_shape(name), compare_type(name),
                 _no_grad, doc=doc, arg_names=("x", "y"))


_EQUAL = _comparison("equal", np.equal, "x == y (bool, no gradient)")
_NOT_EQUAL = _comparison("not_equal", np.not_equal, "x != y (bool, no gradient)")
_LESS = _comparison("less", np.less, "x < y (bool, no gradient)")
_LESS_EQUAL = _comparison("less_equal", np.less_equal, "x <= y (bool, no gradient)")
_GREATER = _comparison("greater", np.greater, "x > y (bool, no gradient)")
_GREATER_EQUAL = _comparison("greater_equal", np.greater_equal, "x >= y (bool, no gradient)")


def equal(x, y):
    """``x == y`` elementwise with broadcasting; a bool tensor."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "equal")
    return call(_EQUAL, (x, y), _NOATTR)


def not_equal(x, y):
    """``x != y`` elementwise with broadcasting; a bool tensor."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "not_equal")
    return call(_NOT_EQUAL, (x, y), _NOATTR)


def less(x, y):
    """``x < y`` elementwise with broadcasting; a bool tensor."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "less")
    return call(_LESS, (x, y), _NOATTR)


def less_equal(x, y):
    """``x <= y`` elementwise with broadcasting; a bool tensor."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "less_equal")
    return call(_LESS_EQUAL, (x, y), _NOATTR)


def greater(x, y):
    """``x > y`` elementwise with broadcasting; a bool tensor."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "greater")
    return call(_GREATER, (x, y), _NOATTR)


def greater_equal(x, y):
    """``x >= y`` elementwise with broadcasting; a bool tensor."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "greater_equal")
    return call(_GREATER_EQUAL, (x, y), _NOATTR)


# ================================================================== dtype and constants
def _cast_type(attrs, dtypes):
    return dtypes, [attrs["dtype"]]


_CAST = defop("cast", 1, lambda a, i: i[0].astype(a["dtype"].np_dtype), same_shape, _cast_type,
              lambda ins, outs, g, a: [cast(g[0], ins[0].dtype) if _flt(ins[0]) else None],
              doc="convert to another dtype", arg_names=("x",))


def cast(x, dtype):
    """``x`` converted to ``dtype`` (an ms dtype, a NumPy dtype or a name)."""
    return call(_CAST, (_tensor(x, "cast"),), {"dtype": _dt.dtype_from_any(dtype)})


_ZEROS_LIKE = _unary("zeros_like", lambda a, i: np.zeros_like(i[0]), same_type, _no_grad,
                     "zeros with x's shape and dtype (no gradient)")
_ONES_LIKE = _unary("ones_like", lambda a, i: np.ones_like(i[0]), same_type, _no_grad,
                    "ones with x's shape and dtype (no gradient)")
_STOP_GRADIENT = _unary("stop_gradient", lambda a, i: i[0], same_type, _no_grad,
                        "x itself, with no gradient flowing back through it")


def zeros_like(x):
    """A tensor of zeros with ``x``'s shape and dtype (no gradient flows)."""
    if type(x) is not Tensor:
        x = _tensor(x, "zeros_like")
    return call(_ZEROS_LIKE, (x,), _NOATTR)


def ones_like(x):
    """A tensor of ones with ``x``'s shape and dtype (no gradient flows)."""
    if type(x) is not Tensor:
        x = _tensor(x, "ones_like")
    return call(_ONES_LIKE, (x,), _NOATTR)


def stop_gradient(x):
    """``x`` unchanged, but gradients do not flow back through it.

    Example::

        ms.grad(lambda x: (x * ops.stop_gradient(x)).sum())(x)    # == x, not 2 * x
    """
    if type(x) is not Tensor:
        x = _tensor(x, "stop_gradient")
    return call(_STOP_GRADIENT, (x,), _NOATTR)


def _where_type(attrs, dtypes):
    if dtypes[0].name != "bool":
        raise TypeError(f"op 'where': the condition must be a bool tensor, got {dtypes[0].name}")
    return dtypes, [_dt.from_numpy(result_dtype([dtypes[1].np_dtype, dtypes[2].np_dtype]))]


def _where_grad(ins, outs, g, a):
    c, x, y = ins
    zero = zeros_like(g[0])
    return [None,
            sum_to(where(c, g[0], zero), x.shape) if _flt(x) else None,
            sum_to(where(c, zero, g[0]), y.shape) if _flt(y) else None]


_WHERE = defop("where", 3, lambda a, i: np.where(i[0], i[1], i[2]), broadcast_shape("where"), _where_type,
               _where_grad, doc="x where condition else y, with broadcasting",
               arg_names=("condition", "x", "y"))


def where(condition, x, y):
    """Elements of ``x`` where ``condition`` is True, else of ``y`` (all broadcast together)."""
    condition = _tensor(condition, "where")
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "where")
    return call(_WHERE, (condition, x, y), _NOATTR)


def _one_hot_shape(attrs, shapes):
    depth = attrs["depth"]
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"op 'one_hot': depth must be a non-negative int, got {depth!r}")
    out = list(shapes[0])
    out.insert(insert_axis("one_hot", attrs["axis"], len(out)), depth)
    return shapes, [out]


def _one_hot_type(attrs, dtypes):
    if not _dt.is_integral(dtypes[0]) or dtypes[0].name == "bool":
        raise TypeError(f"op 'one_hot': indices must be an integer tensor, got {dtypes[0].name}")
    return dtypes, [attrs["dtype"]]


def _one_hot_compute(attrs, ins):
    idx, depth = ins[0], attrs["depth"]
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, attrs["on"], attrs["off"]).astype(attrs["dtype"].np_dtype, copy=False)
    axis = attrs["axis"]
    if axis != -1 and axis != idx.ndim:
        out = np.ascontiguousarray(np.moveaxis(out, -1, axis))
    return out


_ONE_HOT = defop("one_hot", 1, _one_hot_compute, _one_hot_shape, _one_hot_type, _no_grad,
                 doc="one-hot encoding of integer indices", arg_names=("indices",))


def _scalar_value(v, name):
    if isinstance(v, Tensor):
        if v._data.size != 1:
            raise ValueError(f"op 'one_hot': {name} must hold one value, got shape {list(v.shape)}")
        return v._data.item(), v.dtype
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
        raise TypeError(f"op 'one_hot': {name} must be a number or a one-element Tensor, got {v!r}")
    v = v.item() if isinstance(v, np.number) else v
    return v, (_dt.float32 if isinstance(v, float) else _dt.int64)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding: ``on_value`` where the index equals the position, ``off_value`` elsewhere.

    The new axis of size ``depth`` goes at ``axis``. Indices outside ``[0, depth)``
    give a row of ``off_value``. The output dtype is ``on_value``'s (a Tensor's
    dtype; float32 for a Python float, int64 for a Python int, float32 if either
    value is a float).

    Example::

        ops.one_hot(ms.Tensor([0, 2]), 3, 1.0, 0.0)    # [[1, 0, 0], [0, 0, 1]] float32
    """
    indices = _tensor(indices, "one_hot")
    on, on_dt = _scalar_value(on_value, "on_value")
    off, off_dt = _scalar_value(off_value, "off_value")
    dtype = on_dt if isinstance(on_value, Tensor) else (
        _dt.float32 if _dt.is_floating(on_dt) or _dt.is_floating(off_dt) else on_dt)
    if isinstance(depth, Tensor):
        depth = int(depth)
    return call(_ONE_HOT, (indices,), {"depth": depth, "on": on, "off": off, "axis": axis,
                                       "dtype": dtype})


# ================================================================== shapes
def _reshape_shape(attrs, shapes):
    src, target = list(shapes[0]), list(attrs["shape"])
    size = int(np.prod(src, dtype=np.int64))
    unknown = [i for i, s in enumerate(target) if s == -1]
    known = int(np.prod([s for s in target if s != -1], dtype=np.int64))
    ok = len(unknown) <= 1 and all(s >= 0 or s == -1 for s in target)
    if ok and unknown:
        ok = known > 0 and size % known == 0
        if ok:
            target[unknown[0]] = size // known
    if not ok or int(np.prod(target, dtype=np.int64)) != size:
        raise ValueError(f"op 'reshape': cannot reshape a tensor of shape {src} "
                         f"into shape {list(attrs['shape'])}")
    return shapes, [target]


_RESHAPE = defop("reshape", 1, lambda a, i: i[0].reshape(a["shape"]), _reshape_shape, same_type,
                 lambda ins, outs, g, a: [reshape(g[0], ins[0].shape)],
                 doc="same data, another shape", arg_names=("x",))


def reshape(x, shape):
    """``x`` with a new shape (one dimension may be -1)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return call(_RESHAPE, (_tensor(x, "reshape"),), {"shape": tuple(int(s) for s in shape)})


def _broadcast_to_shape(attrs, shapes):
    target = list(attrs["shape"])
    src = shapes[0]
    if len(target) < len(src):
        raise ValueError(f"op 'broadcast_to': cannot broadcast shape {list(src)} to {target}")
    lead = len(target) - len(src)
    target = [src[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(target)]
    try:
        out = np.broadcast_shapes(tuple(src), tuple(target))
    except ValueError:
        out = None
    if out is None or list(out) != target:
        raise ValueError(f"op 'broadcast_to': cannot broadcast shape {list(src)} to {list(attrs['shape'])}")
    return shapes, [target]


def _resolve(shape, src):
    lead = len(shape) - len(src)
    return tuple(src[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))


_BROADCAST_TO = defop("broadcast_to", 1,
                      lambda a, i: np.array(np.broadcast_to(i[0], _resolve(a["shape"], i[0].shape))),
                      _broadcast_to_shape, same_type,
                      lambda ins, outs, g, a: [sum_to(g[0], ins[0].shape)],
                      doc="broadcast to a larger shape", arg_names=("x",))


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (-1 keeps that dimension)."""
    return call(_BROADCAST_TO, (_tensor(x, "broadcast_to"),), {"shape": tuple(int(s) for s in shape)})


def _back_to_input_shape(ins, outs, g, a):
    return [reshape(g[0], ins[0].shape)]


def _expand_dims_shape(attrs, shapes):
    out = list(shapes[0])
    out.insert(insert_axis("expand_dims", attrs["axis"], len(out)), 1)
    return shapes, [out]


_EXPAND_DIMS = defop("expand_dims", 1, lambda a, i: np.expand_dims(i[0], a["axis"]),
                     _expand_dims_shape, same_type, _back_to_input_shape,
                     doc="insert an axis of size 1", arg_names=("x",))


def expand_dims(x, axis):
    """``x`` with a new axis of size 1 at ``axis`` (``-ndim-1 <= axis <= ndim``)."""
    return call(_EXPAND_DIMS, (_tensor(x, "expand_dims"),), {"axis": axis})


def _squeeze_shape(attrs, shapes):
    src = shapes[0]
    if attrs["axis"] is None:
        return shapes, [[s for s in src if s != 1]]
    axes = normalize_axis("squeeze", attrs["axis"], len(src))
    for ax in axes:
        if src[ax] != 1:
            raise ValueError(f"op 'squeeze': cannot squeeze axis {ax} of a tensor of shape {list(src)}: "
                             f"its size is {src[ax]}, not 1")
    return shapes, [[s for i, s in enumerate(src) if i not in axes]]


_SQUEEZE = defop("squeeze", 1, lambda a, i: np.squeeze(i[0], a["axis"]), _squeeze_shape, same_type,
                 _back_to_input_shape, doc="remove axes of size 1", arg_names=("x",))


def squeeze(x, axis=None):
    """``x`` without its size-1 axes (all of them, or those in ``axis``)."""
    if isinstance(axis, list):
        axis = tuple(axis)
    return call(_SQUEEZE, (_tensor(x, "squeeze"),), {"axis": axis})


def _transpose_shape(attrs, shapes):
    src, perm = shapes[0], attrs["perm"]
    if perm is None:
        return shapes, [src[::-1]]
    bad = len(perm) != len(src) or not _bi.all(isinstance(p, int) for p in perm)
    if not bad:
        norm = [p % len(src) if -len(src) <= p < len(src) else -1 for p in perm]
        bad = sorted(norm) != list(range(len(src)))
    if bad:
        raise ValueError(f"op 'transpose': perm {list(perm)} is not a permutation of the "
                         f"{len(src)} axes of a tensor of shape {list(src)}")
    return shapes, [[src[p] for p in perm]]


def _transpose_grad(ins, outs, g, a):
    perm = a["perm"]
    if perm is None:
        return [transpose(g[0])]
    ndim = len(perm)
    return [transpose(g[0], tuple(int(i) for i in np.argsort([p % ndim for p in perm])))]


_TRANSPOSE = defop("transpose", 1, lambda a, i: np.ascontiguousarray(np.transpose(i[0], a["perm"])),
                   _transpose_shape, same_type, _transpose_grad,
                   doc="permute the axes", arg_names=("x",))


def transpose(x, perm=None):
    """``x`` with its axes permuted by ``perm`` (None: reversed, as ``x.T``)."""
    if perm is not None:
        perm = tuple(int(p) for p in perm)
    return call(_TRANSPOSE, (_tensor(x, "transpose"),), {"perm": perm})


def _tensors(values, name):
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"op '{name}': expects a list or tuple of tensors, got {type(values).__name__}")
    if not values:
        raise ValueError(f"op '{name}': needs at least one tensor, got an empty {type(values).__name__}")
    return tuple(_tensor(v, name) for v in values)


def _concat_shape(attrs, shapes):
    ranks = {len(s) for s in shapes}
    listed = ", ".join(str(list(s)) for s in shapes)
    if len(ranks) != 1 or 0 in ranks:
        raise ValueError(f"op 'concat': all inputs need the same rank of at least 1, got shapes {listed}")
    ax = normalize_axis("concat", attrs["axis"], len(shapes[0]))[0]
    first = shapes[0]
    for s in shapes[1:]:
        if any(a != b for i, (a, b) in enumerate(zip(first, s)) if i != ax):
            raise ValueError(f"op 'concat': input shapes must match except along axis {ax}, got {listed}")
    out = list(first)
    out[ax] = int(np.sum([s[ax] for s in shapes]))
    return shapes, [out]


def _concat_grad(ins, outs, g, a):
    ax = normalize_axis("concat", a["axis"], g[0].ndim)[0]
    grads, start = [], 0
    for t in ins:
        n = t._data.shape[ax]
        if _flt(t):
            grads.append(_getitem(g[0], (_ALL,) * ax + (("s", start, start + n, None),), ()))
        else:
            grads.append(None)
        start += n
    return grads


_CONCAT = defop("concat", None, lambda a, i: np.concatenate(i, axis=a["axis"]), _concat_shape,
                promote_types("concat"), _concat_grad, doc="join tensors along an existing axis")


def concat(tensors, axis=0):
    """Join ``tensors`` along an existing ``axis``; shapes must match elsewhere."""
    return call(_CONCAT, _tensors(tensors, "concat"), {"axis": axis})


def _stack_shape(attrs, shapes):
    if any(s != shapes[0] for s in shapes):
        listed = ", ".join(str(list(s)) for s in shapes)
        raise ValueError(f"op 'stack': all inputs need the same shape, got {listed}")
    out = list(shapes[0])
    out.insert(insert_axis("stack", attrs["axis"], len(out)), len(shapes))
    return shapes, [out]


def _stack_grad(ins, outs, g, a):
    ax = insert_axis("stack", a["axis"], g[0].ndim - 1)
    return [_getitem(g[0], (_ALL,) * ax + (i,), ()) if _flt(t) else None for i, t in enumerate(ins)]


_STACK = defop("stack", None, lambda a, i: np.stack(i, axis=a["axis"]), _stack_shape,
               promote_types("stack"), _stack_grad, doc="join tensors along a new axis")


def stack(tensors, axis=0):
    """Join equally shaped ``tensors`` along a new ``axis``."""
    return call(_STACK, _tensors(tensors, "stack"), {"axis": axis})


# ================================================================== matmul
def _matmul_shape(attrs, shapes):
    a, b = shapes
    if not a or not b:
        raise ValueError(f"op 'matmul': inputs must have at least 1 dimension, got shapes {list(a)} "
                         f"and {list(b)}")
    a2 = [1] + list(a) if len(a) == 1 else list(a)
    b2 = list(b) + [1] if len(b) == 1 else list(b)
    if a2[-1] != b2[-2]:
        raise ValueError(f"op 'matmul': shapes {list(a)} and {list(b)} do not match: the contracted "
                         f"dimension of x is {a2[-1]}, of y {b2[-2]}")
    try:
        batch = list(np.broadcast_shapes(tuple(a2[:-2]), tuple(b2[:-2])))
    except ValueError:
        raise ValueError(f"op 'matmul': the batch dimensions of shapes {list(a)} and {list(b)} "
                         "cannot be broadcast together") from None
    out = batch + ([a2[-2]] if len(a) > 1 else []) + ([b2[-1]] if len(b) > 1 else [])
    return shapes, [out]


def _swap_last(t):
    n = t._data.ndim
    return transpose(t, tuple(range(n - 2)) + (n - 1, n - 2))


def _matmul_grad(ins, outs, g, a):
    x, y = ins
    gy = g[0]
    # work on 2-D+ forms: a 1-D x is a row (1, k), a 1-D y a column (k, 1)
    x2 = expand_dims(x, 0) if x.ndim == 1 else x
    y2 = expand_dims(y, -1) if y.ndim == 1 else y
    if y.ndim == 1:
        gy = expand_dims(gy, -1)
    if x.ndim == 1:
        gy = expand_dims(gy, -2)
    gx = gw = None
    if _flt(x):
        gx = reshape(sum_to(matmul(gy, _swap_last(y2)), x2.shape), x.shape)
    if _flt(y):
        gw = reshape(sum_to(matmul(_swap_last(x2), gy), y2.shape), y.shape)
    return [gx, gw]


_MATMUL = defop("matmul", 2, lambda a, i: np.matmul(i[0], i[1]), _matmul_shape, numeric_promote("matmul"),
                _matmul_grad, doc="matrix product with NumPy's 1-D and batch rules",
                arg_names=("x", "y"))


def matmul(x, y):
    """Matrix product as ``np.matmul``: 1-D operands are vectors, leading dims broadcast.

    Example::

        ops.matmul(ms.Tensor(np.ones((2, 3, 4), np.float32)), ms.Tensor(np.ones((4, 5), np.float32)))
    """
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair_named(x, y, "matmul")
    return call(_MATMUL, (x, y), _NOATTR)


# ================================================================== reductions
def _reduce_shape(name, needs_items=False):
    def infer(attrs, shapes):
        src = shapes[0]
        axes = normalize_axis(name, attrs["axis"], len(src))
        if needs_items:
            for ax in axes:
                if src[ax] == 0:
                    raise ValueError(f"op '{name}': cannot reduce axis {ax} of size 0 in a tensor of "
                                     f"shape {list(src)} (there is no identity for max/min)")
        if attrs["keep_dims"]:
            out = [1 if i in axes else s for i, s in enumerate(src)]
        else:
            out = [s for i, s in enumerate(src) if i not in axes]
        return shapes, [out]
    return infer


def _keep_shape(ins, attrs):
    """The reduced output's shape with the reduced axes kept as 1 (for broadcasting back)."""
    src = ins[0]._data.shape
    axes = normalize_axis("reduce", attrs["axis"], len(src))
    return tuple(1 if i in axes else s for i, s in enumerate(src))


def _sum_type(attrs, dtypes):
    d = dtypes[0]
    return dtypes, [_dt.int64 if d.name == "bool" else d]


def _mean_type(attrs, dtypes):
    d = dtypes[0]
    if d.name == "bool":
        raise TypeError("op 'reduce_mean': input must be a number type, got bool")
    return dtypes, [d if _dt.is_floating(d) else _dt.float32]


def _sum_grad(ins, outs, g, a):
    return [broadcast_to(reshape(g[0], _keep_shape(ins, a)), ins[0].shape)]


def _mean_grad(ins, outs, g, a):
    shape = ins[0]._data.shape
    count = int(np.prod([shape[i] for i in normalize_axis("reduce_mean", a["axis"], len(shape))],
                        dtype=np.int64))
    return [div(broadcast_to(reshape(g[0], _keep_shape(ins, a)), shape), _bi.max(count, 1))]


def _extreme_grad(ins, outs, g, a):
    """Gradient of max/min: split evenly among the elements equal to the extreme (ties share)."""
    x = ins[0]
    if not _flt(x):
        return [None]
    keep = _keep_shape(ins, a)
    mask = cast(equal(x, reshape(outs[0], keep)), x.dtype)
    count = reduce_sum(mask, a["axis"], True)
    return [div(mul(mask, reshape(g[0], keep)), count)]


_REDUCE_SUM = defop(
    "reduce_sum", 1,
    lambda a, i: np.asarray(np.sum(i[0], axis=a["axis"], keepdims=a["keep_dims"],
                                   dtype=np.int64 if i[0].dtype == np.bool_ else i[0].dtype)),
    _reduce_shape("reduce_sum"), _sum_type, _sum_grad, doc="sum over axes", arg_names=("x",))
_REDUCE_MEAN = defop(
    "reduce_mean", 1,
    lambda a, i: np.asarray(np.mean(i[0], axis=a["axis"], keepdims=a["keep_dims"],
                                    dtype=None if i[0].dtype.kind == "f" else np.float64)),
    _reduce_shape("reduce_mean"), _mean_type, _mean_grad, doc="mean over axes", arg_names=("x",))
_REDUCE_MAX = defop(
    "reduce_max", 1, lambda a, i: np.asarray(np.max(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
    _reduce_shape("reduce_max", True), same_type, _extreme_grad,
    doc="maximum over axes; the gradient is shared evenly among ties", arg_names=("x",))
_REDUCE_MIN = defop(
    "reduce_min", 1, lambda a, i: np.asarray(np.min(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
    _reduce_shape("reduce_min", True), same_type, _extreme_grad,
    doc="minimum over axes; the gradient is shared evenly among ties", arg_names=("x",))


def _axis_attr(axis):
    if axis is None or axis == ():
        return None
    if isinstance(axis, list):
        axis = tuple(axis)
    if isinstance(axis, np.integer):
        axis = int(axis)
    return axis


def reduce_sum(x, axis=None, keep_dims=False):
    """Sum of ``x`` over ``axis`` (None or (): all axes); bool sums to int64."""
    if type(x) is not Tensor:
        x = _tensor(x, "reduce_sum")
    return call(_REDUCE_SUM, (x,), {"axis": _axis_attr(axis), "keep_dims": bool(keep_dims)})


def sum(x, axis=None, keepdims=False):  # noqa: A001 - MindSpore's name
    """``ops.sum``: the same as ``reduce_sum``."""
    return reduce_sum(x, axis, keepdims)


def reduce_mean(x, axis=None, keep_dims=False):
    """Mean of ``x`` over ``axis`` (None or (): all axes); integers average to float32."""
    if type(x) is not Tensor:
        x = _tensor(x, "reduce_mean")
    return call(_REDUCE_MEAN, (x,), {"axis": _axis_attr(axis), "keep_dims": bool(keep_dims)})


def mean(x, axis=None, keep_dims=False):
    """``ops.mean``: the same as ``reduce_mean``."""
    return reduce_mean(x, axis, keep_dims)


def reduce_max(x, axis=None, keep_dims=False):
    """Maximum of ``x`` over ``axis``. The gradient is split evenly among tied maxima."""
    if type(x) is not Tensor:
        x = _tensor(x, "reduce_max")
    return call(_REDUCE_MAX, (x,), {"axis": _axis_attr(axis), "keep_dims": bool(keep_dims)})


def reduce_min(x, axis=None, keep_dims=False):
    """Minimum of ``x`` over ``axis``. The gradient is split evenly among tied minima."""
    if type(x) is not Tensor:
        x = _tensor(x, "reduce_min")
    return call(_REDUCE_MIN, (x,), {"axis": _axis_attr(axis), "keep_dims": bool(keep_dims)})


def amax(x, axis=None, keepdims=False):
    """``ops.amax``: the same as ``reduce_max``."""
    return reduce_max(x, axis, keepdims)


def amin(x, axis=None, keepdims=False):
    """``ops.amin``: the same as ``reduce_min``."""
    return reduce_min(x, axis, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001 - MindSpore's name
    """The maximum values over ``axis`` (as ``amax``; no indices are returned)."""
    return reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001 - MindSpore's name
    """The minimum values over ``axis`` (as ``amin``; no indices are returned)."""
    return reduce_min(x, axis, keepdims)


# ================================================================== indexing
# An index is encoded as a hashable structure (the op's "index" attribute) plus
# integer index arrays passed as extra inputs, so the plan cache is keyed by the
# arrays' shapes, not their values. Items: an int, None, Ellipsis,
# ("s", start, stop, step) for a slice, ("a", k) for index array k, and
# ("m", k, mask_shape) for a boolean mask turned into arrays k .. k+ndim-1
# (its np.nonzero), whose shape is checked against the indexed dimensions.
_ALL = ("s", None, None, None)


def _slice_part(v, what):
    if v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))):
        return None if v is None else int(v)
    if isinstance(v, Tensor):
        return v.__index__()
    raise TypeError(f"op 'getitem': a slice {what} must be an int or None, got {type(v).__name__}")


def _encode_index(index):
    items = index if type(index) is tuple else (index,)
    struct, arrays = [], []
    for it in items:
        if it is None or it is Ellipsis or type(it) is int:
            struct.append(it)
        elif type(it) is slice:
            struct.append(("s", _slice_part(it.start, "start"), _slice_part(it.stop, "stop"),
                           _slice_part(it.step, "step")))
        elif isinstance(it, (bool, np.bool_)):
            raise TypeError("op 'getitem': a bool scalar is not a supported index; "
                            "use a boolean tensor mask shaped like the indexed dimensions")
        elif isinstance(it, np.integer):
            struct.append(int(it))
        else:
            arr = it._data if isinstance(it, Tensor) else None
            if arr is None:
                try:
                    arr = np.asarray(it)
                except (TypeError, ValueError):
                    arr = np.asarray(None)
                if arr.size == 0 and arr.dtype.kind == "f":     # x[[]]
                    arr = arr.astype(np.int64)
            if arr.dtype == np.bool_ and arr.ndim > 0:
                struct.append(("m", len(arrays), tuple(arr.shape)))
                arrays.extend(np.nonzero(arr))
            elif arr.dtype.kind in "iu":
                struct.append(("a", len(arrays)))
                arrays.append(arr)
            else:
                raise TypeError("op 'getitem': an index must be an int, a slice, None, Ellipsis, or an "
                                f"integer or boolean array/tensor; got {type(it).__name__}"
                                + (f" of dtype {arr.dtype}" if arr.dtype != object else ""))
    return tuple(struct), arrays


def _build_index(struct, arrays):
    out = []
    for it in struct:
        if type(it) is tuple:
            tag = it[0]
            if tag == "s":
                out.append(slice(it[1], it[2], it[3]))
            elif tag == "a":
                out.append(arrays[it[1]])
            else:
                out.extend(arrays[it[1]:it[1] + len(it[2])])
        else:
            out.append(it)
    return tuple(out)


def _show_index(struct):
    parts = []
    for it in struct:
        if it is Ellipsis:
            parts.append("...")
        elif type(it) is tuple:
            if it[0] == "s":
                parts.append(":".join("" if v is None else str(v) for v in it[1:3]) +
                             ("" if it[3] is None else f":{it[3]}"))
            else:
                parts.append("<array>" if it[0] == "a" else f"<mask {list(it[2])}>")
        else:
            parts.append(str(it))
    return "[" + ", ".join(parts) + "]"


def _index_shape(struct, shape, array_shapes):
    """The result shape of indexing a tensor of ``shape``; IndexError naming the op otherwise."""
    ndim = len(shape)
    if _bi.sum(1 for it in struct if it is Ellipsis) > 1:
        raise IndexError(f"op 'getitem': an index can have only one Ellipsis, got {_show_index(struct)}")
    used = _bi.sum(len(it[2]) if type(it) is tuple and it[0] == "m" else 1
                   for it in struct if it is not None and it is not Ellipsis)
    if used > ndim:
        raise IndexError(f"op 'getitem': too many indices for a tensor of rank {ndim} "
                         f"(shape {list(shape)}): {_show_index(struct)}")
    pos = 0
    for it in struct:
        if it is Ellipsis:
            pos += ndim - used
        elif type(it) is tuple and it[0] == "m":
            got = tuple(shape[pos:pos + len(it[2])])
            if got != it[2]:
                raise IndexError(f"op 'getitem': a boolean mask of shape {list(it[2])} does not match "
                                 f"the indexed dimensions {list(got)} (tensor shape {list(shape)})")
            pos += len(it[2])
        elif it is not None:
            pos += 1
    dummy = np.broadcast_to(np.zeros((), np.int8), tuple(shape))
    try:
        return list(dummy[_build_index(struct, [np.zeros(s, np.intp) for s in array_shapes])].shape)
    except IndexError as exc:
        raise IndexError(f"op 'getitem': {exc} (tensor shape {list(shape)}, "
                         f"index {_show_index(struct)})") from None


def _getitem_shape(attrs, shapes):
    return shapes, [_index_shape(attrs["index"], shapes[0], shapes[1:])]


def _index_arrays_type(name):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes[1:], 1):
            if not _dt.is_integral(d) or d.name == "bool":
                raise TypeError(f"op '{name}': index input {i} must be an integer tensor, got {d.name}")
        return dtypes, [dtypes[0]]
    return infer


def _getitem_compute(attrs, ins):
    x = ins[0]
    try:
        r = x[_build_index(attrs["index"], ins[1:])]
    except IndexError as exc:           # index array values out of range
        raise IndexError(f"op 'getitem': {exc} (tensor shape {list(x.shape)})") from None
    return np.array(r, order="C")       # a copy: results never alias their input


def _getitem_grad(ins, outs, g, a):
    return [getitem_grad(g[0], a["index"], ins[0]._data.shape, ins[1:])] + [None] * (len(ins) - 1)


_GETITEM = defop("getitem", None, _getitem_compute, _getitem_shape, _index_arrays_type("getitem"),
                 _getitem_grad, doc="x[index]: basic, integer-array and boolean-mask indexing")


def _getitem_grad_shape(attrs, shapes):
    expect = _index_shape(attrs["index"], attrs["shape"], shapes[1:])
    if list(shapes[0]) != expect:
        raise ValueError(f"op 'getitem_grad': the gradient has shape {list(shapes[0])}, but indexing a "
                         f"tensor of shape {list(attrs['shape'])} gives shape {expect}")
    return shapes, [list(attrs["shape"])]


def _getitem_grad_compute(attrs, ins):
    g = ins[0]
    out = np.zeros(attrs["shape"], g.dtype)
    index = _build_index(attrs["index"], ins[1:])
    if len(ins) == 1:
        out[index] = g                  # basic indexing never selects an element twice
    else:
        np.add.at(out, index, g)        # repeated indices accumulate
    return out


_GETITEM_GRAD = defop("getitem_grad", None, _getitem_grad_compute, _getitem_grad_shape,
                      _index_arrays_type("getitem_grad"),
                      lambda ins, outs, g, a: [_getitem(g[0], a["index"], ins[1:])] + [None] * (len(ins) - 1),
                      doc="scatter-add a gradient back through x[index] (np.add.at semantics)")


def _getitem(x, struct, arrays):
    return call(_GETITEM, (x,) + tuple(arrays), {"index": struct})


def getitem_grad(g, index, shape, arrays=()):
    """Zeros of ``shape`` with ``g`` added at ``index`` (an encoded index), as ``np.add.at``."""
    return call(_GETITEM_GRAD, (g,) + tuple(arrays), {"index": index, "shape": tuple(shape)})


def getitem(x, index):
    """``x[index]`` with NumPy semantics: ints, slices, None, Ellipsis, integer arrays/lists and
    boolean masks. The result is a copy. The gradient scatters back with ``np.add.at`` semantics,
    so repeated integer indices accumulate.

    Example::

        x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        x[1, ::2]          # [3., 5.]
        x[x > 2]           # [3., 4., 5.]
    """
    if type(x) is not Tensor:
        x = _tensor(x, "getitem")
    if type(index) is int:
        return call(_GETITEM, (x,), {"index": (index,)})
    struct, arrays = _encode_index(index)
    if arrays:
        return call(_GETITEM, (x,) + tuple(Tensor._wrap(a) for a in arrays), {"index": struct})
    return call(_GETITEM, (x,), {"index": struct})
