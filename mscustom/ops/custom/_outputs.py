"""The outputs of a Custom op: how many, what structure the call returns, and the inference rules.

MindSpore's rules: the result follows the type of what ``out_shape`` /
``out_dtype`` give or return: one shape and one dtype give a single Tensor; a
tuple of them gives a tuple whatever its length (a 1-tuple stays a 1-tuple);
a list gives a list. ``out_dtype=()`` (no outputs, pyfunc) gives one int32
placeholder of shape (1,) that the call returns; ``out_dtype`` with an empty
``out_shape`` (``()`` or ``[]``) is one scalar output.
"""

import weakref

import numpy as np

from ... import dtype as _dt
from ... import extend as _extend
from . import _common, _dynshape
from .rules import check_concrete, result_structure

__all__ = ["count_outputs", "install_rules", "is_placeholder", "placeholder_func", "resolve_structure",
           "PLACEHOLDER_SHAPE"]

PLACEHOLDER_SHAPE = (1,)


def is_placeholder(out_shape, out_dtype):
    """``out_dtype=()`` / ``[]``: an op without outputs (MindSpore gives it one int32 placeholder)."""
    return isinstance(out_dtype, (tuple, list)) and len(out_dtype) == 0


def placeholder_func(func, op_name):
    """Wrap a pyfunc without outputs: it must return None; the op returns the placeholder."""
    fname = getattr(func, "__name__", type(func).__name__)

    def no_outputs(*args, **kwargs):
        res = func(*args, **kwargs)
        if res is not None:
            raise _common.ResultError(f"op '{op_name}': pyfunc '{fname}' has no outputs (out_dtype=()), so it must "
                            f"return None, got {type(res).__name__}")
        return np.zeros(PLACEHOLDER_SHAPE, np.int32)
    no_outputs.__name__ = fname
    return no_outputs


def _container(rule):
    return rule.container if rule.kind == "multi" else None


def count_outputs(op_name, shape_rule, dtype_rule, infos):
    """``(n_out, container, pending)``.

    ``container``: None (single output, or the dispatcher's tuple), tuple or
    list. ``pending``: the callable rules decide on first use.
    """
    counts = {r.what: r.count for r in (shape_rule, dtype_rule) if r.kind == "multi"}
    if len(set(counts.values())) > 1:
        raise ValueError(f"op '{op_name}': out_shape gives {counts['out_shape']} outputs but "
                         f"out_dtype gives {counts['out_dtype']}")
    reg = {len(i.outputs) for i in infos if i.outputs}
    if len(reg) > 1:
        raise ValueError(f"op '{op_name}': its reg infos declare different numbers of outputs "
                         f"{sorted(reg)}; every kernel of one op has the same outputs")
    container = _container(shape_rule) or _container(dtype_rule)
    if counts:
        n = next(iter(counts.values()))
    elif "const" in (shape_rule.kind, dtype_rule.kind):
        n = 1
    elif "fn" in (shape_rule.kind, dtype_rule.kind):
        return (reg.pop() if reg else 1), None, True
    elif reg:
        return reg.pop(), None, False
    else:
        return 1, None, False
    if reg and reg != {n}:
        raise ValueError(f"op '{op_name}': out_shape/out_dtype give {n} output(s) but the reg info "
                         f"declares {sorted(reg)}")
    return n, container, False


def resolve_structure(shape_rule, dtype_rule, shapes, dtypes, n_reg):
    """First use with callable rules: ``(n_out, container)`` from calling one rule once."""
    rule, probe = (shape_rule, shapes) if shape_rule.kind == "fn" else (dtype_rule, dtypes)
    n, container = result_structure(rule, probe)
    if container is None:
        return n_reg, None
    return n, container


def install_kind_shape_rule(op, kind, func, attr_specs, op_name):
    """Without ``out_shape``, a kind may infer shapes itself (aot asks the library's ``<Func>InferShape``).

    ``attr_specs`` is the op's live list, filled as kernels are added.
    """
    loaded = kind.loaded() if hasattr(kind, "loaded") else kind
    make_rule = getattr(loaded, "infer_shape_rule", None)
    if make_rule is None:
        return
    rule = make_rule(func, op_name=op_name)
    op_ref = weakref.ref(op)

    def evaluate(attrs, in_shapes):
        return rule(attrs, in_shapes, attr_specs, op_ref().num_outputs)

    def infer_shape(attrs, in_shapes):
        if attrs and _common.DYNAMIC_KEY in attrs:
            return _dynshape.infer(op_ref(), op_name, evaluate, attrs, in_shapes)
        return evaluate(attrs, in_shapes)
    _extend.def_infer(op, shape=infer_shape)       # (def_infer's shape rules return the outputs only)


def install_rules(op, shape_rule, dtype_rule, op_name):
    """FInferShape / FInferType on ``op`` from the user's rules (each receives the call's arguments)."""
    call_args = _common.call_args
    if shape_rule.kind != "none":
        def evaluate(attrs, in_shapes):
            return shape_rule.evaluate(call_args(attrs, in_shapes), op.num_outputs)

        def infer_shape(attrs, in_shapes):
            if attrs and _common.DYNAMIC_KEY in attrs:
                return _dynshape.infer(op, op_name, evaluate, attrs, in_shapes)
            return check_concrete(op_name, in_shapes, evaluate(attrs, in_shapes))
        _extend.def_infer(op, shape=infer_shape)
    if dtype_rule.kind != "none":
        def infer_type(attrs, in_dtypes):
            out = dtype_rule.evaluate(call_args(attrs, in_dtypes), op.num_outputs)
            return [_dt.dtype_from_any(d) for d in out]
        _extend.def_infer(op, dtype=infer_type)
