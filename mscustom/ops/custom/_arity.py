"""How many arguments a Custom op takes, where that count comes from, and keyword binding.

The count follows MindSpore's ``ops.Custom``: a Python function's own
signature (MindSpore's ``inputs_num``, its parameter count), or, for a
kernel named by a string (``"lib.so:Func"``), the reg info's inputs and the
attributes that have no fixed value (MindSpore's ``input_names``). Only when
neither tells do the ``out_shape``/``out_dtype`` callables' parameters, then
bprop's, decide. A call with the wrong number of arguments fails with the op's name,
the count and where the count came from, before anything runs; keyword
arguments that name the function's input parameters are put in their places
(``op(x, alpha=3.0)``), with the function's defaults filling the places
between.
"""

import inspect
from collections import namedtuple

from .rules import BIG, positional_range

__all__ = ["Arity", "find_arity", "kernel_arity", "function_arity", "check_bprop_arity", "check_rule_arity",
           "bind_keywords", "raise_arity"]


class Arity(namedtuple("Arity", "lo hi names source defaults")):
    """``lo``..``hi`` call arguments (``hi`` = BIG: no limit); ``names`` of the first ones; ``source``: where
    the count comes from, as a phrase ("the parameters of pyfunc function 'axpb'"); ``defaults``: parameter
    name -> default value, for keyword arguments that skip a parameter."""

    __slots__ = ()

    @property
    def expect(self):
        lo, hi = self.lo, self.hi
        return str(lo) if lo == hi else (f"at least {lo}" if hi == BIG else f"{lo} to {hi}")


_UNKNOWN = Arity(0, BIG, [], None, {})


def find_arity(kind, func, shape_rule, dtype_rule, bprop, attr_specs, n_out, pending, inputs=None):
    """The op's ``Arity``: from the kernel's signature, the reg info, the output rules or bprop, in that order.

    A kind tells how many call arguments its function takes with an optional
    ``arity(func, attr_specs, n_out, pending)`` method (``(min, max, names)``,
    None when it cannot say) and may describe what was left out of the
    function's parameters with an ``arity_note`` attribute. ``inputs`` are the
    tensor-input names the reg infos agree on (None: they do not fix them);
    as in MindSpore they count the inputs of a kernel named by a string (aot),
    not those of a Python function, whose signature (or rules) tell.
    Attributes without a fixed value may also be given positionally after the
    tensor inputs, so they widen the maximum. A count with a limit wins over
    one without (a function taking ``*args``).
    """
    candidates = []
    free = [s.name for s in attr_specs if not s.fixed]
    of_kind = getattr(kind, "arity", None)
    if of_kind is not None:
        found = of_kind(func, attr_specs, n_out, pending)
        if found is not None:
            note = getattr(kind, "arity_note", None)
            source = f"the parameters of {kind.name} function '{_func_name(func)}'" + (f" ({note})" if note else "")
            names = list(found[2])
            if free and found[1] != BIG and len(names) < found[1]:      # attributes that may follow positionally
                names += [n for n in free if n not in names][:found[1] - len(names)]
                source += " and the reg info's attributes without a value"
            candidates.append(Arity(found[0], found[1], names, source, _defaults(func)))
    if inputs is not None and isinstance(func, str):   # a compiled symbol ("lib.so:Func") has no signature
        source = "the reg info's inputs" + (" and its attributes without a value" if free else "")
        candidates.append(Arity(len(inputs), len(inputs) + len(free), list(inputs) + free, source, {}))
    for rule in (shape_rule, dtype_rule):
        for fn in _rule_functions(rule):
            found = positional_range(fn)
            if found is not None:
                candidates.append(Arity(*found, f"the parameters of the {rule.what} callable", {}))
    if bprop is not None:
        found = positional_range(bprop)
        if found and found[0] >= 2 and found[1] != BIG:
            candidates.append(Arity(found[0] - 2, found[1] - 2, found[2][:-2],
                                    "the parameters of bprop, less out and dout", {}))
    telling = [c for c in candidates if c.lo > 0 or c.hi != BIG]
    bounded = [c for c in telling if c.hi != BIG]
    return (bounded or telling or [_UNKNOWN])[0]


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
    lo, hi = arity[0], arity[1]
    if found is None or found[1] == BIG or hi == BIG:
        return
    if not (found[0] <= hi + 2 and hi - n_free + 2 <= found[1]):
        raise TypeError(f"op '{op_name}': bprop must take the call's {lo if lo == hi else f'{lo}..{hi}'} "
                        f"argument(s), then out and dout, as bprop(*inputs, out, dout); it takes "
                        f"{found[1]} positional parameter(s)")


def check_rule_arity(op_name, arity, shape_rule, dtype_rule):
    """An ``out_shape``/``out_dtype`` callable that no call could satisfy fails when the op is made.

    The callables get one argument per call argument (shapes, dtypes, scalar
    values), as in MindSpore; one whose parameter count range does not meet
    the op's can only raise at every call.
    """
    if arity.source is None:
        return
    for rule in (shape_rule, dtype_rule):
        for fn in _rule_functions(rule):
            found = positional_range(fn)
            if found is None or (found[0] <= arity.hi and arity.lo <= found[1]):
                continue
            takes = Arity(found[0], found[1], found[2], None, {})
            names = f" ({', '.join(found[2])})" if found[2] else ""
            raise TypeError(f"op '{op_name}': {rule.what} takes {takes.expect} argument(s){names}, but the op "
                            f"takes {arity.expect} input argument(s){_shown(arity.names)}, counted from "
                            f"{arity.source}; {rule.what} is called with one argument per call argument "
                            f"(a shape, a dtype or a scalar's value), as in MindSpore")


def bind_keywords(op_name, arity, args, kwargs, attr_names):
    """``(args, kwargs)`` with the keywords that name input parameters moved to their positions.

    ``op(x, alpha=3.0)`` for a function ``axpb(x, alpha, beta=1.0)`` becomes
    ``op(x, 3.0)``; a parameter skipped between two given ones takes the
    function's default. Keywords naming attributes stay keywords (the
    marshalling sets attributes by name); unknown ones are reported there.
    """
    names = arity.names
    moved = {k: v for k, v in kwargs.items() if k in names and k not in attr_names}
    if not moved:
        return args, kwargs
    twice = sorted(k for k in moved if names.index(k) < len(args))
    if twice:
        raise TypeError(f"op '{op_name}' got two values for input argument(s) {twice} (positionally and by "
                        f"keyword); pass each only once")
    slots = list(args)
    last = max(names.index(k) for k in moved)
    for i in range(len(slots), last + 1):
        name = names[i]
        if name in moved:
            slots.append(moved[name])
        elif name in arity.defaults:
            slots.append(arity.defaults[name])
        else:
            raise TypeError(f"op '{op_name}': input argument '{name}' (position {i}) is missing: '{names[last]}' "
                            f"after it is given by keyword, and '{name}' has no default (inputs{_shown(names)}, "
                            f"counted from {arity.source})")
    return tuple(slots), {k: v for k, v in kwargs.items() if k not in names or k in attr_names}


def raise_arity(op_name, arity, n):
    where = f"; the count comes from {arity.source}" if getattr(arity, "source", None) else ""
    raise TypeError(f"op '{op_name}' takes {arity.expect} input argument(s){_shown(arity.names)}, got {n}{where}")


def _rule_functions(rule):
    """The callables of an ``OutputRule`` (one, or those among its per-output entries)."""
    if rule.kind == "fn":
        return [rule.value]
    if rule.kind == "multi":
        return [v for v in rule.value if callable(v) and not rule.is_const(v)]
    return []


def _shown(names):
    return f" ({', '.join(names)})" if names else ""


def _func_name(func):
    for f in (func, getattr(func, "py_func", None)):
        name = getattr(f, "__name__", None) or getattr(f, "kname", None)
        if isinstance(name, str):
            return name
    return type(func).__name__


def _defaults(func):
    """Parameter name -> default value of ``func`` (or of the Python function a kernel wraps)."""
    for f in (getattr(func, "py_func", None), func):
        if f is None:
            continue
        try:
            params = inspect.signature(f).parameters.values()
        except (TypeError, ValueError):
            continue
        return {p.name: p.default for p in params if p.default is not p.empty}
    return {}
