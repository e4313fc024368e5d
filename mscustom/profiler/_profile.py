"""``mindspore.profiler.profile``, ``mindspore.Profiler`` and ``tensorboard_trace_handler``.

A profiler records *cycles*. Without a schedule, one cycle runs from
``start()`` (or the constructor: ``start_profile=True``) to ``stop()``. With a
schedule, ``step()`` ends each step and the schedule says what the next one
does (``_schedule.py``): cycles begin at the first recorded step and end
after their ``RECORD_AND_SAVE`` step, when ``on_trace_ready(prof)`` is called
(``tensorboard_trace_handler(dir)`` writes the cycle there). As in MindSpore,
a cycle that ends early (a recorded step followed by an idle one) is dropped
with a warning, and ``stop()`` in the middle of one hands it on as it is.

While a cycle records, every op call is one event (see ``_recorder.py``);
``table()`` gives the ops by total time of the cycle recording now or the last
one that ended, ``events()`` its events; ``analyse()`` (``Profiler``) writes
them to ``output_path``.
"""

import json

from .._core import trace as _trace
from ..log import logger as _log
from . import _output
from ._constants import ProfilerAction
from ._recorder import Recorder
from ._schedule import default_schedule

__all__ = ["profile", "Profiler", "tensorboard_trace_handler"]

_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:                                 # noqa: N801  (MindSpore's name)
    """Profile the op calls of a region (MindSpore's ``mindspore.profiler.profile``).

    The arguments are MindSpore 2.10's. Here every op call is host work, so
    ``activities`` and the Ascend/GPU options are accepted and change nothing;
    input shapes are always recorded. ``schedule`` (``mindspore.profiler.schedule``)
    with ``step()`` picks the steps; ``on_trace_ready(prof)`` runs after each
    cycle.

    Example::

        with ms.profiler.profile() as prof:
            train_step(x, y)
        print(prof.table(row_limit=10))        # which op is slow
    """

    def __init__(self, activities=None, with_stack=False, profile_memory=False, data_process=False,
                 parallel_strategy=False, start_profile=True, hbm_ddr=False, pcie=False, sync_enable=True,
                 record_shapes=False, schedule=None, on_trace_ready=None, experimental_config=None):
        if schedule is not None and not callable(schedule):
            _log.warning("profiler: schedule must be callable (mindspore.profiler.schedule), got %r; "
                         "every step is recorded", schedule)
            schedule = None
        if on_trace_ready is not None and not callable(on_trace_ready):
            _log.warning("profiler: on_trace_ready must be callable, got %r; it is ignored", on_trace_ready)
            on_trace_ready = None
        self.activities = activities
        self.record_shapes = record_shapes
        self.schedule_arg = schedule
        self.schedule = schedule if schedule is not None else default_schedule
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.output_dir = None              # the folder the last export wrote
        self._metadata = {}
        self._has_started = False
        self._recorder = None               # the cycle recording now
        self._last = None                   # the last cycle that ended
        self._step_t0 = None
        if start_profile:
            self.start()

    # ------------------------------------------------------------------ MindSpore's interface
    def start(self):
        """Begin profiling (the constructor does it unless ``start_profile=False``)."""
        if self._has_started:
            _log.warning("profiler: already started")
            return
        self._has_started = True
        self._transit(ProfilerAction.NONE, self.current_action)
        self._step_t0 = _trace.now()

    def stop(self):
        """End profiling; a cycle recording now ends and goes to ``on_trace_ready``."""
        if not self._has_started:
            _log.error("profiler: stop() before start()")
            return
        self._end_step()
        self._has_started = False
        self._transit(self.current_action, None)

    def step(self):
        """End one step: the schedule decides what the next one does (see the module docstring)."""
        if not self._has_started:
            _log.error("profiler: step() while stopped has no effect")
            return
        self._end_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._step_t0 = _trace.now()

    def add_metadata(self, key, value):
        """Store ``key: value`` (strings), written to ``profiler_metadata.json`` with the results."""
        if not isinstance(key, str) or not isinstance(value, str):
            _log.warning("profiler: metadata keys and values must be strings; skipped %r", key)
            return
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        """Store ``key: json.loads(value)``, written to ``profiler_metadata.json`` with the results."""
        if not isinstance(key, str) or not isinstance(value, str):
            _log.warning("profiler: metadata keys and values must be strings; skipped %r", key)
            return
        try:
            self._metadata[key] = json.loads(value)
        except ValueError:
            _log.warning("profiler: metadata %r is not JSON; skipped", key)

    def __enter__(self):
        if not self._has_started:
            self.start()
        return self

    def __exit__(self, *exc):
        if self._has_started:
            self.stop()
        return False

    def __del__(self):
        rec = getattr(self, "_recorder", None)
        if rec is not None:
            try:
                rec.uninstall()
            except Exception:
                pass

    # ------------------------------------------------------------------ results
    def events(self):
        """The events of the cycle recording now, else of the last one that ended (dicts: name, cat,
        t0, t1 in ns of ``time.perf_counter_ns``, tid, args)."""
        rec = self._recorder or self._last
        return rec.events() if rec is not None else []

    def table_rows(self, sort_by="total"):
        """The ops of ``events()`` by total time: dicts name, category, calls, total_us, min_us, avg_us,
        max_us, ratio (%)."""
        return _output.rows(self.events(), sort_by)

    def table(self, sort_by="total", row_limit=None):
        """The ops by total time as a text table (slowest first): which op is slow.

        ``sort_by``: "total", "calls", "avg", "max" or "name"; ``row_limit``: at most that many rows.
        """
        return _output.table_text(self.table_rows(sort_by), row_limit)

    def export(self, path="./data", worker_name=None, pretty=False):
        """Write ``events()`` under ``path`` (``_output.export``'s layout); return the folder written."""
        rec = self._recorder or self._last
        events = rec.events() if rec is not None else []
        pid = rec.pid if rec is not None else 0
        self.output_dir = _output.export(events, pid, path, worker_name, pretty, self._metadata)
        _log.info("profiler: wrote %d events to %s", len(events), self.output_dir)
        return self.output_dir

    # ------------------------------------------------------------------ cycles
    def _transit(self, prev, cur):
        if prev in _RECORDING:
            if prev is ProfilerAction.RECORD_AND_SAVE or cur is None:
                if cur is None and prev is ProfilerAction.RECORD and self.record_steps:
                    _log.warning("profiler: stopped while recording; the cycle may be incomplete")
                self._end_cycle(save=True)
            elif cur not in _RECORDING:
                _log.warning("profiler: incorrect schedule: a recorded step followed by %s; the cycle is dropped",
                             cur.name)
                self._end_cycle(save=False)
        elif prev is ProfilerAction.WARM_UP and cur in (ProfilerAction.NONE, None):
            _log.warning("profiler: incorrect schedule: warm-up steps followed by no recorded step")
        if cur in _RECORDING and self._recorder is None:
            rec = Recorder()
            rec.install()
            self._recorder = rec

    def _end_cycle(self, save):
        rec, self._recorder = self._recorder, None
        if rec is None:
            return
        rec.uninstall()
        if not save:
            return
        self._last = rec
        self._cycle_ready()

    def _cycle_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _end_step(self):
        rec, t0 = self._recorder, self._step_t0
        if rec is not None and t0 is not None and self.record_steps:
            rec.add(f"ProfilerStep#{self.step_num}", "step", t0, _trace.now(), {"action": self.current_action.name})
        self._step_t0 = None

    def __repr__(self):
        state = "recording" if self._recorder is not None else ("started" if self._has_started else "stopped")
        return f"<{type(self).__name__} {state}, step {self.step_num}>"

    def __str__(self):
        return self.table() if (self._recorder or self._last) is not None else repr(self)


# MindSpore's Profiler keyword arguments and defaults (mindspore/profiler/common/profiler_parameters.py)
_PROFILER_DEFAULTS = {
    "output_path": "./data", "profiler_level": None, "activities": None, "aic_metrics": None,
    "with_stack": False, "profile_memory": False, "data_process": False, "parallel_strategy": False,
    "start_profile": True, "l2_cache": False, "hbm_ddr": False, "pcie": False, "sys_io": False,
    "sys_interconnection": False, "host_sys": None, "sync_enable": True, "data_simplification": True,
    "record_shapes": False, "export_type": None, "mstx": False, "mstx_domain_include": None,
    "mstx_domain_exclude": None, "schedule": None, "on_trace_ready": None,
}
_PROFILE_ARGS = ("activities", "with_stack", "profile_memory", "data_process", "parallel_strategy", "hbm_ddr",
                 "pcie", "sync_enable", "record_shapes", "schedule", "on_trace_ready")


class Profiler(profile):
    """``mindspore.Profiler(output_path="./data", ...)``: profile until ``analyse()`` writes the results.

    Takes MindSpore 2.10's keyword arguments (unknown ones are ignored with a
    warning, as there); ``output_path`` is where ``analyse()`` writes (see
    ``_output.py`` for the files). Without a schedule, ``stop()`` pauses and
    ``start()`` goes on adding to the same results; with one, use ``step()``
    and ``on_trace_ready`` as with ``profile``.

    Example::

        prof = ms.Profiler(output_path="./prof")
        train(net, data)
        prof.analyse()                          # ./prof/<host>_<pid>_<time>_ascend_ms/...
        print(prof.table(row_limit=10))
    """

    def __init__(self, **kwargs):
        unknown = sorted(k for k in kwargs if k not in _PROFILER_DEFAULTS)
        for k in unknown:
            _log.warning("Profiler: unknown argument %r is ignored", k)
        opts = {k: kwargs.get(k, d) for k, d in _PROFILER_DEFAULTS.items()}
        path = opts["output_path"]
        if not isinstance(path, str):
            _log.warning("Profiler: output_path must be a str, got %r; using ./data", path)
            path = "./data"
        self.output_path = path
        self._paused = None                 # without a schedule: the recorder kept across stop()/start()
        super().__init__(start_profile=bool(opts["start_profile"]), **{k: opts[k] for k in _PROFILE_ARGS})

    def start(self):
        if self.schedule_arg is None and self._paused is not None and not self._has_started:
            rec, self._paused = self._paused, None
            rec.install()                   # go on adding to the same results
            self._recorder = rec
            self._has_started = True
            return
        super().start()

    def stop(self):
        if self.schedule_arg is not None:
            super().stop()
            return
        if not self._has_started:
            _log.error("Profiler: stop() before start()")
            return
        self._has_started = False
        rec, self._recorder = self._recorder, None
        if rec is not None:
            rec.uninstall()
            self._paused = rec
            self._last = rec

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stop profiling and write the results under ``output_path``; ``output_dir`` names the folder.

        With a schedule the results go to ``on_trace_ready`` instead (as in MindSpore).
        ``offline_path``, ``step_list`` and ``mode`` are accepted for MindSpore's sake.
        """
        if self._has_started:
            self.stop()
        if self.schedule_arg is not None:
            _log.warning("Profiler: with a schedule, results go to on_trace_ready; analyse() writes nothing")
            return
        self.export(self.output_path, pretty=pretty)


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
    """An ``on_trace_ready`` that writes each cycle under ``dir_name`` (default ``./data``).

    ``worker_name`` names the run folders (default ``<host>_<pid>``);
    ``analyse_flag=False`` writes nothing. ``async_mode`` is accepted (writing
    is always done in the calling thread).
    """
    if not isinstance(analyse_flag, bool):
        _log.warning("tensorboard_trace_handler: analyse_flag must be a bool, got %r; using True", analyse_flag)
        analyse_flag = True
    base = dir_name if dir_name is not None else "./data"

    def handler(prof):
        if analyse_flag:
            prof.export(base, worker_name)
    return handler
