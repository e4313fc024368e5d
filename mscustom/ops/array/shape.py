"""Shape and dtype ops: cast, constants, where, reshape, broadcast_to, expand_dims,
squeeze, transpose, concat, stack, and ``sum_to`` for broadcast gradients.

Example::

    ops.concat([x, ops.zeros_like(x)], axis=1).reshape(-1)
"""

import builtins as _bi

import numpy as np

from ... import dtype as _dt
from ..._core import primitives as _prim
from ..._core.dispatch import call
from ...tensor import Tensor
from ..._core.functions import functions as F  # the published functional ops, looked up at call time
from .._builtin import (NOATTR, broadcast_shape, defop, functional, insert_axis, is_float, no_grad,
                       normalize_axis, pair_named, promote_types, result_dtype, same_type,
                       tensor_arg, unary)
from .index import _ALL, _getitem

# Gradients are built from ops that may live in the other op modules; they
# reach them through ``F`` (mscustom.ops.functional), looked up at call time.


# ================================================================== helper for gradients
_SUM_TO_AXES = {}               # (gradient shape, target shape) -> axes to sum over


def sum_to(g, shape):
    """Reduce a broadcast gradient ``g`` back to ``shape`` (differentiable): one reduction, no copy."""
    shape = tuple(shape)
    gshape = g._data.shape
    if gshape == shape:
        return g
    axes = _SUM_TO_AXES.get((gshape, shape))
    if axes is None:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                          if s == 1 and gshape[i + lead] != 1)
        if len(_SUM_TO_AXES) > 4096:
            _SUM_TO_AXES.clear()
        _SUM_TO_AXES[(gshape, shape)] = axes
    if axes:
        g = F.reduce_sum(g, axes, False)
    if g._data.shape != shape:
        g = reshape(g, shape)
    return g


# ================================================================== dtype and constants
_CAST = _prim.CAST                      # defined in the core: backward casts gradients with it


def cast(x, dtype):
    """``x`` converted to ``dtype`` (an ms dtype, a NumPy dtype or a name)."""
    return call(_CAST, (tensor_arg(x, "cast"),), {"dtype": _dt.dtype_from_any(dtype)})


_ZEROS_LIKE = unary("zeros_like", lambda a, i: np.zeros_like(i[0]), same_type, no_grad,
                    "zeros with x's shape and dtype (no gradient)")
_ONES_LIKE = unary("ones_like", lambda a, i: np.ones_like(i[0]), same_type, no_grad,
                   "ones with x's shape and dtype (no gradient)")
_STOP_GRADIENT = unary("stop_gradient", lambda a, i: i[0], same_type, no_grad,
                       "x itself, with no gradient flowing back through it")


zeros_like = functional(_ZEROS_LIKE, "A tensor of zeros with ``x``'s shape and dtype (no gradient flows).")
ones_like = functional(_ONES_LIKE, "A tensor of ones with ``x``'s shape and dtype (no gradient flows).")
stop_gradient = functional(_STOP_GRADIENT, """``x`` unchanged, but gradients do not flow back through it.

    Example::

        ms.grad(lambda x: (x * ops.stop_gradient(x)).sum())(x)    # == x, not 2 * x
    """)


def _where_type(attrs, dtypes):
    if dtypes[0].name != "bool":
        raise TypeError(f"op 'where': the condition must be a bool tensor, got {dtypes[0].name}")
    return dtypes, [_dt.from_numpy(result_dtype([dtypes[1].np_dtype, dtypes[2].np_dtype]))]


def _where_grad(ins, outs, g, a):
    c, x, y = ins
    zero = zeros_like(g[0])
    return [None,
            sum_to(where(c, g[0], zero), x.shape) if is_float(x) else None,
            sum_to(where(c, zero, g[0]), y.shape) if is_float(y) else None]


_WHERE = defop("where", 3, lambda a, i: np.where(i[0], i[1], i[2]), broadcast_shape("where"), _where_type,
               _where_grad, doc="x where condition else y, with broadcasting",
               arg_names=("condition", "x", "y"))


def where(condition, x, y):
    """Elements of ``x`` where ``condition`` is True, else of ``y`` (all broadcast together)."""
    condition = tensor_arg(condition, "where")
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = pair_named(x, y, "where")
    return call(_WHERE, (condition, x, y), NOATTR)


# ================================================================== shapes
def _ints(values, name, what):
    """A shape or permutation argument as a tuple of Python ints; TypeError naming the op otherwise."""
    if type(values) is tuple:           # a shape such as gradients pass: taken as it is
        for v in values:
            if type(v) is not int:
                break
        else:
            return values
    if isinstance(values, (int, np.integer)) and not isinstance(values, (bool, np.bool_)):
        return (int(values),)
    try:
        out = tuple(int(v) for v in values)
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) or
                 (isinstance(v, Tensor) and v._data.dtype.kind in "iu") for v in values)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise TypeError(f"op '{name}': {what} must be a tuple of ints, got {values!r}")
    return out


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
    return call(_RESHAPE, (tensor_arg(x, "reshape"),), {"shape": _ints(shape, "reshape", "shape")})


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


def _broadcast_to_compute(attrs, ins):
    x, shape = ins[0], attrs["shape"]
    if -1 in shape:
        shape = _resolve(shape, x.shape)
    out = np.empty(shape, x.dtype)
    out[...] = x                        # assignment broadcasts; much cheaper than np.broadcast_to
    return out


_BROADCAST_TO = defop("broadcast_to", 1, _broadcast_to_compute, _broadcast_to_shape, same_type,
                      lambda ins, outs, g, a: [sum_to(g[0], ins[0].shape)],
                      doc="broadcast to a larger shape", arg_names=("x",))


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (-1 keeps that dimension)."""
    return call(_BROADCAST_TO, (tensor_arg(x, "broadcast_to"),),
                {"shape": _ints(shape, "broadcast_to", "shape")})


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
    return call(_EXPAND_DIMS, (tensor_arg(x, "expand_dims"),), {"axis": axis})


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
    """``x`` without its size-1 axes (all of them, or those in ``axis``; as in MindSpore 2.10, an axis
    of another size named in ``axis`` stays)."""
    x = tensor_arg(x, "squeeze")
    if isinstance(axis, list):
        axis = tuple(axis)
    if axis == ():                                  # () squeezes every size-1 axis, as None
        axis = None
    if axis is not None:
        axis = tuple(a for a in normalize_axis("squeeze", axis, x.ndim) if x.shape[a] == 1)
        if not axis:
            return reshape(x, tuple(x.shape))
    return call(_SQUEEZE, (x,), {"axis": axis})


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


_TRANSPOSE = defop("transpose", 1, lambda a, i: np.array(np.transpose(i[0], a["perm"]), order="C"),
                   _transpose_shape, same_type, _transpose_grad,
                   doc="permute the axes", arg_names=("x",))


def transpose(x, perm=None):
    """``x`` with its axes permuted by ``perm`` (None: reversed, as ``x.T``)."""
    if perm is not None:
        perm = _ints(perm, "transpose", "perm")
    return call(_TRANSPOSE, (tensor_arg(x, "transpose"),), {"perm": perm})


def _tensors(values, name):
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"op '{name}': expects a list or tuple of tensors, got {type(values).__name__}")
    if not values:
        raise ValueError(f"op '{name}': needs at least one tensor, got an empty {type(values).__name__}")
    return tuple(tensor_arg(v, name) for v in values)


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
        if is_float(t):
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
    return [_getitem(g[0], (_ALL,) * ax + (i,), ()) if is_float(t) else None for i, t in enumerate(ins)]


_STACK = defop("stack", None, lambda a, i: np.stack(i, axis=a["axis"]), _stack_shape,
               promote_types("stack"), _stack_grad, doc="join tensors along a new axis")


def stack(tensors, axis=0):
    """Join equally shaped ``tensors`` along a new ``axis``."""
    return call(_STACK, _tensors(tensors, "stack"), {"axis": axis})
