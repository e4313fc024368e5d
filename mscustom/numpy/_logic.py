"""Comparisons, logical functions, floating-point tests, set membership.

Comparisons and logical functions are ``mscustom.ops`` calls (bool results, no gradient);
the set functions (``intersect1d``, ``setdiff1d``) return values picked by comparison.
"""

import builtins

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from . import _ufuncs as U
from ._utils import const, is_scalar, operands, to_dtype, to_tensor

__all__ = ["equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
           "logical_or", "logical_not", "logical_xor", "isclose", "isnan", "isinf", "isfinite", "isneginf",
           "isposinf", "array_equal", "array_equiv", "in1d", "isin", "intersect1d", "setdiff1d", "sometrue",
           "isscalar"]


def _cast(out, dtype):
    return out if dtype is None else F.cast(out, to_dtype(dtype))


def _compare(name, fn):
    def f(x1, x2, dtype=None):
        a, b = operands(x1, x2, name)
        return _cast(fn(a, b), dtype)
    f.__name__ = name
    f.__doc__ = f"Elementwise ``{name}`` (bool)."
    return f


equal = _compare("equal", F.equal)
not_equal = _compare("not_equal", F.not_equal)
greater = _compare("greater", F.greater)
greater_equal = _compare("greater_equal", F.greater_equal)
less = _compare("less", F.less)
less_equal = _compare("less_equal", F.less_equal)


def _bool(x, name):
    t = to_tensor(x, name=name)
    return t if t.dtype == _dt.bool_ else F.cast(t, _dt.bool_)


def logical_and(x1, x2, dtype=None):
    """Elementwise logical AND (inputs taken as truth values)."""
    return _cast(_ops.logical_and(_bool(x1, "logical_and"), _bool(x2, "logical_and")), dtype)


def logical_or(x1, x2, dtype=None):
    """Elementwise logical OR (inputs taken as truth values)."""
    return _cast(_ops.logical_or(_bool(x1, "logical_or"), _bool(x2, "logical_or")), dtype)


def logical_xor(x1, x2, dtype=None):
    """Elementwise logical XOR (inputs taken as truth values)."""
    return _cast(_ops.logical_xor(_bool(x1, "logical_xor"), _bool(x2, "logical_xor")), dtype)


def logical_not(a, dtype=None):
    """Elementwise logical NOT (inputs taken as truth values)."""
    return _cast(_ops.logical_not(_bool(a, "logical_not")), dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|``."""
    a, b = operands(a, b, "isclose")
    a = to_tensor(a, name="isclose")
    return _ops.isclose(a, b, rtol, atol, equal_nan)


def _float_test(name, fn, ints):
    def f(x, dtype=None):
        t = to_tensor(x, name=name)
        if not _dt.is_floating(t.dtype):
            return _cast(F.broadcast_to(const(np.asarray(ints)), tuple(t.shape)), dtype)
        return _cast(fn(t), dtype)
    f.__name__ = name
    f.__doc__ = f"Elementwise ``{name}`` (bool)."
    return f


isnan = _float_test("isnan", _ops.isnan, False)
isinf = _float_test("isinf", _ops.isinf, False)
isfinite = _float_test("isfinite", lambda t: _ops.logical_not(_ops.logical_or(_ops.isnan(t), _ops.isinf(t))), True)
isposinf = _float_test("isposinf", lambda t: F.equal(t, float("inf")), False)
isneginf = _float_test("isneginf", lambda t: F.equal(t, float("-inf")), False)


def array_equal(a1, a2, equal_nan=False):
    """True when both have the same shape and elements (a bool scalar tensor)."""
    a, b = to_tensor(a1, name="array_equal"), to_tensor(a2, name="array_equal")
    if tuple(a.shape) != tuple(b.shape):
        return const(np.asarray(False))
    same = F.equal(a, b)
    if equal_nan and _dt.is_floating(a.dtype):
        same = _ops.logical_or(same, _ops.logical_and(_ops.isnan(a), _ops.isnan(F.cast(b, a.dtype))))
    return _ops.all(same)


def array_equiv(a1, a2):
    """True when both broadcast to one shape and are equal there (a bool scalar tensor)."""
    a, b = to_tensor(a1, name="array_equiv"), to_tensor(a2, name="array_equiv")
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        return const(np.asarray(False))
    return _ops.all(F.equal(a, b))


def in1d(ar1, ar2, invert=False):
    """For each element of ``ar1`` (flattened), whether it is in ``ar2``."""
    a = F.reshape(to_tensor(ar1, name="in1d"), (-1,))
    return isin(a, ar2, invert=invert)


def isin(element, test_elements, invert=False):
    """For each element of ``element``, whether it is in ``test_elements`` (``element``'s shape)."""
    e = to_tensor(element, name="isin")
    t = F.reshape(to_tensor(test_elements, name="isin"), (-1,))
    if t.dtype != e.dtype:
        common = _dt.from_numpy(np.result_type(e.dtype.np_dtype, t.dtype.np_dtype))
        e, t = F.cast(e, common), F.cast(t, common)
    hits = U.isin(e, t)
    return _ops.logical_not(hits) if invert else hits


def _values(x, name):
    return to_tensor(x, name=name)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values found in both inputs (flattened). No gradient."""
    a, b = _values(ar1, "intersect1d"), _values(ar2, "intersect1d")
    res = np.intersect1d(a.asnumpy(), b.asnumpy(), assume_unique=assume_unique, return_indices=return_indices)
    if return_indices:
        vals, i1, i2 = res
        return const(vals), const(i1.astype(np.int32)), const(i2.astype(np.int32))
    return const(res)


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` not in ``ar2`` (flattened). No gradient."""
    a, b = _values(ar1, "setdiff1d"), _values(ar2, "setdiff1d")
    return const(np.setdiff1d(a.asnumpy(), b.asnumpy(), assume_unique=assume_unique).astype(a.dtype.np_dtype))


def sometrue(a, axis=None, keepdims=False):
    """Whether any element over ``axis`` is true (a bool tensor)."""
    t = _bool(a, "sometrue")
    if axis is None:
        out = _ops.any(t)
        return F.reshape(out, (1,) * t.ndim) if keepdims else out
    return _ops.any(t, axis, bool(keepdims))


def isscalar(element):
    """True for a Python or NumPy number, string or bool (not for tensors)."""
    return builtins.bool(is_scalar(element) or isinstance(element, (str, bytes)))

