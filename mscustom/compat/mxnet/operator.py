"""``mx.operator``: MXNet's ``CustomOp`` / ``CustomOpProp`` / ``register``, on the operator core.

Each registered op type (with one set of constructor keywords) becomes one
``OpDef``: the Prop's ``infer_shape`` / ``infer_type`` are its FInferShape /
FInferType, the CustomOp's ``forward`` is its destination-passing kernel
(given NDArray views of the preallocated outputs), and its FGradient calls a
second OpDef whose kernel is the CustomOp's ``backward``. The dispatcher, the
plan cache and the tape are the core's; nothing here runs ops by itself.

One CustomOp instance is made per input signature (``create_operator`` is
called once per shapes/dtypes) and serves both forward and backward, so a
forward may keep state on ``self`` for its backward, as in MXNet.

Example::

    @mx.operator.register("sigmoid")
    class SigmoidProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Sigmoid()
"""

import difflib
import threading

import numpy as np

from ... import dtype as _dt
from ..._core import autodiff as _ad
from ..._core.opdef import OpDef
from ...tensor import Tensor
from . import autograd as _autograd
from .ndarray import NDArray, _as_nd, _wrap_nd

__all__ = ["CustomOp", "CustomOpProp", "register", "get_registered"]

_PROPS = {}                 # op_type -> CustomOpProp subclass
_TYPES = {}                 # (op_type, frozen kwargs) -> _OpType
_LOCK = threading.Lock()
_REQS = ("write", "inplace", "add", "null")


class CustomOp:
    """The computation of an MXNet-style custom op: override ``forward`` and ``backward``.

    Both receive lists of NDArrays and write results with ``self.assign``.
    """

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError(f"{type(self).__name__}.backward is not implemented")

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` says: "write"/"inplace" copy, "add" adds, "null" skips."""
        op_name = getattr(self, "_mx_op_type", type(self).__name__)
        if req not in _REQS:
            raise ValueError(f"op '{op_name}': assign got req {req!r}; expected one of {list(_REQS)}")
        if not isinstance(dst, Tensor):
            raise TypeError(f"op '{op_name}': assign needs an NDArray destination, got {type(dst).__name__}")
        if req == "null":
            dst._assigned = True
            return
        value = src._data if isinstance(src, Tensor) else np.asarray(src)
        if value.shape != dst._data.shape and value.size != 1:
            where = getattr(self, "_mx_names", {}).get(id(dst), "the destination")
            raise ValueError(f"op '{op_name}': assigned an array of shape {list(value.shape)} to {where}, "
                             f"whose inferred shape is {list(dst._data.shape)}")
        if req == "add":
            dst._data += value
        else:
            np.copyto(dst._data, value, casting="same_kind")
        dst._assigned = True


class CustomOpProp:
    """The description of an MXNet-style custom op: arguments, outputs, inference, dependencies.

    ``need_top_grad=False`` marks a loss layer: its backward does not use the
    gradient coming from above.
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def list_auxiliary_states(self):
        return []

    def infer_shape(self, in_shape):
        """``(in_shapes, out_shapes, aux_shapes)``; by default every output has the first input's shape."""
        return (in_shape, [in_shape[0]] * len(self.list_outputs()),
                [in_shape[0]] * len(self.list_auxiliary_states()))

    def infer_type(self, in_type):
        """``(in_types, out_types, aux_types)`` as NumPy types; by default the first input's."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Which of out_grad / in_data / out_data the backward reads (all of them by default)."""
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        raise NotImplementedError(f"{type(self).__name__}.create_operator is not implemented")


def register(reg_name):
    """Class decorator: register a ``CustomOpProp`` subclass as op type ``reg_name``."""
    if not isinstance(reg_name, str) or not reg_name:
        raise TypeError(f"mx.operator.register: the op type must be a non-empty string, got {reg_name!r}")

    def deco(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError(f"mx.operator.register('{reg_name}'): expected a CustomOpProp subclass, "
                            f"got {prop_cls!r}")
        with _LOCK:
            _PROPS[reg_name] = prop_cls
            for key in [k for k in _TYPES if k[0] == reg_name]:
                del _TYPES[key]          # re-registration replaces the op
        return prop_cls
    return deco


def get_registered(op_type):
    """The Prop class registered as ``op_type``; ValueError naming close matches otherwise."""
    try:
        return _PROPS[op_type]
    except KeyError:
        close = difflib.get_close_matches(str(op_type), list(_PROPS), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        known = f" (registered: {sorted(_PROPS)})" if _PROPS and not close else ""
        raise ValueError(f"nd.Custom: no custom op registered with op_type={op_type!r}{hint}{known}") from None


# ---------------------------------------------------------------- the op type on the core
def _np_type(d):
    return _dt.to_numpy(d).type


class _OpType:
    """One registered op type with fixed constructor keywords: its Prop, forward and backward OpDefs."""

    def __init__(self, op_type, prop):
        self.name = op_type
        self.prop = prop
        self.args = list(prop.list_arguments())
        self.outs = list(prop.list_outputs())
        self.aux = list(prop.list_auxiliary_states())
        self.operators = {}              # (shapes, dtypes) -> CustomOp
        self.lock = threading.Lock()
        n_in = len(self.args) + len(self.aux)

        fwd = OpDef(op_type, num_inputs=n_in, num_outputs=len(self.outs))
        fwd.describe(f"MXNet-style custom op '{op_type}'")
        fwd.input_names = self.args + self.aux
        fwd.set_attr("FInferShape", self._infer_shape)
        fwd.set_attr("FInferType", self._infer_type)
        fwd.set_attr("FCompute<cpu>", self._forward)
        fwd.set_attr("FCompute<gpu>", self._forward)       # tensors live on the host
        fwd.set_attr("FGradient", self._gradient)
        self.forward_op = fwd

        # backward inputs: out_grad..., in_data..., out_data..., aux...; outputs: one grad per argument
        bwd = OpDef(f"{op_type}_backward", num_inputs=2 * len(self.outs) + n_in, num_outputs=len(self.args))
        bwd.describe(f"backward of MXNet-style custom op '{op_type}'")
        n_out = len(self.outs)
        bwd.set_attr("FInferShape", lambda attrs, shapes: (shapes, shapes[n_out:n_out + len(self.args)]))
        bwd.set_attr("FInferType", lambda attrs, types: (types, types[n_out:n_out + len(self.args)]))
        bwd.set_attr("FCompute<cpu>", self._backward)
        bwd.set_attr("FCompute<gpu>", self._backward)
        self.backward_op = bwd

    # ------------------------------------------------------------ inference
    def _infer_shape(self, attrs, in_shapes):
        res = self.prop.infer_shape([list(s) for s in in_shapes[:len(self.args)]])
        if not isinstance(res, (tuple, list)) or len(res) not in (2, 3):
            got = f"{len(res)} list(s)" if isinstance(res, (tuple, list)) else type(res).__name__
            raise ValueError(f"op '{self.name}': CustomOpProp.infer_shape must return (in_shapes, out_shapes) "
                             f"or (in_shapes, out_shapes, aux_shapes), got {got}")
        outs = list(res[1])
        if len(outs) != len(self.outs):
            raise ValueError(f"op '{self.name}': infer_shape gave {len(outs)} output shape(s) but "
                             f"list_outputs() names {len(self.outs)} ({', '.join(self.outs)})")
        if len(res) == 3 and len(res[2]) != len(self.aux):
            raise ValueError(f"op '{self.name}': infer_shape gave {len(res[2])} auxiliary shape(s) but "
                             f"list_auxiliary_states() names {len(self.aux)}")
        if len(res) == 3:
            for name, want, got in zip(self.aux, res[2], in_shapes[len(self.args):]):
                if list(want) != list(got):
                    raise ValueError(f"op '{self.name}': auxiliary state '{name}' has shape {list(got)}, "
                                     f"infer_shape expects {list(want)}")
        return in_shapes, [list(s) for s in outs]

    def _infer_type(self, attrs, in_dtypes):
        res = self.prop.infer_type([_np_type(d) for d in in_dtypes[:len(self.args)]])
        if not isinstance(res, (tuple, list)) or len(res) not in (2, 3):
            got = f"{len(res)} list(s)" if isinstance(res, (tuple, list)) else type(res).__name__
            raise ValueError(f"op '{self.name}': CustomOpProp.infer_type must return (in_types, out_types) "
                             f"or (in_types, out_types, aux_types), got {got}")
        outs = list(res[1])
        if len(outs) != len(self.outs):
            raise ValueError(f"op '{self.name}': infer_type gave {len(outs)} output type(s) but "
                             f"list_outputs() names {len(self.outs)}")
        return in_dtypes, [_dt.dtype_from_any(t) for t in outs]

    # ------------------------------------------------------------ kernels
    def _operator(self, arrays):
        key = tuple((a.shape, a.dtype.str) for a in arrays)
        op = self.operators.get(key)
        if op is None:
            with self.lock:
                op = self.operators.get(key)
                if op is None:
                    shapes = [list(a.shape) for a in arrays]
                    dtypes = [a.dtype.type for a in arrays]
                    op = self.prop.create_operator("cpu(0)", shapes, dtypes)
                    if not isinstance(op, CustomOp):
                        raise TypeError(f"op '{self.name}': create_operator must return a CustomOp, "
                                        f"got {type(op).__name__}")
                    op._mx_op_type = self.name
                    self.operators[key] = op
        return op

    def _forward(self, attrs, inputs, req, outputs):
        n_args = len(self.args)
        op = self._operator(inputs[:n_args])
        in_data = [_wrap_nd(a) for a in inputs[:n_args]]
        aux = [_wrap_nd(a) for a in inputs[n_args:]]
        out_data = [_wrap_nd(o) for o in outputs]
        op._mx_names = {id(o): f"output '{name}'" for o, name in zip(out_data, self.outs)}
        with _ad.paused():
            op.forward(_autograd.is_training(), ["write"] * len(outputs), in_data, out_data, aux)
        missing = [name for o, name in zip(out_data, self.outs) if not o._assigned]
        if missing:
            raise RuntimeError(f"op '{self.name}': forward() did not write output(s) {missing}; call "
                               "self.assign(out_data[i], req[i], value) for every output")

    def _backward(self, attrs, inputs, req, outputs):
        n_out, n_args = len(self.outs), len(self.args)
        out_grad = [_wrap_nd(a) for a in inputs[:n_out]]
        in_arrays = inputs[n_out:n_out + n_args]
        out_data = [_wrap_nd(a) for a in inputs[n_out + n_args:2 * n_out + n_args]]
        aux = [_wrap_nd(a) for a in inputs[2 * n_out + n_args:]]
        op = self._operator(in_arrays)
        in_grad = []
        for o in outputs:
            o[...] = 0                   # an input whose gradient backward leaves alone gets zeros
            in_grad.append(_wrap_nd(o))
        op._mx_names = {id(g): f"the gradient of '{name}'" for g, name in zip(in_grad, self.args)}
        with _ad.paused():
            op.backward(["write"] * n_args, out_grad, [_wrap_nd(a) for a in in_arrays], out_data, in_grad, aux)

    def _gradient(self, inputs, outputs, ograds, attrs):
        n_args = len(self.args)
        deps = self.prop.declare_backward_dependency(list(range(len(self.outs))),
                                                     list(range(100, 100 + n_args)),
                                                     list(range(200, 200 + len(self.outs))))
        if not isinstance(deps, (list, tuple)) or not all(isinstance(d, (int, np.integer)) for d in deps):
            raise TypeError(f"op '{self.name}': declare_backward_dependency must return a list of the ids "
                            f"it was given, got {deps!r}")
        grads = self.backward_op(*ograds, *inputs[:n_args], *outputs, *inputs[n_args:])
        grads = list(grads) if isinstance(grads, tuple) else [grads]
        return grads + [None] * len(self.aux)          # auxiliary states get no gradient


def _freeze(kwargs):
    return tuple(sorted((k, str(v)) for k, v in kwargs.items()))


def _op_type(op_type, kwargs):
    key = (op_type, _freeze(kwargs))
    t = _TYPES.get(key)
    if t is None:
        prop_cls = get_registered(op_type)
        try:
            prop = prop_cls(**{k: str(v) for k, v in kwargs.items()})
        except TypeError as exc:
            raise TypeError(f"op '{op_type}': {prop_cls.__name__}({', '.join(f'{k}=...' for k in kwargs)}) "
                            f"failed: {exc}") from exc
        t = _OpType(op_type, prop)
        with _LOCK:
            t = _TYPES.setdefault(key, t)
    return t


def _custom_call(inputs, op_type, kwargs):
    if op_type is None:
        raise TypeError("nd.Custom: op_type=... is required (the name given to mx.operator.register)")
    t = _op_type(op_type, kwargs)
    n_args, n_aux = len(t.args), len(t.aux)
    if len(inputs) != n_args + n_aux:
        aux = f" and auxiliary state(s) {t.aux}" if t.aux else ""
        raise TypeError(f"op '{op_type}': list_arguments() names {n_args} argument(s) {t.args}{aux}, so it "
                        f"takes {n_args + n_aux} input(s); got {len(inputs)}")
    tensors = [x if isinstance(x, Tensor) else NDArray(x) for x in inputs]
    out = t.forward_op(*tensors)
    out = _as_nd(out)
    if isinstance(out, tuple):
        return list(out)
    return out
