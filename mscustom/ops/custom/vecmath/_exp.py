"""exp, expm1, sigmoid and tanh for float32 and float64, branch-free.

All four share one reduction: ``x = k*ln2 + r`` with ``k`` an integer and
``|r| <= ln2/2`` (``ln2`` split in a short high part, so ``k*ln2_hi`` and
``x - k*ln2_hi`` are exact, and a low part), then ``expm1(r) = r + r*r*P(r)``
with ``P`` a minimax polynomial and ``2**k`` built from exponent bits.
Special values come out of selects, never branches: LLVM if-converts the
whole function and vectorizes the loop that calls it.

``make(F)`` builds the functions for one float type; every constant is of that
type, so float32 code never widens to float64.
"""

import numpy as np
from ._bits import inline, vector

from ._bits import copysign, div, fabs, fma, pow2i, rint, scale2
from ._df import fast_two_sum, two_sum
from ._poly import horner

__all__ = ["make"]

# expm1(r) = r + r*r*P(r) on |r| <= ln2/2; P minimax with weight |r| (relative error of expm1(r);
# exp's is smaller): float32 2^-25.9, float64 2^-61.5
_P_EXP = {
    np.float32: (0.50000000619559856132, 0.16666543041368611077, 0.041666282014847883656,
                 0.0083665773337195104498, 0.0013946448381287737969),
    np.float64: (0.4999999999999999998587, 0.1666666666666667658873, 0.04166666666666670123196,
                 0.00833333333332162544584, 0.001388888888886689600482, 0.0001984126988613110369607,
                 0.00002480158736045591888663, 0.000002755724421237878991643, 2.755724283478148680769e-7,
                 2.510903335891829997212e-8, 2.092442277295352550011e-9),
}
# ln2 = LN2_HI + LN2_LO, LN2_HI with trailing zero bits so that k * LN2_HI is exact for every k used
_LN2 = {np.float32: (0.693359375, -2.12194440e-4),
        np.float64: (6.93147180369123816490e-01, 1.90821492927058770002e-10)}
# clamps: below LO exp is 0 and expm1 is -1 after rounding; above HI both overflow
# sig_lo: below it sigmoid(x) is exp(x) after rounding (and 2**k of exp(-|x|) is still normal above it)
_LIMITS = {np.float32: dict(exp_lo=-104.0, exp_hi=89.0, em1_lo=-30.0, tiny=2.0 ** -26, big_tanh=9.5, sig_lo=-40.0),
           np.float64: dict(exp_lo=-746.0, exp_hi=710.0, em1_lo=-45.0, tiny=2.0 ** -55, big_tanh=20.0,
                            sig_lo=-100.0)}


def make(F):
    """``dict(exp=, expm1=, sigmoid=, tanh=, exp_reduced=)`` of inlinable njit functions for float type ``F``."""
    F = np.dtype(F).type
    P = horner(F(c) for c in _P_EXP[F])
    LN2_HI, LN2_LO = (F(c) for c in _LN2[F])
    LOG2E = F(1.4426950408889634)
    lim = _LIMITS[F]
    EXP_LO, EXP_HI, EM1_LO = F(lim["exp_lo"]), F(lim["exp_hi"]), F(lim["em1_lo"])
    TINY, BIG_TANH, SIG_LO = F(lim["tiny"]), F(lim["big_tanh"]), F(lim["sig_lo"])
    MAX_K = F(np.finfo(F).maxexp - 1)                       # 127 / 1023: the largest normal 2**k
    ZERO, ONE, TWO = F(0), F(1), F(2)

    @inline
    def reduce(x):
        """``(k, r)`` with ``x = k*ln2 + r``, ``|r| <= ln2/2`` (``x`` already clamped to a finite range)."""
        k = rint(x * LOG2E)
        r = fma(k, -LN2_LO, x - k * LN2_HI)
        return k, r

    @vector
    def exp(x):
        xc = x if x > EXP_LO else EXP_LO                      # NaN -> EXP_LO here, put back below
        xc = xc if xc < EXP_HI else EXP_HI
        k, r = reduce(xc)
        y = scale2(fma(r * r, P(r), r) + ONE, k)
        return x + x if x != x else y

    @vector
    def expm1(x):
        xc = x if x > EM1_LO else EM1_LO
        xc = xc if xc < EXP_HI else EXP_HI
        k = rint(xc * LOG2E)
        r_hi = xc - k * LN2_HI                               # exact
        r_lo = -k * LN2_LO
        r = r_hi + r_lo
        r_err = (r_hi - r) + r_lo                            # the reduced argument is r + r_err
        t2 = r * r * P(r)
        p = r + t2                                           # expm1(r + r_err) = p + p_lo
        p_lo = (r - p) + t2 + fma(r_err, p, r_err)
        d = ONE if k > MAX_K else ZERO                       # 2**k itself would overflow: halve it, double y
        t = pow2i(k - d)
        a = t - ONE                                          # exact wherever it matters (|k| <= mantissa bits)
        b = t * p                                            # exact: t is a power of two
        y = a + b                                            # 2**k * expm1(r) + (2**k - 1), with its error:
        bb = y - a
        err = (a - (y - bb)) + (b - bb)
        y = (y + fma(t, p_lo, err)) * (ONE + d)
        y = x if fabs(x) < TINY else y                       # x itself: keeps -0.0 and subnormals exact
        return x + x if x != x else y

    @inline
    def exp_split(z):
        """``(t, tp)`` with ``exp(z) = t + tp`` to about 2 ulp beyond the type; ``t = 2**k`` (``z`` clamped
        so that ``k`` is a normal exponent)."""
        k, r = reduce(z)
        t = pow2i(k)
        return t, t * fma(r * r, P(r), r)

    @inline
    def quotient(n_hi, n_lo, s, s_lo):
        """``(n_hi + n_lo) / (s + s_lo)`` from one division and one Newton step on the quotient."""
        inv = div(ONE, s)
        q = n_hi * inv
        res = (fma(-q, s, n_hi) + n_lo) - q * s_lo
        return fma(res, inv, q)

    @vector
    def sigmoid(x):
        z = -fabs(x)                                         # sigmoid(x) = n / (1 + e), e = exp(z) <= 1
        zc = z if z > SIG_LO else SIG_LO
        t, tp = exp_split(zc)
        e = t + tp                                           # e + e_lo == exp(z), fast two-sum: t >= |tp|
        e_lo = tp - (e - t)
        s = ONE + e                                          # 1 + e: s + s_lo, again a fast two-sum
        s_lo = (e - (s - ONE)) + e_lo
        pos = x >= ZERO
        y = quotient(ONE if pos else e, ZERO if pos else e_lo, s, s_lo)
        y = exp(x) if x < SIG_LO else y                      # 1 + e rounds to 1; e may be subnormal
        return x + x if x != x else y

    @vector
    def tanh(x):
        # tanh(a) = m / (m + 2) with m = expm1(2a) = 2**k * (1 + p) - 1 carried in two words: one
        # formula from 0 (where k = 0 and m = p, relative-accurate) to where tanh rounds to 1
        a = fabs(x)
        ac = a if a < BIG_TANH else BIG_TANH                 # NaN -> BIG_TANH here, put back below
        k, r = reduce(ac + ac)
        z = r * r
        pr = P(r)
        p, p_lo = fast_two_sum(r, z * pr)                    # expm1(r) = r + r*r*P(r), two words
        p_lo = fma(fma(r, r, -z), pr, p_lo)
        t = pow2i(k)
        m, m_lo = fast_two_sum(t - ONE, t * p)               # exact: t - 1 is 0 or dominates t*p
        m_lo = fma(t, p_lo, m_lo)
        d, d_lo = two_sum(m, TWO)
        y = quotient(m, m_lo, d, d_lo + m_lo)
        y = copysign(y, x)                                   # keeps -0.0
        return x + x if x != x else y

    return dict(exp=exp, expm1=expm1, sigmoid=sigmoid, tanh=tanh, exp_reduce=reduce, exp_poly=P)
