"""The operator table behind ``mx.sym``: for each operator its inputs, outputs, shape/type rules and computation.

Each entry (``Spec``) says which arguments an operator takes (``FullyConnected``:
data, weight, bias unless ``no_bias``), how to infer every input and output
shape from the data shape, and how to compute its outputs with mscustom ops
(``compute(attrs, args, aux, is_train) -> [Tensor]``). Attribute values may be
Python values or MXNet's strings (from JSON); ``attr`` parses either.
"""

import ast

import numpy as np

from ... import ops as _ops
from ...ops.math import elementwise as _elementwise
from ...ops.math.elementwise import matmul_t as _matmul_t
from . import _cnn
from . import _layers
from . import _outputs
from ._bridge import op_type as _custom_type

__all__ = ["OPS", "Spec", "attr", "parse", "as_tuple"]


class Spec:
    """What the graph needs to know of one operator: its inputs, outputs, inference and computation."""

    def __init__(self, name, args, compute, infer_shape, outputs=("output",), aux=(), infer_type=None,
                 label=None):
        self.name = name
        self.args = args if callable(args) else (lambda attrs, a=tuple(args): list(a))
        self.outputs = outputs if callable(outputs) else (lambda attrs, o=tuple(outputs): list(o))
        self.aux = aux if callable(aux) else (lambda attrs, x=tuple(aux): list(x))
        self.compute = compute
        self.infer_shape = infer_shape
        self.infer_type = infer_type
        self.label = label                 # the argument auto-named "<name>_label"


OPS = {}


def _parse(v):
    if not isinstance(v, str):
        return v
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return v


def _attr(attrs, key, default=None):
    return _parse(attrs[key]) if key in attrs else default


def _tuple(v):
    v = _parse(v)
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


# ---- FullyConnected
def _fc_args(attrs):
    return ["data", "weight"] + ([] if _attr(attrs, "no_bias", False) else ["bias"])


def _fc_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    nh = int(_attr(attrs, "num_hidden"))
    k = int(np.prod(d[1:])) if _attr(attrs, "flatten", True) else d[-1]
    full = [list(d), [nh, k]] + ([[nh]] if len(shapes) > 2 else [])
    out = [d[0], nh] if _attr(attrs, "flatten", True) else list(d[:-1]) + [nh]
    return full, [out], []


def _fc(attrs, ins, aux, is_train):
    x = ins[0]
    if _attr(attrs, "flatten", True) and x.ndim != 2:
        x = _ops.reshape(x, (x.shape[0], -1))
    y = _matmul_t(x, ins[1], transpose_b=True)        # x @ W.T read through the flag: no copy of W.T
    return [y + ins[2] if len(ins) > 2 else y]


# ---- Activation
_ACTS = {"relu": _ops.relu, "sigmoid": _ops.sigmoid, "tanh": _ops.tanh,
         "softrelu": lambda x: _ops.log(_ops.exp(x) + 1.0), "softsign": lambda x: x / (_ops.abs(x) + 1.0)}


def _act(attrs, ins, aux, is_train):
    kind = _attr(attrs, "act_type")
    if kind not in _ACTS:
        raise ValueError(f"op 'Activation': act_type must be one of {sorted(_ACTS)}, got {kind!r}")
    return [_ACTS[kind](ins[0])]


def _same_shape(attrs, shapes):
    if shapes[0] is None:
        return None
    return [list(s) if s is not None else list(shapes[0]) for s in shapes], [list(shapes[0])], []


# ---- Convolution / Pooling (``_cnn``: the core's kernels) / Flatten
def _conv_args(attrs):
    return ["data", "weight"] + ([] if _attr(attrs, "no_bias", False) else ["bias"])


def _conv_p(attrs):
    return _cnn.conv_params(_attr(attrs, "kernel"), _attr(attrs, "num_filter"), _attr(attrs, "stride"),
                            _attr(attrs, "dilate"), _attr(attrs, "pad"), _attr(attrs, "num_group", 1),
                            _attr(attrs, "layout"))


def _conv_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    ins, out = _cnn.conv_shapes(_conv_p(attrs), d, bool(_attr(attrs, "no_bias", False)))
    return ins, [out], []


def _conv(attrs, ins, aux, is_train):
    return [_cnn.convolution(_conv_p(attrs), ins[0], ins[1], ins[2] if len(ins) > 2 else None)]


def _pool_p(attrs):
    return _cnn.pool_params(_attr(attrs, "kernel"), _attr(attrs, "pool_type", "max"), _attr(attrs, "stride"),
                            _attr(attrs, "pad"), _attr(attrs, "global_pool", False),
                            _attr(attrs, "pooling_convention", "valid"), _attr(attrs, "count_include_pad"),
                            _attr(attrs, "layout"))


def _pool_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    return [list(d)], [_cnn.pool_out_shape(_pool_p(attrs), d)], []


def _pool(attrs, ins, aux, is_train):
    return [_cnn.pooling(_pool_p(attrs), ins[0])]


def _flatten_shape(attrs, shapes):
    d = shapes[0]
    return None if d is None else ([list(d)], [[d[0], int(np.prod(d[1:]))]], [])


def _flatten(attrs, ins, aux, is_train):
    return [_ops.reshape(ins[0], (ins[0].shape[0], -1))]


# ---- loss outputs
def _so_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    return [list(d), list(shapes[1]) if shapes[1] is not None else [d[0]]], [list(d)], []


def _so(attrs, ins, aux, is_train):
    return [_layers.softmax_output(ins[0], ins[1], _attr(attrs, "grad_scale", 1.0), _attr(attrs, "ignore_label", -1.0),
                                   _attr(attrs, "use_ignore", False), _attr(attrs, "normalization", "null"))]


def _lr_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    return [list(d), list(shapes[1]) if shapes[1] is not None else list(d)], [list(d)], []


def _lr(attrs, ins, aux, is_train):
    return [_layers.linear_regression_output(ins[0], ins[1], _attr(attrs, "grad_scale", 1.0))]


# ---- Custom
def _prop_kwargs(attrs):
    return {k: v for k, v in attrs.items() if k != "op_type"}


def _custom_t(attrs):
    return _custom_type(attrs["op_type"], _prop_kwargs(attrs))


def _custom_shape(attrs, shapes):
    t = _custom_t(attrs)
    n = len(t.args)
    unknown = any(s is None for s in shapes[:n])
    try:
        res = t.prop.infer_shape([list(s) if s is not None else [] for s in shapes[:n]])
    except (IndexError, TypeError, ValueError):
        if unknown:
            return None                      # the Prop needs shapes not known yet
        raise
    if not isinstance(res, (tuple, list)) or len(res) not in (2, 3):
        raise ValueError(f"op '{t.name}': CustomOpProp.infer_shape must return (in_shapes, out_shapes[, aux_shapes])")
    ins, outs = [list(s) for s in res[0]], [list(s) for s in res[1]]
    aux = [list(s) for s in res[2]] if len(res) == 3 else [list(shapes[n + i]) for i in range(len(t.aux))]
    if any(len(s) == 0 for s in ins) and unknown:
        return None
    return ins, outs, aux


def _custom_type_rule(attrs, types):
    t = _custom_t(attrs)
    n = len(t.args)
    known = [ty for ty in types if ty is not None]
    base = known[0] if known else np.float32
    res = t.prop.infer_type([ty if ty is not None else base for ty in types[:n]])
    return ([np.dtype(x).type for x in res[0]], [np.dtype(x).type for x in res[1]],
            [np.dtype(x).type for x in res[2]] if len(res) == 3 else [base] * len(t.aux))


def _custom(attrs, ins, aux, is_train):
    from ._bridge import run_forward_op
    return run_forward_op(_custom_t(attrs), tuple(ins) + tuple(aux))


# ---- elementwise and math
def _binary(fn):
    return lambda attrs, ins, aux, is_train: [fn(ins[0], ins[1])]


def _bshape(attrs, shapes):
    if any(s is None for s in shapes):
        return None
    return [list(s) for s in shapes], [list(np.broadcast_shapes(*(tuple(s) for s in shapes)))], []


def _scalar(fn):
    return lambda attrs, ins, aux, is_train: [fn(ins[0], float(_attr(attrs, "scalar")))]


def _unary(fn):
    return lambda attrs, ins, aux, is_train: [fn(ins[0])]


def _reduce(fn):
    def run(attrs, ins, aux, is_train):
        ax = _attr(attrs, "axis", None)
        return [fn(ins[0], tuple(ax) if isinstance(ax, list) else ax, bool(_attr(attrs, "keepdims", False)))]
    return run


def _reduce_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    out = np.sum(np.zeros(d, np.int8), axis=_parse_axis(_attr(attrs, "axis", None)),
                 keepdims=bool(_attr(attrs, "keepdims", False))).shape
    return [list(d)], [list(out)], []


def _parse_axis(ax):
    return tuple(ax) if isinstance(ax, (list, tuple)) else ax


def _reshape_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    return [list(d)], [list(np.zeros(d, np.int8).reshape(_reshape_target(attrs, d)).shape)], []


def _reshape_target(attrs, d):
    shape = _tuple(_attr(attrs, "shape"))
    return tuple(d[i] if s == 0 else s for i, s in enumerate(shape))


def _transpose_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    axes = _attr(attrs, "axes", None)
    return [list(d)], [list(np.zeros(d, np.int8).transpose(axes or None).shape)], []


def _dot_shape(attrs, shapes):
    if any(s is None for s in shapes):
        return None
    a, b = (np.zeros(s, np.int8) for s in shapes)
    if _attr(attrs, "transpose_a", False):
        a = a.T
    if _attr(attrs, "transpose_b", False):
        b = b.T
    return [list(s) for s in shapes], [list(np.dot(a, b).shape)], []


def _dot(attrs, ins, aux, is_train):
    a, b = ins
    if _attr(attrs, "transpose_a", False):
        a = _ops.transpose(a)
    if _attr(attrs, "transpose_b", False):
        b = _ops.transpose(b)
    return [_ops.matmul(a, b)]


# ---- Cast
def _cast_dtype(attrs):
    d = _attr(attrs, "dtype")
    if d is None:
        raise ValueError("op 'Cast': the attribute dtype is required (e.g. dtype='float64')")
    try:
        return np.dtype(d)
    except TypeError:
        raise ValueError(f"op 'Cast': dtype must name a NumPy type ('float32', 'float64', 'int32', ...), "
                         f"got {d!r}") from None


def _cast_type(attrs, types):
    return [types[0] if types[0] is not None else np.float32], [_cast_dtype(attrs).type], []


def _register_all():
    add = lambda n, *a, **k: OPS.__setitem__(n, Spec(n, *a, **k))      # noqa: E731
    add("FullyConnected", _fc_args, _fc, _fc_shape)
    add("Activation", ["data"], _act, _same_shape)
    add("Convolution", _conv_args, _conv, _conv_shape)
    add("Pooling", ["data"], _pool, _pool_shape)
    add("Flatten", ["data"], _flatten, _flatten_shape)
    add("Cast", ["data"], lambda a, i, x, t: [_ops.cast(i[0], _cast_dtype(a))], _same_shape, infer_type=_cast_type)
    add("SoftmaxOutput", ["data", "label"], _so, _so_shape, label="label")
    add("LinearRegressionOutput", ["data", "label"], _lr, _lr_shape, label="label")
    add("Custom", lambda attrs: list(_custom_t(attrs).args), _custom, _custom_shape,
        outputs=lambda attrs: list(_custom_t(attrs).outs), aux=lambda attrs: list(_custom_t(attrs).aux),
        infer_type=_custom_type_rule)
    for name, fn in (("_Plus", _ops.add), ("_Minus", _ops.sub), ("_Mul", _ops.mul), ("_Div", _ops.div),
                     ("_Power", _ops.pow), ("_Maximum", _elementwise.maximum_x), ("_Minimum", _elementwise.minimum_x),
                     ("broadcast_add", _ops.add), ("broadcast_sub", _ops.sub), ("broadcast_mul", _ops.mul),
                     ("broadcast_div", _ops.div), ("elemwise_add", _ops.add), ("elemwise_sub", _ops.sub),
                     ("elemwise_mul", _ops.mul), ("elemwise_div", _ops.div)):
        add(name, ["lhs", "rhs"], _binary(fn), _bshape)
    for name, fn in (("_PlusScalar", lambda x, s: x + s), ("_MinusScalar", lambda x, s: x - s),
                     ("_RMinusScalar", lambda x, s: s - x), ("_MulScalar", lambda x, s: x * s),
                     ("_DivScalar", lambda x, s: x / s), ("_RDivScalar", lambda x, s: s / x),
                     ("_PowerScalar", lambda x, s: x ** s), ("_RPowerScalar", lambda x, s: s ** x)):
        add(name, ["data"], _scalar(fn), _same_shape)
    for name, fn in (("exp", _ops.exp), ("log", _ops.log), ("sqrt", _ops.sqrt), ("square", _ops.square),
                     ("abs", _ops.abs), ("relu", _ops.relu), ("sigmoid", _ops.sigmoid), ("tanh", _ops.tanh),
                     ("negative", _ops.neg)):
        add(name, ["data"], _unary(fn), _same_shape)
    add("softmax", ["data"], lambda a, i, x, t: [_ops.softmax(i[0], axis=int(_attr(a, "axis", -1)))], _same_shape)
    add("log_softmax", ["data"], lambda a, i, x, t: [_ops.log_softmax(i[0], axis=int(_attr(a, "axis", -1)))],
        _same_shape)
    add("sum", ["data"], _reduce(lambda x, a, k: _ops.reduce_sum(x, a, k)), _reduce_shape)
    add("mean", ["data"], _reduce(lambda x, a, k: _ops.reduce_mean(x, a, k)), _reduce_shape)
    add("dot", ["lhs", "rhs"], _dot, _dot_shape)
    add("Reshape", ["data"], lambda a, i, x, t: [_ops.reshape(i[0], _reshape_target(a, i[0].shape))], _reshape_shape)
    add("transpose", ["data"], lambda a, i, x, t: [_ops.transpose(i[0], _attr(a, "axes", None) or None)],
        _transpose_shape)


_register_all()


# ---- output layers and gradient stops (``_outputs``)
def _svm_label_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    return [list(d), list(shapes[1]) if shapes[1] is not None else [d[0]] + list(d[2:])], [list(d)], []


def _register_outputs():
    add = lambda n, *a, **k: OPS.__setitem__(n, Spec(n, *a, **k))      # noqa: E731
    add("LogisticRegressionOutput", ["data", "label"],
        lambda a, i, x, t: [_outputs.logistic_regression_output(i[0], i[1], _attr(a, "grad_scale", 1.0))],
        _lr_shape, label="label")
    add("MAERegressionOutput", ["data", "label"],
        lambda a, i, x, t: [_outputs.mae_regression_output(i[0], i[1], _attr(a, "grad_scale", 1.0))],
        _lr_shape, label="label")
    add("SVMOutput", ["data", "label"],
        lambda a, i, x, t: [_outputs.svm_output(i[0], i[1], _attr(a, "margin", 1.0),
                                                _attr(a, "regularization_coefficient", 1.0),
                                                bool(_attr(a, "use_linear", False)))],
        _svm_label_shape, label="label")
    add("MakeLoss", ["data"],
        lambda a, i, x, t: [_outputs.make_loss(i[0], _attr(a, "grad_scale", 1.0), _attr(a, "valid_thresh", 0.0),
                                               _attr(a, "normalization", "null"))], _same_shape)
    add("BlockGrad", ["data"], lambda a, i, x, t: [_outputs.block_grad(i[0])], _same_shape)


_register_outputs()


attr, parse, as_tuple = _attr, _parse, _tuple
