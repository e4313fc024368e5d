"""MXNet's ``CustomOp`` / ``CustomOpProp`` / ``register`` (public as ``mx.operator``), on the operator core.

Each registered op type (with one set of constructor keywords) becomes two
``OpDef``s (built in ``_bridge``). The forward op: the Prop's ``infer_shape`` / ``infer_type`` are
its FInferShape / FInferType, the CustomOp's ``forward`` is its
destination-passing ``FCompute`` kernel (given NDArray views of the
preallocated outputs and the req list), and its FGradient calls the backward
op, whose kernel is the CustomOp's ``backward``. The backward op takes exactly
what ``declare_backward_dependency`` lists (plus the auxiliary states), so a
``need_top_grad=False`` loss layer does not depend on the incoming gradient.
The dispatcher, the plan cache and the tape are the core's; nothing here runs
or differentiates ops by itself.

``create_operator`` is called once per input signature (through the kernel's
``bind`` hook, cached with the dispatcher's plan); that one CustomOp instance
serves forward and backward, so a forward may keep state on ``self`` for its
backward, as in MXNet.

Example::

    @mx.operator.register("sigmoid")
    class SigmoidProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Sigmoid()

    y = mx.nd.Custom(mx.nd.array([0.0, 1.0]), op_type="sigmoid")
"""

import difflib
import threading

import numpy as np

from ...tensor import Tensor
from . import base as _base

__all__ = ["CustomOp", "CustomOpProp", "register", "get_registered"]

_PROPS = {}                 # op_type -> CustomOpProp subclass
_LOCK = threading.Lock()
_REQS = ("write", "inplace", "add", "null")


class CustomOp:
    """The computation of an MXNet-style custom op: override ``forward`` and ``backward``.

    Both receive lists of NDArrays and write their results with ``self.assign``.

    Example::

        class Sigmoid(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                x = in_data[0].asnumpy()
                self.assign(out_data[0], req[0], 1.0 / (1.0 + np.exp(-x)))
    """

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError(f"{type(self).__name__}.backward is not implemented")

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` says.

        ``"write"`` / ``"inplace"`` copy, ``"add"`` adds, ``"null"`` leaves ``dst``
        alone. ``src`` must have ``dst``'s shape (or one element).

        Example::

            self.assign(in_grad[0], req[0], dy * y * (1.0 - y))
        """
        role = getattr(dst, "_role", None)
        op_name = role[0] if role else type(self).__name__
        if req not in _REQS:
            raise ValueError(f"op '{op_name}': assign got req {req!r}; expected one of {list(_REQS)}")
        if not isinstance(dst, Tensor):
            raise TypeError(f"op '{op_name}': assign needs an NDArray destination, got {type(dst).__name__}")
        if req == "null":
            return
        if getattr(dst, "stype", "default") != "default":          # a sparse output / gradient
            shape = tuple(src.shape) if hasattr(src, "shape") else np.shape(src)
            if shape != tuple(dst.shape) and int(np.prod(shape)) != 1:
                raise ValueError(f"op '{op_name}': assigned an array of shape {list(shape)} to "
                                 f"{role[1] if role else 'the destination'}, whose inferred shape is {list(dst.shape)}")
            dst._write(src, add=req == "add")
            dst._assigned = True
            return
        value = src._data if isinstance(src, Tensor) else np.asarray(src)
        target = dst._data
        label = role[1] if role else "the destination"
        if value.shape != target.shape and value.size != 1:
            raise ValueError(f"op '{op_name}': assigned an array of shape {list(value.shape)} to {label}, "
                             f"whose inferred shape is {list(target.shape)}")
        try:
            if req == "add":
                np.add(target, value, out=target, casting="same_kind")
            else:
                np.copyto(target, value, casting="same_kind")
        except TypeError as exc:
            raise TypeError(f"op '{op_name}': cannot assign {value.dtype} values to {label} of dtype "
                            f"{target.dtype} ({exc})") from None
        dst._assigned = True


class CustomOpProp:
    """The description of an MXNet-style custom op: arguments, outputs, inference, dependencies.

    ``need_top_grad=False`` marks a loss layer: its backward does not use the
    gradient coming from above, so the default ``declare_backward_dependency``
    leaves ``out_grad`` out.

    Example::

        @mx.operator.register("softmax_loss")
        class SoftmaxLossProp(mx.operator.CustomOpProp):
            def __init__(self):
                super().__init__(need_top_grad=False)
            def list_arguments(self):
                return ["data", "label"]
            def create_operator(self, ctx, shapes, dtypes):
                return SoftmaxLoss()
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
        """Which of the ids in out_grad / in_data / out_data the backward reads (all, by default;
        no out_grad when ``need_top_grad`` is False)."""
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def infer_storage_type(self, in_stype):
        """``(in_stypes, out_stypes, aux_stypes)``: dense (``'default'``) everywhere. Override it (and
        ``infer_storage_type_backward``) for an op with ``'csr'`` / ``'row_sparse'`` arrays."""
        for i, st in enumerate(in_stype):
            if st != "default":
                raise _base.MXNetError(f"{type(self).__name__}: the default infer_storage_type implementation does "
                                       f"not allow non-default stypes: found {st!r} for in_stype[{i}]; implement "
                                       "infer_storage_type and infer_storage_type_backward for sparse arrays")
        return (in_stype, ["default"] * len(self.list_outputs()),
                ["default"] * len(self.list_auxiliary_states()))

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        """Storage types of the backward's arrays: dense (``'default'``) everywhere unless overridden."""
        for group, label in ((ograd_stype, "ograd_stype"), (in_stype, "in_stype"), (out_stype, "out_stype"),
                             (aux_stype, "aux_stype")):
            for i, st in enumerate(group):
                if st != "default":
                    raise _base.MXNetError(f"{type(self).__name__}: the default infer_storage_type_backward "
                                           f"implementation does not allow non-default stypes: found {st!r} for "
                                           f"{label}[{i}]; implement infer_storage_type_backward for sparse arrays")
        return (["default"] * len(ograd_stype), ["default"] * len(in_stype), ["default"] * len(out_stype),
                ["default"] * len(igrad_stype), ["default"] * len(aux_stype))

    def create_operator(self, ctx, in_shapes, in_dtypes):
        raise NotImplementedError(f"{type(self).__name__}.create_operator is not implemented")


def register(reg_name):
    """Class decorator: register a ``CustomOpProp`` subclass as op type ``reg_name``.

    Registering a name again replaces the earlier op type.

    Example::

        @mx.operator.register("sigmoid")
        class SigmoidProp(mx.operator.CustomOpProp): ...
    """
    if not isinstance(reg_name, str) or not reg_name:
        raise TypeError(f"mx.operator.register: the op type must be a non-empty string, got {reg_name!r}")

    def deco(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError(f"mx.operator.register('{reg_name}'): expected a CustomOpProp subclass, "
                            f"got {prop_cls!r}")
        with _LOCK:
            _PROPS[reg_name] = prop_cls
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
