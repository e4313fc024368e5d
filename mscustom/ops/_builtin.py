"""Helpers for defining built-in ops on the operator core.

A built-in op is an OpDef registered like any user op: shape and dtype rules,
a NumPy kernel that returns its outputs (``FComputeAlloc``, registered for
every target while tensors live in host memory) and an ``FGradient`` built
from ops. The helpers here keep each definition to a few lines.
"""

import numpy as np

from .._core.registry import register_op
from .. import dtype as _dt

TARGETS = ("<cpu>", "<gpu>", "<ascend>")


def defop(name, num_inputs, compute, infer_shape=None, infer_type=None, gradient=None,
          num_outputs=1, doc="", arg_names=None):
    """Register a built-in op whose NumPy kernel ``compute(attrs, inputs)`` returns outputs."""
    op = register_op(name, num_inputs=num_inputs, num_outputs=num_outputs)
    op.describe(doc)
    if arg_names:
        op.input_names = list(arg_names)
    for suffix in TARGETS:
        op.set_attr("FComputeAlloc" + suffix, compute)
    if infer_shape is not None:
        op.set_attr("FInferShape", infer_shape)
    if infer_type is not None:
        op.set_attr("FInferType", infer_type)
    if gradient is not None:
        op.set_attr("FGradient", gradient)
    return op


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
def promote_types(name):
    """FInferType: NumPy's promotion of the input dtypes (what the kernel computes)."""
    def infer(attrs, dtypes):
        out = np.result_type(*(d.np_dtype for d in dtypes))
        return dtypes, [_dt.from_numpy(out)]
    return infer


def float_only(name, promote=True):
    """FInferType for ops defined on floating-point inputs only."""
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if not _dt.is_floating(d):
                raise TypeError(f"op '{name}': input {i} must be float16, float32 or float64, got {d.name}")
        out = np.result_type(*(d.np_dtype for d in dtypes)) if promote else dtypes[0].np_dtype
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
    """Turn an axis argument (None, int, tuple) into a sorted tuple of non-negative axes."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"op '{name}': axis must be an int or a tuple of ints, got {axis!r}")
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"op '{name}': axis {a} is out of range for a tensor of rank {ndim}")
        out.append(int(a) % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"op '{name}': axis {axis!r} repeats an axis")
    return tuple(sorted(out))
