"""Error-free transformations for double-word ("float-float") arithmetic on traced values.

``two_sum(a, b)`` gives ``(s, e)`` with ``s = fl(a + b)`` and ``a + b == s + e`` exactly;
``fast_two_sum`` the same when ``|a| >= |b|`` (or ``a`` is zero); ``two_prod(a, b)`` gives
``(p, e)`` with ``a * b == p + e`` exactly (one fma). They hold in float32 and float64 alike.
"""

from ._trace import fma

__all__ = ["two_sum", "fast_two_sum", "two_prod"]


def two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


def two_prod(a, b):
    p = a * b
    return p, fma(a, b, -p)
