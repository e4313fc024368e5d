"""``mindspore.profiler.schedule``: which steps a profiler skips, warms up on, records and saves.

Steps are counted by ``profile.step()`` from 0. The first ``skip_first``
steps are skipped; then cycles of ``wait`` idle steps, ``warmup`` steps and
``active`` recorded steps follow, ``repeat`` times (0: without end). The last
active step of a cycle is ``RECORD_AND_SAVE``: when it ends, the cycle's
events are handed to ``on_trace_ready``. Values MindSpore would reset are
reset the same way, with a warning in the log.

Example::

    s = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    [s(i).name for i in range(6)]
    # ['NONE', 'NONE', 'WARM_UP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
"""

from ..log import logger as _log
from ._constants import ProfilerAction

__all__ = ["Schedule", "schedule", "default_schedule"]


class Schedule:
    """The action of each step (call it with the step number); see the module docstring."""

    def __init__(self, *, wait, active, warmup=0, repeat=0, skip_first=0):
        self.wait = _count("wait", wait, 0, 0)
        self.active = _count("active", active, 1, 1)
        self.warmup = _count("warmup", warmup, 0, 0)
        self.repeat = _count("repeat", repeat, 0, 0)
        self.skip_first = _count("skip_first", skip_first, 0, 0)
        if self.warmup == 0:
            _log.info("profiler schedule: no warm-up steps (warmup=0); the first recorded step may include "
                      "one-time costs (kernel compiles, graph records)")

    def __call__(self, step):
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise ValueError(f"profiler schedule: the step must be a non-negative int, got {step!r}")
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if 0 < self.repeat <= step // cycle:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < self.wait:
            return ProfilerAction.NONE
        if pos < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    def __repr__(self):
        return (f"Schedule(wait={self.wait!r}, active={self.active!r}, warmup={self.warmup!r}, "
                f"repeat={self.repeat!r}, skip_first={self.skip_first!r})")

    def to_dict(self):
        """The parameters as a dict."""
        return {"wait": self.wait, "active": self.active, "warmup": self.warmup, "repeat": self.repeat,
                "skip_first": self.skip_first}


schedule = Schedule


def default_schedule(step):
    """Without a schedule every step is recorded."""
    return ProfilerAction.RECORD


def _count(name, value, least, default):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        _log.warning("profiler schedule: %s must be an int >= %d, got %r; using %d", name, least, value, default)
        return default
    return value
