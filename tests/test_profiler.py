"""ms.Profiler / ms.profiler.profile: one event per op call (eager and graph mode), categories, the table,
the files analyse() writes, MindSpore's schedule semantics, and nothing left installed afterwards."""

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom._core import dispatch, trace
from mscustom.profiler import ProfilerAction, profile, schedule

LIB = Path(__file__).resolve().parents[1] / "aot_kernels" / "build" / "libkernels.so"
OP_CATS = ("builtin", "custom:pyfunc", "custom:aot")


def _square(x):
    return x * x


SQ = ops.Custom(_square, lambda s: s, lambda d: d, func_type="pyfunc")
W = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
X = ms.Tensor(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3))


def _aot_square():
    if not LIB.exists():
        pytest.skip("aot_kernels/build/libkernels.so is not built (make kernels)")
    return ops.Custom(f"{LIB}:CustomSquare", lambda s: s, lambda d: d, func_type="aot")


def _net(aot):
    """matmul, pyfunc, softmax, aot, reduce_sum: five op calls, none of which a replay merges or fuses."""
    def net(x):
        return ops.ReduceSum()(aot(ops.softmax(SQ(ops.matmul(x, W)))), 1)
    return net


EXPECTED = [("matmul", "builtin"), ("_square", "custom:pyfunc"), ("softmax", "builtin"),
            ("CustomSquare", "custom:aot"), ("reduce_sum", "builtin")]


def _ops(events):
    return [(e["name"], e["cat"]) for e in events if e["cat"] in OP_CATS]


def _idle():
    return dispatch.PROFILER[0] is None and trace.ACTIVE[0] is None and dispatch.TIMING[0] == 0


def test_eager_one_event_per_op_call_with_category_and_shapes():
    net = _net(_aot_square())
    net(X)                                          # plans made before profiling
    with profile() as prof:
        for _ in range(3):
            net(X)
    events = prof.events()
    assert _ops(events) == EXPECTED * 3
    first = next(e for e in events if e["name"] == "matmul")
    assert first["args"]["shapes"] == [[2, 3], [3, 4]]
    assert all(e["t1"] >= e["t0"] for e in events)
    assert _idle()


def test_graph_mode_one_event_per_replayed_call_inside_replay_events():
    fn = ms.jit(_net(_aot_square()))
    with profile() as prof:
        for _ in range(4):
            fn(X)
    events = prof.events()
    spans = [e for e in events if e["cat"] in ("record", "replay")]
    assert fn.name == "_net.<locals>.net"
    assert [(e["name"], e["cat"]) for e in spans] == [(fn.name, "record")] + [(fn.name, "replay")] * 3
    assert _ops(events) == EXPECTED * 4             # the recording call's eager calls, then 3 replays
    rec = next(iter(fn.records.values()))[0]
    assert sum(st.kind == "kernel" for st in rec.steps) == len(EXPECTED)
    for span in spans:                              # each op event lies inside its record or replay
        inside = [e for e in events if e["cat"] in OP_CATS and span["t0"] <= e["t0"] and e["t1"] <= span["t1"]]
        assert _ops(inside) == EXPECTED
    replayed = [e for e in events if e["cat"] in OP_CATS and "mode" in e["args"]]
    assert len(replayed) == 3 * len(EXPECTED)
    assert replayed[0]["args"]["shapes"] == [[2, 3], [3, 4]]
    assert _idle()


def test_replays_run_plain_when_nobody_times():
    fn = ms.jit(lambda x: ops.softmax(SQ(x)))
    for _ in range(3):
        fn(X)
    rec = next(iter(fn.records.values()))[0]
    assert "_probe" not in rec.__dict__
    with ops.custom_op_usage() as usage:            # a usage block times replays too
        for _ in range(3):
            fn(X)
    (row,) = usage.report()
    assert (row.op, row.calls) == ("_square", 3) and row.seconds > 0
    assert "_square" in str(usage) and str(usage) == repr(usage) == usage.report(format="text")


def test_effects_and_data_loading_are_events_in_both_modes():
    net = nn.Dense(3, 2)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    data = ms.dataset.GeneratorDataset([(np.ones(3, np.float32),) for _ in range(4)], ["x"]).batch(2)
    for fn in (step, ms.jit(step)):
        with profile() as prof:
            for (x,) in data:
                fn(x)
            fn(x)
        cats = [e["cat"] for e in prof.events()]
        assert cats.count("data") == 2 and cats.count("effect") == 3, cats
        names = {e["name"] for e in prof.events() if e["cat"] == "effect"}
        assert names == {"SGD._apply"}


def test_collectives_are_comm():
    from mscustom.communication import _ops
    names = [v.name for v in vars(_ops).values() if type(v).__name__ == "OpDef"]
    assert len(names) == 5 and all(trace.category(n, "builtin") == "comm" for n in names)
    assert trace.category("dist_bucket3_start", "builtin") == "comm"
    assert trace.category("relu", "builtin") == "builtin" and trace.category("k", "jit") == "custom:jit"


def test_table_totals_agree_with_the_events_and_the_files(tmp_path):
    net = _net(_aot_square())
    prof = ms.Profiler(output_path=str(tmp_path))
    for _ in range(5):
        net(X)
    prof.analyse()
    events = prof.events()
    rows = prof.table_rows()
    work = [e for e in events if e["cat"] in OP_CATS]
    assert sum(r["calls"] for r in rows) == len(work) == 25
    assert sum(r["total_us"] for r in rows) == pytest.approx(sum(e["t1"] - e["t0"] for e in work) / 1e3)
    assert sum(r["ratio"] for r in rows) == pytest.approx(100.0)
    assert [r["total_us"] for r in rows] == sorted((r["total_us"] for r in rows), reverse=True)
    for r in rows:
        assert r["calls"] == 5 and r["min_us"] <= r["avg_us"] <= r["max_us"]
    out = Path(prof.output_dir) / "ASCEND_PROFILER_OUTPUT"
    assert prof.output_dir.startswith(str(tmp_path)) and prof.output_dir.endswith("_ascend_ms")
    trace_json = json.loads((out / "trace_view.json").read_text())
    xs = [e for e in trace_json["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == 25 and {e["cat"] for e in xs} == set(OP_CATS)
    assert set(xs[0]) >= {"name", "cat", "ts", "dur", "pid", "tid", "args"} and xs[0]["pid"] == os.getpid()
    with open(out / "op_statistic.csv") as f:
        table = list(csv.DictReader(f))
    assert [(t["Op Name"], t["Category"], int(t["Count"])) for t in table] == \
        [(r["name"], r["category"], r["calls"]) for r in rows]
    text = (out / "op_statistic.txt").read_text()
    assert text.splitlines()[0].split()[:3] == ["op", "category", "calls"] and "total" in text.splitlines()[-1]
    assert prof.table(row_limit=2).count("\n") == 6 and "3 more row(s)" in prof.table(row_limit=2)
    assert _idle()


def test_profiler_pauses_and_resumes_into_the_same_results():
    prof = ms.Profiler(start_profile=False, output_path="unused")
    SQ(X)
    prof.start()
    SQ(X)
    prof.stop()
    SQ(X)
    assert _idle()
    prof.start()
    SQ(X)
    prof.stop()
    assert len(prof.events()) == 2 and _idle()


@pytest.mark.parametrize("kwargs, n, expected", [
    (dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1), 8,
     ["NONE", "NONE", "WARM_UP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE", "NONE"]),
    (dict(wait=0, warmup=1, active=2, repeat=2), 9,
     ["WARM_UP", "RECORD", "RECORD_AND_SAVE", "WARM_UP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE", "NONE"]),
    (dict(wait=1, active=1), 5, ["NONE", "RECORD_AND_SAVE", "NONE", "RECORD_AND_SAVE", "NONE"]),
])
def test_schedule_actions_as_mindspore(kwargs, n, expected):
    """The actions MindSpore 2.10's mindspore.profiler.schedule gives for these parameters."""
    s = schedule(**kwargs)
    assert [s(i).name for i in range(n)] == expected
    assert repr(s).startswith("Schedule(wait=") and s.to_dict()["active"] == kwargs["active"]


def test_schedule_resets_bad_values_as_mindspore():
    s = schedule(wait=-1, active=0)
    assert s.to_dict() == {"wait": 0, "active": 1, "warmup": 0, "repeat": 0, "skip_first": 0}
    with pytest.raises(ValueError, match="non-negative"):
        s(-1)


def _steps_seen(prof):
    """The steps whose op call a cycle recorded (step i calls SQ on a tensor of i + 1 elements)."""
    return sorted(e["args"]["shapes"][0][0] - 1 for e in prof.events() if e["cat"] == "custom:pyfunc")


@pytest.mark.parametrize("kwargs, n, cycles", [
    (dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1), 8, [[3, 4]]),
    (dict(wait=0, warmup=1, active=2, repeat=2), 9, [[1, 2], [4, 5]]),
])
def test_schedule_records_the_active_steps_and_hands_each_cycle_on(kwargs, n, cycles):
    seen, steps = [], []

    def ready(prof):
        seen.append(_steps_seen(prof))
        steps.append([e["name"] for e in prof.events() if e["cat"] == "step"])

    with profile(schedule=schedule(**kwargs), on_trace_ready=ready) as prof:
        for i in range(n):
            SQ(ms.Tensor(np.ones(i + 1, np.float32)))
            prof.step()
    assert seen == cycles
    assert steps == [[f"ProfilerStep#{i}" for i in c] for c in cycles]
    assert _idle()


def test_a_cycle_cut_short_by_the_schedule_is_dropped_and_stop_hands_on_a_partial_one():
    actions = [ProfilerAction.RECORD, ProfilerAction.NONE, ProfilerAction.RECORD, ProfilerAction.RECORD]
    seen = []
    prof = profile(schedule=lambda i: actions[min(i, 3)], on_trace_ready=lambda p: seen.append(_steps_seen(p)))
    for i in range(4):
        SQ(ms.Tensor(np.ones(i + 1, np.float32)))
        prof.step()
    prof.stop()
    assert seen == [[2, 3]] and _idle()


def test_trace_handler_writes_each_cycle(tmp_path):
    handler = ms.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    with profile(schedule=schedule(wait=0, active=1, repeat=2), on_trace_ready=handler) as prof:
        for _ in range(3):
            SQ(X)
            prof.step()
    runs = sorted(tmp_path.iterdir())
    assert len(runs) == 2 and all(r.name.startswith("w_") for r in runs)
    for r in runs:
        doc = json.loads((r / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_text())
        assert [e["name"] for e in doc["traceEvents"] if e.get("cat") == "custom:pyfunc"] == ["_square"]


def test_nothing_stays_installed_after_an_error_or_next_to_another_profiler():
    with pytest.raises(ZeroDivisionError):
        with profile():
            SQ(X)
            1 / 0
    assert _idle()
    with profile():
        with pytest.raises(RuntimeError, match="another mscustom profiler is recording"):
            profile()
    assert _idle()
    dispatch.PROFILER[0] = lambda op, args, attrs: None        # as mx.profiler.set_state("run") leaves it
    try:
        with pytest.raises(RuntimeError, match="mx.profiler is recording"):
            profile()
    finally:
        dispatch.PROFILER[0] = None
    assert _idle()


def test_mindspore_surface():
    import inspect
    params = inspect.signature(profile).parameters
    assert list(params) == ["activities", "with_stack", "profile_memory", "data_process", "parallel_strategy",
                            "start_profile", "hbm_ddr", "pcie", "sync_enable", "record_shapes", "schedule",
                            "on_trace_ready", "experimental_config"]
    assert params["start_profile"].default is True and params["schedule"].default is None
    assert str(inspect.signature(ms.profiler.tensorboard_trace_handler)) == \
        "(dir_name=None, worker_name=None, analyse_flag=True, async_mode=False)"
    assert str(inspect.signature(ms.Profiler.analyse)) == \
        "(self, offline_path=None, pretty=False, step_list=None, mode='sync')"
    assert ms.Profiler is ms.profiler.Profiler
    prof = ms.Profiler(start_profile=False, not_an_option=1)       # ignored, as MindSpore does
    assert prof.output_path == "./data" and _idle()
