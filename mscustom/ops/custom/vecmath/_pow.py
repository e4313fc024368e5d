"""pow for float32 and float64, branch-free: ``exp(y * log|x|)`` carried in double-word precision.

``log|x|`` is computed as a pair ``L_hi + L_lo`` good to about 10 bits beyond the
type (``|x| = 2**e * (1 + f)``, ``s = f / (2 + f)``, ``log(1 + f) = 2s + 2s*z*V(z)``
with ``z = s*s``, the terms that matter in double-word, a minimax tail ``H``),
multiplied by ``y`` exactly in two parts (fma), and the exponential takes the
pair -- so the error stays near 1 ulp even when ``y * log|x|`` is near the
overflow threshold. IEEE 754 / C99 special cases (zeros, infinities, NaN,
negative bases with integral exponents) come from selects.

Traced (see ``_trace``).
"""

import numpy as np

from ._df import fast_two_sum, two_sum
from ._exp import exp_dw
from ._log import LN2, LOW
from ._poly import horner
from ._trace import copysign, fabs, fma, rint, select, split_exp

__all__ = ["pow"]

# V(z) = (atanh(s) - s) / (s*z) = 1/3 + z*H(z), z = s*s in [0, 0.03134]; H minimax, relative:
# float32 2^-28.3, float64 2^-56.9
_H = {
    32: (0.19999999938601279375, 0.14285776857717629289, 0.11101180512283583702,
         0.095918348443617498507),
    64: (0.1999999999999999984767, 0.1428571428571490727005, 0.1111111111069534006812,
         0.09090909196756731111077, 0.07692294478103507238823, 0.0666756038840839100255,
         0.05849021515437936680533, 0.05903072662819657529578),
}
_THIRD = (0.3333333333333333, 1.850371707708594e-17)          # 1/3 in float64 high and low parts


def _log_dw(ax):
    """``log(ax)`` as ``(hi, lo)`` for finite positive ``ax``, about 10 bits beyond the type."""
    t = ax.t
    ln2_hi, ln2_lo = LN2[t.bits]
    th_hi = float(np.float32(_THIRD[0])) if t.is32 else _THIRD[0]
    th_lo = (_THIRD[0] - th_hi) + _THIRD[1]
    sub = ax < 2.0 ** (1 - t.bias)
    m, e = split_exp(select(sub, ax * 2.0 ** (t.mant + 1), ax), LOW)
    e = select(sub, e - float(t.mant + 1), e)
    f = m - 1.0                                            # exact
    d, d_lo = fast_two_sum(ax.const(2.0), f)               # 2 + f
    inv = 1.0 / d
    s = f * inv                                            # s + s_lo = f / (2 + f)
    s_lo = (fma(-s, d, f) - s * d_lo) * inv
    z = s * s
    z_lo = fma(s, s, -z) + 2.0 * s * s_lo
    hz = horner(_H[t.bits], z)
    v, v_lo = fast_two_sum(ax.const(th_hi), z * hz)       # V = 1/3 + z*H(z) = v + v_lo
    v_lo = v_lo + (th_lo + z_lo * hz)
    a = z * v                                              # z*V
    a_lo = fma(z, v, -a) + (z * v_lo + z_lo * v)
    b = s * a                                              # s*z*V
    b_lo = fma(s, a, -b) + (s * a_lo + s_lo * a)
    u, u_lo = fast_two_sum(2.0 * s, 2.0 * b)               # log(1 + f) = 2s + 2s*z*V
    u_lo = u_lo + 2.0 * (s_lo + b_lo)
    hi, lo = two_sum(e * ln2_hi, u)                        # + e*ln2
    return fast_two_sum(hi, lo + (u_lo + e * ln2_lo))


def pow(x, y):
    """``x**y`` with the IEEE 754 / C99 special cases."""
    t = x.t
    ax, ay = fabs(x), fabs(y)
    inf = float("inf")
    general = (ax < inf) & (ax > 0.0)
    lh, ll = _log_dw(select(general, ax, 1.0))
    ys = select(ay < inf, y, 0.0)
    p = ys * lh
    mag = exp_dw(p, fma(ys, lh, -p) + ys * ll)
    # integral y; odd only below 2**mantissa-bits, where y/2 can be fractional
    y_int = rint(y) == y
    y_odd = y_int & (ay < 2.0 ** t.mant) & (rint(y * 0.5) != y * 0.5)
    neg = y < 0.0
    mag = select(ax == 0.0, select(neg, inf, 0.0), mag)
    mag = select(ax == inf, select(neg, 0.0, inf), mag)
    mag = select(ay == inf, select(ax == 1.0, 1.0, select((ax < 1.0) == neg, inf, 0.0)), mag)
    xneg = copysign(x.const(1.0), x) < 0.0
    out = select(xneg & y_odd, -mag, mag)
    out = select(xneg & general & (ay < inf) & ~y_int, float("nan"), out)
    out = select((x != x) | (y != y), x + y, out)
    return select((y == 0.0) | (x == 1.0), 1.0, out)
