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

import itertools
import json
import threading

import numpy as np

from ...tensor import Tensor
from . import base as _base
from ._bridge import op_type as _custom_type
from ._sym_ops import OPS, as_tuple, parse
from ._ndarray import NDArray, as_nd, wrap
from .context import current_context
from .executor import Executor

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "FullyConnected", "Activation",
           "Convolution", "Pooling", "Flatten", "SoftmaxOutput", "LinearRegressionOutput", "Custom",
           "exp", "log", "sqrt", "square", "abs", "relu", "sigmoid", "tanh", "softmax", "log_softmax",
           "negative", "sum", "mean", "dot", "reshape", "transpose", "broadcast_add", "broadcast_sub",
           "broadcast_mul", "broadcast_div", "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div",
           "maximum", "minimum", "LogisticRegressionOutput", "MAERegressionOutput", "SVMOutput", "MakeLoss",
           "BlockGrad", "stop_gradient", "Cast", "cast"]

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
                spec = OPS[node.op]
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
                names.append(f"{node.name}_{OPS[node.op].outputs(node.attrs)[i]}")
        return names

    def list_inputs(self):
        return [n.name for n in self._topo() if n.op is None]

    def get_internals(self):
        """Every output of every node, as one grouped Symbol."""
        outs = []
        for node in self._topo():
            k = 1 if node.op is None else len(OPS[node.op].outputs(node.attrs))
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
                    node_shapes[node.uid] = [list(as_tuple(node.attrs["__shape__"]))]
                if node.name in (types or {}):
                    node_types[node.uid] = [np.dtype(types[node.name]).type]
                elif "__dtype__" in node.attrs:
                    node_types[node.uid] = [np.dtype(parse(node.attrs["__dtype__"])).type]
        for node in self._topo():
            if node.op is None:
                continue
            spec = OPS[node.op]
            ins = [node_shapes[i.uid][k] if i.uid in node_shapes else None for i, k in node.inputs]
            res = spec.infer_shape(node.attrs, ins)
            if res is not None:
                full, outs, aux = res
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
            spec = OPS[node.op]
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
        from ._ndarray import check_stype
        stypes = {n.name: n.attrs["__storage_type__"] for n in self._variables()[0] if "__storage_type__" in n.attrs}
        for k, st in (stype_dict or {}).items():
            stypes[k] = check_stype(st, f"simple_bind ('{k}')")
        arg_shapes, _, aux_shapes = self.infer_shape(**kwargs)
        if arg_shapes is None:
            partial, _, _ = self.infer_shape_partial(**kwargs)
            missing = [n for n, s in zip(self.list_arguments(), partial) if not s]
            raise _base.MXNetError(f"simple_bind: cannot infer the shapes of {missing}; pass them as keyword "
                                   f"arguments (e.g. {missing[0]}=(batch, ...))")
        arg_types, _, aux_types = self.infer_type(**(type_dict or {}))
        names = self.list_arguments()
        from ._sparse import zeros as _zeros                # stype 'default' gives a dense array
        args = [_zeros(stypes.get(n, "default"), s, ctx=ctx, dtype=t) for n, s, t in zip(names, arg_shapes, arg_types)]
        reqs = _grad_reqs(grad_req, names)
        grads = [_zeros(stypes.get(n, "default"), s, ctx=ctx, dtype=t) if reqs[n] != "null" else None
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

    # MXNet 2.0's names for the same two calls (its newer tests use them)
    def _bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
              shared_exec=None):
        """``bind`` under MXNet 2.0's name."""
        return self.bind(ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def _simple_bind(self, ctx=None, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                     shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """``simple_bind`` under MXNet 2.0's name."""
        return self.simple_bind(ctx, grad_req, type_dict, stype_dict, group2ctx, shared_arg_names, shared_exec,
                                shared_buffer, **kwargs)

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
    stype = check_stype(stype, f"Variable '{name}'")
    attrs = dict(attr or {})
    if stype != "default":
        attrs["__storage_type__"] = stype
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
    spec = OPS[op]
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
LogisticRegressionOutput = _layer("LogisticRegressionOutput",
                                  "Sigmoid forward; ``(p - label) * grad_scale / num_output`` backward.")
MAERegressionOutput = _layer("MAERegressionOutput", "Identity forward; L1 loss gradient backward.")
SVMOutput = _layer("SVMOutput", "Identity forward; hinge loss gradient (``margin``, ``regularization_coefficient``, "
                                "``use_linear``) backward; ``label`` is one class per row.")
MakeLoss = _layer("MakeLoss", "Identity forward; ``grad_scale`` backward (``normalization``: null / batch / valid).")
BlockGrad = _layer("BlockGrad", "Identity forward; no gradient.")
stop_gradient = BlockGrad
maximum = _layer("_Maximum", "Elementwise maximum.")


def Cast(data=None, dtype=None, name=None, attr=None, **kwargs):
    """``data`` converted to ``dtype`` (a NumPy type or its name); the gradient is cast back."""
    if dtype is None:
        raise TypeError("sym.Cast: dtype=... is required (e.g. dtype='float64')")
    args = [] if data is None else [data]
    return _make("Cast", args, dict(kwargs, dtype=np.dtype(dtype).name, name=name))


cast = Cast
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
            if nd["op"] not in OPS:
                raise _base.MXNetError(f"sym.load_json: operator {nd['op']!r} is not supported here; "
                                       f"supported: {sorted(OPS)}")
            node = _Node(nd["op"], nd["name"], attrs, [(built[i], k) for i, k, *_ in nd["inputs"]])
        built.append(node)
    return Symbol([(built[i], k) for i, k, *_ in graph["heads"]])


def load(fname):
    with open(fname) as f:
        return load_json(f.read())
