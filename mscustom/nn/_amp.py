"""Mixed precision of one Cell (``Cell.to_float``): its inputs and trainable Parameters in a lower dtype.

A Cell marked with ``to_float(dtype)`` (and every Cell under it) casts its
floating-point Tensor inputs to ``dtype`` and, while its ``construct`` runs,
reads its own trainable Parameters through differentiable casts to ``dtype``:
the computation runs in ``dtype`` while the Parameters (the master weights)
stay in float32, and their gradients come back through the casts in float32.
Non-trainable Parameters (BatchNorm's moving statistics) are read as they are.
"""

from .. import context as _context
from .. import dtype as _dt
from .. import graph as _graph
from .. import ops
from ..tensor import Tensor

__all__ = ["mixed_construct", "mixed_call", "to_float"]

_settings = _context._settings
_GRAPH_MODE = _context.GRAPH_MODE


def _cast_in(value, dtype):
    if isinstance(value, Tensor):
        if value.dtype != dtype and _dt.is_floating(value.dtype):
            return ops.cast(value, dtype)
        return value
    if type(value) in (tuple, list):
        return type(value)(_cast_in(v, dtype) for v in value)
    return value


def mixed_construct(cell, *args, **kwargs):
    """``cell.construct`` with inputs and trainable Parameters cast to ``cell._mixed_dtype``."""
    dtype = cell._mixed_dtype
    args = tuple(_cast_in(a, dtype) for a in args)
    kwargs = {k: _cast_in(v, dtype) for k, v in kwargs.items()}
    swapped = {}
    for name, p in cell._params.items():
        if p is not None and p.requires_grad and p.dtype != dtype and _dt.is_floating(p.dtype):
            swapped[name] = p
    d = cell.__dict__
    try:
        for name, p in swapped.items():
            d[name] = ops.cast(p, dtype)
        return cell.construct(*args, **kwargs)
    finally:
        for name, p in swapped.items():
            d[name] = p


def mixed_call(cell, args, kwargs):
    """``Cell.__call__`` of a Cell marked by ``to_float``: eager, or through its own graph function."""
    if _settings["mode"] == _GRAPH_MODE:
        d = cell.__dict__
        gf = d.get("_graph_fn_mixed")
        if gf is None or gf[0] is not cell._mixed_dtype:
            gf = d["_graph_fn_mixed"] = (cell._mixed_dtype, _graph.GraphFunction(
                lambda *a, **k: mixed_construct(cell, *a, **k), cell=cell, name=type(cell).__name__))
        return gf[1](*args, **kwargs)
    return mixed_construct(cell, *args, **kwargs)


def to_float(cell, dst_type):
    """Mark ``cell`` and every Cell under it to compute in ``dst_type`` (float32 too: inputs cast to it)."""
    if not isinstance(dst_type, _dt.DType) or dst_type not in (_dt.float16, _dt.float32, _dt.bfloat16):
        raise ValueError(f"For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 or "
                         f"mstype.bfloat16, but got type: {type(dst_type)} and value: {dst_type}.")
    for _, sub in cell.cells_and_names():
        sub.__dict__["_mixed_dtype"] = dst_type
        sub.__dict__.pop("_graph_fn_mixed", None)
    _graph.training_changed()            # records made before see the new dtypes
    return cell
