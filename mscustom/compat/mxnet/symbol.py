"""``mx.sym`` / ``mx.symbol``: build a graph of named operators, infer its shapes, bind and run it.

A ``Symbol`` is a list of outputs of graph nodes; a node is a variable or one
operator (``FullyConnected``, ``Activation``, ``Convolution``, ``Pooling``,
``Flatten``, ``SoftmaxOutput``, ``LinearRegressionOutput``, ``Custom``,
elementwise arithmetic and math). Running a graph calls mscustom ops node by
node (``_eval``), so the core's dispatcher runs it and the core's tape
differentiates it: ``bind`` / ``simple_bind`` give an ``Executor`` over it.

As in MXNet, a layer's missing inputs become variables named after it
(``fc1_weight``, ``fc1_bias``, ``softmax_label``), ``list_arguments`` lists
variables in graph order, and ``infer_shape`` fills in weight shapes from the
data shape.

Example::

    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, name="fc1", num_hidden=4)
    net = mx.sym.SoftmaxOutput(fc, name="softmax")
    net.list_arguments()          # ['data', 'fc1_weight', 'fc1_bias', 'softmax_label']
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(data=(2, 3))
"""

import ast
import itertools
import json
import threading

import numpy as np

from ... import ops as _ops
from ...tensor import Tensor
from . import _layers
from . import base as _base
from ._bridge import op_type as _custom_type
from ._ndarray import NDArray, as_nd, wrap
from .context import current_context
from .executor import Executor

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "FullyConnected", "Activation",
           "Convolution", "Pooling", "Flatten", "SoftmaxOutput", "LinearRegressionOutput", "Custom",
           "exp", "log", "sqrt", "square", "abs", "relu", "sigmoid", "tanh", "softmax", "log_softmax",
           "negative", "sum", "mean", "dot", "reshape", "transpose", "broadcast_add", "broadcast_sub",
           "broadcast_mul", "broadcast_div", "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div",
           "maximum", "minimum"]

_COUNTER = itertools.count()
_NAMES = {}
_NAME_LOCK = threading.Lock()


def _auto_name(op):
    with _NAME_LOCK:
        k = op.lower()
        n = _NAMES.get(k, 0)
        _NAMES[k] = n + 1
    return f"{k}{n}"


class _Node:
    """A variable (``op is None``) or one operator application."""

    __slots__ = ("op", "name", "attrs", "inputs", "uid")

    def __init__(self, op, name, attrs, inputs):
        self.op, self.name, self.attrs, self.inputs = op, name, dict(attrs), list(inputs)
        self.uid = next(_COUNTER)


# ================================================================== operator table
class _Spec:
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


_OPS = {}


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


def _need(op, name, shapes, i, what):
    if shapes[i] is None:
        return None
    return list(shapes[i])


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
    y = _ops.matmul(x, _ops.transpose(ins[1]))
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


# ---- Convolution / Pooling / Flatten
def _conv_args(attrs):
    return ["data", "weight"] + ([] if _attr(attrs, "no_bias", False) else ["bias"])


def _conv_geometry(attrs):
    k = _tuple(_attr(attrs, "kernel"))
    if len(k) != 2:
        raise ValueError(f"op 'Convolution': only 2-D kernels are supported here, got kernel={k}")
    s = _tuple(_attr(attrs, "stride", (1, 1)))
    p = _tuple(_attr(attrs, "pad", (0, 0)))
    dil = _tuple(_attr(attrs, "dilate", (1, 1)))
    if any(int(v) != 1 for v in dil) or int(_attr(attrs, "num_group", 1)) != 1:
        raise ValueError("op 'Convolution': dilate and num_group other than 1 are not supported here")
    return k, s, p


def _conv_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    (kh, kw), (sh, sw), (ph, pw) = _conv_geometry(attrs)
    f = int(_attr(attrs, "num_filter"))
    full = [list(d), [f, d[1], kh, kw]] + ([[f]] if len(shapes) > 2 else [])
    oh, ow = (d[2] + 2 * ph - kh) // sh + 1, (d[3] + 2 * pw - kw) // sw + 1
    return full, [[d[0], f, oh, ow]], []


def _conv(attrs, ins, aux, is_train):
    k, s, p = _conv_geometry(attrs)
    y = _layers.conv2d(ins[0], ins[1], s, p)
    if len(ins) > 2:
        y = y + _ops.reshape(ins[2], (1, -1, 1, 1))
    return [y]


def _pool_params(attrs, shape=None):
    g = bool(_attr(attrs, "global_pool", False))
    k = _tuple(_attr(attrs, "kernel", (1, 1)))
    if g and shape is not None:
        k = tuple(shape[2:])
    conv = _attr(attrs, "pooling_convention", "valid")
    if conv != "valid":
        raise ValueError(f"op 'Pooling': pooling_convention must be 'valid' here, got {conv!r}")
    s = (1, 1) if g else _tuple(_attr(attrs, "stride", (1, 1)))
    p = (0, 0) if g else _tuple(_attr(attrs, "pad", (0, 0)))
    return k, s, p, g


def _pool_shape(attrs, shapes):
    d = shapes[0]
    if d is None:
        return None
    (kh, kw), (sh, sw), (ph, pw), g = _pool_params(attrs, d)
    return [list(d)], [[d[0], d[1], (d[2] + 2 * ph - kh) // sh + 1, (d[3] + 2 * pw - kw) // sw + 1]], []


def _pool(attrs, ins, aux, is_train):
    k, s, p, g = _pool_params(attrs, ins[0].shape)
    return [_layers.pool2d(ins[0], k, _attr(attrs, "pool_type", "max"), s, p, g)]


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
    from ..._core import dispatch
    t = _custom_t(attrs)
    out = dispatch.call(t.forward_op, tuple(ins) + tuple(aux), {})
    return list(out) if isinstance(out, tuple) else [out]


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


def _register_all():
    add = lambda n, *a, **k: _OPS.__setitem__(n, _Spec(n, *a, **k))      # noqa: E731
    add("FullyConnected", _fc_args, _fc, _fc_shape)
    add("Activation", ["data"], _act, _same_shape)
    add("Convolution", _conv_args, _conv, _conv_shape)
    add("Pooling", ["data"], _pool, _pool_shape)
    add("Flatten", ["data"], _flatten, _flatten_shape)
    add("SoftmaxOutput", ["data", "label"], _so, _so_shape, label="label")
    add("LinearRegressionOutput", ["data", "label"], _lr, _lr_shape, label="label")
    add("Custom", lambda attrs: list(_custom_t(attrs).args), _custom, _custom_shape,
        outputs=lambda attrs: list(_custom_t(attrs).outs), aux=lambda attrs: list(_custom_t(attrs).aux),
        infer_type=_custom_type_rule)
    for name, fn in (("_Plus", _ops.add), ("_Minus", _ops.sub), ("_Mul", _ops.mul), ("_Div", _ops.div),
                     ("_Power", _ops.pow), ("_Maximum", _ops.maximum), ("_Minimum", _ops.minimum),
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


# ================================================================== Symbol
class Symbol:
    """Outputs of a graph of operators; compose with layer functions and arithmetic, then bind."""

    def __init__(self, outputs):
        self._outputs = list(outputs)          # [(node, output index)]

    # ------------------------------------------------------------ graph walking
    def _topo(self):
        order, seen = [], set()
        stack = [(n, False) for n, _ in reversed(self._outputs)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if node.uid in seen:
                continue
            seen.add(node.uid)
            stack.append((node, True))
            for inp, _ in reversed(node.inputs):
                if inp.uid not in seen:
                    stack.append((inp, False))
        return order

    def _variables(self):
        """(argument nodes, auxiliary nodes) in graph order."""
        args, aux, aux_ids = [], [], set()
        for node in self._topo():
            if node.op is not None:
                spec = _OPS[node.op]
                n_args = len(spec.args(node.attrs))
                for inp, _ in node.inputs[n_args:]:
                    aux_ids.add(inp.uid)
        for node in self._topo():
            if node.op is None:
                (aux if node.uid in aux_ids else args).append(node)
        return args, aux

    @property
    def name(self):
        return self._outputs[0][0].name if len(self._outputs) == 1 else None

    def list_arguments(self):
        """Names of the arguments (variables that are not auxiliary states), in graph order."""
        return [n.name for n in self._variables()[0]]

    def list_auxiliary_states(self):
        """Names of the auxiliary states (e.g. a Custom op's ``list_auxiliary_states``)."""
        return [n.name for n in self._variables()[1]]

    def list_outputs(self):
        """``<node name>_<output name>`` for each output (a variable lists its own name)."""
        names = []
        for node, i in self._outputs:
            if node.op is None:
                names.append(node.name)
            else:
                names.append(f"{node.name}_{_OPS[node.op].outputs(node.attrs)[i]}")
        return names

    def list_inputs(self):
        return [n.name for n in self._topo() if n.op is None]

    def get_internals(self):
        """Every output of every node, as one grouped Symbol."""
        outs = []
        for node in self._topo():
            k = 1 if node.op is None else len(_OPS[node.op].outputs(node.attrs))
            outs.extend((node, i) for i in range(k))
        return Symbol(outs)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            if index not in names:
                raise ValueError(f"Symbol: no output named {index!r}; outputs are {names}")
            index = names.index(index)
        return Symbol([self._outputs[index]])

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    def list_attr(self):
        node = self._outputs[0][0]
        return {k: str(v) for k, v in node.attrs.items()}

    def attr(self, key):
        v = self._outputs[0][0].attrs.get(key)
        return None if v is None else str(v)

    def __repr__(self):
        return f"<Symbol {self.name or 'group [' + ', '.join(self.list_outputs()) + ']'}>"

    # ------------------------------------------------------------ inference
    def _infer(self, shapes=None, types=None, partial=False):
        """Shapes and dtypes of every node output, filling in variables from their consumers."""
        node_shapes, node_types = {}, {}
        for node in self._topo():
            if node.op is None:
                if node.name in (shapes or {}):
                    node_shapes[node.uid] = [list(shapes[node.name])]
                elif "__shape__" in node.attrs:
                    node_shapes[node.uid] = [list(_tuple(node.attrs["__shape__"]))]
                if node.name in (types or {}):
                    node_types[node.uid] = [np.dtype(types[node.name]).type]
                elif "__dtype__" in node.attrs:
                    node_types[node.uid] = [np.dtype(_parse(node.attrs["__dtype__"])).type]
        for node in self._topo():
            if node.op is None:
                continue
            spec = _OPS[node.op]
            ins = [node_shapes[i.uid][k] if i.uid in node_shapes else None for i, k in node.inputs]
            res = spec.infer_shape(node.attrs, ins)
            if res is not None:
                full, outs, aux = res
                n_args = len(spec.args(node.attrs))
                given = list(full) + list(aux)
                for (inp, k), shp in zip(node.inputs, given[:len(node.inputs)]):
                    if inp.op is None:
                        old = node_shapes.get(inp.uid)
                        if old is not None and list(old[0]) != list(shp) and len(shp):
                            raise _base.MXNetError(f"infer_shape: '{inp.name}' is given shape {tuple(old[0])}, but "
                                                   f"'{node.name}' ({node.op}) needs {tuple(shp)}")
                        if old is None and len(shp):
                            node_shapes[inp.uid] = [list(shp)]
                node_shapes[node.uid] = [list(s) for s in outs]
                del n_args
            # types
            tins = [node_types[i.uid][k] if i.uid in node_types else None for i, k in node.inputs]
            n_out = len(spec.outputs(node.attrs))
            if spec.infer_type is not None:
                tin, tout, taux = spec.infer_type(node.attrs, tins)
                tin = list(tin) + list(taux)
            else:
                base = next((t for t in tins if t is not None), np.float32)
                tin, tout = [t if t is not None else base for t in tins], [base] * n_out
            for (inp, k), ty in zip(node.inputs, tin):
                if inp.op is None and inp.uid not in node_types:
                    node_types[inp.uid] = [ty]
            node_types[node.uid] = list(tout)
        return node_shapes, node_types

    def infer_shape(self, *args, **kwargs):
        """``(arg_shapes, out_shapes, aux_shapes)`` from known input shapes; ``(None, None, None)`` if incomplete."""
        shapes = self._named(args, kwargs, "infer_shape")
        node_shapes, _ = self._infer(shapes=shapes)
        a, x = self._variables()
        try:
            arg = [tuple(node_shapes[n.uid][0]) for n in a]
            aux = [tuple(node_shapes[n.uid][0]) for n in x]
            out = [tuple(node_shapes[n.uid][i]) for n, i in self._outputs]
        except KeyError:
            return None, None, None
        return arg, out, aux

    def infer_shape_partial(self, *args, **kwargs):
        shapes = self._named(args, kwargs, "infer_shape_partial")
        node_shapes, _ = self._infer(shapes=shapes)
        a, x = self._variables()
        get = lambda n, i=0: tuple(node_shapes[n.uid][i]) if n.uid in node_shapes else ()      # noqa: E731
        return [get(n) for n in a], [get(n, i) for n, i in self._outputs], [get(n) for n in x]

    def infer_type(self, *args, **kwargs):
        """``(arg_types, out_types, aux_types)`` as NumPy types (float32 where nothing says otherwise)."""
        types = self._named(args, kwargs, "infer_type")
        _, node_types = self._infer(types=types)
        a, x = self._variables()
        get = lambda n, i=0: node_types.get(n.uid, [np.float32])[i]      # noqa: E731
        return [get(n) for n in a], [get(n, i) for n, i in self._outputs], [get(n) for n in x]

    def _named(self, args, kwargs, what):
        if args:
            names = self.list_arguments()
            if len(args) > len(names):
                raise ValueError(f"Symbol.{what}: {len(args)} positional values for {len(names)} arguments {names}")
            return {n: v for n, v in zip(names, args) if v is not None}
        return {k: v for k, v in kwargs.items() if v is not None}

    # ------------------------------------------------------------ evaluation
    def _eval(self, values, is_train=False):
        """Run the graph on ``values`` (name -> Tensor) with mscustom ops; returns the outputs' Tensors.

        This is the graph as one function of its argument and auxiliary arrays:
        taped when called inside ``recording()``, so the core differentiates it.
        """
        results = {}
        for node in self._topo():
            if node.op is None:
                if node.name not in values:
                    raise _base.MXNetError(f"Symbol: no value bound for argument '{node.name}'")
                results[node.uid] = [values[node.name]]
                continue
            spec = _OPS[node.op]
            n_args = len(spec.args(node.attrs))
            ins = [results[i.uid][k] for i, k in node.inputs]
            try:
                results[node.uid] = spec.compute(node.attrs, ins[:n_args], ins[n_args:], is_train)
            except _base._OpFailure:
                raise
            except (ValueError, TypeError) as exc:
                raise _base.MXNetError(f"Error in operator {node.name} ({node.op}): {exc}") from exc
        return [results[n.uid][i] for n, i in self._outputs]

    # ------------------------------------------------------------ binding
    def simple_bind(self, ctx=None, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """Allocate every argument, gradient and auxiliary array from the given input shapes and bind."""
        for k, st in (stype_dict or {}).items():
            from ._ndarray import check_stype
            check_stype(st, f"simple_bind ('{k}')")
        arg_shapes, _, aux_shapes = self.infer_shape(**kwargs)
        if arg_shapes is None:
            partial, _, _ = self.infer_shape_partial(**kwargs)
            missing = [n for n, s in zip(self.list_arguments(), partial) if not s]
            raise _base.MXNetError(f"simple_bind: cannot infer the shapes of {missing}; pass them as keyword "
                                   f"arguments (e.g. {missing[0]}=(batch, ...))")
        arg_types, _, aux_types = self.infer_type(**(type_dict or {}))
        names = self.list_arguments()
        args = [wrap(np.zeros(s, t), ctx=ctx) for s, t in zip(arg_shapes, arg_types)]
        reqs = _grad_reqs(grad_req, names)
        grads = [wrap(np.zeros(s, t), ctx=ctx) if reqs[n] != "null" else None
                 for n, s, t in zip(names, arg_shapes, arg_types)]
        aux = [wrap(np.zeros(s, t), ctx=ctx) for s, t in zip(aux_shapes, aux_types)]
        return Executor(self, ctx or current_context(), args, grads, reqs, aux)

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        """Bind given arrays (lists in ``list_arguments`` order, or dicts by name)."""
        names, aux_names = self.list_arguments(), self.list_auxiliary_states()
        args = _ordered(args, names, "args")
        grads = _ordered(args_grad, names, "args_grad", allow_missing=True) if args_grad is not None else \
            [None] * len(names)
        aux = _ordered(aux_states or [], aux_names, "aux_states")
        reqs = _grad_reqs(grad_req, names)
        if args_grad is None:
            reqs = {n: "null" for n in names}
        for n, g in zip(names, grads):
            if g is None:
                reqs[n] = "null"
        return Executor(self, ctx or current_context(), args, grads, reqs, aux)

    # ------------------------------------------------------------ serialization
    def tojson(self):
        """The graph as MXNet-style JSON (``nodes``, ``arg_nodes``, ``heads``)."""
        order = self._topo()
        index = {n.uid: i for i, n in enumerate(order)}
        nodes = [{"op": n.op or "null", "name": n.name, "attrs": {k: str(v) for k, v in n.attrs.items()},
                  "inputs": [[index[i.uid], k, 0] for i, k in n.inputs]} for n in order]
        return json.dumps({"nodes": nodes, "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
                           "heads": [[index[n.uid], k, 0] for n, k in self._outputs],
                           "attrs": {"mxnet_version": ["int", 10600]}}, indent=2)

    def save(self, fname):
        with open(fname, "w") as f:
            f.write(self.tojson())

    # ------------------------------------------------------------ arithmetic
    def _bin(self, other, op, scalar_op):
        if isinstance(other, Symbol):
            return _make(op, [self, other], {})
        if isinstance(other, (int, float, np.number)):
            return _make(scalar_op, [self], {"scalar": float(other)})
        return NotImplemented

    def __add__(self, o): return self._bin(o, "_Plus", "_PlusScalar")             # noqa: E704
    def __radd__(self, o): return self._bin(o, "_Plus", "_PlusScalar")            # noqa: E704
    def __sub__(self, o): return self._bin(o, "_Minus", "_MinusScalar")           # noqa: E704
    def __mul__(self, o): return self._bin(o, "_Mul", "_MulScalar")               # noqa: E704
    def __rmul__(self, o): return self._bin(o, "_Mul", "_MulScalar")              # noqa: E704
    def __truediv__(self, o): return self._bin(o, "_Div", "_DivScalar")           # noqa: E704
    def __pow__(self, o): return self._bin(o, "_Power", "_PowerScalar")           # noqa: E704

    def __rsub__(self, o):
        return _make("_RMinusScalar", [self], {"scalar": float(o)})

    def __rtruediv__(self, o):
        return _make("_RDivScalar", [self], {"scalar": float(o)})

    def __neg__(self):
        return _make("_MulScalar", [self], {"scalar": -1.0})


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in names}
    elif isinstance(grad_req, dict):
        reqs = {n: grad_req.get(n, "null") for n in names}
    else:
        reqs = dict(zip(names, grad_req))
    for n, r in reqs.items():
        if r not in ("write", "add", "null"):
            raise ValueError(f"bind: grad_req for '{n}' must be 'write', 'add' or 'null', got {r!r}")
    return reqs


def _ordered(values, names, what, allow_missing=False):
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and not allow_missing:
            raise _base.MXNetError(f"bind: {what} has no array for {missing}")
        values = [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise _base.MXNetError(f"bind: {what} has {len(values)} arrays, the symbol has {len(names)}: {names}")
    out = []
    for n, v in zip(names, values):
        if v is not None and not isinstance(v, NDArray):
            v = as_nd(v) if isinstance(v, Tensor) else wrap(np.asarray(v, np.float32))
        out.append(v)
    return out


# ================================================================== constructors
def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None, **kwargs):
    """A named input of the graph (``shape`` / ``dtype`` are hints for inference)."""
    if not isinstance(name, str):
        raise TypeError(f"Variable: name must be a string, got {name!r}")
    from ._ndarray import check_stype
    check_stype(stype, f"Variable '{name}'")
    attrs = dict(attr or {})
    if shape is not None:
        attrs["__shape__"] = str(tuple(shape))
    if dtype is not None:
        attrs["__dtype__"] = repr(np.dtype(dtype).name)
    for k, v in (("__lr_mult__", lr_mult), ("__wd_mult__", wd_mult), ("__init__", init)):
        if v is not None:
            attrs[k] = str(v)
    return Symbol([(_Node(None, name, attrs, []), 0)])


var = Variable


def Group(symbols):
    """One Symbol with the outputs of all of ``symbols``."""
    outs = []
    for s in symbols:
        if not isinstance(s, Symbol):
            raise TypeError(f"Group: expected Symbols, got {type(s).__name__}")
        outs.extend(s._outputs)
    return Symbol(outs)


def _make(op, positional, kwargs):
    spec = _OPS[op]
    kwargs = dict(kwargs)
    name = kwargs.pop("name", None) or _auto_name(op)
    kwargs.pop("attr", None)
    syms = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    attrs = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol) and v is not None}
    arg_names = spec.args(attrs)
    aux_names = spec.aux(attrs)
    inputs = []
    positional = list(positional)
    for an in arg_names + aux_names:
        if an in syms:
            s = syms.pop(an)
        elif positional:
            s = positional.pop(0)
        else:
            s = Variable(f"{name}_{an}")
        if not isinstance(s, Symbol):
            raise TypeError(f"{op}: input '{an}' must be a Symbol, got {type(s).__name__}")
        if len(s._outputs) != 1:
            raise ValueError(f"{op}: input '{an}' must have one output, got a group of {len(s._outputs)}")
        inputs.append(s._outputs[0])
    if positional or syms:
        extra = list(syms) or [f"{len(positional)} positional"]
        raise TypeError(f"{op} '{name}': unexpected inputs {extra}; it takes {arg_names + aux_names}")
    node = _Node(op, name, attrs, inputs)
    n_out = len(spec.outputs(attrs))
    return Symbol([(node, i) for i in range(n_out)])


def _layer(op, doc):
    def build(*args, **kwargs):
        return _make(op, args, kwargs)
    build.__name__ = op
    build.__doc__ = doc
    return build


FullyConnected = _layer("FullyConnected", "``data @ weight.T + bias``; ``num_hidden`` outputs, ``no_bias``, ``flatten``.")
Activation = _layer("Activation", "``act_type``: 'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'.")
Convolution = _layer("Convolution", "2-D convolution: ``kernel``, ``num_filter``, ``stride``, ``pad``, ``no_bias``.")
Pooling = _layer("Pooling", "2-D pooling: ``kernel``, ``pool_type`` ('max' / 'avg'), ``stride``, ``pad``, ``global_pool``.")
Flatten = _layer("Flatten", "Reshape to (batch, -1).")
SoftmaxOutput = _layer("SoftmaxOutput", "Softmax forward; ``p - onehot(label)`` backward (a loss layer).")
LinearRegressionOutput = _layer("LinearRegressionOutput", "Identity forward; L2 loss gradient backward.")
Reshape = _layer("Reshape", "Reshape to ``shape`` (0 keeps a dimension, -1 infers one).")
dot = _layer("dot", "Matrix product (``transpose_a`` / ``transpose_b``).")
for _n in ("exp", "log", "sqrt", "square", "abs", "relu", "sigmoid", "tanh", "negative", "softmax", "log_softmax",
           "sum", "mean", "transpose", "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
           "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"):
    globals()[_n] = _layer(_n, f"Elementwise / reduction ``{_n}`` on symbols.")
reshape = Reshape
maximum = _layer("_Maximum", "Elementwise maximum.")
minimum = _layer("_Minimum", "Elementwise minimum.")


def Custom(*args, op_type=None, **kwargs):
    """A node of the custom op registered as ``op_type``; other keywords reach its Prop (as strings)."""
    if op_type is None:
        raise TypeError("sym.Custom: op_type=... is required (the name given to mx.operator.register)")
    _custom_type(op_type, {k: v for k, v in kwargs.items() if not isinstance(v, Symbol) and k != "name"})
    return _make("Custom", args, dict(kwargs, op_type=op_type))


def load_json(json_str):
    """A Symbol from ``tojson()`` output (MXNet's graph JSON with this module's operators)."""
    graph = json.loads(json_str)
    built = []
    for nd in graph["nodes"]:
        attrs = nd.get("attrs", nd.get("param", nd.get("attr", {}))) or {}
        if nd["op"] == "null":
            node = _Node(None, nd["name"], attrs, [])
        else:
            if nd["op"] not in _OPS:
                raise _base.MXNetError(f"sym.load_json: operator {nd['op']!r} is not supported here; "
                                       f"supported: {sorted(_OPS)}")
            node = _Node(nd["op"], nd["name"], attrs, [(built[i], k) for i, k, *_ in nd["inputs"]])
        built.append(node)
    return Symbol([(built[i], k) for i, k, *_ in graph["heads"]])


def load(fname):
    with open(fname) as f:
        return load_json(f.read())
