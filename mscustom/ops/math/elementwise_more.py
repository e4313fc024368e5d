"""More elementwise math with MindSpore's names: rounding, trigonometry, logarithms, activations,
floor division and remainders, bitwise and logical ops, ``isnan``/``isinf``.

Each is an op of the operator core (``defop``) with its shape and dtype rule
and a gradient built from ops, so it works under ``ms.grad`` and in graph-mode
replays. Dtype rules follow MindSpore 2.10 on CPU: the float functions refuse
integer tensors (TypeError naming the op), except ``reciprocal`` (and
``sqrt``, in ``math/elementwise.py``), which compute integers in float32; rounding ops
have a zero gradient; logical ops take any dtype and give bool; bitwise ops
take bool and integer tensors only.

Example::

    ops.softplus(x, beta=2), ops.floor_div(x, 2), ops.logical_and(x > 0, x < 1)
"""

import math

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ..._core.registry import register_function
from .. import functional as F
from .._builtin import (NOATTR, broadcast_shape, compare_type, defop, float_only, functional, is_float,
                       no_grad, numeric_promote, same_shape, tensor_arg, unary)


# ================================================================== dtype rules
def float_or_int_to_f32(name):
    """FInferType: floats keep their dtype; integers and bool compute in float32 (MindSpore's rule
    for ``sqrt`` and ``reciprocal``)."""
    def infer(attrs, dtypes):
        d = dtypes[0]
        return dtypes, [d if _dt.is_floating(d) else _dt.float32]
    return infer


def _quiet(kernel):
    """A kernel that returns inf / nan without NumPy's RuntimeWarnings (as MindSpore does)."""
    def compute(attrs, ins):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return kernel(attrs, ins)
    compute.__name__ = getattr(kernel, "__name__", "compute")
    return compute


def _as_float(x):
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _numeric_same(name):
    """FInferType: any number dtype (not bool), kept."""
    def infer(attrs, dtypes):
        if dtypes[0].name == "bool":
            raise TypeError(f"op '{name}': input must be a number type, got bool")
        return dtypes, [dtypes[0]]
    return infer


def _zero_grad(ins, outs, g, a):
    """Piecewise-constant ops (floor, round ...): a zero gradient for float inputs, as MindSpore gives."""
    return [F.zeros_like(t) if is_float(t) else None for t in ins]


# ================================================================== rounding
_FLOOR = unary("floor", lambda a, i: np.floor(i[0]), float_only("floor"), _zero_grad,
               "the largest integer not greater than x (gradient 0)")
_CEIL = unary("ceil", lambda a, i: np.ceil(i[0]), float_only("ceil"), _zero_grad,
              "the smallest integer not less than x (gradient 0)")
_TRUNC = unary("trunc", lambda a, i: np.trunc(i[0]) if i[0].dtype.kind == "f" else i[0].copy(),
               _numeric_same("trunc"), _zero_grad, "x rounded towards zero (gradient 0)")
_ROUND = unary("round", lambda a, i: np.round(i[0], a.get("decimals", 0)) if i[0].dtype.kind == "f"
               else i[0].copy(), _numeric_same("round"), _zero_grad,
               "x rounded half to even at `decimals` digits (gradient 0)")

floor = functional(_FLOOR, "Elementwise floor (float tensors); its gradient is 0.", arg_names=("input",))
ceil = functional(_CEIL, "Elementwise ceiling (float tensors); its gradient is 0.", arg_names=("input",))
trunc = functional(_TRUNC, "Elementwise rounding towards zero; integers are returned unchanged.",
                   arg_names=("input",))


def round(input, *, decimals=0):  # noqa: A001,A002 - MindSpore's names
    """Round half to even (as NumPy and MindSpore do) at ``decimals`` digits; integers are unchanged.

    Example::

        ops.round(ms.Tensor([0.5, 1.5, 2.5]))     # [0., 2., 2.]
    """
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"op 'round': decimals must be an int, got {decimals!r}")
    return call(_ROUND, (tensor_arg(input, "round"),), {"decimals": int(decimals)} if decimals else NOATTR)


register_function("round", round)


# ================================================================== trigonometry and logarithms
_SIN = unary("sin", lambda a, i: np.sin(i[0]), float_only("sin"),
             lambda ins, outs, g, a: [F.mul(g[0], cos(ins[0]))], "sine")
_COS = unary("cos", lambda a, i: np.cos(i[0]), float_only("cos"),
             lambda ins, outs, g, a: [F.neg(F.mul(g[0], sin(ins[0])))], "cosine")
_TAN = unary("tan", _quiet(lambda a, i: np.tan(i[0])), float_only("tan"),
             lambda ins, outs, g, a: [F.mul(g[0], F.add(F.square(outs[0]), 1))], "tangent")
_RSQRT = unary("rsqrt", _quiet(lambda a, i: np.reciprocal(np.sqrt(i[0]))), float_only("rsqrt"),
               lambda ins, outs, g, a: [F.mul(g[0], F.mul(F.mul(F.square(outs[0]), outs[0]), -0.5))],
               "1 / sqrt(x)")
_RECIPROCAL = unary("reciprocal", _quiet(lambda a, i: np.reciprocal(_as_float(i[0]))), float_or_int_to_f32("reciprocal"),
                    lambda ins, outs, g, a: [F.neg(F.mul(g[0], F.square(outs[0])))] if is_float(ins[0]) else [None],
                    "1 / x (integers compute in float32)")
_LOG1P = unary("log1p", _quiet(lambda a, i: np.log1p(i[0])), float_only("log1p"),
               lambda ins, outs, g, a: [F.div(g[0], F.add(ins[0], 1))], "log(1 + x), accurate near 0")
_EXPM1 = unary("expm1", lambda a, i: np.expm1(i[0]), float_only("expm1"),
               lambda ins, outs, g, a: [F.mul(g[0], F.add(outs[0], 1))], "exp(x) - 1, accurate near 0")
_LOG2 = unary("log2", _quiet(lambda a, i: np.log2(i[0])), float_only("log2"),
              lambda ins, outs, g, a: [F.div(g[0], F.mul(ins[0], math.log(2.0)))], "base-2 logarithm")

_ERFC_UFUNC = np.frompyfunc(math.erfc, 1, 1)
_ERFC = unary("erfc", lambda a, i: _ERFC_UFUNC(i[0]).astype(i[0].dtype), float_only("erfc"),
              lambda ins, outs, g, a: [F.mul(g[0], F.mul(-2.0 / math.sqrt(math.pi),
                                                         F.exp(F.neg(F.square(ins[0])))))],
              "the complementary error function 1 - erf(x)")

sin = functional(_SIN, "Elementwise sine (float tensors).", arg_names=("input",))
cos = functional(_COS, "Elementwise cosine (float tensors).", arg_names=("input",))
tan = functional(_TAN, "Elementwise tangent (float tensors).", arg_names=("input",))
rsqrt = functional(_RSQRT, "``1 / sqrt(x)`` elementwise (float tensors).", arg_names=("input",))
reciprocal = functional(_RECIPROCAL, "``1 / x`` elementwise; integer and bool tensors give float32.",
                        arg_names=("input",))
log1p = functional(_LOG1P, "``log(1 + x)`` elementwise (float tensors).", arg_names=("input",))
expm1 = functional(_EXPM1, "``exp(x) - 1`` elementwise (float tensors).", arg_names=("input",))
log2 = functional(_LOG2, "Base-2 logarithm elementwise (float tensors).", arg_names=("input",))
erfc = functional(_ERFC, "The complementary error function ``1 - erf(x)`` (float tensors).",
                  arg_names=("input",))


# ================================================================== activations
def _softplus_compute(attrs, ins):
    x = ins[0]
    beta, threshold = attrs["beta"], attrs["threshold"]
    bx = x * x.dtype.type(beta)
    soft = np.logaddexp(bx, x.dtype.type(0)) / x.dtype.type(beta)
    return np.where(bx > threshold, x, soft).astype(x.dtype, copy=False)


def _softplus_grad(ins, outs, g, a):
    x = ins[0]
    bx = F.mul(x, a["beta"])
    return [F.mul(g[0], F.where(F.greater(bx, a["threshold"]), F.ones_like(x), F.sigmoid(bx)))]


_SOFTPLUS = defop("softplus", 1, _softplus_compute, same_shape, float_only("softplus"), _softplus_grad,
                  doc="log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold", arg_names=("input",))


def softplus(input, beta=1, threshold=20):  # noqa: A002 - MindSpore's name
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    Example::

        ops.softplus(ms.Tensor([0.0, 30.0]))      # [0.6931, 30.]
    """
    for what, v in (("beta", beta), ("threshold", threshold)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"op 'softplus': {what} must be a number, got {v!r}")
    return call(_SOFTPLUS, (tensor_arg(input, "softplus"),), {"beta": float(beta), "threshold": float(threshold)})


def _elu_compute(attrs, ins):
    x = ins[0]
    alpha = x.dtype.type(attrs["alpha"])
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False)


def _elu_grad(ins, outs, g, a):
    x = ins[0]
    return [F.mul(g[0], F.where(F.greater(x, 0), F.ones_like(x), F.add(outs[0], a["alpha"])))]


_ELU = defop("elu", 1, _elu_compute, same_shape, float_only("elu"), _elu_grad,
             doc="x where x > 0, else alpha * (exp(x) - 1)", arg_names=("input_x",))


def elu(input_x, alpha=1.0):
    """ELU: ``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    MindSpore 2.10's CPU kernel accepts only ``alpha=1.0``; any alpha works here.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"op 'elu': alpha must be a number, got {alpha!r}")
    return call(_ELU, (tensor_arg(input_x, "elu"),), {"alpha": float(alpha)})


def _hardswish_compute(attrs, ins):
    x = ins[0]
    if x.dtype.kind == "f":
        return (x * np.clip(x + 3, 0, 6) / x.dtype.type(6)).astype(x.dtype, copy=False)
    return x * np.clip(x + 3, 0, 6) // 6        # integers: MindSpore's integer arithmetic


def _hardswish_grad(ins, outs, g, a):
    x = ins[0]
    if not is_float(x):
        return [None]
    mid = F.div(F.add(F.mul(x, 2.0), 3.0), 6.0)
    slope = F.where(F.less(x, -3.0), F.zeros_like(x), F.where(F.greater(x, 3.0), F.ones_like(x), mid))
    return [F.mul(g[0], slope)]


_HARDSWISH = unary("hardswish", _hardswish_compute, _numeric_same("hardswish"), _hardswish_grad,
                   "x * relu6(x + 3) / 6")
hardswish = functional(_HARDSWISH, "Hard swish: ``x * relu6(x + 3) / 6``.", arg_names=("input",))


def _mish_compute(attrs, ins):
    x = ins[0]
    return (x * np.tanh(np.logaddexp(x, x.dtype.type(0)))).astype(x.dtype, copy=False)


def _mish_grad(ins, outs, g, a):
    x = ins[0]
    t = F.tanh(softplus(x))
    return [F.mul(g[0], F.add(t, F.mul(F.mul(x, F.sub(1.0, F.square(t))), F.sigmoid(x))))]


_MISH = unary("mish", _mish_compute, float_only("mish"), _mish_grad, "x * tanh(softplus(x))")
mish = functional(_MISH, "Mish: ``x * tanh(softplus(x))`` (float tensors).", arg_names=("x",))

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _selu_compute(attrs, ins):
    x = ins[0]
    neg = x.dtype.type(SELU_ALPHA) * np.expm1(np.minimum(x, 0))
    return (x.dtype.type(SELU_SCALE) * np.where(x > 0, x, neg)).astype(x.dtype, copy=False)


def _selu_grad(ins, outs, g, a):
    x = ins[0]
    slope = F.where(F.greater(x, 0), F.mul(F.ones_like(x), SELU_SCALE), F.add(outs[0], SELU_SCALE * SELU_ALPHA))
    return [F.mul(g[0], slope)]


_SELU = unary("selu", _selu_compute, float_only("selu"), _selu_grad,
              "scale * (x if x > 0 else alpha * (exp(x) - 1))")
selu = functional(_SELU, "SELU with MindSpore's constants (float tensors).", arg_names=("input_x",))


# ================================================================== division and remainders
def _floor_div_compute(attrs, ins):
    return np.floor_divide(ins[0], ins[1])


_FLOOR_DIV = defop("floor_div", 2, _quiet(_floor_div_compute), broadcast_shape("floor_div"), numeric_promote("floor_div"),
                   _zero_grad, doc="floor(x / y) with broadcasting (gradient 0)", arg_names=("x", "y"))


def _floor_mod_grad(ins, outs, g, a):
    x, y = ins
    gx = F.sum_to(g[0], x.shape) if is_float(x) else None
    gy = F.sum_to(F.neg(F.mul(g[0], floor_div(x, y))), y.shape) if is_float(y) else None
    return [gx, gy]


_FLOOR_MOD = defop("floor_mod", 2, _quiet(lambda a, i: np.mod(i[0], i[1])), broadcast_shape("floor_mod"),
                   numeric_promote("floor_mod"), _floor_mod_grad,
                   doc="x - floor(x / y) * y: the remainder with the sign of y", arg_names=("x", "y"))


def _trunc_div_compute(attrs, ins):
    x, y = ins
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        return np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y), copy=False)
    q = np.floor_divide(x, y)
    return q + ((np.mod(x, y) != 0) & ((x < 0) != (y < 0)))


def _fmod_grad(ins, outs, g, a):
    x, y = ins
    gx = F.sum_to(g[0], x.shape) if is_float(x) else None
    gy = F.sum_to(F.neg(F.mul(g[0], trunc_div(x, y))), y.shape) if is_float(y) else None
    return [gx, gy]


_TRUNC_DIV = defop("trunc_div", 2, _quiet(_trunc_div_compute), broadcast_shape("trunc_div"), numeric_promote("trunc_div"),
                   _zero_grad, doc="x / y rounded towards zero (gradient 0)", arg_names=("x", "y"))
_FMOD = defop("fmod", 2, _quiet(lambda a, i: np.fmod(i[0], i[1])), broadcast_shape("fmod"), numeric_promote("fmod"),
              _fmod_grad, doc="x - trunc(x / y) * y: the remainder with the sign of x", arg_names=("x", "y"))

floor_div = functional(_FLOOR_DIV, "``floor(x / y)`` with broadcasting; integers stay integers (``x // y``).")
floor_mod = functional(_FLOOR_MOD, "``x - floor(x / y) * y``, the sign of ``y`` (Python's ``%``).")
trunc_div = functional(_TRUNC_DIV, "``x / y`` rounded towards zero, with broadcasting.")
fmod = functional(_FMOD, "``x - trunc(x / y) * y``, the sign of ``x`` (C's fmod; ``ops.Mod``).",
                  arg_names=("input", "other"))


def remainder(input, other):  # noqa: A002 - MindSpore's names
    """``ops.remainder``: Python's ``%`` (the sign of ``other``), as ``floor_mod``."""
    return floor_mod(input, other)


register_function("remainder", remainder)


# ================================================================== bitwise and logical
def _bitwise_type(name):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if d.name != "bool" and not _dt.is_integral(d):
                raise TypeError(f"op '{name}': input {i} must be a bool or integer tensor, got {d.name}")
        return dtypes, [_dt.from_numpy(np.result_type(*(d.np_dtype for d in dtypes)))]   # bool & int: the int
    return infer


def _bitwise(name, ufunc, doc):
    return defop(name, 2, lambda a, i: ufunc(i[0], i[1]), broadcast_shape(name), _bitwise_type(name),
                 no_grad, doc=doc, arg_names=("input", "other"))


_BITWISE_AND = _bitwise("bitwise_and", np.bitwise_and, "x & y for bool or integer tensors")
_BITWISE_OR = _bitwise("bitwise_or", np.bitwise_or, "x | y for bool or integer tensors")
_BITWISE_XOR = _bitwise("bitwise_xor", np.bitwise_xor, "x ^ y for bool or integer tensors")

bitwise_and = functional(_BITWISE_AND, "``x & y`` elementwise (bool or integer tensors).",
                         arg_names=("input", "other"))
bitwise_or = functional(_BITWISE_OR, "``x | y`` elementwise (bool or integer tensors).",
                        arg_names=("input", "other"))
bitwise_xor = functional(_BITWISE_XOR, "``x ^ y`` elementwise (bool or integer tensors).",
                         arg_names=("input", "other"))


def _logical(name, ufunc, doc):
    return defop(name, 2, lambda a, i: ufunc(i[0], i[1]), broadcast_shape(name), compare_type(name),
                 no_grad, doc=doc, arg_names=("input", "other"))


_LOGICAL_AND = _logical("logical_and", np.logical_and, "x and y elementwise (any dtype in, bool out)")
_LOGICAL_OR = _logical("logical_or", np.logical_or, "x or y elementwise (any dtype in, bool out)")
_LOGICAL_XOR = _logical("logical_xor", np.logical_xor, "x xor y elementwise (any dtype in, bool out)")
_LOGICAL_NOT = unary("logical_not", lambda a, i: np.logical_not(i[0]), lambda a, d: (d, [_dt.bool_]), no_grad,
                     "not x elementwise (any dtype in, bool out)")
_ISNAN = unary("isnan", lambda a, i: np.isnan(i[0]) if i[0].dtype.kind == "f" else np.zeros(i[0].shape, bool),
               lambda a, d: (d, [_dt.bool_]), no_grad, "True where x is NaN")
def _isinf_type(attrs, dtypes):
    if dtypes[0].name == "bool":
        raise TypeError("op 'isinf': input must be a number type, got bool")
    return dtypes, [_dt.bool_]


_ISINF = unary("isinf", lambda a, i: np.isinf(i[0]) if i[0].dtype.kind == "f" else np.zeros(i[0].shape, bool),
               _isinf_type, no_grad, "True where x is +inf or -inf")

logical_and = functional(_LOGICAL_AND, "Elementwise logical and; a bool tensor.", arg_names=("input", "other"))
logical_or = functional(_LOGICAL_OR, "Elementwise logical or; a bool tensor.", arg_names=("input", "other"))
logical_xor = functional(_LOGICAL_XOR, "Elementwise logical xor; a bool tensor.", arg_names=("input", "other"))
logical_not = functional(_LOGICAL_NOT, "Elementwise logical not; a bool tensor.", arg_names=("input",))
isnan = functional(_ISNAN, "True where an element is NaN (always False for integers).", arg_names=("input",))
isinf = functional(_ISINF, "True where an element is infinite (always False for integers).", arg_names=("input",))


def div(input, other, *, rounding_mode=None):  # noqa: A002 - MindSpore's names
    """``ops.div``: true division, or rounded ``"floor"`` / ``"trunc"`` as MindSpore's ``rounding_mode``.

    Example::

        ops.div(ms.Tensor([-7, 7]), 2, rounding_mode="trunc")     # [-3, 3] (int64)
    """
    if rounding_mode is None:
        return F.div(input, other)
    if rounding_mode == "floor":
        return floor_div(input, other)
    if rounding_mode == "trunc":
        return trunc_div(input, other)
    raise ValueError(f"op 'div': rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


__all__ = ["floor", "ceil", "trunc", "round", "sin", "cos", "tan", "rsqrt", "reciprocal", "log1p", "expm1",
           "log2", "erfc", "softplus", "elu", "hardswish", "mish", "selu", "floor_div", "floor_mod", "trunc_div",
           "fmod", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
           "logical_xor", "logical_not", "isnan", "isinf", "div"]
