"""MindSpore's primitive classes (``ops.Add()``, ``ops.MatMul(transpose_b=True)`` ...), generated from one table.

A primitive is made once with its attributes (constructor arguments, with
MindSpore's names and defaults) and then called on tensors; each call is the
functional op of the same meaning, so every primitive is differentiable
exactly as its functional form. ``Primitive`` / ``PrimitiveWithInfer`` /
``PrimitiveWithCheck`` and ``prim_attr_register`` exist for user subclasses.

Example::

    matmul = ops.MatMul(transpose_b=True)
    matmul(x, w)                         # x @ w.T
    ops.ReduceSum(keep_dims=True)(x, 1)
"""

import functools
import inspect

import numpy as np

from ..tensor import Tensor, as_tensor

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register"]


class Primitive:
    """Base of every primitive: a name, attributes and input/output names.

    A subclass supplies ``__call__`` (or, as the generated primitives do, a
    ``_compute``); attributes set through ``add_prim_attr`` are readable both as
    ``prim.attrs[name]`` and as ``prim.name_of_attr``.
    """

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.attrs = {}
        self.input_names = None
        self.output_names = None

    def add_prim_attr(self, name, value):
        """Set one attribute; returns the primitive so calls chain."""
        self.attrs[name] = value
        try:
            setattr(self, name, value)
        except AttributeError:          # a read-only property of the subclass keeps its own value
            pass
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        return self

    def init_prim_io_names(self, inputs, outputs):
        """Record the names of the inputs and outputs (used in error messages)."""
        self.input_names = list(inputs)
        self.output_names = list(outputs)
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def set_prim_instance_name(self, name):
        self.instance_name = name
        return self

    def __call__(self, *args):
        compute = getattr(self, "_compute", None)
        if compute is None:
            raise RuntimeError(f"primitive '{self.name}' has no implementation here: a subclass of "
                               f"Primitive must define __call__ (or use ops.Custom to give it a kernel)")
        return compute(*args)

    def __repr__(self):
        shown = {k: v for k, v in self.attrs.items() if k not in ("input_names", "output_names")}
        return f"Prim[{self.name}]" + (f"<{', '.join(f'{k}={v!r}' for k, v in shown.items())}>" if shown else "")


class PrimitiveWithInfer(Primitive):
    """A primitive whose subclass gives ``infer_shape`` / ``infer_dtype`` (and optionally ``infer_value``).

    ``__call__`` runs ``infer_value`` when the subclass defines one, else the
    subclass's own ``__call__``; the inference methods are called directly by
    user code and tests.
    """

    def infer_shape(self, *shapes):
        return shapes[0] if shapes else None

    def infer_dtype(self, *dtypes):
        return dtypes[0] if dtypes else None

    def infer_value(self, *values):
        return None

    def __call__(self, *args):
        if type(self).infer_value is not PrimitiveWithInfer.infer_value:
            value = self.infer_value(*args)
            if value is not None:
                return value
        return super().__call__(*args)


class PrimitiveWithCheck(Primitive):
    """A primitive whose subclass gives ``check_shape`` / ``check_dtype`` to validate inputs."""

    def check_shape(self, *shapes):
        return None

    def check_dtype(self, *dtypes):
        return None


def prim_attr_register(init):
    """Decorator for a primitive's ``__init__``: every constructor argument becomes an attribute."""
    sig = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        Primitive.__init__(self, type(self).__name__)
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            if sig.parameters[name].kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                self.add_prim_attr(name, value)
        init(self, *args, **kwargs)
    return wrapper


# ------------------------------------------------------------------ the table
def _ops():
    from .. import ops
    return ops


def _fn(name):
    return getattr(_ops(), name)


def _matmul(p, x, y):
    x, y = as_tensor(x), as_tensor(y)
    from .math.elementwise import matmul_t     # the flags go to the kernel, which reads transposed views
    return matmul_t(x, y, bool(p.attrs.get("transpose_a")), bool(p.attrs.get("transpose_b")))


def _reduce(fname):
    def compute(p, x, axis=()):
        axis = None if isinstance(axis, (tuple, list)) and len(axis) == 0 else axis
        out = _fn(fname)(x, axis, p.attrs.get("keep_dims", False))
        if fname == "reduce_sum" and as_tensor(x).dtype.name == "bool":
            out = _fn("not_equal")(out, 0)      # MindSpore's ReduceSum keeps bool: True where any is True
        return out
    return compute


def _softmax_ce(p, logits, labels):
    """MindSpore's SoftmaxCrossEntropyWithLogits: (per-sample loss, gradient w.r.t. logits)."""
    ops = _ops()
    labels = as_tensor(labels, logits)
    loss = ops.neg(ops.reduce_sum(ops.mul(labels, ops.log_softmax(logits, -1)), -1))
    return loss, ops.stop_gradient(ops.sub(ops.softmax(logits, -1), labels))


def _sparse_softmax_ce(p, logits, labels):
    """MindSpore's SparseSoftmaxCrossEntropyWithLogits: the mean loss, or its gradient when is_grad."""
    labels = as_tensor(labels)
    if labels.dtype.name not in ("int32", "int64"):
        raise TypeError(f"primitive 'SparseSoftmaxCrossEntropyWithLogits': labels must be int32 or int64, "
                        f"got {labels.dtype.name}")
    from .._core import capture
    from .nn.loss_fused import LabelRange, sparse_softmax_cross_entropy, sparse_softmax_cross_entropy_grad
    who = "primitive 'SparseSoftmaxCrossEntropyWithLogits'"
    if not p.attrs.get("is_grad"):
        return sparse_softmax_cross_entropy(logits, labels, "mean", who=who)     # checks the labels' range
    capture.check(LabelRange(who, as_tensor(logits).shape[-1]), labels)
    one = Tensor(np.ones((), as_tensor(logits)._data.dtype))      # (not asnumpy: no host read in graph mode)
    return sparse_softmax_cross_entropy_grad(logits, labels, one, "mean")


def _gather(p, params, indices, axis=0):
    ops = _ops()
    if hasattr(ops, "gather"):
        return ops.gather(params, indices, axis)
    index = [slice(None)] * as_tensor(params).ndim
    index[axis] = as_tensor(indices).asnumpy()
    return as_tensor(params)[tuple(index)]


def _direct(fname):
    return lambda p, *args: _fn(fname)(*args)


_UNARY = {"Neg": "neg", "Abs": "abs", "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Square": "square",
          "Sign": "sign", "ReLU": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "ZerosLike": "zeros_like",
          "OnesLike": "ones_like", "StopGradient": "stop_gradient"}
_BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "div", "Div": "div", "Pow": "pow",
           "Maximum": "maximum", "Minimum": "minimum", "Equal": "equal", "NotEqual": "not_equal",
           "Greater": "greater", "GreaterEqual": "greater_equal", "Less": "less", "LessEqual": "less_equal"}

# name: (constructor parameters with MindSpore's defaults, compute(prim, *call_args))
_TABLE = {
    **{name: ((), _direct(f)) for name, f in _UNARY.items()},
    **{name: ((), _direct(f)) for name, f in _BINARY.items()},
    "Rsqrt": ((), lambda p, x: _fn("div")(1.0, _fn("sqrt")(x))),
    "Reciprocal": ((), lambda p, x: _fn("div")(1.0, x)),
    "MatMul": ((("transpose_a", False), ("transpose_b", False)), _matmul),
    "BatchMatMul": ((("transpose_a", False), ("transpose_b", False)), _matmul),
    "ReduceSum": ((("keep_dims", False),), _reduce("reduce_sum")),
    "ReduceMean": ((("keep_dims", False),), _reduce("reduce_mean")),
    "ReduceMax": ((("keep_dims", False),), _reduce("reduce_max")),
    "ReduceMin": ((("keep_dims", False),), _reduce("reduce_min")),
    "Softmax": ((("axis", -1),), lambda p, x: _fn("softmax")(x, p.attrs["axis"])),
    "LogSoftmax": ((("axis", -1),), lambda p, x: _fn("log_softmax")(x, p.attrs["axis"])),
    "Transpose": ((), lambda p, x, perm: _fn("transpose")(x, tuple(perm))),
    "Reshape": ((), lambda p, x, shape: _fn("reshape")(x, tuple(shape))),
    "Cast": ((), lambda p, x, dtype: _fn("cast")(x, dtype)),
    "Concat": ((("axis", 0),), lambda p, xs: _fn("concat")(xs, p.attrs["axis"])),
    "Stack": ((("axis", 0),), lambda p, xs: _fn("stack")(xs, p.attrs["axis"])),
    "ExpandDims": ((), lambda p, x, axis: _fn("expand_dims")(x, axis)),
    "Squeeze": ((("axis", ()),), lambda p, x: _fn("squeeze")(x, p.attrs["axis"] if p.attrs["axis"] != () else None)),
    "Select": ((), lambda p, cond, x, y: _fn("where")(cond, x, y)),
    "BroadcastTo": ((("shape", None),), lambda p, x: _fn("broadcast_to")(x, tuple(p.attrs["shape"]))),
    "Shape": ((), lambda p, x: tuple(as_tensor(x).shape)),
    "Rank": ((), lambda p, x: as_tensor(x).ndim),
    "Size": ((), lambda p, x: as_tensor(x).size),
    "DType": ((), lambda p, x: as_tensor(x).dtype),
    "OneHot": ((("axis", -1),), lambda p, indices, depth, on_value, off_value:
               _fn("one_hot")(indices, depth, on_value, off_value, p.attrs["axis"])),
    "Gather": ((("batch_dims", 0),), _gather),
    "Fill": ((), lambda p, dtype, shape, value: Tensor(np.full(tuple(shape), value), dtype=dtype)),
    "Zeros": ((), lambda p, shape, dtype: Tensor(np.zeros(tuple(shape) if not isinstance(shape, int) else (shape,)),
                                                 dtype=dtype)),
    "Ones": ((), lambda p, shape, dtype: Tensor(np.ones(tuple(shape) if not isinstance(shape, int) else (shape,)),
                                                dtype=dtype)),
    "Assign": ((), lambda p, variable, value: _fn("assign")(variable, value)),
    "AssignAdd": ((), lambda p, variable, value: _fn("assign_add")(variable, value)),
    "AssignSub": ((), lambda p, variable, value: _fn("assign_sub")(variable, value)),
    "SoftmaxCrossEntropyWithLogits": ((), _softmax_ce),
    "SparseSoftmaxCrossEntropyWithLogits": ((("is_grad", False),), _sparse_softmax_ce),
}


def _make_primitive(name, params, compute):
    names = [p for p, _ in params]
    defaults = dict(params)

    def __init__(self, *args, **kwargs):
        Primitive.__init__(self, name)
        if len(args) > len(names):
            raise TypeError(f"primitive '{name}' takes {len(names)} constructor argument(s) "
                            f"{names}, got {len(args)}")
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            raise TypeError(f"primitive '{name}' got unknown constructor argument(s) {unknown}; "
                            f"it takes {names or 'none'}")
        values = dict(defaults)
        values.update(zip(names, args))
        values.update(kwargs)
        missing = [k for k, v in values.items() if v is REQUIRED]
        if missing:
            raise TypeError(f"primitive '{name}' is missing the constructor argument(s) {missing}; "
                            f"it takes {names}")
        for key, value in values.items():
            self.add_prim_attr(key, value)

    def _compute(self, *args):
        return compute(self, *args)

    sig_text = ", ".join(p if d is REQUIRED else f"{p}={d!r}" for p, d in params)
    doc = f"MindSpore's ``ops.{name}({sig_text})``: construct once, then call on tensors."
    return type(name, (Primitive,), {"__init__": __init__, "_compute": _compute, "__doc__": doc,
                                     "__module__": __name__})


from ._primitive_table import REQUIRED, TABLE as _MORE  # noqa: E402  (Conv2D, BatchNorm, CumSum, TopK ...)

_TABLE.update(_MORE)
from ._primitive_table_ms_names import TABLE as _MS_NAMES  # noqa: E402  (Eye, ScatterNd, Unstack ...)

_TABLE.update(_MS_NAMES)

for _name, (_params, _compute) in _TABLE.items():
    globals()[_name] = _make_primitive(_name, _params, _compute)
    __all__.append(_name)
del _name, _params, _compute
