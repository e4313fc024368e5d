"""Output rules and call signatures of ``ops.Custom``.

``OutputRule`` is ``out_shape`` or ``out_dtype`` as given by the user (None,
a constant, a callable, or a tuple of those with one entry per output) and
evaluates it for one call, checking every result. ``positional_range`` reads
how many positional arguments a rule, kernel or bprop takes, so a call with
the wrong number of arguments fails with the op's name before anything runs.

Example::

    rule = OutputRule("square", "out_shape", lambda x: x, is_shape)
    rule.evaluate([[3, 4]], n_out=1)        # [[3, 4]]
"""

import inspect

import numpy as np

from ... import dtype as _dt

__all__ = ["RuleError", "OutputRule", "is_shape", "is_dtype", "result_count", "result_structure", "positional_range",
           "check_concrete", "BIG", "MAX_ELEMENTS"]

BIG = 1 << 30                    # "any number" of positional arguments (a function with *args)
MAX_ELEMENTS = 1 << 40           # more elements than any output this library could allocate
UNKNOWN_DIM, UNKNOWN_RANK = -1, -2   # MindSpore's dynamic-shape markers
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class RuleError(RuntimeError):
    """An out_shape/out_dtype callable raised; the message names the op and the rule."""


def is_shape(value):
    """A shape: a tuple or list of ints >= 0, where -1 (unknown dimension) and -2 (unknown rank) may appear."""
    if not isinstance(value, (tuple, list)):
        return False
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < UNKNOWN_RANK:
            return False
    return True


def check_concrete(op_name, in_shapes, out_shapes, unknown_ok=False):
    """Output shapes for known input shapes must be known, and of a size that can be allocated.

    -1/-2 in an output shape are accepted only when an input shape has them
    too, or with ``unknown_ok`` (the real-shape inference of a dynamic-shape
    call: a size known only once the kernel has run).
    """
    dynamic = unknown_ok or any(d < 0 for s in in_shapes for d in s)
    for j, shape in enumerate(out_shapes):
        if any(d < 0 for d in shape):
            if dynamic:
                continue
            raise TypeError(f"op '{op_name}': out_shape must give a shape (a list or tuple of non-negative "
                            f"ints) when every input shape is known ({[list(s) for s in in_shapes]}), got "
                            f"{list(shape)} for output {j}; -1 (unknown dimension) and -2 (unknown rank) are "
                            f"only for inputs whose shape is not known yet")
        n = 1
        for d in shape:
            n *= int(d)
        if n > MAX_ELEMENTS:
            raise ValueError(f"op '{op_name}': out_shape gave {list(shape)} for output {j}: {n} elements is "
                             f"more than can be allocated; out_shape must give the shape of the output the "
                             f"kernel writes")
    return out_shapes


def is_dtype(value):
    if isinstance(value, (tuple, list)) or value is None:
        return False
    try:
        _dt.dtype_from_any(value)
    except TypeError:
        return False
    return True


class OutputRule:
    """``out_shape`` or ``out_dtype``: None, a constant, a callable, or a tuple of those (one per output)."""

    def __init__(self, op_name, what, value, is_const):
        self.op_name, self.what, self.is_const = op_name, what, is_const
        self.kind, self.value, self.count = "none", None, None
        self.container = None            # tuple or list: the type of a per-output value
        if value is None:
            return
        if callable(value) and not is_const(value):
            self.kind, self.value = "fn", value
        elif is_const(value):
            self.kind, self.value, self.count = "const", value, 1
        elif isinstance(value, (tuple, list)) and value and \
                all(callable(v) or is_const(v) for v in value):
            self.kind, self.value, self.count = "multi", tuple(value), len(value)
            self.container = list if isinstance(value, list) else tuple
        else:
            kind = "a shape (a tuple of non-negative ints)" if what == "out_shape" else "a dtype"
            raise TypeError(f"op '{op_name}': {what} must be {kind}, a callable, or a tuple of them "
                            f"(one per output), got {value!r}")

    def evaluate(self, args, n_out):
        """The per-output results for call arguments ``args`` (shapes as lists or dtypes)."""
        if self.kind == "multi":
            return [self._one(v, args, 1)[0] for v in self.value]
        return self._one(self.value, args, n_out)

    def _one(self, value, args, n_out):
        res = self._call(value, args) if callable(value) and not self.is_const(value) else value
        if self.is_const(res):
            return [res] * n_out
        if isinstance(res, (tuple, list)) and len(res) == n_out and all(self.is_const(r) for r in res):
            return list(res)
        if self.what == "out_shape":
            expect = "a shape (a list or tuple of non-negative ints)" + \
                (f" or a tuple of {n_out} shapes" if n_out > 1 else "")
        else:
            expect = "a dtype (ms.float32, np.float32, 'float32', ...)" + \
                (f" or a tuple of {n_out} dtypes" if n_out > 1 else "")
        raise TypeError(f"op '{self.op_name}': {self.what} must give {expect}, got {res!r}")

    def _call(self, fn, args):
        try:
            return fn(*args)
        except Exception as exc:
            raise RuleError(f"op '{self.op_name}': its {self.what} callable raised {type(exc).__name__}: "
                            f"{exc}; it must take one argument per call argument and give "
                            f"{'a shape' if self.what == 'out_shape' else 'a dtype'} per output") from exc


def result_count(rule, args):
    """Outputs suggested by calling a callable rule once (first use): a tuple of results -> its length."""
    try:
        res = rule.value(*args)
    except Exception:                   # inference will call it again and report the error properly
        return 1
    if rule.is_const(res):
        return 1
    if isinstance(res, (tuple, list)) and res and all(rule.is_const(r) for r in res):
        return len(res)
    return 1


def result_structure(rule, args):
    """``(count, container)`` suggested by calling a callable rule once: a tuple or list of results gives
    its length and type, anything else ``(1, None)`` (one output, returned as it is)."""
    try:
        res = rule.value(*args)
    except Exception:                   # inference will call it again and report the error properly
        return 1, None
    if rule.is_const(res):
        return 1, None
    if isinstance(res, (tuple, list)) and res and all(rule.is_const(r) for r in res):
        return len(res), type(res) if type(res) in (tuple, list) else tuple
    return 1, None


# ---------------------------------------------------------------- call signatures
def positional_range(fn, skip=()):
    """``(min, max, names)`` of positional parameters of ``fn`` (``max`` = BIG with ``*args``), or None."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    lo = hi = 0
    names = []
    for p in sig.parameters.values():
        if p.kind in _POSITIONAL:
            if p.name in skip:
                continue
            hi += 1
            names.append(p.name)
            if p.default is p.empty:
                lo += 1
        elif p.kind is inspect.Parameter.VAR_POSITIONAL:
            return lo, BIG, names
    return lo, hi, names
