"""How many positional arguments a Custom op takes, read from its rules, function and bprop.

A call with the wrong number of arguments then fails with the op's name
before anything runs.
"""

from .rules import BIG, positional_range

__all__ = ["find_arity", "kernel_arity", "function_arity", "check_bprop_arity", "raise_arity"]


def find_arity(kind, func, shape_rule, dtype_rule, bprop, attr_specs, n_out, pending):
    """``(min, max, names)`` of call arguments, from the first rule, kernel or bprop that tells.

    A kind may tell how many call arguments its function takes with an
    optional ``arity(func, attr_specs, n_out, pending)`` method (None when it
    cannot say). Attributes without a fixed value may also be given
    positionally after the tensor inputs, so they widen a kernel's maximum.
    """
    candidates = []
    for rule in (shape_rule, dtype_rule):
        if rule.kind == "fn":
            candidates.append(positional_range(rule.value))
        elif rule.kind == "multi":
            candidates += [positional_range(v) for v in rule.value if callable(v) and not rule.is_const(v)]
    of_kind = getattr(kind, "arity", None)
    if of_kind is not None:
        candidates.append(of_kind(func, attr_specs, n_out, pending))
    if bprop is not None:
        found = positional_range(bprop)
        if found and found[0] >= 2 and found[1] != BIG:
            candidates.append((found[0] - 2, found[1] - 2, found[2][:-2]))
    for c in candidates:
        if c is not None and (c[0] > 0 or c[1] != BIG):
            return c
    return 0, BIG, []


def kernel_arity(found, n_out, attr_specs, pending):
    """Call arguments of a destination-passing kernel ``kernel(*args, *outputs, *attrs)``, or None."""
    extra = n_out + len(attr_specs)
    n_free = sum(1 for s in attr_specs if not s.fixed)
    if found and not pending and found[1] != BIG and found[0] == found[1] and found[0] > extra:
        return found[0] - extra, found[1] - extra + n_free, found[2][:found[0] - extra]
    return None


def function_arity(func, attr_specs):
    """Call arguments of a function that gets attributes as keywords (a pyfunc), or None."""
    found = positional_range(func, skip={s.name for s in attr_specs})
    if found is not None and found[1] != BIG:
        found = (found[0], found[1] + sum(1 for s in attr_specs if not s.fixed), found[2])
    return found


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
