"""sin and cos for float32 and float64, branch-free, exact argument reduction over the whole range.

Reduction (Payne-Hanek in integers): for ``|x| >= pi/4``, write
``|x| = M * 2**(E - p)`` (``M`` the integer mantissa of ``p + 1`` bits). The
product ``M * 2**(E - p) * 2/pi`` modulo 4 needs only a window of the bits of
``2/pi`` that starts just before the bits the exponent ``E`` would push past
the units of 4; the window is read from a table at a byte offset set by ``E``
(a gather in vector code), multiplied by ``M`` in 32-bit limbs, and gives the
quadrant ``n`` and the remainder as a fixed-point integer (62 fraction bits
for float32, 126 for float64) -- far more than the closest any float comes to
a multiple of pi/2 needs. The remainder is turned into a float pair in exact
chunks and multiplied by ``pi/2``. Below ``pi/4`` the argument is its own
remainder.

Kernels: ``sin(r) = r + r**3 * S(r*r)``, ``cos(r) = 1 - r*r/2 + r**4 * C(r*r)``
(minimax ``S`` and ``C`` on ``|r| <= pi/4``), each corrected for the low part of
the remainder; the quadrant picks and negates them with selects.

The bits of 2/pi are computed at import from Machin's formula in Python
integers, not stored.

``make(F)`` builds ``sin``, ``cos`` for one float type.
"""

import numpy as np
from ._bits import inline, vector

from ._bits import bits_float, fabs, float_bits, floor, fma, rint
from ._poly import horner

__all__ = ["make", "two_over_pi_bits"]

_S = {
    np.float32: (-0.1666666664422010866332, 0.008333329329101974009422, -0.0001983926155350773861304,
                 0.000002717349464119970632854),
    np.float64: (-0.1666666666666666665046, 0.008333333333333324660674, -0.0001984126984125620593898,
                 0.000002755731921441547458055, -2.50521049021838486021e-8, 1.605835910278559652724e-10,
                 -7.578092101608429870353e-13),
}
_C = {
    np.float32: (0.04166666664793474863404, -0.001388888554748296396615, 0.00002479991166943513919261,
                 -2.723716745284937288711e-7),
    np.float64: (0.04166666666666666665765, -0.001388888888888888406729, 0.00002480158730157972107515,
                 -2.755731921866537605252e-7, 2.087675505148362406724e-9, -1.147036497207144231098e-11,
                 4.741087669498756912392e-14),
}
_PIO2 = (1.5707963267948966, 6.123233995736766e-17)        # pi/2 in float64 high and low parts
_ZEROS = 32                                                 # zero bits in front of 2/pi in the tables


def two_over_pi_bits(nbits):
    """``floor(2/pi * 2**nbits)``: the first ``nbits`` bits of 2/pi, from Machin's formula."""
    guard = 64
    prec = nbits + guard

    def atan_inv(k):                                        # atan(1/k) * 2**prec
        term = (1 << prec) // k
        total, n, k2 = term, 1, k * k
        while term:
            term //= k2
            total += (-1) ** n * (term // (2 * n + 1))
            n += 1
        return total
    pi = 4 * (4 * atan_inv(5) - atan_inv(239))             # pi * 2**prec, to within a few units
    return (1 << (nbits + 1 + prec)) // pi


def chunk_tables(F):
    """Four tables of ``F`` by biased exponent: 2/pi's bits in four chunks of ``p`` bits (``p`` the
    precision of ``F``) starting ``p`` bits before the exponent, each scaled by ``2**E``.

    For ``x = m * 2**E`` (``m`` in [1, 2)), ``m * A[E]`` holds the bits of ``x * 2/pi`` from 2**1
    down (higher ones are multiples of 4 and dropped), the other chunks follow from 2**-(p-1),
    2**-(2p-1), ...: each product of ``m`` with a chunk is exact in two parts (fma), so the
    remainder modulo 4 is known to about ``4p - 4`` bits below the units.
    """
    fi = np.finfo(F)
    p = fi.nmant + 1
    bias = fi.maxexp - 1
    nexp = 2 * fi.maxexp                                    # biased exponents 0 .. 2*maxexp-1
    total = 2 * fi.maxexp + 4 * p + 8
    bits = two_over_pi_bits(total)                          # bit i (from 1) has weight 2**(total - i) here
    tabs = np.zeros((4, nexp), dtype=F)
    for be in range(nexp):
        e = be - bias
        for k in range(4):
            first = e - p + k * p                           # position of the chunk's leading bit
            if first + p - 1 < 1:
                continue                                    # 2/pi < 1: its bits start at position 1
            lo = max(first, 1)
            word = (bits >> (total - (first + p - 1))) & ((1 << (first + p - lo)) - 1)
            tabs[k, be] = F(float(word) * 2.0 ** (1 - k * p))   # exact: word has at most p bits
    return tabs


def _reduce(F):
    """``(q, r_hi, r_lo)``: ``|x| = (q + (r_hi + r_lo) / (pi/2)) * pi/2`` modulo 2*pi, ``q`` in 0..3 (a
    float), for finite ``a = |x| >= pi/4`` (garbage below and for inf/NaN: selected away)."""
    fi = np.finfo(F)
    TA, TB, TC, TD = chunk_tables(F)
    MANT = np.uint64((1 << fi.nmant) - 1)
    ONE_BITS = np.uint64(fi.maxexp - 1) << np.uint64(fi.nmant)   # the bits of 1.0
    SHIFT = np.uint64(fi.nmant)
    EMASK = np.uint64(2 * fi.maxexp - 1)
    P_HI = F(_PIO2[0])
    P_LO = F((_PIO2[0] - float(P_HI)) + _PIO2[1])
    QUARTER, FOUR = F(0.25), F(4)

    @inline
    def two_sum(a, b):
        s = a + b
        bb = s - a
        return s, (a - (s - bb)) + (b - bb)

    @inline
    def reduce(a):
        bits = float_bits(a)
        be = np.int64((bits >> SHIFT) & EMASK)
        m = bits_float((bits & MANT) | ONE_BITS, a)          # a = m * 2**E, m in [1, 2)
        ca, cb, cc, cd = TA[be], TB[be], TC[be], TD[be]
        pa = m * ca
        ea = fma(m, ca, -pa)
        pb = m * cb
        eb = fma(m, cb, -pb)
        pc = m * cc
        ec = fma(m, cc, -pc)
        pd = m * cd
        ka = rint(pa)
        ke = rint(ea)
        kb = rint(pb)
        h = (pa - ka) + (ea - ke)                            # exact: multiples of 2**-(p-2), each <= 1/2
        h, lo = two_sum(h, pb - kb)
        t, t_lo = two_sum(eb, pc)
        h, lo2 = two_sum(h, t)
        lo = lo + (lo2 + (t_lo + (ec + pd)))
        kh = rint(h)
        h = h - kh
        ka = ka - FOUR * floor(ka * QUARTER)                 # ka may be huge: reduce it first
        q = ka + ke + kb + kh
        q = q - FOUR * floor(q * QUARTER)
        r = h + lo
        lo = lo - (r - h)
        r_hi = r * P_HI
        r_lo = fma(r, P_HI, -r_hi) + (r * P_LO + lo * P_HI)
        return q, r_hi, r_lo

    return reduce


def make(F):
    """``dict(sin=, cos=)`` of inlinable njit functions for float type ``F``."""
    F = np.dtype(F).type
    reduce = _reduce(F)
    S = horner(F(c) for c in _S[F])
    C = horner(F(c) for c in _C[F])
    PIO4 = F(0.7853981633974483)                             # rounded down in both types: below it, r = x
    if float(PIO4) > np.pi / 4:
        PIO4 = np.nextafter(PIO4, F(0))
    TINY = F(2.0 ** -13 if F == np.float32 else 2.0 ** -27)  # sin(x) rounds to x below
    ZERO, HALF, ONE, INF = F(0), F(0.5), F(1), F(np.inf)
    TWO, F3 = F(2), F(3)

    @inline
    def kernels(x):
        a = fabs(x)
        q, r, r_lo = reduce(a)
        near = a < PIO4
        q = ZERO if near else q
        r = a if near else r
        r_lo = ZERO if near else r_lo
        z = r * r
        s = r + (r * z * S(z) + r_lo * (ONE - HALF * z))
        hz = HALF * z
        w = ONE - hz
        c = w + (((ONE - w) - hz) + (z * z * C(z) - r * r_lo))
        return q, s, c

    @vector
    def sin(x):
        q, s, c = kernels(x)
        y = c if (q == ONE or q == F3) else s
        y = -y if q >= TWO else y
        y = -y if x < ZERO else y
        y = x if fabs(x) < TINY else y                       # keeps -0.0 and subnormals exact
        return y if fabs(x) < INF else x - x                 # NaN for inf and NaN

    @vector
    def cos(x):
        q, s, c = kernels(x)
        y = s if (q == ONE or q == F3) else c
        y = -y if (q == ONE or q == TWO) else y
        return y if fabs(x) < INF else x - x

    return dict(sin=sin, cos=cos)
