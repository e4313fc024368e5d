"""Helpers for defining built-in ops on the operator core.

A built-in op is an OpDef registered like any user op: shape and dtype rules,
a NumPy kernel that returns its outputs (``FComputeAlloc``, registered for
every target while tensors live in host memory) and an ``FGradient`` built
from ops. The helpers here keep each definition to a few lines: ``defop``,
operand conversion for the functional wrappers (``pair``, ``tensor_arg``) and
reusable shape/dtype rules, which is where built-in ops validate their inputs.
"""

import numpy as np

from .. import extend as _extend
from .. import context as _context
from .. import dtype as _dt
from ..tensor import Tensor, as_tensor

NOATTR = {}                 # the shared empty attribute dict of ops without attributes
_wrap = Tensor._wrap

TARGETS = tuple(_context.target_suffix(t) for t in _context.TARGETS)


def defop(name, num_inputs, compute, infer_shape=None, infer_type=None, gradient=None,
          num_outputs=1, doc="", arg_names=None):
    """Register a built-in op whose NumPy kernel ``compute(attrs, inputs)`` returns outputs.

    ``infer_shape``/``infer_type`` take NNVM's form ``(attrs, ins) -> (ins, outs)``.
    The NumPy kernel serves every target while tensors live in host memory. The
    op is built through ``mscustom.extend``, the one extension surface every
    front end uses (``frontend_of(op) == "builtin"``).
    """
    named = arg_names and num_inputs is not None and len(arg_names) == num_inputs
    op = _extend.def_op(name, list(arg_names) if named else num_inputs, num_outputs, doc, frontend="builtin")
    if arg_names and not named:
        op.input_names = list(arg_names)        # names of the leading inputs of a variadic op
    _extend.def_kernel(op, compute, "all", allocates=True, nnvm_key=True)
    _extend.def_infer(op, shape=_outputs_of(infer_shape), dtype=_outputs_of(infer_type))
    if gradient is not None:
        _extend.def_gradient(op, gradient)
    return op


def _outputs_of(rule):
    """An NNVM-form rule ``(attrs, ins) -> (ins, outs)`` as extend's ``(attrs, ins) -> outs``."""
    if rule is None:
        return None
    return lambda attrs, ins: rule(attrs, ins)[1]


def functional(op, doc, arg_names=None):
    """The functional form of a built-in op with 1 or 2 tensor inputs and no attributes.

    Generated from the op table (``extend.def_function``): Python numbers next to
    a tensor take its dtype, anything else is converted or refused naming the op.
    ``arg_names`` gives the parameters MindSpore's names where they are not
    ``x`` / ``y`` (``erf(input)``, ``relu_grad(dy, x)``).
    """
    name = op.name
    if op.num_inputs == 2:
        get = _SCALARS.get

        def convert(args):
            x, y = args
            # a Python number next to a Tensor, converted before: its cached array (see scalar_like)
            if type(y) is Tensor:
                tx = type(x)
                if tx is float or tx is int:
                    arr = get((tx, x, y._data.dtype))
                    if arr is not None:
                        return _wrap(arr), y
            elif type(x) is Tensor:
                ty = type(y)
                if ty is float or ty is int:
                    arr = get((ty, y, x._data.dtype))
                    if arr is not None:
                        return x, _wrap(arr)
            return pair_named(x, y, name)
    else:
        def convert(args):
            return (tensor_arg(args[0], name),)
    return _extend.def_function(op, doc=doc, convert=convert, arg_names=arg_names)


def unary(name, compute, type_rule, gradient, doc):
    """``defop`` for a one-input op whose output has the input's shape."""
    return defop(name, 1, compute, same_shape, type_rule, gradient, doc=doc, arg_names=("x",))


def no_grad(ins, outs, g, a):
    """FGradient of ops with no gradient (comparisons, constants): None for every input."""
    return [None] * len(ins)


# ------------------------------------------------------------------ operands
# (type, value, dtype) -> the read-only 0-d array of a Python number converted next to a tensor
# (``2 * x`` in a bprop converts the same number on every call). Read-only, so that nothing can
# change a value another call shares; zeros (0.0 and -0.0 compare equal) and NaN (never equal)
# are not cached; the table starts over when it holds MAX_SCALARS entries.
_SCALARS = {}
MAX_SCALARS = 256


def scalar_like(value, like):
    """``value`` as a Tensor; a Python int/float takes ``like``'s dtype when its kind fits."""
    dtype = like._data.dtype
    kind = dtype.kind
    tv = type(value)
    if (tv is float and kind == "f") or (tv is int and kind in "iuf"):
        key = (tv, value, dtype)
        arr = _SCALARS.get(key)
        if arr is not None:
            return _wrap(arr)
        try:
            arr = np.asarray(value, dtype)
        except OverflowError:           # e.g. 300 next to uint8: keep it as int64
            return Tensor(value)
        if value and value == value:    # not a zero (0.0 == -0.0), not NaN: cache it
            if len(_SCALARS) >= MAX_SCALARS:
                _SCALARS.clear()
            arr.flags.writeable = False
            _SCALARS[key] = arr
        return _wrap(arr)
    return as_tensor(value, like)


def pair(x, y):
    """Both operands as Tensors; a Python scalar takes the other operand's dtype."""
    if type(x) is not Tensor:
        x = scalar_like(x, y) if isinstance(y, Tensor) else as_tensor(x)
    if type(y) is not Tensor:
        y = scalar_like(y, x)
    return x, y


def pair_named(x, y, name):
    """``pair`` with an error naming the op when an operand is not a number or array."""
    try:
        return pair(x, y)
    except (TypeError, ValueError) as exc:
        bad = y if isinstance(x, Tensor) else x
        raise TypeError(f"op '{name}': operands must be Tensors, arrays or numbers, "
                        f"got {type(bad).__name__} ({exc})") from None


def tensor_arg(x, name):
    """``x`` as a Tensor (arrays and numbers are converted); TypeError naming the op otherwise."""
    if isinstance(x, Tensor):
        return x
    try:
        return as_tensor(x)
    except (TypeError, ValueError):
        raise TypeError(f"op '{name}': input must be a Tensor, got {type(x).__name__}") from None


def is_float(t):
    """True when ``t`` is a floating-point tensor (only those carry gradients)."""
    return t._data.dtype.kind == "f"


def plain_axis(axis):
    """An axis argument with NumPy integers and integer Tensors (0-d, or 1-d for several axes) turned
    into Python ints, as MindSpore's reductions take them; anything else is returned unchanged."""
    if isinstance(axis, np.integer) and not isinstance(axis, np.bool_):
        return int(axis)
    data = getattr(axis, "_data", None)
    if isinstance(data, np.ndarray) and data.dtype.kind in "iu":
        if data.ndim == 0:
            return axis.__index__()
        if data.ndim == 1:
            return tuple(int(v) for v in axis.tolist())
    if isinstance(axis, (list, tuple)):
        return tuple(plain_axis(a) for a in axis)
    return axis


def axis_attr(axis):
    """An axis argument as a hashable attribute: None for all axes, lists as tuples, NumPy integers and
    integer Tensors as Python ints."""
    if axis is None or type(axis) is int:
        return axis
    if type(axis) is tuple:
        for a in axis:
            if type(a) is not int:
                break
        else:                           # the common case (gradients' sum_to): a tuple of ints
            return axis or None
    axis = plain_axis(axis)
    return None if axis == () else axis


# ------------------------------------------------------------------ shape rules
def broadcast_shape(name):
    """FInferShape for elementwise ops with NumPy broadcasting."""
    def infer(attrs, shapes):
        try:
            out = np.broadcast_shapes(*(tuple(s) for s in shapes))
        except ValueError:
            listed = " and ".join(str(list(s)) for s in shapes)
            raise ValueError(f"op '{name}': input shapes {listed} cannot be broadcast together") from None
        return shapes, [list(out)]
    return infer


def same_shape(attrs, shapes):
    """FInferShape: the output has the first input's shape."""
    return shapes, [list(shapes[0])]


# ------------------------------------------------------------------ type rules
def result_dtype(np_dtypes):
    """The dtype arithmetic on these NumPy dtypes gives, with MindSpore's rule for mixed kinds.

    Floats win over integers without widening: ``int64 op float32`` is float32
    (NumPy would say float64). Otherwise NumPy's promotion applies.
    """
    floats = [d for d in np_dtypes if d.kind == "f"]
    if floats and len(floats) != len(np_dtypes):
        return np.result_type(*floats)
    return np.result_type(*np_dtypes)


def promote_types(name):
    """FInferType: the promoted dtype of the inputs (see ``result_dtype``)."""
    def infer(attrs, dtypes):
        return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]
    return infer


def numeric_promote(name):
    """FInferType for arithmetic that rejects bool inputs and promotes the rest."""
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if d.name == "bool":
                raise TypeError(f"op '{name}': input {i} must be a number type, got bool")
        return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]
    return infer


def compare_type(name):
    """FInferType for comparisons: any two dtypes in, bool out."""
    def infer(attrs, dtypes):
        return dtypes, [_dt.bool_]
    return infer


def float_only(name, promote=True):
    """FInferType for ops defined on floating-point inputs only."""
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if not _dt.is_floating(d):
                raise TypeError(f"op '{name}': input {i} must be float16, float32 or float64, got {d.name}")
        out = result_dtype([d.np_dtype for d in dtypes]) if promote else dtypes[0].np_dtype
        return dtypes, [_dt.from_numpy(out)]
    return infer


def same_type(attrs, dtypes):
    """FInferType: the output has the first input's dtype."""
    return dtypes, [dtypes[0]]


def numeric_only(name):
    """FInferType for arithmetic that rejects bool inputs and keeps the first input's dtype."""
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if d.name == "bool":
                raise TypeError(f"op '{name}': input {i} must be a number type, got bool")
        return dtypes, [dtypes[0]]
    return infer


def normalize_axis(name, axis, ndim):
    """Turn an axis argument (None, int, tuple) into a sorted tuple of non-negative axes.

    ``None`` and ``()`` mean every axis. Each axis must lie in ``[-ndim, ndim)``.
    """
    if axis is None or axis == ():
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axes = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise TypeError(f"op '{name}': axis must be an int or a tuple of ints, got {axis!r}")
    out = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, (bool, np.bool_)):
            raise TypeError(f"op '{name}': axis must be an int or a tuple of ints, got {axis!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"op '{name}': axis {a} is out of range for a tensor of rank {ndim} "
                             f"(expected {-ndim} <= axis < {ndim})" if ndim else
                             f"op '{name}': axis {a} is out of range for a tensor of rank 0 "
                             "(a 0-d tensor has no axes; use axis=None)")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"op '{name}': axis {axis!r} repeats an axis")
    return tuple(sorted(out))


def insert_axis(name, axis, ndim):
    """Normalize the position of a new axis in a result of rank ``ndim + 1``."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        raise TypeError(f"op '{name}': axis must be an int, got {axis!r}")
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"op '{name}': axis {axis} is out of range for inserting an axis into a "
                         f"tensor of rank {ndim} (expected {-ndim - 1} <= axis <= {ndim})")
    return int(axis) % (ndim + 1)
