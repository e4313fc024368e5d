"""``mscustom.profiler`` (``ms.profiler``; ``ms.Profiler``): MindSpore's profiler, for every op call.

While a profiler records, each op call -- built-in, Custom (by kernel kind),
collective -- is one timed event with its input shapes, in eager mode and
inside graph replays (each replayed step is one event, inside one ``replay``
event per call; a graph's first call is a ``record`` event around the op
calls it makes). Optimizer updates and other in-place effects, host ops and
data loading (``GetNext``) are events too. The results are a Chrome/Perfetto
trace and a table of ops by total time (text and CSV): see ``docs/profiling.md``.

With no profiler recording, nothing is timed and nothing is added to any call.

Example::

    import mscustom as ms

    with ms.profiler.profile() as prof:
        for x, y in data:
            train_step(x, y)
    print(prof.table(row_limit=10))        # which op is slow

    prof = ms.Profiler(output_path="./prof")   # MindSpore's older form
    train_step(x, y)
    prof.analyse()                             # ./prof/<host>_<pid>_<time>_ascend_ms/ASCEND_PROFILER_OUTPUT/
"""

from ._constants import AicoreMetrics, ExportType, HostSystem, ProfilerAction, ProfilerActivity, ProfilerLevel
from ._profile import Profiler, profile, tensorboard_trace_handler
from ._schedule import Schedule, schedule

__all__ = ["Profiler", "profile", "schedule", "Schedule", "tensorboard_trace_handler", "ProfilerActivity",
           "ProfilerLevel", "ProfilerAction", "AicoreMetrics", "ExportType", "HostSystem"]
