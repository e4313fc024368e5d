"""Builders shared by the math name modules: dtype rules and one-line op definitions.

``float_unary`` and ``float_binary`` define an op whose NumPy kernel runs
quietly (inf/nan without RuntimeWarnings, as MindSpore returns them) and whose
gradient is built from ops, then publish its functional form under MindSpore's
name. The dtype rules here are the ones MindSpore 2.10's CPU kernels apply.
"""

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ..._core.registry import register_function
from .._builtin import NOATTR, broadcast_shape, defop, float_only, functional, result_dtype, unary

__all__ = []


def quiet(kernel):
    """``kernel(attrs, ins)`` run without NumPy's floating-point warnings."""
    def compute(attrs, ins):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            return kernel(attrs, ins)
    return compute


def as_out(fn):
    """A kernel from an elementwise NumPy function, cast back to the first input's dtype."""
    return quiet(lambda a, i: np.asarray(fn(*i)).astype(i[0].dtype, copy=False))


def float_unary(name, fn, grad, doc, arg="input", method=False):
    """A float-only one-input op ``fn`` (NumPy) with gradient ``grad(x, y, g)`` built from ops."""
    op = unary(name, as_out(fn), float_only(name),
               (lambda ins, outs, g, a: [grad(ins[0], outs[0], g[0])]) if grad else
               (lambda ins, outs, g, a: [None]), doc)
    f = functional(op, doc, arg_names=(arg,))
    if method:
        register_function(name, f, method=True)
    return f


def float_binary(name, fn, grad, doc, args=("input", "other"), type_rule=None, method=False):
    """A two-input op ``fn`` (NumPy) on floats (broadcasting); ``grad(x, y, out, g)`` gives the two
    gradients (before ``sum_to``) or None for no gradient."""
    def gradient(ins, outs, g, a):
        if grad is None:
            return [None, None]
        gx, gy = grad(ins[0], ins[1], outs[0], g[0])
        return [back_to(gx, ins[0]), back_to(gy, ins[1])]

    op = defop(name, 2, as_out_binary(fn), broadcast_shape(name), type_rule or some_float(name), gradient,
               doc=doc, arg_names=args)
    f = functional(op, doc, arg_names=args)
    if method:
        register_function(name, f, method=True)
    return f


def back_to(grad, x):
    """A gradient summed to ``x``'s shape and cast to its dtype; None when ``x`` is not a float tensor."""
    from .. import functional as F
    if grad is None or x._data.dtype.kind != "f":
        return None
    grad = F.sum_to(grad, x.shape)
    return grad if grad.dtype == x.dtype else F.cast(grad, x.dtype)


def all_float(name):
    """FInferType: every input a float tensor; the promoted float dtype out."""
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if not _dt.is_floating(d):
                raise TypeError(f"op '{name}': input {i} must be float16, float32 or float64, got {d.name}")
        return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]
    return infer


def as_out_binary(fn):
    """A two-input kernel giving the dtype ``result_dtype`` picks (floats win over integers without
    widening); float16 computes in float32 and rounds once at the end."""
    def kernel(a, i):
        x, y = i
        dtype = result_dtype([x.dtype, y.dtype])
        work = np.float32 if dtype == np.float16 else dtype
        out = fn(x.astype(work, copy=False), y.astype(work, copy=False))
        return np.asarray(out).astype(dtype, copy=False)
    return quiet(kernel)


def some_float(name):
    """FInferType of a binary op that needs a float operand: the promoted dtype (ints next to a float
    take the float's dtype); no float operand is a TypeError naming the op."""
    def infer(attrs, dtypes):
        if not any(_dt.is_floating(d) for d in dtypes):
            listed = " and ".join(d.name for d in dtypes)
            raise TypeError(f"op '{name}': expected a float16, float32 or float64 operand, got {listed}")
        return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]
    return infer


def float_or_int_to_f32(name, allow_bool=True):
    """FInferType: floats keep their dtype; integers (and bool, when allowed) give float32."""
    def infer(attrs, dtypes):
        d = dtypes[0]
        if d.name == "bool" and not allow_bool:
            raise TypeError(f"op '{name}': input must be a number type, got bool")
        return dtypes, [d if _dt.is_floating(d) else _dt.float32]
    return infer


def run(op, *tensors, attrs=None):
    """Dispatch ``op`` on tensors with ``attrs`` (none by default)."""
    return call(op, tensors, attrs if attrs is not None else NOATTR)
