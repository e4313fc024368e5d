"""erf for float32 and float64, branch-free.

Near zero ``erf(x) = x * P(x*x)`` (``|x| < 0.875``; P's leading coefficient
``2/sqrt(pi)`` in two parts, the high one multiplied last). Beyond,
``erf(|x|) = 1 - exp(-x*x) * Q(|x|)`` with ``Q = erfc * exp(x*x)``, a smooth
decreasing function, approximated piecewise by polynomials in ``|x| - centre``
(the piece's coefficients picked by selects); ``x*x`` is split exactly in two
parts (fma) so the exponential sees its low bits too. From 4 (float32) or
5.93 (float64) on, erf rounds to 1. Polynomials are minimax fits weighted by
the absolute error they cause in erf. Traced (see ``_trace``).
"""

import numpy as np

from ._exp import exp
from ._poly import horner, horner_pick
from ._trace import copysign, fabs, fma, mad, select

__all__ = ["erf"]

# erf(x)/x in u = x*x on [0, 0.875**2], relative: float32 2^-26.8, float64 2^-61.4
_P = {
    32: (1.128379157491900052, -0.37612550464314974422, 0.11282455330124010623,
         -0.026791463033351380349, 0.0050321812927858247664, -0.00062032548659302648352),
    64: (1.128379167095512573536, -0.3761263890318373910799, 0.1128379167095430380283,
         -0.02686617064493261202289, 0.005223977622956140596233, -0.0008548326839445742348051,
         0.0001205532432613980327073, -0.00001492538149016444722712, 0.000001645651857862047169115,
         -1.628838061262542450382e-7, 1.411805840782957589428e-8, -8.655114904323525579978e-10),
}
# Q pieces: (low end, centre, coefficients in x - centre); erf's absolute error: float32 2^-28.4,
# float64 below 2^-56
_Q = {
    32: (
        (0.875, 1.4375, (0.332117567957981822, -0.17354083110869562397, 0.082652462293349931177,
                         -0.036497469009611821584, 0.01508435653755948669, -0.0058192550820708094197,
                         0.0023388167043873879579, -0.0010014468803886129261)),
        (2.0, 3.0, (0.17900115089057121476, -0.054371767486491260336, 0.015884807437595788615,
                    -0.0044843098830390082462, 0.0012189542373275871662, -0.00031229626852208653063,
                    0.000092494940574909444126, -0.000029895164424367536505)),
    ),
    64: (
        (0.875, 1.1875, (0.381304058966717898077, -0.222782027049557565942, 0.1167504018453682879157,
                         -0.05609394990545516075602, 0.02506941816632027963621, -0.010529606333178179627,
                         0.004188503548545171832015, -0.001587359534199414099007, 0.0005758785259296715568256,
                         -0.0002007786145570252935359, 0.00006749077223156297990787,
                         -0.00002193341691086113933103, 0.000006907634773010383837904,
                         -0.000002111426624769938001646, 6.274043654404523146322e-7,
                         -1.880357885030882304524e-7, 5.506446856851481267386e-8)),
        (1.5, 2.0, (0.2553956763105057439021, -0.1067964618534895990667, 0.04180275260352652226529,
                    -0.01546063776429093781987, 0.005440738537474799457756, -0.001831664275739040949275,
                    0.0005924699952372312561424, -0.0001847783672310558217985, 0.00005572831693867804988747,
                    -0.00001629371737859161591805, 0.000004628159208374037993565,
                    -0.000001279542771954307843565, 3.44940635446270392921e-7, -9.062102194272082186771e-8,
                    2.310015389328854184729e-8, -6.203656835702995896942e-9, 1.749684253990709800519e-9)),
        (2.5, 4.215, (0.1303661414874923940282, -0.02939259435621439921386, 0.006476356274346939191132,
                      -0.001396501769406620038077, 0.0002950506732487876703466, -0.00006114528857834190821236,
                      0.00001244104318573188837983, -0.000002487482813600993881204, 4.891601694250330592464e-7,
                      -9.462120760018121613122e-8, 1.798855282213490019683e-8, -3.404187077438060059573e-9,
                      6.482777604310105132008e-10, -1.071026726291502138882e-10, 1.530064971201424049086e-11,
                      -5.203704080237618214597e-12, 1.271446010034870967257e-12)),
    ),
}
_TWO_OVER_SQRT_PI = (1.1283791670955126, 1.5335459613165881e-17)     # float64 high and low parts
_ONE_FROM = {32: 4.0, 64: 5.93}        # erf rounds to 1 from here on


def _tail_poly(a):
    """``erfc(a) * exp(a*a)`` by pieces, for ``a`` from the first piece's low end to ``_ONE_FROM``."""
    pieces = _Q[a.t.bits]
    (_, c0, q0), (lo1, c1, q1) = pieces[:2]
    first = a < lo1
    near = horner_pick(q0, q1, a - select(first, c0, c1), first)
    if len(pieces) == 2:
        return near
    _, c2, q2 = pieces[2]
    return select(a < pieces[2][0], near, horner(q2, a - c2))


def erf(x):
    """The error function."""
    t = x.t
    one_from = _ONE_FROM[t.bits]
    c0_hi = x.const(_TWO_OVER_SQRT_PI[0])                # 2/sqrt(pi) = c0_hi + c0_lo in x's type
    c0_lo = (_TWO_OVER_SQRT_PI[0] - _as_type(_TWO_OVER_SQRT_PI[0], t)) + _TWO_OVER_SQRT_PI[1]
    a = fabs(x)
    u = x * x
    small = mad(x, c0_hi, x * mad(u, horner(_P[t.bits][1:], u), c0_lo))
    ac = select(a < one_from, a, one_from)               # keeps exp(-a*a) away from underflow
    hi = ac * ac
    lo = fma(ac, ac, -hi)                                # ac*ac == hi + lo exactly
    q = _tail_poly(ac)
    big = 1.0 - exp(-hi) * mad(-lo, q, q)                # exp(-hi - lo) * q, to first order in lo
    big = select(a >= one_from, 1.0, big)
    y = copysign(select(a < _Q[t.bits][0][0], small, big), x)   # the sign of x, -0.0 included
    return select(x != x, x + x, y)


def _as_type(value, t):
    return float(np.float32(value)) if t.is32 else float(value)
