"""Special functions with MindSpore's names: the Bessel functions ``bessel_i0``/``i0``, ``bessel_i0e``,
``bessel_i1``, ``bessel_i1e``, ``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1``, ``bessel_k0``,
``bessel_k0e``, ``bessel_k1``, ``bessel_k1e``, the regularized upper incomplete gamma function
``igammac`` and the Hurwitz zeta function ``zeta``.

The kernels are SciPy's (``scipy.special``, imported on the first call, so ``import mscustom`` does
not need it); float16 computes in float32. Float tensors only, as in MindSpore 2.10. The gradients
are the functions' derivative identities built from these ops (``i0' = i1``, ``k0' = -k1`` ...);
``igammac``'s gradient for ``input`` (the shape parameter) is a float64 central difference.
Where MindSpore's CPU kernels leave the functions' domain (``bessel_y1(0)``, ``y``/``k`` of
negative x) mscustom returns SciPy's values: -inf at 0, NaN below (docs/ops_conformance.md).

Example::

    ops.bessel_j0(x), x.i0(), ops.igammac(a, x), ops.zeta(s, q)
"""

import numpy as np

from ..._core.registry import register_function
from .. import functional as F
from .._builtin import broadcast_shape, defop, float_only, no_grad, unary
from .._builtin import functional as _functional
from ._rules import back_to, quiet, run

_SPECIAL = []


def _scipy():
    """``scipy.special``, imported on first use (ImportError naming what needs it otherwise)."""
    if not _SPECIAL:
        try:
            import scipy.special as special
        except ImportError:         # pragma: no cover - SciPy is installed with the test and sparse extras
            raise ImportError("mscustom's special functions (bessel_*, igammac, zeta) need SciPy: "
                              "pip install scipy") from None
        _SPECIAL.append(special)
    return _SPECIAL[0]


def _kernel(fname):
    def compute(a, i):
        x = i[0]
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        return getattr(_scipy(), fname)(work).astype(x.dtype, copy=False)
    return quiet(compute)


def _bessel(name, fname, grad, doc):
    op = unary(name, _kernel(fname), float_only(name),
               lambda ins, outs, g, a: [F.mul(g[0], grad(ins[0], outs[0]))], doc)
    return _functional(op, doc, arg_names=("x",))


def _over_x(x, num):
    """``num / x``, with 0 where ``x`` is 0 (the limits used at 0 are added by the callers)."""
    zero = F.equal(x, 0)
    return F.where(zero, F.zeros_like(x), F.div(num, F.where(zero, F.ones_like(x), x)))


def _at_zero(x, value, elsewhere):
    return F.where(F.equal(x, 0), F.mul(F.ones_like(x), value), elsewhere)


bessel_i0 = _bessel("bessel_i0", "i0", lambda x, y: bessel_i1(x),
                    "The modified Bessel function of the first kind of order 0, elementwise (float tensors).")
bessel_i0e = _bessel("bessel_i0e", "i0e", lambda x, y: F.sub(bessel_i1e(x), F.mul(F.sign(x), y)),
                     "The exponentially scaled ``exp(-|x|) * I0(x)``, elementwise (float tensors).")
bessel_i1 = _bessel("bessel_i1", "i1", lambda x, y: _at_zero(x, 0.5, F.sub(bessel_i0(x), _over_x(x, y))),
                    "The modified Bessel function of the first kind of order 1, elementwise (float tensors).")
bessel_i1e = _bessel("bessel_i1e", "i1e",
                     lambda x, y: _at_zero(x, 0.5, F.sub(bessel_i0e(x), F.add(F.mul(F.sign(x), y), _over_x(x, y)))),
                     "The exponentially scaled ``exp(-|x|) * I1(x)``, elementwise (float tensors).")
bessel_j0 = _bessel("bessel_j0", "j0", lambda x, y: F.neg(bessel_j1(x)),
                    "The Bessel function of the first kind of order 0, elementwise (float tensors).")
bessel_j1 = _bessel("bessel_j1", "j1", lambda x, y: _at_zero(x, 0.5, F.sub(bessel_j0(x), _over_x(x, y))),
                    "The Bessel function of the first kind of order 1, elementwise (float tensors).")
bessel_y0 = _bessel("bessel_y0", "y0", lambda x, y: F.neg(bessel_y1(x)),
                    "The Bessel function of the second kind of order 0, elementwise (float tensors).")
bessel_y1 = _bessel("bessel_y1", "y1", lambda x, y: F.sub(bessel_y0(x), F.div(y, x)),
                    "The Bessel function of the second kind of order 1, elementwise (float tensors).")
bessel_k0 = _bessel("bessel_k0", "k0", lambda x, y: F.neg(bessel_k1(x)),
                    "The modified Bessel function of the second kind of order 0, elementwise (float tensors).")
bessel_k0e = _bessel("bessel_k0e", "k0e", lambda x, y: F.sub(y, bessel_k1e(x)),
                     "The exponentially scaled ``exp(x) * K0(x)``, elementwise (float tensors).")
bessel_k1 = _bessel("bessel_k1", "k1", lambda x, y: F.neg(F.add(bessel_k0(x), F.div(y, x))),
                    "The modified Bessel function of the second kind of order 1, elementwise (float tensors).")
bessel_k1e = _bessel("bessel_k1e", "k1e", lambda x, y: F.sub(F.sub(y, bessel_k0e(x)), F.div(y, x)),
                     "The exponentially scaled ``exp(x) * K1(x)``, elementwise (float tensors).")


def i0(input):  # noqa: A002 - MindSpore's names
    """``bessel_i0``: the modified Bessel function of the first kind of order 0 (float tensors)."""
    return bessel_i0(input)


# ------------------------------------------------------------------ igammac / zeta
def _pair_float(name):
    def infer(attrs, dtypes):
        a, b = dtypes
        if a != b or a.name not in ("float32", "float64"):
            raise TypeError(f"op '{name}': inputs must be float32 or float64 tensors of one dtype, got "
                            f"{a.name} and {b.name}")
        return dtypes, [a]
    return infer


def _binary_kernel(fname):
    return quiet(lambda a, i: getattr(_scipy(), fname)(i[0], i[1]).astype(i[0].dtype, copy=False))


def _igammac_da(a, i):
    s, x = (v.astype(np.float64) for v in i)
    h = 1e-5 * np.maximum(1.0, np.abs(s))
    q = _scipy().gammaincc
    return ((q(s + h, x) - q(s - h, x)) / (2 * h)).astype(i[0].dtype, copy=False)


_IGAMMAC_DA = defop("igammac_grad_a", 2, quiet(_igammac_da), broadcast_shape("igammac_grad_a"),
                    _pair_float("igammac_grad_a"), no_grad, doc="d igammac(a, x) / da",
                    arg_names=("input", "other"))


def _igammac_grad(ins, outs, g, attrs):
    a, x = ins
    # dQ/dx = -exp(-x) x^(a-1) / Gamma(a), computed as -exp((a-1) log x - x - lgamma(a))
    lg = run(_LGAMMA, a)
    dx = F.neg(F.exp(F.sub(F.sub(F.mul(F.sub(a, 1), F.log(x)), x), lg)))
    return [back_to(F.mul(g[0], run(_IGAMMAC_DA, a, x)), a), back_to(F.mul(g[0], dx), x)]


_LGAMMA = unary("igammac_lgamma", quiet(lambda a, i: _scipy().gammaln(i[0]).astype(i[0].dtype)),
                float_only("igammac_lgamma"), no_grad, "log |Gamma(x)| (igammac's gradient)")
_IGAMMAC = defop("igammac", 2, _binary_kernel("gammaincc"), broadcast_shape("igammac"), _pair_float("igammac"),
                 _igammac_grad, doc="the regularized upper incomplete gamma function Q(input, other)",
                 arg_names=("input", "other"))
igammac = _functional(_IGAMMAC, "The regularized upper incomplete gamma function ``Q(input, other)`` "
                      "(float32 or float64 tensors of one dtype, broadcasting).", arg_names=("input", "other"))


def _zeta_grad(ins, outs, g, attrs):
    s, q = ins
    return [back_to(F.zeros_like(outs[0]), s),
            back_to(F.mul(g[0], F.neg(F.mul(s, zeta(F.add(s, 1), q)))), q)]


_ZETA = defop("zeta", 2, _binary_kernel("zeta"), broadcast_shape("zeta"), _pair_float("zeta"), _zeta_grad,
              doc="the Hurwitz zeta function", arg_names=("input", "other"))
zeta = _functional(_ZETA, "The Hurwitz zeta function ``sum_k (other + k) ** -input`` (float32 or float64 "
                   "tensors of one dtype, broadcasting).", arg_names=("input", "other"))

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_y0",
           "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "i0", "igammac", "zeta"]

register_function("i0", i0, method=True)
register_function("igammac", igammac, method=True)
