"""log and log1p for float32 and float64, branch-free.

``x = 2**e * m`` with ``m`` in ``[0.7, 1.4)`` (exponent bits, after scaling a
subnormal ``x`` into the normal range), ``f = m - 1`` exactly, and
``log1p(f) = 2*atanh(s)`` with ``s = f / (2 + f)``, written the accurate way::

    log1p(f) = f - (f*f/2 - s*(f*f/2 + R(s*s)))       R(z) = 2z/3 + 2z**2/5 + ...

(the identity ``2s = f - f*f/2 + s*f*f/2``; ``f`` is exact, so the result's
error is that of the small correction plus one rounding). ``R`` is a minimax
polynomial in ``z = s*s`` on ``[0, 0.0314]``. ``log1p(x)`` reduces ``u = 1 + x``
the same way and adds the rounding error of ``1 + x`` as ``c / u``.

``make(F)`` builds the functions for one float type.
"""

import numpy as np
from ._bits import inline, vector

from ._bits import div, fabs, split_exp
from ._poly import horner

__all__ = ["make"]

# R(z) = 2*(atanh(s) - s)/s with z = s*s, on [0, 0.03134]: z*(c1 + c2*z + ...) minimax;
# absolute error float32 2^-28, float64 2^-56.9 (half of it reaches log1p(f), relative)
_R = {
    np.float32: (0.66666801665118647646, 0.39972823498266354729, 0.30015891746972096347),
    np.float64: (0.66666666666667334428, 0.3999999999929731174256, 0.2857142878845241665686,
                 0.222221923484700210861, 0.1818394504704234186559, 0.1530323189303495764957,
                 0.149121211327349165693),
}
_LN2 = {np.float32: (0.693359375, -2.12194440e-4),
        np.float64: (6.93147180369123816490e-01, 1.90821492927058770002e-10)}
_TINY = {np.float32: 2.0 ** -26, np.float64: 2.0 ** -55}    # |x| below: log1p(x) rounds to x


def make(F):
    """``dict(log=, log1p=, log_core=)`` of inlinable njit functions for float type ``F``."""
    F = np.dtype(F).type
    fi = np.finfo(F)
    R = horner((F(0),) + tuple(F(c) for c in _R[F]))
    LN2_HI, LN2_LO = (F(c) for c in _LN2[F])
    LOW = F(0.69921875)                          # m lies in [LOW, 2*LOW): bits 0x3f330000 / 0x3fe66...
    MIN_NORMAL = F(fi.smallest_normal)
    SUB_SCALE = F(2.0 ** (fi.nmant + 1))         # a subnormal times this is normal
    SUB_E = F(-(fi.nmant + 1))
    TINY = F(_TINY[F])
    ZERO, HALF, ONE, TWO, INF, NAN = F(0), F(0.5), F(1), F(2), F(np.inf), F(np.nan)

    @inline
    def core(f, e, corr):
        """``e*ln2 + log1p(f) + corr`` for ``f`` in ``[LOW - 1, 2*LOW - 1)`` and a small ``corr``."""
        s = div(f, TWO + f)
        hfsq = HALF * f * f
        return e * LN2_HI - ((hfsq - (s * (hfsq + R(s * s)) + (e * LN2_LO + corr))) - f)

    @vector
    def log(x):
        sub = x < MIN_NORMAL
        xs = x * SUB_SCALE if sub else x
        m, e = split_exp(xs, LOW)
        e = e + SUB_E if sub else e
        y = core(m - ONE, e, ZERO)
        y = INF if x == INF else y
        y = -INF if x == ZERO else y
        y = NAN if x < ZERO else y
        return x + x if x != x else y

    @vector
    def log1p(x):
        u = ONE + x
        m, e = split_exp(u, LOW)
        c = (x - (u - ONE)) if x <= ONE else (ONE - (u - x))   # 1 + x == u + c exactly
        y = core(m - ONE, e, div(c, u))
        y = INF if x == INF else y
        y = -INF if x == -ONE else y
        y = NAN if x < -ONE else y
        y = x if fabs(x) < TINY else y                     # x itself: keeps -0.0 and subnormals exact
        return x + x if x != x else y

    return dict(log=log, log1p=log1p, log_core=core)
