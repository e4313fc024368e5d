"""Elementwise kernels mindspore.numpy needs that ``mscustom.ops`` does not publish (yet).

Each is a built-in op (``defop``) with a NumPy kernel and a gradient built from ops; a name
``mscustom.ops`` publishes itself (``ops.sinh`` ...) is used instead when present. The ops are
registered as ``mnp_<name>`` so that they never clash with an op of the same name.
"""

import math

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ..ops._builtin import NOATTR, broadcast_shape, defop, float_only, no_grad, numeric_promote, unary
from .._core.dispatch import call


def _quiet(fn):
    def compute(a, i):
        with np.errstate(all="ignore"):
            return fn(i[0])
    return compute


def _zero(ins, outs, g, a):
    return [F.zeros_like(ins[0])]


def _sqrt1m(x):
    return F.sqrt(F.sub(1.0, F.square(x)))


_GRADS = {
    "arcsin": lambda x, y, g: F.div(g, _sqrt1m(x)),
    "arccos": lambda x, y, g: F.neg(F.div(g, _sqrt1m(x))),
    "arctan": lambda x, y, g: F.div(g, F.add(F.square(x), 1.0)),
    "sinh": lambda x, y, g: F.mul(g, cosh(x)),
    "cosh": lambda x, y, g: F.mul(g, sinh(x)),
    "arcsinh": lambda x, y, g: F.div(g, F.sqrt(F.add(F.square(x), 1.0))),
    "arccosh": lambda x, y, g: F.div(g, F.sqrt(F.sub(F.square(x), 1.0))),
    "arctanh": lambda x, y, g: F.div(g, F.sub(1.0, F.square(x))),
    "cbrt": lambda x, y, g: F.div(g, F.mul(F.square(y), 3.0)),
    "log10": lambda x, y, g: F.div(g, F.mul(x, math.log(10.0))),
    "exp2": lambda x, y, g: F.mul(g, F.mul(y, math.log(2.0))),
}
_KERNELS = {"arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
            "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh, "cbrt": np.cbrt,
            "log10": np.log10, "exp2": np.exp2}
# the names mscustom.ops would publish them under (MindSpore's)
_OPS_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
              "arctanh": "atanh"}


def _make(name):
    published = getattr(_ops, _OPS_NAMES.get(name, name), None)
    if published is not None:
        return published
    grad = _GRADS[name]
    op = unary("mnp_" + name, _quiet(_KERNELS[name]), float_only(name),
               lambda ins, outs, g, a: [grad(ins[0], outs[0], g[0])], f"elementwise {name}")
    fn = lambda x: call(op, (x,), NOATTR)  # noqa: E731
    fn.__name__ = name
    return fn


arcsin, arccos, arctan = _make("arcsin"), _make("arccos"), _make("arctan")
sinh, cosh = _make("sinh"), _make("cosh")
arcsinh, arccosh, arctanh = _make("arcsinh"), _make("arccosh"), _make("arctanh")
cbrt, log10, exp2 = _make("cbrt"), _make("log10"), _make("exp2")

_RINT = unary("mnp_rint", _quiet(np.rint), float_only("rint"), _zero, "x rounded to the nearest integer")


def rint(x):
    return call(_RINT, (x,), NOATTR)


def _int_binary(name, fn):
    op = defop("mnp_" + name, 2, lambda a, i: fn(i[0], i[1]), broadcast_shape(name), numeric_promote(name),
               no_grad, doc=f"elementwise {name} of integers", arg_names=("x1", "x2"))
    return lambda x, y: call(op, (x, y), NOATTR)


def _searchsorted_compute(a, ins):
    sorted_, values = ins
    if values.dtype != sorted_.dtype:
        values = values.astype(np.result_type(sorted_.dtype, values.dtype))
    return np.searchsorted(sorted_, values, side=a["side"]).astype(np.int32)


_SEARCHSORTED = defop("mnp_searchsorted", 2, _searchsorted_compute, lambda a, s: (s, [list(s[1])]),
                      lambda a, d: (d, [_dt.int32]), no_grad,
                      doc="insertion points of values into a sorted 1-D tensor", arg_names=("a", "v"))


def searchsorted(a, v, side):
    """Insertion points (int32) of ``v`` into the sorted 1-D ``a``: one binary search per value."""
    return call(_SEARCHSORTED, (a, v), {"side": side})


# ------------------------------------------------------------------ 1-D convolution, counting, membership
def _convolve_grad(ins, outs, g, a):
    x, v = ins
    if x._data.dtype.kind != "f":
        return [None, None]
    n, m = x.shape[0], v.shape[0]
    gx = convolve_full(g[0], _ops.flip(v, (0,)))[m - 1:m - 1 + n]
    gv = convolve_full(g[0], _ops.flip(x, (0,)))[n - 1:n - 1 + m]
    return [gx, gv]


_CONVOLVE = defop("mnp_convolve", 2,
                  lambda a, i: np.convolve(i[0], i[1]).astype(np.result_type(i[0].dtype, i[1].dtype)),
                  lambda a, s: (s, [[s[0][0] + s[1][0] - 1]]), lambda a, d: (d, [d[0]]), _convolve_grad,
                  doc="the full discrete convolution of two 1-D tensors of one dtype", arg_names=("a", "v"))


def convolve_full(a, v):
    """The full convolution (length ``n + m - 1``) of two non-empty 1-D tensors of one dtype: one
    O(n m) pass without the n x m intermediate; its gradient is two convolutions."""
    return call(_CONVOLVE, (a, v), NOATTR)


def _bincount_grad(ins, outs, g, a):
    x, w = ins
    return [None, F.getitem(g[0], (x,)) if w._data.dtype.kind == "f" else None]


_BINCOUNT = defop("mnp_bincount", 2,
                  lambda a, i: np.bincount(i[0], i[1], a["length"])[:a["length"]].astype(i[1].dtype),
                  lambda a, s: (s, [[a["length"]]]), lambda a, d: (d, [d[1]]), _bincount_grad,
                  doc="weighted counts of the values of a non-negative int tensor", arg_names=("x", "weights"))


def bincount(x, weights, length):
    """``weights`` summed per value of ``x`` into ``length`` bins (differentiable in ``weights``)."""
    return call(_BINCOUNT, (x, weights), {"length": int(length)})


_ISIN = defop("mnp_isin", 2, lambda a, i: np.isin(i[0], i[1]), lambda a, s: (s, [list(s[0])]),
              lambda a, d: (d, [_dt.bool_]), no_grad, doc="whether each element is among the test elements",
              arg_names=("element", "test_elements"))


def isin(element, test_elements):
    """Whether each element of ``element`` is in ``test_elements`` (bool, ``element``'s shape)."""
    return call(_ISIN, (element, test_elements), NOATTR)


gcd = _int_binary("gcd", np.gcd)
lcm = _int_binary("lcm", np.lcm)

__all__ = []
