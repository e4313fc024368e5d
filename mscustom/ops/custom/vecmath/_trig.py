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

Traced (see ``_trace``).
"""

import functools

import numpy as np

from ._df import two_sum
from ._poly import horner
from ._trace import exponent_mantissa, fabs, floor, fma, lookup, mad, rint, select

__all__ = ["sin", "cos", "two_over_pi_bits", "chunk_tables"]

_S = {
    32: (-0.1666666664422010866332, 0.008333329329101974009422, -0.0001983926155350773861304,
                 0.000002717349464119970632854),
    64: (-0.1666666666666666665046, 0.008333333333333324660674, -0.0001984126984125620593898,
                 0.000002755731921441547458055, -2.50521049021838486021e-8, 1.605835910278559652724e-10,
                 -7.578092101608429870353e-13),
}
_C = {
    32: (0.04166666664793474863404, -0.001388888554748296396615, 0.00002479991166943513919261,
                 -2.723716745284937288711e-7),
    64: (0.04166666666666666665765, -0.001388888888888888406729, 0.00002480158730157972107515,
                 -2.755731921866537605252e-7, 2.087675505148362406724e-9, -1.147036497207144231098e-11,
                 4.741087669498756912392e-14),
}
_PIO2 = (1.5707963267948966, 6.123233995736766e-17)        # pi/2 in float64 high and low parts
# pi/4 rounded down in each type: below it the argument is its own remainder
_PIO4 = {32: float(np.nextafter(np.float32(np.pi / 4), np.float32(0))), 64: float(np.nextafter(np.pi / 4, 0))}
_TINY = {32: 2.0 ** -13, 64: 2.0 ** -27}                   # sin(x) rounds to x below


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


@functools.lru_cache(maxsize=None)
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


def _reduce(a):
    """``(q, r_hi, r_lo)``: ``a = (q + (r_hi + r_lo) / (pi/2)) * pi/2`` modulo 2*pi, ``q`` in 0..3 (a
    float), for finite ``a >= pi/4`` (garbage below and for inf/NaN: selected away)."""
    t = a.t
    F = np.float32 if t.is32 else np.float64
    tabs = chunk_tables(F)
    p_hi = float(F(_PIO2[0]))
    p_lo = (_PIO2[0] - p_hi) + _PIO2[1]
    be, m = exponent_mantissa(a)                              # a = m * 2**E, m in [1, 2)
    ca, cb, cc, cd = (lookup(f"two_over_pi_{k}", tabs[k], be) for k in range(4))
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
    h = (pa - ka) + (ea - ke)                                 # exact: multiples of 2**-(p-2), each <= 1/2
    h, l1 = two_sum(h, pb - kb)
    s, s_lo = two_sum(eb, pc)
    h, l2 = two_sum(h, s)
    kh = rint(h)
    h = h - kh
    # near a multiple of pi/2 h cancels: keep l1 + l2 exact too, round only far below them
    m, m_lo = two_sum(l1, l2)
    h, e2 = two_sum(h, m)
    lo = (m_lo + e2) + (s_lo + (ec + pd))
    ka = ka - 4.0 * floor(ka * 0.25)                          # ka may be huge: reduce it first
    q = ka + ke + kb + kh
    q = q - 4.0 * floor(q * 0.25)
    r = h + lo
    lo = lo - (r - h)
    r_hi = r * p_hi
    return q, r_hi, fma(r, p_hi, -r_hi) + (r * p_lo + lo * p_hi)


def _kernels(x):
    """``(q, s, c)``: quadrant of ``|x|`` and the sine and cosine of its remainder."""
    t = x.t
    a = fabs(x)
    q, r, r_lo = _reduce(a)
    near = a < _PIO4[t.bits]
    q = select(near, 0.0, q)
    r = select(near, a, r)
    r_lo = select(near, 0.0, r_lo)
    z = r * r
    s = r + (r * z * horner(_S[t.bits], z) + r_lo * (1.0 - 0.5 * z))
    hz = 0.5 * z
    w = 1.0 - hz
    c = w + (((1.0 - w) - hz) + (z * z * horner(_C[t.bits], z) - mad(fma(r, r, -z), 0.5, r * r_lo)))
    return q, s, c


def sin(x):
    """Sine, with exact argument reduction for every finite ``x``."""
    q, s, c = _kernels(x)
    y = select((q == 1.0) | (q == 3.0), c, s)
    y = select(q >= 2.0, -y, y)
    y = select(x < 0.0, -y, y)
    y = select(fabs(x) < _TINY[x.t.bits], x, y)              # keeps -0.0 and subnormals exact
    return select(fabs(x) < float("inf"), y, x - x)          # NaN for inf and NaN


def cos(x):
    """Cosine, with exact argument reduction for every finite ``x``."""
    q, s, c = _kernels(x)
    y = select((q == 1.0) | (q == 3.0), s, c)
    y = select((q == 1.0) | (q == 2.0), -y, y)
    return select(fabs(x) < float("inf"), y, x - x)
