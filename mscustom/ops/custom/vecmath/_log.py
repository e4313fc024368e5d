"""log and log1p for float32 and float64, branch-free (traced, see ``_trace``).

``x = 2**e * m`` with ``m`` in ``[0.7, 1.4)`` (exponent bits, after scaling a
subnormal ``x`` into the normal range), ``f = m - 1`` exactly, and
``log1p(f) = 2*atanh(s)`` with ``s = f / (2 + f)``, written the accurate way::

    log1p(f) = f - (f*f/2 - s*(f*f/2 + R(s*s)))       R(z) = 2z/3 + 2z**2/5 + ...

(the identity ``2s = f - f*f/2 + s*f*f/2``; ``f`` is exact, so the result's
error is that of the small correction plus one rounding). ``R`` is a minimax
polynomial in ``z = s*s`` on ``[0, 0.0314]``. ``log1p(x)`` reduces ``u = 1 + x``
the same way and adds the rounding error of ``1 + x`` as ``c / u``.
"""

from ._poly import horner
from ._trace import fabs, select, split_exp

__all__ = ["log", "log1p", "LOW", "LN2"]

# R(z) = 2*(atanh(s) - s)/s with z = s*s, on [0, 0.03134]: z*(c1 + c2*z + ...) minimax;
# absolute error float32 2^-28, float64 2^-56.9 (half of it reaches log1p(f), relative)
R = {
    32: (0.0, 0.66666801665118647646, 0.39972823498266354729, 0.30015891746972096347),
    64: (0.0, 0.66666666666667334428, 0.3999999999929731174256, 0.2857142878845241665686,
         0.222221923484700210861, 0.1818394504704234186559, 0.1530323189303495764957,
         0.149121211327349165693),
}
LN2 = {32: (0.693359375, -2.12194440e-4), 64: (6.93147180369123816490e-01, 1.90821492927058770002e-10)}
LOW = 0.69921875                 # m lies in [LOW, 2*LOW): f = m - 1 in [-0.30, 0.40]
TINY = {32: 2.0 ** -26, 64: 2.0 ** -55}    # |x| below: log1p(x) rounds to x


def _core(f, e, corr):
    """``e*ln2 + log1p(f) + corr`` for ``f`` in ``[LOW - 1, 2*LOW - 1)`` and a small ``corr``."""
    hi, lo = LN2[f.t.bits]
    s = f / (2.0 + f)
    hfsq = 0.5 * f * f
    return e * hi - ((hfsq - (s * (hfsq + horner(R[f.t.bits], s * s)) + (e * lo + corr))) - f)


def log(x):
    """Natural logarithm."""
    t = x.t
    sub = x < 2.0 ** (1 - t.bias)                        # subnormal (or zero, negative, NaN: put right below)
    m, e = split_exp(select(sub, x * 2.0 ** (t.mant + 1), x), LOW)
    e = select(sub, e - float(t.mant + 1), e)
    y = _core(m - 1.0, e, x.const(0.0))
    y = select(x == float("inf"), x, y)
    y = select(x == 0.0, float("-inf"), y)
    y = select(x < 0.0, float("nan"), y)
    return select(x != x, x + x, y)


def log1p(x):
    """``log(1 + x)``, accurate near 0."""
    t = x.t
    u = x + 1.0
    m, e = split_exp(u, LOW)
    c = select(x <= 1.0, x - (u - 1.0), 1.0 - (u - x))   # 1 + x == u + c exactly
    y = _core(m - 1.0, e, c / u)
    y = select(x == float("inf"), x, y)
    y = select(x == -1.0, float("-inf"), y)
    y = select(x < -1.0, float("nan"), y)
    y = select(fabs(x) < TINY[t.bits], x, y)             # x itself: keeps -0.0 and subnormals exact
    return select(x != x, x + x, y)
