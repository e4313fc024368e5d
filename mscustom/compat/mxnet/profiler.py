"""``mx.profiler``: one trace event per op call, a Chrome trace dump and MXNet's aggregate table.

While the profiler runs (``set_state('run')``), the dispatcher hands every op call to
this module (``dispatch.PROFILER``), which times it and records one event. As in MXNet
1.9.1, a custom op's ``forward`` / ``backward`` appears in the ``Custom Operator``
category as ``<op_type>::pure_python`` / ``_backward_<op_type>::pure_python``, and
the ops it runs inside as ``<op_type>::<op>``; every other op call is one event of
the ``operator`` category named by its mscustom op. ``Domain`` / ``Task`` /
``Frame`` / ``Event`` / ``Counter`` / ``Marker`` add user events.

``dump()`` writes the events as Chrome trace JSON (``traceEvents``; open it in
chrome://tracing or https://ui.perfetto.dev): op calls, events, frames as complete
(``X``) events, tasks as async (``b``/``e``) pairs, counters as ``C``, markers as
instant (``i``) events. ``dumps()`` gives the aggregate table (count, total, min,
max, avg in ms per name, grouped by category) when ``aggregate_stats=True``.

While the profiler runs, symbolic executors run each step on the eager path (a
graph replay runs no op calls to time) and the compiled call paths step aside.

Example::

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename="trace.json")
    mx.profiler.set_state("run")
    y = mx.nd.Custom(x, op_type="sqr")
    mx.profiler.set_state("stop")
    mx.profiler.dump()                  # trace.json: one event per op call
    print(mx.profiler.dumps())          # the aggregate table
"""

import json
import os
import threading
import time

from ... import extend as _extend
from ..._core import dispatch as _dispatch
from . import base as _base

__all__ = ["set_config", "set_state", "pause", "resume", "dump", "dumps", "Domain", "Task", "Frame", "Event",
           "Counter", "Marker", "profiler_set_config", "profiler_set_state", "dump_profile"]

_CONFIG_DEFAULTS = {"profile_all": False, "profile_symbolic": True, "profile_imperative": True,
                    "profile_memory": True, "profile_api": True, "filename": "profile.json",
                    "continuous_dump": True, "dump_period": 1.0, "aggregate_stats": False,
                    "profile_process": "worker"}
_BOOLS = ("profile_all", "profile_symbolic", "profile_imperative", "profile_memory", "profile_api",
          "continuous_dump", "aggregate_stats")
_STATES = ("stop", "run")
_PROCESSES = ("worker", "server")
_SORT_KEYS = {"total": 1, "avg": 4, "min": 2, "max": 3, "count": 0}

_lock = threading.Lock()
_config = dict(_CONFIG_DEFAULTS)
_run = {"state": "stop", "paused": False, "timing": None}
_events = []                 # Chrome trace events (dicts), in the order they ended
_stats = {}                  # category -> name -> [count, total ms, min ms, max ms]
_local = threading.local()   # .custom: the stack of custom op types running on this thread
_PID = os.getpid()


def _now_us():
    return time.perf_counter_ns() / 1000.0


def _as_bool(key, value):
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true"):
            return True
        if low in ("0", "false"):
            return False
        raise _base.MXNetError(f"mx.profiler.set_config: {key} must be a boolean, got {value!r}")
    return bool(value)


# ------------------------------------------------------------ configuration and state
def set_config(**kwargs):
    """Set profiler options (MXNet's names): ``profile_all``, ``profile_symbolic``, ``profile_imperative``,
    ``profile_memory``, ``profile_api``, ``filename``, ``continuous_dump``, ``dump_period``,
    ``aggregate_stats``, ``profile_process``. Unknown names raise ``MXNetError``, as in MXNet.

    ``profile_memory``, ``profile_api`` and ``continuous_dump`` are accepted and record nothing here
    (there is no C API or device allocator to watch; the trace is written by ``dump``).
    """
    unknown = [k for k in kwargs if k not in _CONFIG_DEFAULTS]
    if unknown:
        raise _base.MXNetError(f"mx.profiler.set_config: cannot find argument {unknown[0]!r}; possible "
                               f"arguments: {', '.join(_CONFIG_DEFAULTS)}")
    new = {}
    for k, v in kwargs.items():
        if k in _BOOLS:
            new[k] = _as_bool(k, v)
        elif k == "dump_period":
            new[k] = float(v)
        elif k == "profile_process":
            if v not in _PROCESSES:
                raise _base.MXNetError(f"mx.profiler.set_config: profile_process must be one of "
                                       f"{list(_PROCESSES)}, got {v!r}")
            new[k] = v
        else:
            new[k] = str(v)
    with _lock:
        _config.update(new)


def _check_process(where, profile_process):
    if profile_process not in _PROCESSES:
        raise ValueError(f"mx.profiler.{where}: profile_process must be one of {list(_PROCESSES)}, "
                         f"got {profile_process!r}")
    if profile_process == "server":
        raise _base.MXNetError(f"mx.profiler.{where}: profile_process='server' needs a distributed kvstore, "
                               "which is not supported here")


def _records_ops():
    return _config["profile_all"] or _config["profile_symbolic"] or _config["profile_imperative"]


def _install():
    """Route op calls through ``_on_op`` (running and not paused) or give them back to the dispatcher."""
    want = _run["state"] == "run" and not _run["paused"] and _records_ops()
    if want and _dispatch.PROFILER[0] is None:
        t = _dispatch.timing_requested()
        t.__enter__()                            # compiled call paths step aside while timed
        _run["timing"] = t
        _dispatch.PROFILER[0] = _on_op
    elif not want and _dispatch.PROFILER[0] is not None:
        _dispatch.PROFILER[0] = None
        _run["timing"].__exit__(None, None, None)
        _run["timing"] = None


def set_state(state="stop", profile_process="worker"):
    """``'run'`` starts recording, ``'stop'`` stops it (events are kept until dumped)."""
    if state not in _STATES:
        raise ValueError(f"mx.profiler.set_state: state must be 'stop' or 'run', got {state!r}")
    _check_process("set_state", profile_process)
    with _lock:
        _run["state"] = state
        _run["paused"] = False
        _install()


def pause(profile_process="worker"):
    """Stop recording for a while (``resume`` goes on)."""
    _check_process("pause", profile_process)
    with _lock:
        _run["paused"] = True
        _install()


def resume(profile_process="worker"):
    """Go on recording after ``pause``."""
    _check_process("resume", profile_process)
    with _lock:
        _run["paused"] = False
        _install()


def is_running():
    """True while op calls are being recorded."""
    return _dispatch.PROFILER[0] is not None


def _recording():
    return _run["state"] == "run" and not _run["paused"]


# ------------------------------------------------------------ recording
def _add(cat, name, event, ms=None):
    with _lock:
        _events.append(event)
        if _config["aggregate_stats"] and ms is not None:
            row = _stats.setdefault(cat, {}).get(name)
            if row is None:
                _stats[cat][name] = [1, ms, ms, ms]
            else:
                row[0] += 1
                row[1] += ms
                row[2] = min(row[2], ms)
                row[3] = max(row[3], ms)


def _complete(cat, name, t0, t1, args=None):
    ev = {"name": name, "cat": cat, "ph": "X", "ts": t0, "dur": t1 - t0, "pid": _PID,
          "tid": threading.get_ident()}
    if args:
        ev["args"] = args
    _add(cat, name, ev, (t1 - t0) / 1000.0)


def _on_op(op, args, attrs):
    """The dispatcher's hook: run one op call, timed, and record it as one event."""
    stack = getattr(_local, "custom", None)
    if stack is None:
        stack = _local.custom = []
    name = op.name
    custom = _extend.frontend_of(op) == "mxnet"
    if custom:
        label, cat = f"{name}::pure_python", "Custom Operator"
        stack.append(name)
    else:
        label, cat = _label(stack, name)
    t0 = _now_us()
    try:
        return _dispatch.call_python(op, args, attrs, True)
    finally:
        t1 = _now_us()
        if custom:
            stack.pop()
        _complete(cat, label, t0, t1)


def _label(stack, name):
    """(event name, category) of a built-in op call: ``<op_type>::<name>`` inside a custom op."""
    if stack:
        return f"{stack[-1]}::{name}", "Custom Operator"
    return name, "operator"


def named(name):
    """Decorator: a front-end call that runs no op (``mx.nd.zeros``) is one event named ``name`` while recording.

    MXNet runs its array constructors as operators (``_zeros``, ``_ones``,
    ``_full``, ``_arange``); here they fill NumPy arrays directly, so the front
    end reports them under MXNet's names, inside a custom op as
    ``<op_type>::<name>`` like any op it runs.
    """
    def deco(fn):
        def wrapper(*args, **kwargs):
            if _dispatch.PROFILER[0] is None:
                return fn(*args, **kwargs)
            label, cat = _label(getattr(_local, "custom", None), name)
            t0 = _now_us()
            try:
                return fn(*args, **kwargs)
            finally:
                _complete(cat, label, t0, _now_us())
        wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        wrapper.__wrapped__ = fn
        return wrapper
    return deco


# ------------------------------------------------------------ output
def _trace():
    meta = [{"name": "process_name", "ph": "M", "pid": _PID, "args": {"name": "mscustom (mx.profiler)"}}]
    with _lock:
        return {"traceEvents": meta + list(_events), "displayTimeUnit": "ms"}


def dump(finished=True, profile_process="worker"):
    """Write the recorded events to ``filename`` as Chrome trace JSON.

    ``finished=True`` (the default) ends this profiling session: the events are
    cleared afterwards; with ``False`` they are kept and later dumps include them.
    """
    _check_process("dump", profile_process)
    path = _config["filename"]
    data = _trace()
    with open(path, "w") as f:
        json.dump(data, f)
    if finished:
        with _lock:
            _events.clear()


dump_profile = dump


def dumps(reset=False, format="table", sort_by="total", ascending=False):       # noqa: A002
    """The aggregate statistics (``aggregate_stats=True``) as MXNet's table or as JSON.

    ``sort_by``: 'total', 'avg', 'min', 'max' or 'count'; ``reset`` clears them after.
    """
    if format not in ("table", "json"):
        raise ValueError(f"mx.profiler.dumps: format must be 'table' or 'json', got {format!r}")
    if sort_by not in _SORT_KEYS:
        raise ValueError(f"mx.profiler.dumps: sort_by must be one of {list(_SORT_KEYS)}, got {sort_by!r}")
    with _lock:
        cats = {c: {n: list(r) + [r[1] / r[0]] for n, r in rows.items()} for c, rows in _stats.items()}
        if reset:
            _stats.clear()
    key = _SORT_KEYS[sort_by]
    if format == "json":
        out = {"Time": {c: {n: {"Count": r[0], "Total": r[1], "Min": r[2], "Max": r[3], "Avg": r[4]}
                            for n, r in sorted(rows.items(), key=lambda kv: kv[1][key], reverse=not ascending)}
                        for c, rows in sorted(cats.items())}, "Unit": {"Time": "ms"}}
        return json.dumps(out, indent=4)
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    for cat in sorted(cats):
        lines += [cat, "=================",
                  f"{'Name':<30}{'Total Count':>11}{'Time (ms)':>17}{'Min Time (ms)':>17}{'Max Time (ms)':>17}"
                  f"{'Avg Time (ms)':>17}",
                  f"{'----':<30}{'-----------':>11}{'---------':>17}{'-------------':>17}{'-------------':>17}"
                  f"{'-------------':>17}"]
        for name, r in sorted(cats[cat].items(), key=lambda kv: kv[1][key], reverse=not ascending):
            lines.append(f"{name:<30}{r[0]:>11}{r[1]:>17.4f}{r[2]:>17.4f}{r[3]:>17.4f}{r[4]:>17.4f}")
        lines.append("")
    return "\n".join(lines) + "\n"


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """MXNet's older form: ``mode`` 'symbolic' or 'all'."""
    if mode not in ("symbolic", "all"):
        raise ValueError(f"mx.profiler.profiler_set_config: mode must be 'symbolic' or 'all', got {mode!r}")
    set_config(profile_symbolic=True, profile_imperative=mode == "all", profile_all=mode == "all",
               filename=filename)


profiler_set_state = set_state


# ------------------------------------------------------------ user events
class Domain:
    """A named category for tasks, frames, counters and markers."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)


class _Duration:
    """A named span: ``start()`` then ``stop()`` records one event (nothing while the profiler is off)."""

    _kind = "duration"

    def __init__(self, cat, name):
        self.name = name
        self._cat = cat
        self._t0 = None

    def start(self):
        self._t0 = _now_us()

    def stop(self):
        if self._t0 is None:
            raise _base.MXNetError(f"mx.profiler.{type(self).__name__} '{self.name}': stop() without start()")
        t0, self._t0 = self._t0, None
        if _recording():
            self._record(t0, _now_us())

    def _record(self, t0, t1):
        _complete(self._cat, self.name, t0, t1)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def __str__(self):
        return self.name


class Task(_Duration):
    """A unit of work in a domain; recorded as an async span (tasks may overlap)."""

    _ids = iter(range(1, 1 << 62))

    def __init__(self, domain, name):
        super().__init__(domain.name, name)

    def _record(self, t0, t1):
        ident = next(Task._ids)
        base = {"name": self.name, "cat": self._cat, "pid": _PID, "tid": threading.get_ident(), "id": ident}
        _add(self._cat, self.name, dict(base, ph="b", ts=t0))
        _add(self._cat, self.name, dict(base, ph="e", ts=t1), (t1 - t0) / 1000.0)


class Frame(_Duration):
    """One pass through a repeated region (an iteration); category ``<domain>,frame`` as in MXNet."""

    def __init__(self, domain, name):
        super().__init__(f"{domain.name},frame", name)


class Event(_Duration):
    """A named span in the ``event`` category."""

    def __init__(self, name):
        super().__init__("event", name)


class Counter:
    """A value tracked over time (``C`` events): ``set_value``, ``increment``, ``decrement``, ``+=``, ``-=``."""

    def __init__(self, domain, name, value=None):
        self.name = name
        self._cat = domain.name
        self.value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        self.value = int(value)
        if _recording():
            _add(self._cat, self.name, {"name": self.name, "cat": self._cat, "ph": "C", "ts": _now_us(),
                                        "pid": _PID, "tid": threading.get_ident(), "args": {self.name: self.value}},
                 0.0)

    def increment(self, delta=1):
        self.set_value(self.value + int(delta))

    def decrement(self, delta=1):
        self.set_value(self.value - int(delta))

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}


class Marker:
    """An instant in time (``mark(scope)``, scope 'global', 'process', 'thread', 'task' or 'marker')."""

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope="process"):
        if scope not in _SCOPES:
            raise ValueError(f"mx.profiler.Marker.mark: scope must be one of {list(_SCOPES)}, got {scope!r}")
        if _recording():
            cat = f"{self.domain.name},instant_marker"
            _add(cat, self.name, {"name": self.name, "cat": cat, "ph": "i", "s": _SCOPES[scope], "ts": _now_us(),
                                  "pid": _PID, "tid": threading.get_ident()})
