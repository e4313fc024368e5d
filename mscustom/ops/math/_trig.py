"""Inverse trigonometric and hyperbolic functions with MindSpore's names and aliases:
``acos``/``arccos``, ``asin``/``arcsin``, ``atan``/``arctan``, ``acosh``/``arccosh``,
``asinh``/``arcsinh``, ``atanh``/``arctanh``, ``cosh``, ``sinh``, ``arctan2``, ``hypot``,
``deg2rad``, ``rad2deg``, ``sinc``.

Float tensors only (MindSpore 2.10 refuses integer and bool tensors with a TypeError), except
``sinc``, which computes integer and bool tensors in float32. Each is an op with a NumPy kernel
and a gradient built from ops; every name is also a Tensor method.

Example::

    ops.arcsin(x), x.cosh(), ops.hypot(a, b), ops.sinc(x)
"""

import math

import numpy as np

from ..._core.registry import register_function
from .. import functional as F
from .._builtin import functional as _functional
from .._builtin import unary
from .elementwise_more import cos
from .._ms_names_ops import atan2
from ._rules import float_binary, float_or_int_to_f32, float_unary


def _sqrt(t):
    return F.sqrt(t)


acos = float_unary("acos", np.arccos, lambda x, y, g: F.neg(F.div(g, _sqrt(F.sub(1, F.square(x))))),
                   "Elementwise arc cosine (float tensors).")
asin = float_unary("asin", np.arcsin, lambda x, y, g: F.div(g, _sqrt(F.sub(1, F.square(x)))),
                   "Elementwise arc sine (float tensors).")
atan = float_unary("atan", np.arctan, lambda x, y, g: F.div(g, F.add(F.square(x), 1)),
                   "Elementwise arc tangent (float tensors).")
acosh = float_unary("acosh", np.arccosh, lambda x, y, g: F.div(g, _sqrt(F.sub(F.square(x), 1))),
                    "Elementwise inverse hyperbolic cosine (float tensors).")
asinh = float_unary("asinh", np.arcsinh, lambda x, y, g: F.div(g, _sqrt(F.add(F.square(x), 1))),
                    "Elementwise inverse hyperbolic sine (float tensors).")
atanh = float_unary("atanh", np.arctanh, lambda x, y, g: F.div(g, F.sub(1, F.square(x))),
                    "Elementwise inverse hyperbolic tangent (float tensors).")
cosh = float_unary("cosh", np.cosh, lambda x, y, g: F.mul(g, sinh(x)),
                   "Elementwise hyperbolic cosine (float tensors).")
sinh = float_unary("sinh", np.sinh, lambda x, y, g: F.mul(g, cosh(x)),
                   "Elementwise hyperbolic sine (float tensors).")
deg2rad = float_unary("deg2rad", np.deg2rad, lambda x, y, g: F.mul(g, math.pi / 180.0),
                      "Degrees to radians, elementwise (float tensors).", arg="x")
rad2deg = float_unary("rad2deg", np.rad2deg, lambda x, y, g: F.mul(g, 180.0 / math.pi),
                      "Radians to degrees, elementwise (float tensors).", arg="x")


def _hypot_grad(x, y, out, g):
    return F.div(F.mul(g, x), out), F.div(F.mul(g, y), out)


hypot = float_binary("hypot", np.hypot, _hypot_grad,
                     "``sqrt(input ** 2 + other ** 2)`` elementwise, without overflow (broadcasting; "
                     "an integer operand takes the float operand's dtype).")


# ------------------------------------------------------------------ sinc
def _sinc_kernel(a, i):
    x = i[0]
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    return np.sinc(x).astype(x.dtype, copy=False)


def _sinc_grad(ins, outs, g, a):
    x = ins[0]
    if x.dtype != outs[0].dtype:
        return [None]
    zero = F.equal(x, 0)
    safe = F.where(zero, F.ones_like(x), x)
    d = F.div(F.sub(cos(F.mul(safe, math.pi)), outs[0]), safe)
    return [F.mul(g[0], F.where(zero, F.zeros_like(x), d))]


_SINC = unary("sinc", _sinc_kernel, float_or_int_to_f32("sinc"), _sinc_grad,
              "sin(pi x) / (pi x), 1 at 0")
sinc = _functional(_SINC, "``sin(pi * x) / (pi * x)`` elementwise (1 at 0); integer and bool tensors give "
                   "float32.", arg_names=("input",))


def arcsin(x):
    """``ops.asin`` under NumPy's name: the elementwise arc sine (float tensors)."""
    return asin(x)


def arctan2(input, other):  # noqa: A002 - MindSpore's names
    """``ops.atan2`` under NumPy's name: ``arctan(input / other)`` in the right quadrant."""
    return atan2(input, other)


__all__ = ["acos", "arccos", "asin", "arcsin", "atan", "arctan", "acosh", "arccosh", "asinh", "arcsinh",
           "atanh", "arctanh", "cosh", "sinh", "arctan2", "hypot", "deg2rad", "rad2deg", "sinc"]

arccos, arctan, arccosh, arcsinh, arctanh = acos, atan, acosh, asinh, atanh

for _name in __all__:
    register_function(_name, globals()[_name], method=True)
del _name
