"""Built-in ops and their functional forms, with MindSpore's names.

Each op is an OpDef registered through ``_builtin.defop`` with a shape rule, a
dtype rule, a NumPy kernel and a gradient built from ops (so gradients are
differentiable too). The functional wrappers only turn Python scalars into
Tensors and pack attributes; everything else happens in the dispatcher.
"""

import numpy as np

from .. import dtype as _dt
from .._core.dispatch import call
from ..tensor import Tensor, as_tensor
from ._builtin import (broadcast_shape, defop, normalize_axis, numeric_only, promote_types,
                       same_shape, same_type)

_NOATTR = {}


def _pair(x, y):
    """Both operands as Tensors; a Python scalar takes the other operand's dtype."""
    if type(x) is not Tensor:
        x = as_tensor(x, y if isinstance(y, Tensor) else None)
    if type(y) is not Tensor:
        y = as_tensor(y, x)
    return x, y


def _tensor(x, name):
    if isinstance(x, Tensor):
        return x
    try:
        return as_tensor(x)
    except (TypeError, ValueError):
        raise TypeError(f"op '{name}': input must be a Tensor, got {type(x).__name__}") from None


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
_SUB = defop("sub", 2, lambda a, i: np.subtract(i[0], i[1]), broadcast_shape("sub"), promote_types("sub"),
             lambda ins, outs, g, a: [sum_to(g[0], ins[0].shape), sum_to(neg(g[0]), ins[1].shape)],
             doc="x - y with broadcasting", arg_names=("x", "y"))
_MUL = defop("mul", 2, lambda a, i: np.multiply(i[0], i[1]), broadcast_shape("mul"), promote_types("mul"),
             lambda ins, outs, g, a: [sum_to(mul(g[0], ins[1]), ins[0].shape),
                                      sum_to(mul(g[0], ins[0]), ins[1].shape)],
             doc="x * y with broadcasting", arg_names=("x", "y"))


def _div_type(attrs, dtypes):
    out = np.result_type(*(d.np_dtype for d in dtypes))
    if out.kind != "f":                 # true division of integers gives float32, as in MindSpore
        out = np.dtype(np.float32)
    return dtypes, [_dt.from_numpy(out)]


def _div_compute(attrs, ins):
    out = np.true_divide(ins[0], ins[1])
    return out if out.dtype.kind != "f" or ins[0].dtype.kind == "f" or ins[1].dtype.kind == "f" \
        else out.astype(np.float32)


_DIV = defop("div", 2, _div_compute, broadcast_shape("div"), _div_type,
             lambda ins, outs, g, a: [sum_to(div(g[0], ins[1]), ins[0].shape),
                                      sum_to(neg(mul(g[0], div(outs[0], ins[1]))), ins[1].shape)],
             doc="x / y with broadcasting", arg_names=("x", "y"))
_NEG = defop("neg", 1, lambda a, i: np.negative(i[0]), same_shape, numeric_only("neg"),
             lambda ins, outs, g, a: [neg(g[0])], doc="-x", arg_names=("x",))


def add(x, y):
    """``x + y`` with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair(x, y)
    return call(_ADD, (x, y), _NOATTR)


def sub(x, y):
    """``x - y`` with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair(x, y)
    return call(_SUB, (x, y), _NOATTR)


def mul(x, y):
    """``x * y`` with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair(x, y)
    return call(_MUL, (x, y), _NOATTR)


def div(x, y):
    """``x / y`` (true division) with NumPy broadcasting."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = _pair(x, y)
    return call(_DIV, (x, y), _NOATTR)


def neg(x):
    """``-x``."""
    return call(_NEG, (_tensor(x, "neg"),), _NOATTR)


# ================================================================== dtype
def _cast_type(attrs, dtypes):
    return dtypes, [attrs["dtype"]]


_CAST = defop("cast", 1, lambda a, i: i[0].astype(a["dtype"].np_dtype), same_shape, _cast_type,
              lambda ins, outs, g, a: [cast(g[0], ins[0].dtype) if _dt.is_floating(ins[0].dtype) else None],
              doc="convert to another dtype", arg_names=("x",))


def cast(x, dtype):
    """``x`` converted to ``dtype`` (an ms dtype, a NumPy dtype or a name)."""
    return call(_CAST, (_tensor(x, "cast"),), {"dtype": _dt.dtype_from_any(dtype)})


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
    if isinstance(shape, int):
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


_BROADCAST_TO = defop("broadcast_to", 1,
                      lambda a, i: np.array(np.broadcast_to(i[0], _resolve(a["shape"], i[0].shape))),
                      _broadcast_to_shape, same_type,
                      lambda ins, outs, g, a: [sum_to(g[0], ins[0].shape)],
                      doc="broadcast to a larger shape", arg_names=("x",))


def _resolve(shape, src):
    lead = len(shape) - len(src)
    return tuple(src[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (-1 keeps that dimension)."""
    return call(_BROADCAST_TO, (_tensor(x, "broadcast_to"),), {"shape": tuple(int(s) for s in shape)})


# ================================================================== reductions
def _reduce_shape(name):
    def infer(attrs, shapes):
        src = shapes[0]
        axes = normalize_axis(name, attrs["axis"], len(src))
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


_REDUCE_SUM = defop(
    "reduce_sum", 1,
    lambda a, i: np.asarray(np.sum(i[0], axis=a["axis"], keepdims=a["keep_dims"],
                                   dtype=np.int64 if i[0].dtype == np.bool_ else i[0].dtype)),
    _reduce_shape("reduce_sum"), _sum_type,
    lambda ins, outs, g, a: [broadcast_to(reshape(g[0], _keep_shape(ins, a)), ins[0].shape)],
    doc="sum over axes", arg_names=("x",))


def _axis_attr(x, axis):
    if axis is None or axis == ():
        return None
    if isinstance(axis, list):
        axis = tuple(axis)
    return axis


def reduce_sum(x, axis=None, keep_dims=False):
    """Sum of ``x`` over ``axis`` (None: all axes)."""
    x = _tensor(x, "reduce_sum")
    return call(_REDUCE_SUM, (x,), {"axis": _axis_attr(x, axis), "keep_dims": bool(keep_dims)})


def sum(x, axis=None, keepdims=False):  # noqa: A001 - MindSpore's name
    """``ops.sum``: the same as ``reduce_sum``."""
    return reduce_sum(x, axis, keepdims)


def zeros_like(x):
    """A tensor of zeros with ``x``'s shape and dtype (no gradient flows)."""
    x = _tensor(x, "zeros_like")
    return Tensor._wrap(np.zeros_like(x._data), x._format)


def ones_like(x):
    """A tensor of ones with ``x``'s shape and dtype (no gradient flows)."""
    x = _tensor(x, "ones_like")
    return Tensor._wrap(np.ones_like(x._data), x._format)
