"""How many positional arguments a Custom op takes, read from its rules, function and bprop.

A call with the wrong number of arguments then fails with the op's name
before anything runs.
"""

from .rules import BIG, positional_range

__all__ = ["find_arity", "check_bprop_arity", "raise_arity"]


def find_arity(kind_name, func, shape_rule, dtype_rule, bprop, attr_specs, n_out, pending):
    """``(min, max, names)`` of call arguments, from the first rule or function that tells.

    Attributes without a fixed value may also be given positionally after the
    tensor inputs, so they widen the maximum read from a kernel's signature.
    """
    attr_names = {s.name for s in attr_specs}
    n_free = sum(1 for s in attr_specs if not s.fixed)
    candidates = []
    for rule in (shape_rule, dtype_rule):
        if rule.kind == "fn":
            candidates.append(positional_range(rule.value))
        elif rule.kind == "multi":
            candidates += [positional_range(v) for v in rule.value if callable(v) and not rule.is_const(v)]
    if kind_name == "pyfunc":
        found = positional_range(func, skip=attr_names)
        if found is not None and found[1] != BIG:
            found = (found[0], found[1] + n_free, found[2])
        candidates.append(found)
    elif kind_name == "jit":
        found = positional_range(getattr(func, "py_func", func))
        extra = n_out + len(attr_specs)
        if found and not pending and found[1] != BIG and found[0] == found[1] and found[0] > extra:
            candidates.append((found[0] - extra, found[1] - extra + n_free, found[2][:found[0] - extra]))
    if bprop is not None:
        found = positional_range(bprop)
        if found and found[0] >= 2 and found[1] != BIG:
            candidates.append((found[0] - 2, found[1] - 2, found[2][:-2]))
    for c in candidates:
        if c is not None and (c[0] > 0 or c[1] != BIG):
            return c
    return 0, BIG, []


def check_bprop_arity(bprop, arity, op_name, n_free=0):
    """bprop must take the call's tensor arguments (attributes given positionally may follow), out, dout."""
    if bprop is None:
        return
    found = positional_range(bprop)
    lo, hi, _ = arity
    if found is None or found[1] == BIG or hi == BIG:
        return
    if not (found[0] <= lo + 2 and hi - n_free + 2 <= found[1]):
        raise TypeError(f"op '{op_name}': bprop must take the call's {lo if lo == hi else f'{lo}..{hi}'} "
                        f"argument(s), then out and dout, as bprop(*inputs, out, dout); it takes "
                        f"{found[1]} positional parameter(s)")


def raise_arity(op_name, arity, n):
    lo, hi, names = arity
    expect = str(lo) if lo == hi else (f"at least {lo}" if hi == BIG else f"{lo} to {hi}")
    shown = f" ({', '.join(names)})" if names else ""
    raise TypeError(f"op '{op_name}' takes {expect} input argument(s){shown}, got {n}")
