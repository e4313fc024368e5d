"""Where the profiler listens outside the dispatcher: graph records, replays, effects, data loading.

``ACTIVE[0]`` is the recorder of the profiler that is recording now (see
``mscustom/profiler``), or None. Code that does work outside op calls worth
seeing in a trace (a graph record, a dataset's next row, an optimizer update)
checks it and, only when it is set, reports a span with ``add``; with no
profiler recording, the check is all it costs.

Op calls themselves reach the profiler through ``dispatch.PROFILER``; graph
replays through ``replay_probe``.

Example::

    t0 = trace.now() if trace.ACTIVE[0] is not None else None
    ...
    if t0 is not None:
        trace.add("GetNext", "data", t0)
"""

import time

__all__ = ["ACTIVE", "now", "add", "label_of", "category", "COMM_PREFIXES"]

ACTIVE = [None]
now = time.perf_counter_ns
COMM_PREFIXES = ("comm_", "dist_bucket")      # the collectives' ops (communication/_ops.py, _buckets.py)


def add(name, cat, t0, args=None):
    """Report a span from ``t0`` (``now()``) to now, when a profiler is still recording."""
    rec = ACTIVE[0]
    if rec is not None:
        rec.add(name, cat, t0, now(), args)


def label_of(fn):
    """A readable name for a Python callable in a trace: ``Momentum._apply``, ``uniform``, ``_Update``."""
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if owner is not None and name is not None and not isinstance(owner, type(time)):
        return f"{type(owner).__name__}.{name}"
    qual = getattr(fn, "__qualname__", None)
    if qual is None:
        return type(fn).__name__
    return qual.split(".<locals>")[0]


def category(op_name, kind):
    """An op call's trace category: ``comm`` for collectives, ``builtin``, or ``custom:<kernel kind>``."""
    if op_name.startswith(COMM_PREFIXES):
        return "comm"
    return "builtin" if kind == "builtin" else f"custom:{kind}"
