"""Dynamic shapes: tensors whose shape the next op's inference sees as (partly) unknown.

MindSpore compiles a graph once for a family of input shapes: dimensions
declared unknown (``Tensor(shape=[None, 3])`` in ``Cell.set_inputs``, or the
output of ``ConvertToDynamic``) reach shape inference as -1, an unknown rank
as ``[-2]``; the real shapes are only known when the kernel runs.

Here ops run eagerly, so a tensor always has its real data; a
``DynamicTensor`` is the same data plus ``_seen``, the shape that shape
inference is shown (-1 per unknown dimension, ``(-2,)`` for an unknown
rank). ``ops.Custom`` honours it: its ``out_shape`` callable (or aot
``<Func>InferShape``) is called with the seen shapes, as MindSpore's graph
compiler calls it, and again with the real shapes to size the outputs, as
MindSpore's runtime does for dynamic-shape ops. Kernels always see real
shapes. A Custom op's outputs whose compile-time shape has unknown
dimensions are DynamicTensors again, so a chain of Custom ops sees them as a
MindSpore graph would; built-in ops treat a DynamicTensor as a plain Tensor
and give plain (static) outputs: there, unknown dimensions stop propagating.

Example::

    x = ms.Tensor(np.ones((2, 3), np.float32))
    y = ops.ConvertToDynamic()(x)           # same values; Custom inference sees [-1, -1]
    z = ops.ConvertToDynamic(is_dynamic_rank=True)(x)   # inference sees [-2]
"""

from .. import extend as _extend
from .._core.dispatch import call as _call
from ..tensor import DynamicTensor, Tensor, is_placeholder, placeholder_message, seen_shape  # noqa: F401
from .operations import Primitive

__all__ = ["DynamicTensor", "ConvertToDynamic", "dynamic_view", "view_unchecked", "seen_shape", "UNKNOWN_DIM",
           "UNKNOWN_RANK"]

UNKNOWN_DIM, UNKNOWN_RANK = -1, -2      # MindSpore's markers (abstract::Shape::kShapeDimAny / kShapeRankAny)


# the view is an identity op on the tape, so gradients flow through it to the original tensor
_VIEW = _extend.def_op("dynamic_shape_view", inputs=("x",), register=False,
                       doc="x itself; the next op's shape inference sees its shape as unknown")
_extend.def_infer(_VIEW, shape=lambda attrs, shapes: [shapes[0]], dtype=lambda attrs, dtypes: [dtypes[0]])
_extend.def_kernel(_VIEW, lambda attrs, ins: ins[0])
_extend.def_gradient(_VIEW, lambda ins, outs, grads, attrs: [grads[0]])
_NOATTR = {}


def dynamic_view(x, seen):
    """``x`` as a DynamicTensor whose inference shape is ``seen`` (a tuple with -1s, or ``(-2,)``).

    The data is shared, not copied; the view is recorded like any op, so a
    gradient taken through it reaches ``x``.
    """
    if is_placeholder(x):
        raise TypeError(f"dynamic shape view: {placeholder_message(x._data)}")
    seen = tuple(int(d) for d in seen)
    real = x._data.shape
    if seen != (UNKNOWN_RANK,):
        if len(seen) != len(real) or any(d != UNKNOWN_DIM and d != r for d, r in zip(seen, real)):
            raise ValueError(f"dynamic shape view: the seen shape {list(seen)} does not describe a tensor "
                             f"of shape {list(real)}")
    return view_unchecked(x, seen)


def view_unchecked(x, seen):
    """``dynamic_view`` for a caller that has checked ``x`` (a Tensor with data) and ``seen`` already."""
    out = _call(_VIEW, (x,), _NOATTR)
    view = object.__new__(DynamicTensor)
    view._data, view._format, view._node, view._oidx = out._data, out._format, out._node, out._oidx
    view._seen = seen
    if view._node is not None:          # the tape's node holds the plain output; the view stands for it
        view._node.outputs = (view,)
    return view


class ConvertToDynamic(Primitive):
    """MindSpore's ``ConvertToDynamic(is_dynamic_rank=False)``: the input unchanged, its shape made unknown.

    The next op's shape inference sees -1 for every dimension, or ``[-2]``
    (unknown rank) with ``is_dynamic_rank=True``; MindSpore uses it to test an
    op's dynamic-shape support, and so can ``ops.Custom`` rules here.

    Example::

        dyn = ops.ConvertToDynamic()
        op = ops.Custom(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc")
        op(dyn(x))              # out_shape is called with [-1, ...] first, then with x's real shape
    """

    def __init__(self, is_dynamic_rank=False):
        super().__init__("ConvertToDynamic")
        if not isinstance(is_dynamic_rank, bool):
            raise TypeError(f"For 'ConvertToDynamic', 'is_dynamic_rank' must be a bool, got "
                            f"{type(is_dynamic_rank).__name__}")
        self.add_prim_attr("is_dynamic_rank", is_dynamic_rank)
        self.init_prim_io_names(inputs=["input"], outputs=["output"])

    def __call__(self, input):          # noqa: A002  (MindSpore's input name)
        if not isinstance(input, Tensor):
            raise TypeError(f"For 'ConvertToDynamic', 'input' must be a Tensor, got {type(input).__name__}")
        if is_placeholder(input):
            raise TypeError(f"For 'ConvertToDynamic': {placeholder_message(input._data)}")
        seen = (UNKNOWN_RANK,) if self.is_dynamic_rank else (UNKNOWN_DIM,) * input._data.ndim
        return dynamic_view(input, seen)
