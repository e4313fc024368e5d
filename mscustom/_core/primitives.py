"""The few ops that backward execution itself needs, defined inside the core.

Gradients flowing into one tensor from several uses are summed
(``accumulate``); a gradient given as a 0-d value is spread over its input's
shape (``fill_to``, whose own gradient is ``sum_all``); a gradient of another
dtype is converted (``cast``, also the built-in ``ops.cast``). Each is an
ordinary registered OpDef with its own FGradient, so grad of grad works through
them. Built-in ops (``mscustom.ops``) are defined above the core and may use
these; the core never uses theirs.
"""

import numpy as np

from .. import context as _context
from .. import dtype as _dt
from ..tensor import Tensor
from .dispatch import call, unrecorded, wrap_unrecorded
from .registry import register_op

__all__ = ["ACCUMULATE", "FILL_TO", "SUM_ALL", "CAST", "accumulate", "fill_to", "sum_all", "cast",
           "zeros"]

_TARGETS = tuple(_context.target_suffix(t) for t in _context.TARGETS)


def _define(name, n_in, compute, infer_shape, infer_type, gradient, doc, arg_names):
    op = register_op(name, num_inputs=n_in).describe(doc)
    op.input_names = list(arg_names)
    for suffix in _TARGETS:
        op.set_attr("FComputeAlloc" + suffix, compute)
    op.set_attr("FInferShape", infer_shape)
    op.set_attr("FInferType", infer_type)
    op.set_attr("FGradient", gradient)
    return op


def _same_shape(attrs, shapes):
    return shapes, [list(shapes[0])]


def _same_type(attrs, dtypes):
    return dtypes, [dtypes[0]]


def _scalar_shape(attrs, shapes):
    return shapes, [[]]


def _shape_attr(attrs, shapes):
    return shapes, [list(attrs["shape"])]


def _cast_type(attrs, dtypes):
    return dtypes, [attrs["dtype"]]


def _accumulate_compute(attrs, ins):
    return np.add(ins[0], ins[1])


def _fill_compute(attrs, ins):
    out = np.empty(attrs["shape"], ins[0].dtype)
    out[...] = ins[0]
    return out


def _sum_all_compute(attrs, ins):
    return np.asarray(ins[0].sum(dtype=ins[0].dtype))


def _cast_compute(attrs, ins):
    return ins[0].astype(attrs["dtype"].np_dtype)


ACCUMULATE = _define("accumulate", 2, _accumulate_compute, _same_shape, _same_type,
                     lambda ins, outs, g, a: [g[0], g[0]],
                     "sum of two gradients of one shape and dtype (backward's accumulation)", ("a", "b"))
FILL_TO = _define("fill_to", 1, _fill_compute, _shape_attr, _same_type,
                  lambda ins, outs, g, a: [sum_all(g[0])],
                  "a 0-d value spread over attrs['shape']", ("value",))
SUM_ALL = _define("sum_all", 1, _sum_all_compute, _scalar_shape, _same_type,
                  lambda ins, outs, g, a: [fill_to(g[0], ins[0]._data.shape)],
                  "the sum of every element, as a 0-d tensor", ("x",))
CAST = _define("cast", 1, _cast_compute, _same_shape, _cast_type,
               lambda ins, outs, g, a: [cast(g[0], ins[0].dtype) if ins[0]._data.dtype.kind == "f" else None],
               "convert to another dtype", ("x",))


def accumulate(a, b):
    """``a + b`` for two gradients of the same shape and dtype."""
    if type(a) is Tensor and type(b) is Tensor and unrecorded():
        da, db = a._data, b._data
        if da.dtype == db.dtype and da.shape == db.shape:
            return wrap_unrecorded(np.add(da, db))      # the kernel, without the call nobody records
    return call(ACCUMULATE, (a, b), {})


def fill_to(value, shape):
    """A 0-d tensor spread over ``shape``."""
    return call(FILL_TO, (value,), {"shape": tuple(int(s) for s in shape)})


def sum_all(x):
    """The sum of all elements of ``x`` as a 0-d tensor."""
    return call(SUM_ALL, (x,), {})


def cast(x, dtype):
    """``x`` converted to ``dtype`` (an ms dtype, a NumPy dtype or a name)."""
    return call(CAST, (x,), {"dtype": _dt.dtype_from_any(dtype)})


def zeros(shape, np_dtype, fmt="DefaultFormat"):
    """A Tensor of zeros (no op call: zeros carry no gradient)."""
    return Tensor._wrap(np.zeros(shape, np_dtype), fmt)
