"""``mx.operator``: ``CustomOp``, ``CustomOpProp``, ``register``, and ``opdefs`` to look inside.

Each registered op type (with one set of constructor keywords) becomes two
``OpDef``s of the operator core (built in ``_bridge``); see ``_prop`` for the
classes and ``_bridge`` for the mapping.

Example::

    @mx.operator.register("sigmoid")
    class SigmoidProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Sigmoid()

    y = mx.nd.Custom(mx.nd.array([0.0, 1.0]), op_type="sigmoid")
"""

from ._bridge import op_type as _op_type
from ._prop import CustomOp, CustomOpProp, get_registered, register

__all__ = ["CustomOp", "CustomOpProp", "register", "get_registered", "opdefs"]


def opdefs(op_type, **kwargs):
    """The core OpDefs ``(forward, backward)`` behind ``nd.Custom(..., op_type=op_type, **kwargs)``.

    For looking at how an MXNet-style op maps onto the core: the forward's
    attributes (FInferShape, FInferType, FCompute<cpu>, FGradient) and the
    backward's inputs (the declared dependencies, then the auxiliary states).

    Example::

        fwd, bwd = mx.operator.opdefs("softmax_loss")
        bwd.input_names        # no out_grad for a need_top_grad=False loss layer
    """
    t = _op_type(op_type, kwargs)
    return t.forward_op, t.backward_op
