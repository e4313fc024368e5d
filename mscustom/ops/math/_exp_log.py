"""Exponentials and logarithms with MindSpore's names: ``exp2``, ``log10``, ``logaddexp``,
``logaddexp2``, ``xdivy``, ``xlogy``, ``logit``, ``float_power`` (and ``float_power_ext``).

Dtype rules are MindSpore 2.10's: ``exp2`` computes integer and bool tensors in float32,
``log10``/``logaddexp``/``logit`` take float tensors only, ``xdivy`` and ``xlogy`` need a float
operand (``xlogy`` also takes two bool tensors, and an integer tensor next to a Python number),
``float_power`` computes in float64 and returns float64. ``xlogy`` is ``x * log(y)`` as documented
(so ``0 * log(0)`` is NaN); ``xdivy`` is 0 where ``x`` is 0. Gradients are built from ops.

Example::

    ops.logaddexp(a, b), ops.xlogy(p, q), ops.logit(p, eps=1e-6), ops.float_power(x, 0.5)
"""

import math

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import broadcast_shape, defop, functional, result_dtype, tensor_arg, unary
from .elementwise import pow as _pow
from ._rules import all_float, back_to, float_binary, float_or_int_to_f32, float_unary, quiet, run

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _exp2_kernel(a, i):
    x = i[0] if i[0].dtype.kind == "f" else i[0].astype(np.float32)
    return np.exp2(x)


_EXP2 = unary("exp2", quiet(_exp2_kernel), float_or_int_to_f32("exp2"),
              lambda ins, outs, g, a: [F.mul(g[0], F.mul(outs[0], _LN2)) if ins[0].dtype == outs[0].dtype
                                       else None], "2 ** x")
exp2 = functional(_EXP2, "``2 ** input`` elementwise; integer and bool tensors give float32.",
                  arg_names=("input",))

log10 = float_unary("log10", np.log10, lambda x, y, g: F.div(g, F.mul(x, _LN10)),
                    "Base-10 logarithm elementwise (float tensors).")

logaddexp = float_binary(
    "logaddexp", np.logaddexp,
    lambda x, y, out, g: (F.mul(g, F.exp(F.sub(x, out))), F.mul(g, F.exp(F.sub(y, out)))),
    "``log(exp(input) + exp(other))`` without overflow (float tensors, broadcasting).",
    type_rule=all_float("logaddexp"))
logaddexp2 = float_binary(
    "logaddexp2", np.logaddexp2,
    lambda x, y, out, g: (F.mul(g, exp2(F.sub(x, out))), F.mul(g, exp2(F.sub(y, out)))),
    "``log2(2 ** input + 2 ** other)`` without overflow (float tensors, broadcasting).",
    type_rule=all_float("logaddexp2"))


def _xdivy_kernel(x, y):
    return np.where(x == 0, np.zeros((), np.result_type(x, y)), np.true_divide(x, y))


def _xdivy_grad(x, y, out, g):
    nz = F.not_equal(x, 0)
    zero = F.zeros_like(out)
    return (F.where(nz, F.div(g, y), zero),
            F.where(nz, F.neg(F.div(F.mul(g, x), F.square(y))), zero))


xdivy = float_binary("xdivy", _xdivy_kernel, _xdivy_grad,
                     "``x / y``, 0 where ``x`` is 0 (a float operand needed; broadcasting).", args=("x", "y"))


# ------------------------------------------------------------------ xlogy
def _xlogy_type(attrs, dtypes):
    kinds = [d.np_dtype.kind for d in dtypes]
    if "f" in kinds:
        out = result_dtype([d.np_dtype for d in dtypes])
    elif kinds == ["b", "b"]:
        out = np.dtype(np.float32)
    else:
        raise TypeError(f"op 'xlogy': expected a float operand (or two bool tensors), got "
                        f"{dtypes[0].name} and {dtypes[1].name}")
    return dtypes, [_dt.from_numpy(out)]


def _xlogy_kernel(a, i):
    x, y = i
    dtype = result_dtype([x.dtype, y.dtype]) if "f" in (x.dtype.kind, y.dtype.kind) else np.float32
    return (x.astype(dtype) * np.log(y.astype(dtype))).astype(dtype, copy=False)


def _xlogy_grad(ins, outs, g, a):
    x, y = ins
    return [back_to(F.mul(g[0], F.log(y)), x), back_to(F.div(F.mul(g[0], x), y), y)]


_XLOGY = defop("xlogy", 2, quiet(_xlogy_kernel), broadcast_shape("xlogy"), _xlogy_type, _xlogy_grad,
               doc="x * log(y)", arg_names=("input", "other"))


def xlogy(input, other):  # noqa: A002 - MindSpore's names
    """``input * log(other)`` elementwise (broadcasting). A float operand is needed, or two bool
    tensors (float32); a Python number next to an integer tensor is float32."""
    x, y = input, other
    for_number = (int, float)
    if isinstance(x, Tensor) and not isinstance(y, Tensor) and isinstance(y, for_number):
        y = Tensor._wrap(np.asarray(y, x._data.dtype if x._data.dtype.kind == "f" else np.float32))
    elif isinstance(y, Tensor) and not isinstance(x, Tensor) and isinstance(x, for_number):
        x = Tensor._wrap(np.asarray(x, y._data.dtype if y._data.dtype.kind == "f" else np.float32))
    return run(_XLOGY, tensor_arg(x, "xlogy"), tensor_arg(y, "xlogy"))


# ------------------------------------------------------------------ logit / float_power
def logit(input, eps=None):  # noqa: A002
    """``log(input / (1 - input))`` elementwise (float tensors); with ``eps``, ``input`` is first clamped
    to ``[eps, 1 - eps]`` (the gradient is 0 outside)."""
    x = tensor_arg(input, "logit")
    if x._data.dtype.kind != "f":
        raise TypeError(f"op 'logit': input must be a float16, float32 or float64 tensor, got {x.dtype}")
    if eps is not None:
        from ..array.creation import clamp
        x = clamp(x, float(eps), 1.0 - float(eps))
    with np.errstate(divide="ignore", invalid="ignore"):       # inf and nan at 0, 1 and outside, quietly
        return F.log(F.div(x, F.sub(1, x)))


def _as_f64(v, name):
    if isinstance(v, Tensor):
        return v if v._data.dtype == np.float64 else F.cast(v, _dt.float64)
    if isinstance(v, (bool, int, float, np.number)):
        return Tensor._wrap(np.asarray(v, np.float64))
    return F.cast(tensor_arg(v, name), _dt.float64)


def float_power(input, exponent):  # noqa: A002
    """``input ** exponent`` computed in float64 (a float64 tensor; either may be a Python number)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("op 'float_power': input or exponent must be a Tensor, got two numbers")
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _pow(_as_f64(input, "float_power"), _as_f64(exponent, "float_power"))


float_power_ext = float_power


def tensor_float_power(input, other):  # noqa: A002
    """``Tensor.float_power(other)``: ``input ** other`` in float64."""
    return float_power(input, other)

__all__ = ["exp2", "log10", "logaddexp", "logaddexp2", "xdivy", "xlogy", "logit", "float_power",
           "float_power_ext"]

for _name in ["log10", "logaddexp", "logaddexp2", "xdivy", "xlogy", "logit"]:
    register_function(_name, globals()[_name], method=True)
del _name
register_function("tensor_float_power", tensor_float_power, method="float_power")
