"""pow for float32 and float64, branch-free: ``exp(y * log|x|)`` carried in double-word precision.

``log|x|`` is computed as a pair ``L_hi + L_lo`` good to about 10 bits beyond the
type (``|x| = 2**e * (1 + f)``, ``s = f / (2 + f)``, ``log(1 + f) = 2s + 2s*z*V(z)``
with ``z = s*s``, the terms that matter in double-word, a minimax tail ``H``),
multiplied by ``y`` exactly in two parts (fma), and the exponential takes the
pair -- so the error stays near 1 ulp even when ``y * log|x|`` is near the
overflow threshold. IEEE 754 / C99 special cases (zeros, infinities, NaN,
negative bases with integral exponents) come from selects.

``make(F)`` builds ``pow`` for one float type.
"""

import numpy as np
from ._bits import inline, vector

from ._bits import copysign, div, fabs, fma, rint, scale2, split_exp
from ._df import fast_two_sum, two_sum
from ._poly import horner

__all__ = ["make"]

# V(z) = (atanh(s) - s) / (s*z) = 1/3 + z*H(z), z = s*s in [0, 0.03134]; H minimax, relative:
# float32 2^-28.3, float64 2^-56.9
_H = {
    np.float32: (0.19999999938601279375, 0.14285776857717629289, 0.11101180512283583702,
                 0.095918348443617498507),
    np.float64: (0.1999999999999999984767, 0.1428571428571490727005, 0.1111111111069534006812,
                 0.09090909196756731111077, 0.07692294478103507238823, 0.0666756038840839100255,
                 0.05849021515437936680533, 0.05903072662819657529578),
}
_THIRD = (0.3333333333333333, 1.850371707708594e-17)          # 1/3 in float64 high and low parts
_LN2 = {np.float32: (0.693359375, -2.12194440e-4),
        np.float64: (6.93147180369123816490e-01, 1.90821492927058770002e-10)}


def make(F, exp_poly):
    """``dict(pow=)`` for float type ``F``; ``exp_poly`` is the ``P`` of ``expm1(r) = r + r*r*P(r)``."""
    F = np.dtype(F).type
    fi = np.finfo(F)
    H = horner(F(c) for c in _H[F])
    P = exp_poly
    TH_HI = F(_THIRD[0])
    TH_LO = F((_THIRD[0] - float(TH_HI)) + _THIRD[1])
    LN2_HI, LN2_LO = (F(c) for c in _LN2[F])
    LOG2E = F(1.4426950408889634)
    LOW = F(0.69921875)
    MIN_NORMAL = F(fi.smallest_normal)
    SUB_SCALE = F(2.0 ** (fi.nmant + 1))
    SUB_E = F(-(fi.nmant + 1))
    EXP_HI = F(89.0 if F == np.float32 else 710.0)             # exp overflows above
    EXP_LO = F(-104.0 if F == np.float32 else -746.0)          # exp is 0 below
    BIG_INT = F(2.0 ** fi.nmant)                               # from here on every float is an even integer
    ZERO, HALF, ONE, TWO, INF, NAN = F(0), F(0.5), F(1), F(2), F(np.inf), F(np.nan)

    @inline
    def log_dw(ax):
        """``log(ax)`` as ``(hi, lo)`` for finite positive ``ax``."""
        sub = ax < MIN_NORMAL
        xs = ax * SUB_SCALE if sub else ax
        m, e = split_exp(xs, LOW)
        e = e + SUB_E if sub else e
        f = m - ONE                                            # exact
        d = TWO + f
        d_lo = (TWO - d) + f
        inv = div(ONE, d)
        s = f * inv                                            # s + s_lo = f / (2 + f)
        s_lo = (fma(-s, d, f) - s * d_lo) * inv
        z = s * s
        z_lo = fma(s, s, -z) + TWO * s * s_lo
        zh = z * H(z)                                          # V = 1/3 + z*H(z) = v + v_lo
        v, v_lo = fast_two_sum(TH_HI, zh)
        v_lo = v_lo + (TH_LO + z_lo * H(z))
        a = z * v                                              # z*V
        a_lo = fma(z, v, -a) + (z * v_lo + z_lo * v)
        b = s * a                                              # s*z*V
        b_lo = fma(s, a, -b) + (s * a_lo + s_lo * a)
        t, t_lo = fast_two_sum(TWO * s, TWO * b)               # log(1 + f) = 2s + 2s*z*V
        t_lo = t_lo + TWO * (s_lo + b_lo)
        hi, lo = two_sum(e * LN2_HI, t)                        # + e*ln2
        lo = lo + (t_lo + e * LN2_LO)
        return fast_two_sum(hi, lo)

    @inline
    def exp_dw(p, p_lo):
        """``exp(p + p_lo)`` (``p_lo`` tiny beside ``p``); overflows to inf, underflows to 0."""
        big = p > EXP_HI
        tiny = p < EXP_LO
        pc = EXP_HI if big else (EXP_LO if tiny else p)
        pl = ZERO if (big or tiny) else p_lo
        k = rint(pc * LOG2E)
        r_hi = pc - k * LN2_HI                                 # exact
        r_lo = pl - k * LN2_LO
        r, r_err = two_sum(r_hi, r_lo)
        pm = fma(r * r, P(r), r)                               # expm1(r)
        return scale2(ONE + (pm + fma(r_err, pm, r_err)), k)

    @vector
    def pow_(x, y):
        ax = fabs(x)
        ay = fabs(y)
        finite_x = ax < INF and ax > ZERO                      # the general path's domain
        axs = ax if finite_x else ONE
        ys = y if ay < INF else ZERO
        lh, ll = log_dw(axs)
        p = ys * lh
        p_lo = fma(ys, lh, -p) + ys * ll
        mag = exp_dw(p, p_lo)
        # integral y; odd: only below 2**mantissa-bits, where y/2 is not integral
        y_int = rint(y) == y
        y_odd = y_int and ay < BIG_INT and rint(y * HALF) != y * HALF
        neg = y < ZERO
        mag = (INF if neg else ZERO) if ax == ZERO else mag
        mag = (ZERO if neg else INF) if ax == INF else mag
        mag = (ONE if ax == ONE else ((INF if (ax < ONE) == neg else ZERO))) if ay == INF else mag
        xneg = copysign(ONE, x) < ZERO
        y_out = -mag if (xneg and y_odd) else mag
        y_out = NAN if (xneg and ax > ZERO and ax < INF and ay < INF and not y_int) else y_out
        y_out = x + y if (x != x or y != y) else y_out
        y_out = ONE if (y == ZERO or x == ONE) else y_out
        return y_out

    return dict(pow=pow_)
