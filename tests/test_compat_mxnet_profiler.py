"""mx.profiler: one event per op call (custom ops' forward and backward included), the Chrome trace,
the aggregate table and the user events; names and formats as MXNet 1.9.1 shows them."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

from mscustom._core import dispatch
from mscustom.compat import mxnet as mx


class _Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("prof_sqr")
class _SqrProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Sqr()


@pytest.fixture
def profile(tmp_path):
    path = tmp_path / "trace.json"
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=str(path))
    yield path
    mx.profiler.set_state("stop")
    mx.profiler.dumps(reset=True)
    mx.profiler.dump()
    mx.profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")


def _names(path):
    trace = json.loads(path.read_text())
    return [e["name"] for e in trace["traceEvents"] if e["ph"] == "X"], trace


def test_one_event_per_op_call_with_custom_forward_and_backward(profile):
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    mx.profiler.set_state("run")
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="prof_sqr")
        z = mx.nd.Custom(y, op_type="prof_sqr")
        w = (z * 2).sum()
    w.backward()
    mx.profiler.set_state("stop")
    np.testing.assert_allclose(x.grad.asnumpy(), [8.0, 64.0, 216.0])
    mx.profiler.dump()
    names, trace = _names(profile)
    assert trace["displayTimeUnit"] == "ms"
    assert names.count("prof_sqr::pure_python") == 2              # MXNet 1.9.1's names for a custom op
    assert names.count("_backward_prof_sqr::pure_python") == 2
    assert names.count("prof_sqr::mul") == 2                     # the op its forward runs, prefixed
    assert names.count("_backward_prof_sqr::mul") == 4
    cats = {e["name"]: e["cat"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert cats["prof_sqr::pure_python"] == "Custom Operator" and cats["reduce_sum"] == "operator"
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            assert e["dur"] >= 0 and {"ts", "pid", "tid"} <= set(e)
    # the inner op's span lies inside its custom op's
    fwd = sorted((e for e in trace["traceEvents"] if e["name"] == "prof_sqr::pure_python"), key=lambda e: e["ts"])
    inner = sorted((e for e in trace["traceEvents"] if e["name"] == "prof_sqr::mul"), key=lambda e: e["ts"])
    for f, i in zip(fwd, inner):
        assert f["ts"] <= i["ts"] and i["ts"] + i["dur"] <= f["ts"] + f["dur"]


def test_aggregate_table_format_and_reset(profile):
    mx.profiler.set_state("run")
    for _ in range(3):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="prof_sqr")
    mx.profiler.set_state("stop")
    table = mx.profiler.dumps()
    lines = table.split("\n")
    assert lines[1:3] == ["Profile Statistics:", "\tNote the difference in units for different entries."]
    head = lines.index("Custom Operator")
    assert lines[head + 1] == "================="
    assert lines[head + 2] == ("Name                          Total Count        Time (ms)    Min Time (ms)    "
                               "Max Time (ms)    Avg Time (ms)")
    row = next(line for line in lines if line.startswith("prof_sqr::pure_python"))
    assert row.split()[1] == "3" and len(row) == 30 + 11 + 4 * 17
    stats = json.loads(mx.profiler.dumps(format="json", reset=True))
    assert stats["Time"]["Custom Operator"]["prof_sqr::pure_python"]["Count"] == 3
    assert "prof_sqr::pure_python" not in mx.profiler.dumps()


def test_pause_resume_and_stop_restore_the_fast_paths(profile):
    mx.profiler.set_state("run")
    assert dispatch.TIMING[0] >= 1 and dispatch.PROFILER[0] is not None
    mx.nd.Custom(mx.nd.ones((2,)), op_type="prof_sqr")
    mx.profiler.pause()
    assert dispatch.PROFILER[0] is None
    mx.nd.Custom(mx.nd.ones((2,)), op_type="prof_sqr")
    mx.profiler.resume()
    mx.nd.Custom(mx.nd.ones((2,)), op_type="prof_sqr")
    mx.profiler.set_state("stop")
    assert dispatch.PROFILER[0] is None and dispatch.TIMING[0] == 0
    mx.profiler.dump()
    names, _ = _names(profile)
    assert names.count("prof_sqr::pure_python") == 2


def test_user_events(profile):
    mx.profiler.set_state("run")
    dom = mx.profiler.Domain("mydomain")
    task = dom.new_task("mytask")
    task.start()
    task.stop()
    with mx.profiler.Frame(dom, "myframe"):
        pass
    ev = mx.profiler.Event("myevent")
    ev.start()
    ev.stop()
    c = mx.profiler.Counter(dom, "mycounter", 5)
    c.set_value(7)
    c += 2
    c -= 1
    mx.profiler.Marker(dom, "mymarker").mark("process")
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    trace = json.loads(profile.read_text())["traceEvents"]
    by = lambda name: [e for e in trace if e["name"] == name]                 # noqa: E731
    assert [e["ph"] for e in by("mytask")] == ["b", "e"] and by("mytask")[0]["cat"] == "mydomain"
    assert by("myframe")[0]["cat"] == "mydomain,frame" and by("myevent")[0]["cat"] == "event"
    assert [e["args"]["mycounter"] for e in by("mycounter")] == [5, 7, 9, 8]       # as MXNet records them
    assert by("mymarker")[0]["cat"] == "mydomain,instant_marker" and by("mymarker")[0]["s"] == "p"
    table = mx.profiler.dumps()
    assert "mydomain,frame" in table and "mycounter" in table


def test_bad_arguments_are_named():
    with pytest.raises(mx.MXNetError, match="mx.profiler.set_config: cannot find argument 'bogus'"):
        mx.profiler.set_config(bogus=1)
    with pytest.raises(ValueError, match="mx.profiler.set_state: state must be 'stop' or 'run', got 'go'"):
        mx.profiler.set_state("go")
    with pytest.raises(ValueError, match="mx.profiler.dumps: sort_by must be one of"):
        mx.profiler.dumps(sort_by="median")
    with pytest.raises(mx.MXNetError, match="Event 'e': stop\\(\\) without start\\(\\)"):
        mx.profiler.Event("e").stop()


def test_example_trains_and_traces_a_step(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "mxnet_profiler_trace", pathlib.Path(__file__).parent.parent / "examples" / "mxnet_profiler_trace.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--steps", "3", "--out", str(tmp_path / "t.json")]) == 0
    trace = json.loads((tmp_path / "t.json").read_text())
    names = [e["name"] for e in trace["traceEvents"] if e["ph"] == "X"]
    # executors replay repeated steps; while profiled, each step runs its op calls (3 x 2 FullyConnected)
    assert names.count("matmul") >= 3 * 2
    assert names.count("step") == 3
    mx.profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")
