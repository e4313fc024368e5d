"""Horner evaluation with multiply-adds (fused where the CPU has FMA), for the traced vector functions (``_trace``).

``horner(cs, t)`` is ``cs[0] + cs[1]*t + ... + cs[n]*t**n``; ``horner_pick(cs_a, cs_b, t, a)``
the same with ``cs_a`` where ``a`` is true and ``cs_b`` elsewhere -- a select per coefficient,
so a piecewise polynomial stays branch-free. Coefficients are Python numbers, made constants of
``t``'s type.
"""

from ._trace import mad, select

__all__ = ["horner", "horner_pick"]


def horner(cs, t):
    acc = t.const(cs[-1])
    for c in reversed(cs[:-1]):
        acc = mad(acc, t, c)
    return acc


def horner_pick(cs_a, cs_b, t, a):
    if len(cs_a) != len(cs_b):
        raise ValueError("horner_pick needs coefficient tuples of one length")
    acc = select(a, t.const(cs_a[-1]), cs_b[-1])
    for ca, cb in zip(reversed(cs_a[:-1]), reversed(cs_b[:-1])):
        acc = mad(acc, t, select(a, t.const(ca), cb))
    return acc
