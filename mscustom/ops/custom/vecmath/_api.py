"""The public functions: callable in Numba-compiled code (the vector versions) and in Python (NumPy).

Inside an njit function (or a jit kernel) each call is typed by its arguments:
float32 gives the float32 version, float64 the float64 one, integers and bools
are converted to float64 (as ``math`` does). Anything else -- an array, a
complex number -- is a typing error naming the function. Outside compiled code
the same names compute with NumPy in the argument's precision, so a kernel
that calls them also runs as plain Python (``debug=True``).
"""

import math

import numpy as np
from numba import types
from numba.core import errors
from numba.extending import overload

from . import _impls

__all__ = ["exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "pow", "sqrt", "rsqrt"]


def _float_of(args):
    """The float type a call computes in, or None when an argument is not a real number."""
    if not all(isinstance(a, (types.Float, types.Integer, types.Boolean)) for a in args):
        return None
    if all(a == types.float32 for a in args):
        return np.float32
    if all(isinstance(a, types.Float) and a.bitwidth <= 64 for a in args) or \
            any(isinstance(a, (types.Integer, types.Boolean)) for a in args):
        return np.float64
    return None


def _register(stub, name, arity):
    """Give the Python function ``stub`` its compiled version: the vector ``name`` of the call's type."""
    def choose(args):
        F = _float_of(args)
        if F is None:
            raise errors.TypingError(f"vecmath.{name}: float32, float64, int or bool arguments only, "
                                     f"got ({', '.join(str(a) for a in args)})")
        return F, _impls.get(name, F)

    if arity == 1:
        @overload(stub, inline="always")
        def _typed1(x):
            F, fn = choose((x,))
            return lambda x: fn(F(x))
    else:
        @overload(stub, inline="always")
        def _typed2(x, y):
            F, fn = choose((x, y))
            return lambda x, y: fn(F(x), F(y))
    return stub


def _np(fn, x):
    with np.errstate(all="ignore"):
        return fn(x)


def exp(x):
    """``e**x``."""
    return _np(np.exp, x)


def expm1(x):
    """``e**x - 1``, accurate near 0."""
    return _np(np.expm1, x)


def log(x):
    """Natural logarithm."""
    return _np(np.log, x)


def log1p(x):
    """``log(1 + x)``, accurate near 0."""
    return _np(np.log1p, x)


def tanh(x):
    """Hyperbolic tangent."""
    return _np(np.tanh, x)


def sigmoid(x):
    """The logistic function ``1 / (1 + e**-x)``, without overflow for any ``x``."""
    x = np.asarray(x) if not isinstance(x, (float, int)) else float(x)
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(x))
        return np.where(np.asarray(x) >= 0, 1 / (1 + e), e / (1 + e))[()]


def erf(x):
    """The error function."""
    arr = np.asarray(x)
    dtype = arr.dtype if arr.dtype.kind == "f" else np.float64
    out = np.vectorize(math.erf, otypes=[np.float64])(arr).astype(dtype)
    return out[()] if out.ndim == 0 else out


def sin(x):
    """Sine (exact argument reduction for every finite ``x``)."""
    return _np(np.sin, x)


def cos(x):
    """Cosine (exact argument reduction for every finite ``x``)."""
    return _np(np.cos, x)


def pow(x, y):
    """``x**y`` with IEEE 754 special cases (as C's ``pow``); integers compute in float64."""
    if isinstance(x, int) or (isinstance(x, np.ndarray) and x.dtype.kind in "iub"):
        x = np.float64(x) if np.isscalar(x) else x.astype(np.float64)
    return _np(lambda v: np.power(v, y), x)


def sqrt(x):
    """Square root (correctly rounded)."""
    return _np(np.sqrt, x)


def rsqrt(x):
    """``1 / sqrt(x)``."""
    with np.errstate(all="ignore"):
        return 1 / np.sqrt(x)


for _name, _arity in (("exp", 1), ("expm1", 1), ("log", 1), ("log1p", 1), ("tanh", 1), ("sigmoid", 1),
                      ("erf", 1), ("sin", 1), ("cos", 1), ("pow", 2), ("sqrt", 1), ("rsqrt", 1)):
    _register(globals()[_name], _name, _arity)
del _name, _arity
