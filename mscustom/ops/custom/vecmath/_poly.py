"""Inlinable Horner evaluators built from coefficient tuples (fma at each step).

``horner(cs)`` returns an ``njit(inline="always")`` function ``p(t) = cs[0] + cs[1]*t + ...``;
``horner_pick(cs_a, cs_b)`` one ``p(t, a)`` that uses ``cs_a`` where ``a`` is true and ``cs_b``
elsewhere -- a select per coefficient, so a piecewise polynomial stays branch-free. The
coefficients must already be of the float type the function works in: they become constants of
that type in the generated code.
"""

from ._bits import inline

from ._bits import fma

__all__ = ["horner", "horner_pick"]


def _build(src, names, values):
    env = {"fma": fma}
    env.update(zip(names, values))
    exec(compile(src, "<vecmath horner>", "exec"), env)   # noqa: S102 (generated from a fixed template)
    return inline(env["p"])


def horner(cs):
    """``p(t) = cs[0] + cs[1]*t + ... + cs[n]*t**n``."""
    cs = tuple(cs)
    names = [f"c{i}" for i in range(len(cs))]
    expr = names[-1]
    for name in reversed(names[:-1]):
        expr = f"fma({expr}, t, {name})"
    return _build(f"def p(t):\n    return {expr}\n", names, cs)


def horner_pick(cs_a, cs_b):
    """``p(t, a)``: the polynomial of ``cs_a`` where ``a`` is true, of ``cs_b`` elsewhere (equal lengths)."""
    cs_a, cs_b = tuple(cs_a), tuple(cs_b)
    if len(cs_a) != len(cs_b):
        raise ValueError("horner_pick needs coefficient tuples of one length")
    n = len(cs_a)
    names = [f"a{i}" for i in range(n)] + [f"b{i}" for i in range(n)]
    pick = [f"(a{i} if a else b{i})" for i in range(n)]
    expr = pick[-1]
    for term in reversed(pick[:-1]):
        expr = f"fma({expr}, t, {term})"
    return _build(f"def p(t, a):\n    return {expr}\n", names, cs_a + cs_b)
