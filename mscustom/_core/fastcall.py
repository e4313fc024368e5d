"""ops.Custom's compiled call path: warm calls of a custom op without a Python frame.

``_fastcall`` (``_fastcall.c``, a small CPython extension built by ``make``) gives
``FastCall``, installed as ``Custom.__call__``. A call whose Tensors match a
*FastPlan* armed on the op's plan cache runs entirely in C: take the output buffer
(the last one, when nothing holds it), run the kernel, count it, wrap the Tensor.
Every other call -- a first call, keywords, a gradient tape or a graph capture in
this thread, an open ``custom_op_usage()`` block, a non-contiguous input, a kernel
error, a pyfunc result that needs fixing -- is handed to ``dispatch.call_owner``
(or to the FastPlan's Python callables), so the C code repeats the Python path's
shortest branch and decides nothing on its own.

A runner that can run this way says how with a ``fast_spec`` attribute (set by the
kinds in ``ops/custom``), ``(how, target, fail, settle)``:

- ``("returns", func, fail, settle)``: ``func(*inputs)`` returns the output (pyfunc);
  ``settle(result, inputs)`` turns a result the C side does not take as it is
  (not a fresh array of the plan's shape and dtype) into the output, or raises;
- ``("into", fn, fail, None)``: ``fn(*inputs, out)`` writes the output (a compiled
  Numba entry point);
- ``("aot", fields, fail, None)``: a C function of the aot calling convention, with
  ``fields`` the addresses it is called with (``aot_fields``).

``fail`` raises the kind's error for what the kernel raised (or for an aot
kernel's non-zero return code), as the runner itself does.

FastPlans are built once per dispatch Plan (``make_fast_plan``) and armed on
``op.plans.fast`` (a ``PlanCache``, whose ``clear()`` disarms them with the plans)
by the Python path's warm branch. Without the extension (not built, or
``MSCUSTOM_FASTCALL=0``) nothing changes but the speed.
"""

import os

from ..tensor import DEFAULT_FORMAT, Tensor

ENV = "MSCUSTOM_FASTCALL"
MAX_ARMED = 4                   # FastPlans tried per call (signatures an op alternates between)

_c = None
if os.environ.get(ENV, "1") != "0":
    try:
        from . import _fastcall as _c
    except ImportError:         # not built (``make fastcall``): the Python path serves every call
        _c = None

AVAILABLE = _c is not None


class PlanCache(dict):
    """An op's plans by signature, and the compiled call path's armed FastPlans (``fast``)."""

    __slots__ = ("fast",)

    def __init__(self):
        super().__init__()
        self.fast = ()

    def clear(self):
        self.fast = ()
        super().clear()


def method(slow, state, timing):
    """``__call__`` for owners of one OpDef: the compiled path in front of ``slow`` when built."""
    if _c is None:
        return slow
    return _c.FastCall(slow, Tensor, DEFAULT_FORMAT, state, timing)


def _signature_key(args, tensor_type, device):
    """``((shape, dtype, format), ..., device)`` when every argument is exactly ``tensor_type``, else None."""
    for a in args:
        if type(a) is not tensor_type:
            return None
    if len({id(a._data) for a in args}) != len(args):       # aliased: graph.py's _signature keys it
        return None
    key = tuple([(a._data.shape, a._data.dtype, a._format) for a in args])
    return key + (device,)


# graph mode's record key for calls with plain Tensor arguments only (graph.py); the C one builds the
# same tuples without a Python frame
signature_key = _c.signature_key if _c is not None else _signature_key


def core_call(slow, state, check, after, timing):
    """``dispatch.call`` with its commonest branch compiled (``CoreCall``), or ``slow`` itself without
    the extension: one to four plain Tensors, hashable attributes, a cached simple plan. While
    ``timing[0]`` is not 0 (a profiler or a usage block is timing calls) every call goes to ``slow``."""
    if _c is None:
        return slow
    return _c.CoreCall(slow, Tensor, DEFAULT_FORMAT, state, check, after, timing)


def counts(call):
    """(calls finished in C, calls handed to Python) of a ``method()``, or None without the extension."""
    return call.counts() if _c is not None and isinstance(call, _c.FastCall) else None


def aot_fields(kernel, nparam, ndims, shapes, dtypes, extra, base, in_slots, out_slot):
    """What an aot FastPlan calls with: addresses as ints (``base``: the fixed parameter pointers)."""
    return (kernel, nparam, ndims, shapes, dtypes, extra, tuple(base), tuple(in_slots), out_slot)


def make_fast_plan(plan, args, wrap_fail, wrap_settle):
    """The FastPlan of a Plan whose warm calls the C side can finish, else None.

    ``plan``: a direct Plan; ``args``: the Tensors of the call that made it (their
    signature is the plan's); ``wrap_fail(fail)`` and ``wrap_settle(settle)``: the
    spec's callables as the dispatcher's Python path would see them (errors named
    for the op, results checked against the plan).
    """
    if _c is None or plan.n_out != 1 or plan.pools is not None or plan.shape0 is None:
        return None
    spec = getattr(plan.runner, "fast_spec", None)
    if spec is None or len(args) > _c.MAX_INPUTS:
        return None
    if any(t._data.ndim > _c.MAX_DIMS for t in args) or len(plan.shape0) > _c.MAX_DIMS or \
            any(d < 0 for d in plan.shape0):
        return None
    how, target, fail, settle = spec
    aot = None
    if how == "returns" and plan.allocates:
        mode, settle = _c.RETURNS, wrap_settle(settle)
    elif how == "into" and not plan.allocates:
        mode, settle = _c.INTO, None
    elif how == "aot" and not plan.allocates and target[1] <= _c.MAX_PARAMS:
        mode, aot, target, settle = _c.AOT, target, None, None
    else:
        return None
    inputs = tuple((t._data.shape, t._data.dtype, t._format) for t in args)
    return _c.FastPlan(mode, inputs, plan.shape0, plan.dtype0, plan.spares[0], plan.stats, target,
                       wrap_fail(fail), settle, plan.runner, aot)


def arm(plans, fast_plan):
    """Put ``fast_plan`` first among the op's armed plans (at most ``MAX_ARMED``)."""
    armed = plans.fast
    if fast_plan not in armed:
        plans.fast = (fast_plan,) + armed[:MAX_ARMED - 1]
