"""What each elementwise built-in op computes per element, for graph-mode fusion (``FElementwiseExpr``).

A graph replay fuses chains of elementwise calls into one Numba loop
(``_core/fusion.py``). The core knows no op; each op says here, as the
attribute ``FElementwiseExpr = rule(attrs, in_dtypes, out_dtype) ->
ElementwiseExpr or None``, the Numba expression giving its NumPy kernel's
value for those dtypes (float32, float64, bool), or None where it cannot
(the call then stays unfused). The expressions do NumPy's operations in
NumPy's order and precision, so a fused chain gives the unfused replay's bits:

- ``+ - * /``, ``sqrt``, ``abs``, comparisons, ``where``, casts: IEEE
  operations in the output dtype (constants written ``{T}(1.0)``, so float32
  stays float32);
- ``maximum``/``minimum`` (and ReLU): NumPy's rule, NaN propagates and at a
  tie the second operand is taken (``maximum(-0.0, 0.0)`` is ``+0.0``);
- ``pow`` with a number exponent: NumPy's fast paths (2: ``x * x``, -1:
  ``1 / x``, 0.5: ``sqrt``), the C library's ``pow`` otherwise, as NumPy;
- ``erf``/``erfc``: the C library's double-precision function, rounded to the
  dtype, as the eager kernel (``math.erf`` per element) computes it.

``exp``, ``log``, ``tanh``, ``sigmoid``, ``sin``, ``cos``, ``expm1`` and
``log1p`` are marked ``numpy_faster``: NumPy runs them as vectorised loops
(several times faster than Numba's scalar C-library calls, which may also
differ in the last bit), so they are fused only with ``MSCUSTOM_FUSE_MATH=1``;
so is ``pow`` where NumPy computes it with SVML (AVX512_SKX machines).
"""

import numpy as np

from ..._core.fusion import ElementwiseExpr
from ..._core.registry import get_op
from ..nn import activation_extra  # noqa: F401  (it and math/elementwise_more define erf, rsqrt, sin ...)
from ..math import elementwise_more  # noqa: F401

__all__ = ["install"]

_E = ElementwiseExpr


def _cpu_has(feature):
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:         # another NumPy layout: assume the vectorised loops
        return True
    return bool(__cpu_features__.get(feature))


def _floats(dtypes):
    return all(d.kind == "f" for d in dtypes)


def _binary(template):
    """``x op y`` of two float operands, computed in NumPy's promoted dtype (the output's)."""
    def rule(attrs, ins, out):
        if not _floats(ins) or out != np.result_type(*ins):
            return None
        return _E(template)
    return rule


def _pick(strict):
    """maximum/minimum: ``x`` where ``x`` wins strictly or is NaN, else ``y`` (NumPy's rule)."""
    def rule(attrs, ins, out):
        if not _floats(ins) or out != np.result_type(*ins):
            return None
        x = "{0}" if ins[0] == out else "{T}({0})"
        y = "{1}" if ins[1] == out else "{T}({1})"
        return _E(f"({x} if ({x} {strict} {y} or {x} != {x}) else {y})")
    return rule


def _unary(template, numpy_faster=False):
    """A float op keeping its input's dtype."""
    def rule(attrs, ins, out):
        if ins[0].kind != "f" or out != ins[0]:
            return None
        return _E(template, numpy_faster)
    return rule


def _vectorised(template):
    return _unary(template, numpy_faster=True)


def _sigmoid(attrs, ins, out):
    if ins[0].kind != "f" or out != ins[0]:
        return None
    return _E(_SIGMOID, numpy_faster=True, alone=True)        # eager: seven NumPy passes


def _c_double(fn):
    """erf/erfc: the eager kernel calls ``math.<fn>`` on each element as a double, then rounds."""
    def rule(attrs, ins, out):
        if ins[0].kind != "f" or out != ins[0]:
            return None
        return _E(f"math.{fn}(_f8({{0}}))", alone=True)       # eager: one Python call per element
    return rule


def _compare(symbol):
    def rule(attrs, ins, out):
        if out != np.bool_ or not all(d.kind in "fb" for d in ins) or len({d.kind for d in ins}) != 1:
            return None
        return _E(f"({{0}} {symbol} {{1}})")
    return rule


def _where(attrs, ins, out):
    if ins[0] != np.bool_ or out != np.result_type(ins[1], ins[2]) or not _floats(ins[1:]):
        return None
    return _E("({T}({1}) if {0} else {T}({2}))")


def _cast(attrs, ins, out):
    src = ins[0]
    if out.kind == "f" and src.kind in "fb":
        return _E("{0}" if src == out else "{T}({0})")
    if out == np.bool_ and src.kind == "f":
        return _E("({0} != 0)")
    if out == np.bool_ and src == np.bool_:
        return _E("{0}")
    return None


def _pow_scalar(attrs, ins, out):
    if ins[0].kind != "f" or out != ins[0]:
        return None
    e = attrs["exponent"]
    if e == 2:                      # NumPy's fast paths for a scalar exponent
        return _E("({0} * {0})")
    if e == -1:
        return _E("({T}(1.0) / {0})")
    if e == 0.5:
        return _E("np.sqrt({0})")
    return _E(f"np.power({{0}}, {{T}}({float(e)!r}))", numpy_faster=_cpu_has("AVX512_SKX"))


def _relu(attrs, ins, out):
    if ins[0].kind != "f" or out != ins[0]:
        return None
    return _E("({0} if ({0} > {T}(0.0) or {0} != {0}) else {T}(0.0))")


def _relu_grad(attrs, ins, out):
    if not _floats(ins) or ins[0] != ins[1] or out != ins[0]:
        return None
    # dy * (x > 0), signed zeros and all; one pass where the unfused replay makes two
    return _E("({0} if {1} > {T}(0.0) else {0} * {T}(0.0))", alone=True)


def _broadcast_to(attrs, ins, out):
    """The value itself: the chain reads it broadcast (a row statistic spread over its rows)."""
    return _E("{0}") if ins[0] == out else None


def _logical_not(attrs, ins, out):
    if ins[0] == np.bool_:
        return _E("(not {0})")
    if ins[0].kind == "f":
        return _E("({0} == 0)")
    return None


# np.where(x >= 0, 1 / (1 + e), e / (1 + e)) with e = exp(-|x|), all in x's dtype
_SIGMOID = ("{t}e = np.exp(-abs({0}))",
            "({T}(1.0) / ({T}(1.0) + {t}e) if {0} >= {T}(0.0) else {t}e / ({T}(1.0) + {t}e))")

_SIGN = "({T}(1.0) if {0} > {T}(0.0) else ({T}(-1.0) if {0} < {T}(0.0) else ({T}(0.0) if {0} == {T}(0.0) else {0})))"

_RULES = {
    "add": _binary("({0} + {1})"), "sub": _binary("({0} - {1})"), "mul": _binary("({0} * {1})"),
    "div": _binary("({0} / {1})"), "accumulate": _binary("({0} + {1})"),
    "maximum": _pick(">"), "minimum": _pick("<"), "maximum_x": _pick(">"), "minimum_x": _pick("<"),
    "neg": _unary("(-{0})"), "square": _unary("({0} * {0})"), "abs": _unary("abs({0})"),
    "sqrt": _unary("np.sqrt({0})"), "rsqrt": _unary("({T}(1.0) / np.sqrt({0}))"),
    "reciprocal": _unary("({T}(1.0) / {0})"), "sign": _unary(_SIGN),
    "floor": _unary("np.floor({0})"), "ceil": _unary("np.ceil({0})"), "trunc": _unary("np.trunc({0})"),
    "relu": _relu, "relu_grad": _relu_grad, "pow_scalar": _pow_scalar,
    "erf": _c_double("erf"), "erfc": _c_double("erfc"),
    "exp": _vectorised("np.exp({0})"), "log": _vectorised("np.log({0})"), "tanh": _vectorised("np.tanh({0})"),
    "sin": _vectorised("np.sin({0})"), "cos": _vectorised("np.cos({0})"),
    "expm1": _vectorised("np.expm1({0})"), "log1p": _vectorised("np.log1p({0})"),
    "sigmoid": _sigmoid,
    "equal": _compare("=="), "not_equal": _compare("!="), "less": _compare("<"),
    "less_equal": _compare("<="), "greater": _compare(">"), "greater_equal": _compare(">="),
    "where": _where, "cast": _cast, "logical_not": _logical_not, "broadcast_to": _broadcast_to,
}


def install():
    """Give the elementwise built-in ops their ``FElementwiseExpr`` (once, when mscustom.ops is imported)."""
    for name, rule in _RULES.items():
        get_op(name).attrs["FElementwiseExpr"] = rule
