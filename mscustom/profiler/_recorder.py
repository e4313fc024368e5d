"""The recorder of one profiling cycle: it hooks the dispatcher and collects timed events.

``install()`` puts ``on_op`` into ``dispatch.PROFILER`` (every op call, built-in,
Custom or collective, eager or while a graph is recorded, then runs through it
and is timed), holds a timing request open (the compiled call paths hand their
calls to Python; graph replays run their timed variant, ``replay_probe``) and
makes itself ``trace.ACTIVE`` (graph records, replays and their steps,
effects, host ops and data loading report to ``add``). ``uninstall()`` undoes
all three; with no recorder installed none of this costs anything.

An event is ``(name or OpDef, category or None, t0_ns, t1_ns, thread, args)``;
an op call's category is resolved when the events are read (``events``), from
the kind of the kernel its plans use.
"""

import os
import threading
import time

from .._core import dispatch as _dispatch, trace as _trace
from .. import context as _context

__all__ = ["Recorder"]

_lock = threading.Lock()


class Recorder:
    """Timed events of one cycle (see the module docstring)."""

    def __init__(self):
        self.raw = []
        self.pid = os.getpid()
        self._timing = None
        self._hook = None

    # ------------------------------------------------------------------ hooks
    def install(self):
        """Start receiving every op call and span; RuntimeError while another profiler records."""
        with _lock:
            if _trace.ACTIVE[0] is not None:
                raise RuntimeError("profiler: another mscustom profiler is recording now; stop it first")
            if _dispatch.PROFILER[0] is not None:
                raise RuntimeError("profiler: mx.profiler is recording op calls now; call "
                                   "mx.profiler.set_state('stop') first")
            raw, ident, clock, run = self.raw, threading.get_ident, _trace.now, _dispatch.call_python

            def on_op(op, args, attrs):
                try:
                    shapes = [list(a._data.shape) for a in args]
                except AttributeError:      # not Tensors: the dispatcher raises, naming the op
                    shapes = None
                t0 = clock()
                try:
                    return run(op, args, attrs, True)
                finally:
                    raw.append((op, None, t0, clock(), ident(), shapes))

            self._timing = _dispatch.timing_requested()
            self._timing.__enter__()
            self._hook = on_op
            _dispatch.PROFILER[0] = on_op
            _trace.ACTIVE[0] = self

    def uninstall(self):
        """Stop receiving (the events stay)."""
        with _lock:
            if self._hook is None:
                return
            if _dispatch.PROFILER[0] is self._hook:
                _dispatch.PROFILER[0] = None
            if _trace.ACTIVE[0] is self:
                _trace.ACTIVE[0] = None
            self._timing.__exit__(None, None, None)
            self._timing = self._hook = None

    @property
    def installed(self):
        return self._hook is not None

    def add(self, name, cat, t0, t1, args=None):
        """One span (``trace.add`` and the timed replays call this)."""
        self.raw.append((name, cat, t0, t1, threading.get_ident(), args))

    # ------------------------------------------------------------------ reading
    def events(self):
        """The events as dicts ``{name, cat, t0, t1, tid, args}`` (times in ns of ``perf_counter``), by start."""
        cats = {}
        out = []
        for name, cat, t0, t1, tid, args in list(self.raw):
            if cat is None:                 # an op call: name is its OpDef
                op = name
                cat = cats.get(id(op))
                if cat is None:
                    cat = cats[id(op)] = _op_category(op)
                args = {"shapes": args} if args is not None else {}
                name = op.name
            out.append({"name": name, "cat": cat, "t0": t0, "t1": t1, "tid": tid, "args": args or {}})
        out.sort(key=lambda e: (e["t0"], -e["t1"]))
        return out


def _op_category(op):
    """``builtin``, ``custom:<kind>`` or ``comm`` for an op, from the kernels its plans run."""
    kinds = {plan.entry.kind for plan in list(op.plans.values()) if getattr(plan, "entry", None) is not None}
    if not kinds:
        target = _context._settings["device_target"]
        kinds = {k.kind for k in op.kernels if getattr(k, "target", target) == target} or \
            {k.kind for k in op.kernels}
    custom = sorted(k for k in kinds if k != "builtin")
    return _trace.category(op.name, custom[0] if custom else "builtin")


# The wall clock at one perf_counter instant: traces carry Unix-epoch microseconds, so traces of several
# processes (the ranks of a distributed run) line up.
_PERF0 = time.perf_counter_ns()
_WALL0 = time.time_ns()


def epoch_us(t_ns):
    """A ``perf_counter_ns`` reading as microseconds since the Unix epoch."""
    return (t_ns - _PERF0 + _WALL0) / 1000.0
