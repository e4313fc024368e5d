"""The usage report of Custom ops: which kernels ran, how often, for how long.

Every ``Custom`` is tracked here through a weak reference that removes itself
when the op is dropped (no dead references pile up). ``custom_op_report``
lists every live op's kernels; ``custom_op_usage`` counts one ``with`` block.
The counts come from each kernel entry's ``stats`` (calls, seconds). Calls are
always counted; seconds only while a ``custom_op_usage`` block is open (in any
thread): reading the clock twice per call would cost about a tenth of a small
kernel call, so it is done only when someone reads the time.
"""

import itertools
import weakref
from collections import namedtuple

from ..._core.dispatch import timing_requested
from ._pin import own_kernels

__all__ = ["custom_op_report", "custom_op_usage", "KernelStat", "OpKernelStat", "track", "live_ops"]

KernelStat = namedtuple("KernelStat", "kind kernel calls seconds")
OpKernelStat = namedtuple("OpKernelStat", "op kind kernel calls seconds")

_LIVE = {}                       # creation number -> weak reference, in creation order
_numbers = itertools.count()


def track(op):
    """Remember ``op`` for the report until it is dropped."""
    key = next(_numbers)
    _LIVE[key] = weakref.ref(op, lambda _ref, key=key: _LIVE.pop(key, None))


def live_ops():
    """Every Custom op alive, in creation order."""
    while True:
        try:
            refs = list(_LIVE.values())
            break
        except RuntimeError:             # a dropped op's callback removed an entry meanwhile: read again
            continue
    ops = [ref() for ref in refs]
    return [op for op in ops if op is not None]


def _own_kernels(op):
    """``op``'s kernels, without the entries that stand for a pinned kernel on other targets (``_pin``)."""
    return own_kernels(op.op)


def kernel_stats(op):
    """One ``KernelStat(kind, kernel, calls, seconds)`` per kernel of ``op`` (a Custom)."""
    return [KernelStat(k.kind, k.name, k.stats["calls"], k.stats["seconds"]) for k in _own_kernels(op)]


def _format_rows(rows, format):
    if format not in ("rows", "text"):
        raise ValueError(f"custom_op_report: format must be 'rows' or 'text', got {format!r}")
    if format == "rows":
        return rows
    head = ("op", "kind", "kernel", "calls", "total ms")
    body = [(r.op, r.kind, r.kernel, str(r.calls), f"{r.seconds * 1e3:.3f}") for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(c.ljust(w) if j < 3 else c.rjust(w) for j, (c, w) in enumerate(zip(line, widths)))
             for line in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def custom_op_report(format="rows", used_only=False):
    """Every live Custom op's kernels with their call counts and total seconds.

    Seconds add up the calls made inside ``custom_op_usage`` blocks (kernel time
    is measured only there); calls count every call.

    ``format="rows"``: a list of ``OpKernelStat(op, kind, kernel, calls, seconds)``;
    ``format="text"``: the same as an aligned table. ``used_only=True`` leaves
    out kernels that never ran (for example the GPU kernel of a CPU-only run).
    The counts are since each op was made; ``custom_op_usage`` counts one block.

    Example::

        print(custom_op_report(format="text", used_only=True))
    """
    rows = [OpKernelStat(op.name, *stat) for op in live_ops() for stat in kernel_stats(op)
            if stat.calls or not used_only]
    return _format_rows(rows, format)


class custom_op_usage:
    """Count the Custom kernel calls made inside a ``with`` block.

    On exit, ``report()`` lists each kernel that ran in the block with the
    calls and seconds spent there (kernels of ops that were deleted before the
    block ended are not listed). Kernel calls are timed while the block is
    open (outside such blocks they are only counted), graph replays included:
    while a block is open, replays run with each step timed. ``print(usage)``
    shows the text report.

    Example::

        with ops.custom_op_usage() as usage:
            train(net)
        print(usage)                    # usage.report(format="text"); usage.report() gives the rows
    """

    def __init__(self):
        self._start = None
        self._rows = None
        self._timing = None

    def __enter__(self):
        # strong references to the entries, so an id cannot be reused within the block
        self._start = {id(k): (k, k.stats["calls"], k.stats["seconds"])
                       for op in live_ops() for k in _own_kernels(op)}
        self._rows = None
        self._timing = timing_requested()
        self._timing.__enter__()
        return self

    def __exit__(self, *exc):
        if self._timing is not None:
            self._timing.__exit__(*exc)
            self._timing = None
        rows = []
        for op in live_ops():
            for k in _own_kernels(op):
                _, calls, seconds = self._start.get(id(k), (k, 0, 0.0))
                if k.stats["calls"] > calls:
                    rows.append(OpKernelStat(op.name, k.kind, k.name, k.stats["calls"] - calls,
                                             k.stats["seconds"] - seconds))
        self._rows, self._start = rows, None
        return False

    def report(self, format="rows"):
        """The kernels used in the block: rows of ``OpKernelStat`` or, with ``format="text"``, a table."""
        if self._rows is None:
            raise RuntimeError("custom_op_usage: report() is available after the with block ends")
        return _format_rows(list(self._rows), format)

    def __str__(self):
        """The text report (``print(usage)``), or a note while the block is still open."""
        if self._rows is None:
            return "custom_op_usage: (the report is ready when the with block ends)"
        return self.report(format="text")

    __repr__ = __str__
