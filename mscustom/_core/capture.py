"""Capture: record the kernel calls one run of a function makes, for replay (graph mode).

While a ``Capture`` is active on a thread (``capturing(cap)``), every op call
the dispatcher runs is appended to it as a step: which op, which cached
``Plan`` (so the kernel is already selected and bound), which attributes, and
which arrays went in and came out. Arrays are named by *slots*: a slot is an
argument of the captured function, an outside tensor (a Parameter, a
constant), or an output of an earlier step.

Python code that works on tensor data outside the ops tells the capture what
it did, so a replay can do it again:

- ``effect(fn, *tensors)``: an in-place update (an optimizer step, moving
  statistics, ``Tensor.__setitem__``) that runs again, on the replay's arrays,
  at the same point of every replay;
- ``check(fn, *tensors)``: a validation of tensor values (labels in range)
  that every replay repeats, so bad values raise as in eager mode;
- ``host_op(fn, inputs, wrap)``: a Python computation returning new arrays
  (fresh random numbers, ``Tensor.copy``), run again on every replay;
- ``host_read(tensor, how)``: a tensor converted to a Python value. A scalar
  read (``bool``, ``int``, ``float``, ``item``) becomes a *guard*: the replay
  checks the value is still the same. Any other read (``asnumpy`` of a traced
  tensor) lets the value escape into Python where it cannot be followed, so
  the capture is marked unusable and the function runs eagerly.

Nothing here runs unless a capture is active; the eager path pays one
thread-local attribute check per op call.
"""

import contextlib
import os
import sys

from . import trace as _trace
from .tape import STATE

__all__ = ["Capture", "Step", "capturing", "suspended", "active", "effect", "check", "host_op", "host_fallback",
           "host_read", "read_values", "GuardMiss"]


class GuardMiss(Exception):
    """A replay met a guard whose value differs from the recorded one."""


class Step:
    """One recorded action: a kernel call, a Python effect or host op, or a guard."""

    __slots__ = ("kind", "op", "plan", "attrs", "ins", "outs", "fn", "value", "where", "mode", "products")

    def __init__(self, kind, ins, outs, op=None, plan=None, attrs=None, fn=None, value=None, where=None):
        self.kind = kind            # "kernel" | "effect" | "check" | "host" | "guard"
        self.op = op
        self.plan = plan
        self.attrs = attrs
        self.ins = ins              # input slot indices
        self.outs = outs            # output slot indices
        self.fn = fn
        self.value = value
        self.where = where
        self.mode = None            # kernel steps: how the replay calls the kernel (see replay.py)
        self.products = None        # effect steps: gradients passed as matrix products (see replay.py)

    def __repr__(self):
        name = self.op.name if self.op is not None else getattr(self.fn, "__name__", self.kind)
        return f"Step({self.kind} {name} {self.ins}->{self.outs})"


class Capture:
    """The recording of one run: steps over slots, plus what makes it unusable, if anything.

    Slots are described by ``slots[i]``: ``("arg", k)`` (the k-th tensor
    argument), ``("ext", tensor)`` (an outside tensor, read through the
    Tensor object at replay so ``set_data`` is seen), or ``("step", j)``
    (produced by step j). ``arrays[i]`` is the array the slot held while
    recording (for shapes, dtypes and aliasing).
    """

    def __init__(self, arg_tensors=()):
        self.steps = []
        self.slots = []
        self.arrays = []
        self.slot_of = {}           # id(array) -> slot
        self.formats = []
        self.unusable = None        # (reason, filename, lineno): replay cannot be faithful
        self.soft = 0               # > 0 inside host_fallback: an array read converts the region
        self.soft_failed = False
        self.n_args = 0
        self.cells = []             # the Cells called while recording (their training flags matter)
        for t in arg_tensors:
            self.add_arg(t)

    # ----------------------------------------------------------------- slots
    def _new_slot(self, desc, array, fmt="DefaultFormat"):
        s = len(self.slots)
        self.slots.append(desc)
        self.arrays.append(array)
        self.formats.append(fmt)
        self.slot_of[id(array)] = s
        return s

    def add_arg(self, tensor):
        """Name the data of one tensor argument of the captured function."""
        s = self.slot_of.get(id(tensor._data))
        if s is not None and self.slots[s][0] == "arg":
            # the same array passed twice: its own slot, read through the first (graph.py keys
            # records by which arguments share an array, so a replay sees the same aliasing)
            self.n_args += 1
            self.slots.append(("same", s))
            self.arrays.append(tensor._data)
            self.formats.append(tensor._format)
            return s
        s = self._new_slot(("arg", self.n_args), tensor._data, tensor._format)
        self.n_args += 1
        return s

    def slot(self, tensor):
        """The slot of ``tensor``'s data; an outside tensor gets an ``ext`` slot."""
        s = self.slot_of.get(id(tensor._data))
        if s is None:
            s = self._new_slot(("ext", tensor), tensor._data, tensor._format)
        return s

    def traced(self, tensor):
        """True when ``tensor``'s value depends on the captured function's inputs or steps."""
        s = self.slot_of.get(id(tensor._data))
        return s is not None and self.slots[s][0] != "ext"

    def is_argument(self, tensor):
        """True when ``tensor``'s data is an argument of the captured function."""
        s = self.slot_of.get(id(tensor._data))
        return s is not None and self.slots[s][0] in ("arg", "same")

    def _outputs(self, step_index, tensors):
        return [self._new_slot(("step", step_index), t._data, t._format) for t in tensors]

    # ----------------------------------------------------------------- recording
    def add_call(self, op, plan, attrs, args, outs):
        """Record one dispatched op call (``outs``: the output Tensors)."""
        if attrs:
            self._check_attrs(op, attrs)
        ins = [self.slot(t) for t in args]
        j = len(self.steps)
        step = Step("kernel", ins, None, op=op, plan=plan, attrs=attrs)
        self.steps.append(step)
        step.outs = self._outputs(j, outs)

    def _check_attrs(self, op, attrs):
        for value in attrs.values():
            if hasattr(value, "_data") and self.traced(value):
                self.mark_unusable(f"op '{op.name}' takes a traced tensor as an attribute")

    def add_effect(self, fn, tensors, where=None):
        self.steps.append(Step("effect", [self.slot(t) for t in tensors], [], fn=fn, where=where))

    def add_host(self, fn, inputs, outputs):
        ins = [self.slot(t) for t in inputs]
        j = len(self.steps)
        step = Step("host", ins, None, fn=fn)
        self.steps.append(step)
        step.outs = self._outputs(j, outputs)

    def add_guard(self, tensor, convert, value, where):
        self.steps.append(Step("guard", [self.slot(tensor)], [], fn=convert, value=value, where=where))

    def mark_unusable(self, reason, where=None):
        if self.unusable is None:
            self.unusable = (reason,) + (where or user_frame())


# --------------------------------------------------------------------- activation
def active():
    """The capture recording on this thread, or None."""
    return STATE.capture


@contextlib.contextmanager
def capturing(cap):
    """Record this thread's op calls into ``cap`` inside the ``with`` block."""
    saved = STATE.capture
    STATE.capture = cap
    try:
        yield cap
    finally:
        STATE.capture = saved


@contextlib.contextmanager
def suspended():
    """Stop capturing on this thread inside the ``with`` block (calls made there are not recorded)."""
    saved = STATE.capture
    STATE.capture = None
    try:
        yield
    finally:
        STATE.capture = saved


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame():
    """``(filename, lineno)`` of the innermost frame outside the mscustom package."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PKG_DIR) and "contextlib" not in fn:
            return fn, f.f_lineno
        f = f.f_back
    return "<unknown>", 0


# --------------------------------------------------------------------- library hooks
def effect(fn, *tensors):
    """Run ``fn(*arrays)`` (an in-place update of tensor data) now, and at every replay of a capture.

    ``tensors``: the Tensors whose arrays ``fn`` reads or writes, passed as
    arrays in this order. Use it for Python code that changes tensor data in
    place outside the ops, so graph mode repeats it.
    """
    cap = STATE.capture
    t0 = _trace.now() if _trace.ACTIVE[0] is not None else None     # a profiler records: one event
    result = fn(*[t._data for t in tensors])
    if t0 is not None:
        _traced(fn, "effect", t0, tensors)
    if cap is not None:
        cap.add_effect(fn, tensors)
    return result


def check(fn, *tensors):
    """Run ``fn(*arrays)`` (a check that raises on bad values, changing nothing) now and at every replay.

    Use it for validation that reads tensor values in Python (labels in
    range, indices valid), so a replay with bad values raises as eager does.
    """
    cap = STATE.capture
    t0 = _trace.now() if _trace.ACTIVE[0] is not None else None
    result = fn(*[t._data for t in tensors])
    if t0 is not None:
        _traced(fn, "check", t0, tensors)
    if cap is not None:
        cap.steps.append(Step("check", [cap.slot(t) for t in tensors], [], fn=fn))
    return result


def host_op(fn, inputs, wrap):
    """Run ``fn(*arrays) -> tuple of new arrays`` now and at every replay; return them as Tensors.

    ``wrap(array) -> Tensor`` makes the output Tensors. Use it for Python
    computations that make new arrays outside the ops (random numbers, copies),
    so each replay computes fresh ones.
    """
    cap = STATE.capture
    t0 = _trace.now() if _trace.ACTIVE[0] is not None else None
    arrays = fn(*[t._data for t in inputs])
    if t0 is not None:
        _traced(fn, "host", t0, inputs)
    outs = [wrap(a) for a in arrays]
    if cap is not None:
        cap.add_host(fn, inputs, outs)
    return outs


def _traced(fn, cat, t0, tensors):
    """Report one eager effect, check or host op to the recording profiler (as a replay reports its step)."""
    _trace.add(_trace.label_of(fn), cat, t0, {"shapes": [list(t._data.shape) for t in tensors]})


def host_fallback(compute, tensors, wrap):
    """``compute(*tensors) -> list of Tensors or None``, recorded as kernels when it can be.

    If ``compute`` reads a traced tensor into Python as an array (a bprop
    written with ``asnumpy()`` and NumPy), the steps it recorded are replaced
    by one host op that calls ``compute`` again, eagerly, on every replay
    (``wrap(array) -> Tensor`` makes its inputs then). Which results are None
    must not change between calls.
    """
    cap = STATE.capture
    if cap is None:
        return compute(*tensors)
    start, saved = len(cap.steps), cap.soft_failed
    cap.soft += 1
    cap.soft_failed = False
    try:
        result = compute(*tensors)
        failed = cap.soft_failed
    finally:
        cap.soft -= 1
        cap.soft_failed = saved
    if not failed:
        return result
    del cap.steps[start:]
    present = [i for i, r in enumerate(result) if r is not None]

    def rerun(*arrays):
        with suspended():
            res = compute(*[wrap(a) for a in arrays])
        if [i for i, r in enumerate(res) if r is not None] != present:
            raise RuntimeError("a host-run gradient returned None for other inputs than when it was recorded")
        return tuple(res[i]._data for i in present)

    cap.add_host(rerun, tensors, [result[i] for i in present])
    return result


def host_read(tensor, how, value=None):
    """Tell an active capture that ``tensor`` was read into Python (``how``: "bool", "int", "float", "item",
    or "array" for a whole-array read). Scalar reads become guards; array reads make the capture unusable."""
    cap = STATE.capture
    if cap is None or not cap.traced(tensor):
        return
    where = user_frame()
    if how == "array":
        if cap.soft:                            # inside host_fallback: the region becomes a host op
            cap.soft_failed = True
            return
        cap.mark_unusable("a traced tensor's value was read into Python (asnumpy/__array__/tolist)", where)
        return
    cap.add_guard(tensor, _CONVERTERS[how], value, where)


def read_values(tensor):
    """``tensor``'s array, for Python code that computes indices, shapes or constants from the values:
    an active capture is told (``host_read(..., "array")``), so it runs the function eagerly rather
    than replay what was computed from the recorded call's values."""
    host_read(tensor, "array")
    return tensor._data


def _as_bool(a):
    return bool(a)


def _as_int(a):
    return int(a.item())


def _as_float(a):
    return float(a.item())


def _as_item(a):
    return a.item()


_CONVERTERS = {"bool": _as_bool, "int": _as_int, "float": _as_float, "item": _as_item}

