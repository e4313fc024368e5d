"""exp, expm1, sigmoid and tanh for float32 and float64, branch-free (traced, see ``_trace``).

All four share one reduction: ``x = k*ln2 + r`` with ``k`` an integer and
``|r| <= ln2/2`` (``ln2`` split in a short high part, so ``k*ln2_hi`` and
``x - k*ln2_hi`` are exact, and a low part), then ``expm1(r) = r + r*r*P(r)``
with ``P`` a minimax polynomial and ``2**k`` built from exponent bits. Where
the last bit matters, sums are carried in two words (``_df``). Special values
come out of selects, never branches.

Each function takes its arguments as traced values of one float type; the
constants below are per type (keyed by bit width).
"""

from ._df import fast_two_sum, two_sum
from ._poly import horner
from ._trace import copysign, fabs, floor, fma, mad, pow2, rint, select, with_sign_of

__all__ = ["exp", "expm1", "sigmoid", "tanh", "reduce", "expm1_poly", "exp_dw"]

# expm1(r) = r + r*r*P(r) on |r| <= ln2/2; P minimax with weight |r| (relative error of expm1(r);
# exp's is smaller): float32 2^-25.9, float64 2^-61.5
P_EXP = {
    32: (0.50000000619559856132, 0.16666543041368611077, 0.041666282014847883656,
         0.0083665773337195104498, 0.0013946448381287737969),
    64: (0.4999999999999999998587, 0.1666666666666667658873, 0.04166666666666670123196,
         0.00833333333332162544584, 0.001388888888886689600482, 0.0001984126988613110369607,
         0.00002480158736045591888663, 0.000002755724421237878991643, 2.755724283478148680769e-7,
         2.510903335891829997212e-8, 2.092442277295352550011e-9),
}
# tanh(x) = x + x**3 * Q(x*x) on |x| < TANH_SPLIT; Q minimax, relative error of tanh: float32 2^-26.9,
# float64 2^-60.3
Q_TANH = {
    32: (-0.33333292551000040552, 0.13331541957735872549, -0.053738624243650266423,
         0.020615996170324774702, -0.0056647753603467674218),
    64: (-0.3333333333333332451453, 0.1333333333333115492444, -0.05396825396664730268917,
         0.02186948848077648225166, -0.00886323445307793568113, 0.003592114993515995067614,
         -0.001455730290821015845076, 0.0005894631202879382814936, -0.0002370266836597341997013,
         0.00009155997169383055064637, -0.00003016746192523717336862, 0.00000602570283812425729135),
}
TANH_SPLIT = 0.625
# float32 tanh above TANH_SPLIT: e**(2r) = E(r) on |r| <= ln2/4 (2|x| = k ln2 + 2r), degree 6, relative
# error 2^-29.0 (fit "tanh_exp_f32")
E_TANH32 = (1.0, 2.0000000730777754036, 1.9999996812714713978, 1.3333135353597183348, 0.6666917109380679589,
            0.26799674419938549236, 0.088555100763929201812)
HALF_LN2 = 0.34657359027997264
# the same fit one degree higher for float32 (2^-30.8), where the result keeps expm1(r) in two words
# (exp, expm1, sigmoid, pow): there the polynomial's error would be most of what is left
P_EM1 = {
    32: (0.50000000808002470782, 0.16666666756401171078, 0.041666240712711107458, 0.008333286026263549232,
         0.0013948580818093910978, 0.00019907571575019447657),
    64: P_EXP[64],
}
# ln2 = LN2_HI + LN2_LO, LN2_HI with trailing zero bits so that k * LN2_HI is exact for every k used
LN2 = {32: (0.693359375, -2.12194440e-4), 64: (6.93147180369123816490e-01, 1.90821492927058770002e-10)}
LOG2E = 1.4426950408889634
# exp_lo/exp_hi: exp is 0 below, overflows above; em1_lo: expm1 rounds to -1 below; big_tanh: tanh
# rounds to 1 above; sig_lo: sigmoid(x) rounds to exp(x) below (and exp(-|x|)'s 2**k is still normal
# above it); tiny: expm1(x) rounds to x below
LIMITS = {32: dict(exp_lo=-104.0, exp_hi=89.0, em1_lo=-30.0, tiny=2.0 ** -26, big_tanh=9.5, sig_lo=-40.0),
          64: dict(exp_lo=-746.0, exp_hi=710.0, em1_lo=-45.0, tiny=2.0 ** -55, big_tanh=20.0, sig_lo=-100.0)}


def reduce(x):
    """``(k, r)``: ``x = k*ln2 + r``, ``|r| <= ln2/2`` (``x`` already clamped to a finite range)."""
    hi, lo = LN2[x.t.bits]
    k = rint(x * LOG2E)
    return k, mad(k, -lo, mad(k, -hi, x))               # x - k*hi is exact: one rounding either way


def expm1_poly(r):
    """``expm1(r)`` for ``|r| <= ln2/2`` as two words ``(p, p_lo)``."""
    z = r * r
    pr = horner(P_EM1[r.t.bits], r)
    p, p_lo = fast_two_sum(r, z * pr)
    return p, mad(fma(r, r, -z), pr, p_lo)


def _clamp(x, lo, hi):
    xc = select(x > lo, x, lo)                           # a NaN becomes lo here; callers put it back
    return select(xc < hi, xc, hi)


def exp(x):
    """``e**x``."""
    lim = LIMITS[x.t.bits]
    hi, lo = LN2[x.t.bits]
    xc = _clamp(x, lim["exp_lo"], lim["exp_hi"])
    k = rint(xc * LOG2E)
    r, r_err = fast_two_sum(fma(k, -hi, xc), -k * lo)     # the reduced argument in two words
    p, p_lo = expm1_poly(r)                               # expm1(r + r_err) = p + p_lo + r_err*(1 + p)
    return select(x != x, x + x, _scale_1p(p, p_lo + mad(r_err, p, r_err), k))


def _scale_1p(p, p_lo, k):
    """``2**k * (1 + p + p_lo)`` rounded once where the result is normal: ``1 + p`` in two words, one
    fma with ``t = 2**k1``, then an exact ``* 2**k2`` (``k = k1 + k2``, both halves normal
    exponents; a subnormal or overflowing result rounds there)."""
    u, u_lo = fast_two_sum(p.const(1.0), p)
    k1 = floor(k * 0.5)
    t1 = pow2(k1)
    return fma(t1, u, t1 * (u_lo + p_lo)) * pow2(k - k1)


def exp_dw(p, p_lo):
    """``exp(p + p_lo)`` for a two-word argument (``p_lo`` tiny beside ``p``); inf and 0 beyond range."""
    t = p.t
    lim = LIMITS[t.bits]
    hi, lo = LN2[t.bits]
    out = (p > lim["exp_hi"]) | (p < lim["exp_lo"])
    pc = _clamp(p, lim["exp_lo"], lim["exp_hi"])
    pl = select(out, 0.0, p_lo)
    k = rint(pc * LOG2E)
    r, r_err = two_sum(pc - k * hi, pl - k * lo)
    pm, pm_lo = expm1_poly(r)
    return _scale_1p(pm, pm_lo + mad(r_err, pm, r_err), k)


def expm1(x):
    """``e**x - 1``, accurate near 0."""
    t = x.t
    lim = LIMITS[t.bits]
    hi, lo = LN2[t.bits]
    xc = _clamp(x, lim["em1_lo"], lim["exp_hi"])
    k = rint(xc * LOG2E)
    r, r_err = two_sum(xc - k * hi, -k * lo)             # the reduced argument is r + r_err
    p, p_lo = expm1_poly(r)
    p_lo = p_lo + mad(r_err, p, r_err)                   # expm1(r + r_err) = p + p_lo
    d = select(k > float(t.bias), 1.0, 0.0)              # 2**k itself would overflow: halve it, double y
    tk = pow2(k - d)
    a = tk - 1.0                                         # exact up to 2**(mantissa bits); beyond, its error:
    a_err = (tk - a) - 1.0
    y, err = two_sum(a, tk * p)                          # 2**k * expm1(r) + (2**k - 1); tk*p is exact
    y = (y + (err + mad(tk, p_lo, a_err))) * (d + 1.0)
    y = select(fabs(x) < lim["tiny"], x, y)              # x itself: keeps -0.0 and subnormals exact
    return select(x != x, x + x, y)


def _quotient(n_hi, n_lo, s, s_lo):
    """``(n_hi + n_lo) / (s + s_lo)`` from one division and one Newton step on the quotient."""
    inv = 1.0 / s
    q = n_hi * inv
    res = (fma(-q, s, n_hi) + n_lo) - q * s_lo
    return mad(res, inv, q)


def sigmoid(x):
    """``1 / (1 + e**-x)`` without overflow: ``n / (1 + e)`` with ``e = exp(-|x|)``."""
    t = x.t
    lim = LIMITS[t.bits]
    hi, lo = LN2[t.bits]
    z = select(-fabs(x) > lim["sig_lo"], -fabs(x), lim["sig_lo"])
    k = rint(z * LOG2E)
    r, r_err = fast_two_sum(fma(k, -hi, z), -k * lo)
    p, p_lo = expm1_poly(r)
    tk = pow2(k)
    e, e_lo = fast_two_sum(tk, tk * p)                    # exp(z) = e + e_lo, in two words
    e_lo = mad(tk, p_lo + mad(r_err, p, r_err), e_lo)
    s, s_lo = fast_two_sum(x.const(1.0), e)
    s_lo = s_lo + e_lo
    pos = x >= 0.0
    y = _quotient(select(pos, 1.0, e), select(pos, 0.0, e_lo), s, s_lo)
    y = select(x < lim["sig_lo"], exp(x), y)             # 1 + e rounds to 1; e may be subnormal
    return select(x != x, x + x, y)


def tanh(x):
    """Hyperbolic tangent: ``x + x**3 * Q(x*x)`` below 0.625, ``1 - 2 / (e**2|x| + 1)`` above (the sum
    ``e**2|x| + 1 = 2**k * (1 + p) + 1`` formed in one fma, unrounded ``e**2|x|``), then the sign of x."""
    bits = x.t.bits
    if bits == 32:
        return _tanh32(x)
    lim = LIMITS[bits]
    a = fabs(x)
    ac = select(a > lim["big_tanh"], lim["big_tanh"], a)  # tanh rounds to 1 above; NaN passes through
    k, r = reduce(ac + ac)
    tk = pow2(k)
    big = 1.0 - 2.0 / mad(tk, mad(r * r, horner(P_EXP[bits], r), r), tk + 1.0)
    u = x * x
    small = mad(x * u, horner(Q_TANH[bits], u), x)
    return copysign(select(a < TANH_SPLIT, small, big), x)   # copysign: -0.0 stays -0.0


def _tanh32(x):
    """float32 ``tanh`` in fewer operations (a jit kernel calling it is bound by their count): above
    0.625, ``e**2|x| + 1 = 2**k E(r) + 1`` in one fma, ``r = |x| - k ln2/2`` from one fma with a
    float32 ``ln2/2`` (its error, ``k`` times 2^-26 relative at most, is scaled down by ``2 / (e**2|x| +
    1)`` in the result) and ``E(r) = e**2r`` one polynomial; below, ``|x| + |x|**3 Q(x*x)``; both are
    >= 0, so the sign of ``x`` is or-ed in."""
    lim = LIMITS[32]
    a = fabs(x)
    ac = select(a > lim["big_tanh"], lim["big_tanh"], a)  # tanh rounds to 1 above; NaN passes through
    k = rint(ac * (2.0 * LOG2E))
    r = fma(k, -HALF_LN2, ac)
    big = 1.0 - 2.0 / fma(pow2(k), horner(E_TANH32, r), 1.0)
    u = a * a
    small = mad(a * u, horner(Q_TANH[32], u), a)
    return with_sign_of(select(a < TANH_SPLIT, small, big), x)   # -0.0 stays -0.0, NaN stays NaN
