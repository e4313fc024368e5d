"""Bound MXNet executors run through graph mode's capture and replay, with the eager executor's results.

Each test runs the same program with ``execution="eager"`` (the escape hatch) and with replay, and
checks that replays really happened (``Executor.stats``).
"""

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet.executor import EXECUTION_MODES
from mscustom.graph import GraphFallbackWarning

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mxnet_custom_softmax.py"


@pytest.fixture(autouse=True)
def _no_graph_fallback():
    """A replay that silently gave up would make every comparison below trivially true."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphFallbackWarning)
        yield


@pytest.fixture
def example():
    """The seed example (it registers MXNet's own op name 'softmax'; the registry is put back after)."""
    from mscustom.compat.mxnet import _prop
    saved = dict(_prop._PROPS)
    spec = importlib.util.spec_from_file_location("mxnet_custom_softmax_replay", EXAMPLE)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    yield ex
    _prop._PROPS.clear()
    _prop._PROPS.update(saved)


def _fit(ex, mode, monkeypatch, epochs=2):
    monkeypatch.setenv("MSCUSTOM_MXNET_EXECUTION", mode)
    mx.random.seed(0)
    x_tr, y_tr, x_va, y_va, _ = ex.load_data(limit=300, seed=0)
    mod = mx.mod.Module(ex.build_mlp(), context=mx.cpu(), data_names=["data"], label_names=["softmax_label"])
    losses = []
    mod.fit(mx.io.NDArrayIter(x_tr, y_tr, 32, shuffle=True, label_name="softmax_label"), eval_metric="ce",
            optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4},
            initializer=mx.init.Xavier(), num_epoch=epochs,
            batch_end_callback=lambda p: losses.append(p.eval_metric.get()[1]))
    train_stats = dict(mod._exec.stats)
    pred = mod.predict(mx.io.NDArrayIter(x_va, y_va, 32, label_name="softmax_label")).asnumpy()
    params = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    return params, losses, pred, train_stats, mod._exec.stats


# ------------------------------------------------------------------ the seed MLP
def test_module_fit_with_replay_gives_the_eager_parameters_losses_and_predictions(example, monkeypatch):
    p_eager, l_eager, pred_eager, s_eager, _ = _fit(example, "eager", monkeypatch)
    p_replay, l_replay, pred_replay, s_replay, s_after = _fit(example, "replay", monkeypatch)
    assert s_eager == {"eager": 16, "recorded": 0, "replayed": 0}
    # the first training step runs eagerly (its backward shows head gradients of ones), the second
    # records forward + backward, the other 14 replay them
    assert s_replay == {"eager": 1, "recorded": 1, "replayed": 14}
    assert len(l_replay) == len(l_eager) == 16
    np.testing.assert_allclose(l_replay, l_eager, rtol=1e-6)
    for k in p_eager:
        np.testing.assert_allclose(p_replay[k], p_eager[k], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(pred_replay, pred_eager, rtol=1e-5, atol=1e-7)
    # predict: 2 batches on the same executor, inference kind: eager once, then recorded
    assert s_after["eager"] == 2 and s_after["recorded"] == 2


def test_module_predict_and_score_replay_the_forward(example, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_MXNET_EXECUTION", "replay")
    mx.random.seed(1)
    x, y, _, _, _ = example.load_data(limit=200, seed=1)
    mod = mx.mod.Module(example.build_mlp(), data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=[("data", (20, 64))], label_shapes=[("softmax_label", (20,))], for_training=False)
    mod.init_params(mx.init.Xavier())
    it = mx.io.NDArrayIter(x, y, 20, label_name="softmax_label")
    replayed = mod.predict(it).asnumpy()
    acc = dict(mod.score(it, "acc"))["accuracy"]
    assert mod._exec.stats == {"eager": 1, "recorded": 1, "replayed": 14}
    mod._exec.execution = "eager"
    np.testing.assert_allclose(replayed, mod.predict(it).asnumpy(), rtol=1e-6)
    assert dict(mod.score(it, "acc"))["accuracy"] == acc
    assert mod._exec.stats["eager"] == 17


# ------------------------------------------------------------------ executors by hand
def _mlp():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=6)
    act = mx.sym.Activation(data=fc1, name="act", act_type="tanh")
    fc2 = mx.sym.FullyConnected(data=act, name="fc2", num_hidden=3)
    return mx.sym.SoftmaxOutput(data=fc2, name="softmax")


def _bind(mode, grad_req, seed=0):
    rng = np.random.default_rng(seed)
    exe = _mlp().simple_bind(mx.cpu(), grad_req=grad_req, data=(5, 4))
    exe.execution = mode
    for k, a in exe.arg_dict.items():
        a[:] = rng.normal(size=a.shape)
    exe.arg_dict["softmax_label"][:] = [0, 2, 1, 1, 0]
    for g in exe.grad_dict.values():
        g[:] = 0.5                                  # 'add' accumulates onto this, 'write' replaces it
    return exe


@pytest.mark.parametrize("grad_req", ["write", "add",
                                      {"data": "add", "fc1_weight": "write", "fc2_weight": "add", "fc2_bias": "write"}])
def test_grad_req_write_add_and_null_match_the_eager_executor(grad_req):
    eager, replay = _bind("eager", grad_req), _bind("replay", grad_req)
    rng = np.random.default_rng(5)
    for step in range(5):
        x = rng.normal(size=(5, 4))
        for exe in (eager, replay):
            out = exe.forward(is_train=True, data=x)[0].asnumpy()
            exe.backward()
            exe.arg_dict["fc2_bias"][:] = exe.arg_dict["fc2_bias"].asnumpy() - 0.1 * step     # an update
        np.testing.assert_allclose(out, eager.outputs[0].asnumpy(), rtol=1e-6)
        assert set(replay.grad_dict) == set(eager.grad_dict)
        for k, g in eager.grad_dict.items():
            np.testing.assert_allclose(replay.grad_dict[k].asnumpy(), g.asnumpy(), rtol=1e-5, atol=1e-6)
    if isinstance(grad_req, dict):                  # not named: 'null', no buffer at all
        assert "fc1_bias" not in replay.grad_dict and "softmax_label" not in replay.grad_dict
    assert replay.stats == {"eager": 1, "recorded": 1, "replayed": 3}


def test_a_backward_without_a_new_forward_writes_the_kept_gradients_again():
    eager, replay = _bind("eager", "add"), _bind("replay", "add")
    for exe in (eager, replay):
        for _ in range(3):
            exe.forward(is_train=True)
            exe.backward()
            exe.backward()                              # 'add': accumulates twice, as on the tape
    for k, g in eager.grad_dict.items():
        np.testing.assert_allclose(replay.grad_dict[k].asnumpy(), g.asnumpy(), rtol=1e-5)
    assert replay.stats["replayed"] == 1


def test_inference_forwards_replay_and_is_train_is_part_of_the_signature():
    exe = _bind("replay", "null")
    ref = _bind("eager", "null")
    for is_train in (False, True, False, True, False):
        np.testing.assert_allclose(exe.forward(is_train=is_train)[0].asnumpy(),
                                   ref.forward(is_train=is_train)[0].asnumpy(), rtol=1e-6)
    assert exe.stats == {"eager": 1, "recorded": 2, "replayed": 2}
    with pytest.raises(mx.MXNetError, match=r"Executor.backward: call forward\(is_train=True\) first"):
        exe.backward()


def test_outputs_of_earlier_replays_keep_their_values():
    exe = _bind("replay", "write")
    kept = []
    for v in range(4):
        exe.forward(is_train=False, data=np.full((5, 4), float(v)))
        kept.append((exe.outputs[0], exe.outputs[0].asnumpy()))
    for arr, value in kept:
        np.testing.assert_array_equal(arr.asnumpy(), value)
    assert exe.stats["replayed"] == 2


def test_explicit_out_grads_after_replayed_steps_run_that_step_on_the_tape():
    eager, replay = _bind("eager", "write"), _bind("replay", "write")
    head = np.linspace(-1.0, 1.0, 15).reshape(5, 3)
    for exe in (eager, replay):
        for _ in range(3):
            exe.forward(is_train=True)
            exe.backward()
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((5, 3)))            # the default head gradients, given: the kept ones
        with pytest.raises(ValueError, match=r"out_grads\[0\] has shape \(5, 2\), output 'softmax_output' "
                                             r"has shape \(5, 3\)"):
            exe.backward([np.zeros((5, 2))])
        exe.forward(is_train=True)
        exe.backward(out_grads=[mx.nd.array(head)])
        exe.forward(is_train=True)                  # explicit head gradients seen: training runs on the tape
        exe.backward(mx.nd.array(2 * head))
    for k, g in eager.grad_dict.items():
        np.testing.assert_allclose(replay.grad_dict[k].asnumpy(), g.asnumpy(), rtol=1e-5, atol=1e-7)
    assert replay.stats == {"eager": 3, "recorded": 1, "replayed": 3}


# ------------------------------------------------------------------ custom ops, auxiliary states, errors
class _Count(mx.operator.CustomOp):
    """Doubles its input with NDArray ops and counts training forwards in its auxiliary state."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 2.0)
        if is_train:
            aux[0][:] = aux[0].asnumpy() + 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 2.0)


@mx.operator.register("replay_count")
class _CountProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["calls"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [[1]]

    def create_operator(self, ctx, shapes, dtypes):
        return _Count()


@pytest.mark.parametrize("mode", EXECUTION_MODES)
def test_custom_op_auxiliary_state_counts_every_training_forward(mode):
    net = mx.sym.Custom(mx.sym.Variable("x") * 3.0, op_type="replay_count", name="cnt")
    exe = net.simple_bind(mx.cpu(), x=(2, 3))
    exe.execution = mode
    for k in range(1, 6):
        out = exe.forward(is_train=True, x=np.full((2, 3), float(k)))[0].asnumpy()
        exe.backward()
        np.testing.assert_array_equal(out, np.full((2, 3), 6.0 * k))
        np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.full((2, 3), 6.0))
        exe.forward(is_train=False)
    np.testing.assert_array_equal(exe.aux_dict["cnt_calls"].asnumpy(), [5.0])
    if mode == "replay":
        assert exe.stats == {"eager": 2, "recorded": 2, "replayed": 6}
    # explicit head gradients after a replayed step: the step runs again, its count is not doubled
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)) * 0.5)
    np.testing.assert_array_equal(exe.aux_dict["cnt_calls"].asnumpy(), [6.0])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.full((2, 3), 3.0))


class _Picky(mx.operator.CustomOp):
    """Identity that refuses negative inputs in forward and large head gradients in backward."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        if (x < 0).any():
            raise ValueError("negative input")
        self.assign(out_data[0], req[0], x)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if (in_data[0].asnumpy() > 100).any():
            raise ValueError("input too large to differentiate")
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("replay_picky")
class _PickyProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Picky()


def _picky_exe(mode):
    net = mx.sym.sum(mx.sym.Custom(mx.sym.Variable("x"), op_type="replay_picky", name="picky") * 2.0)
    exe = net.simple_bind(mx.cpu(), x=(3,))
    exe.execution = mode
    return exe


@pytest.mark.parametrize("mode", EXECUTION_MODES)
def test_errors_during_replay_are_deferred_exactly_as_on_the_eager_path(mode):
    exe = _picky_exe(mode)
    for _ in range(3):                              # eager, recorded, replayed
        exe.forward(is_train=True, x=np.array([1.0, 2.0, 3.0]))
        exe.backward()
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [2.0, 2.0, 2.0])
    # a forward error: the outputs are marked failed and report it at the next synchronisation point
    out = exe.forward(is_train=True, x=np.array([1.0, -2.0, 3.0]))[0]
    with pytest.raises(mx.MXNetError, match=r"op 'replay_picky': _Picky.forward raised ValueError: negative input"):
        out.asnumpy()
    with pytest.raises(mx.MXNetError, match=r"call forward\(is_train=True\) first"):
        exe.backward()
    # a backward error: the outputs are fine, the gradient reports it and keeps its old value
    exe.grad_dict["x"][:] = 7.0
    out = exe.forward(is_train=True, x=np.array([1.0, 200.0, 3.0]))[0]
    np.testing.assert_allclose(out.asnumpy(), 408.0)
    exe.backward()
    with pytest.raises(mx.MXNetError, match="input too large to differentiate"):
        exe.grad_dict["x"].asnumpy()
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [7.0, 7.0, 7.0])
    # good data again: the failed record was dropped, so the step records again, then replays
    for _ in range(2):
        exe.grad_dict["x"][:] = 7.0
        exe.forward(is_train=True, x=np.array([4.0, 5.0, 6.0]))
        exe.backward()
        np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [2.0, 2.0, 2.0])
    if mode == "replay":
        # eager, recorded, replayed; the forward error: replay failed, eager path; the backward
        # error: recorded (its backward half failed, nothing kept); then recorded and replayed
        assert exe.stats == {"eager": 2, "recorded": 3, "replayed": 2}
    # a backward error met by a replay: the step runs on the eager path, backward reports it
    out = exe.forward(is_train=True, x=np.array([1.0, 300.0, 3.0]))[0]
    np.testing.assert_allclose(out.asnumpy(), 608.0)
    exe.backward()
    with pytest.raises(mx.MXNetError, match="input too large to differentiate"):
        exe.grad_dict["x"].asnumpy()
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [2.0, 2.0, 2.0])


def test_a_backward_error_while_recording_is_reported_at_backward():
    exe = _picky_exe("replay")
    exe.forward(is_train=True, x=np.array([1.0, 2.0, 3.0]))
    exe.backward()
    exe.grad_dict["x"][:] = 7.0
    out = exe.forward(is_train=True, x=np.array([1.0, 200.0, 3.0]))[0]      # records: backward half fails
    assert exe.stats == {"eager": 1, "recorded": 1, "replayed": 0}
    np.testing.assert_allclose(out.asnumpy(), 408.0)
    exe.backward()
    with pytest.raises(mx.MXNetError, match="input too large to differentiate"):
        exe.grad_dict["x"].wait_to_read()
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [7.0, 7.0, 7.0])


# ------------------------------------------------------------------ the escape hatch
def test_execution_mode_comes_from_the_environment_and_is_checked(monkeypatch):
    monkeypatch.setenv("MSCUSTOM_MXNET_EXECUTION", "eager")
    exe = _mlp().simple_bind(mx.cpu(), data=(2, 4))
    assert exe.execution == "eager"
    for _ in range(3):
        exe.forward()
    assert exe.stats == {"eager": 3, "recorded": 0, "replayed": 0}
    with pytest.raises(ValueError, match=r"Executor.execution must be one of \['replay', 'eager'\], got 'graph'"):
        exe.execution = "graph"
    monkeypatch.setenv("MSCUSTOM_MXNET_EXECUTION", "fast")
    with pytest.raises(ValueError, match=r"MSCUSTOM_MXNET_EXECUTION must be one of \['replay', 'eager'\]"):
        _mlp().simple_bind(mx.cpu(), data=(2, 4))


@pytest.mark.parametrize("build, shape", [
    (lambda x: mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, stride=(2, 1), pad=(1, 1), name="c"), (2, 2, 5, 4)),
    (lambda x: mx.sym.Pooling(mx.sym.Activation(x, act_type="sigmoid"), kernel=(2, 2), stride=(2, 2),
                              pool_type="max"), (1, 2, 4, 4)),
    (lambda x: mx.sym.Flatten(mx.sym.Pooling(x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg")),
     (1, 1, 4, 3)),
    (lambda x: mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(x, num_hidden=2, name="fc"), name="lro"), (4, 3)),
    (lambda x: mx.sym.Group([mx.sym.exp(x) * 2.0, mx.sym.sum(mx.sym.square(x)), x]), (2, 3)),
])
def test_every_layer_replays_with_the_eager_outputs_and_gradients(build, shape):
    sym = build(mx.sym.Variable("x"))
    exes = {}
    for mode in EXECUTION_MODES:
        exes[mode] = sym.simple_bind(mx.cpu(), type_dict={"x": np.float64}, x=shape)
        exes[mode].execution = mode
        for k, a in exes[mode].arg_dict.items():
            a[:] = np.random.default_rng(len(k)).normal(size=a.shape)
    rng = np.random.default_rng(2)
    for _ in range(4):
        x = rng.normal(size=shape)
        for exe in exes.values():
            exe.forward(is_train=True, x=x)
            exe.backward()
        for o_e, o_r in zip(exes["eager"].outputs, exes["replay"].outputs):
            np.testing.assert_allclose(o_r.asnumpy(), o_e.asnumpy(), rtol=1e-12)
        for k, g in exes["eager"].grad_dict.items():
            np.testing.assert_allclose(exes["replay"].grad_dict[k].asnumpy(), g.asnumpy(), rtol=1e-12, atol=1e-14)
    assert exes["replay"].stats == {"eager": 1, "recorded": 1, "replayed": 2}
