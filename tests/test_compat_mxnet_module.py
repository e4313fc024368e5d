"""mx.mod.Module and its helpers: NDArrayIter, metrics, initializers, optimizers, the .params format, the seed MLP."""

import logging
import struct

import numpy as np
import pytest

from mscustom.compat import mxnet as mx


# ------------------------------------------------------------------ NDArrayIter
def _labels(it):
    return [(b.label[0].asnumpy().tolist(), b.pad) for b in it]


def test_ndarrayiter_last_batch_handling():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.arange(5, dtype=np.float32)
    pad = mx.io.NDArrayIter(x, y, batch_size=2)
    assert _labels(pad) == [([0, 1], 0), ([2, 3], 0), ([4, 0], 1)]
    assert pad.provide_data[0].name == "data" and pad.provide_data[0].shape == (2, 2)
    assert pad.provide_label[0].name == "softmax_label" and pad.provide_label[0].shape == (2,)
    pad.reset()
    assert len(list(pad)) == 3
    assert _labels(mx.io.NDArrayIter(x, y, 2, last_batch_handle="discard")) == [([0, 1], 0), ([2, 3], 0)]
    roll = mx.io.NDArrayIter(x, y, 2, last_batch_handle="roll_over", label_name="lab")
    assert roll.provide_label[0].name == "lab"
    assert _labels(roll) == [([0, 1], 0), ([2, 3], 0)]
    roll.reset()
    assert _labels(roll) == [([4, 0], 0), ([1, 2], 0), ([3, 4], 0)]          # the leftover starts the next epoch
    shuffled = mx.io.NDArrayIter(x, y, 5, shuffle=True)
    b = next(iter(shuffled))
    np.testing.assert_array_equal(b.data[0].asnumpy()[:, 0] / 2, b.label[0].asnumpy())   # pairs stay together
    with pytest.raises(ValueError, match="last_batch_handle must be"):
        mx.io.NDArrayIter(x, y, 2, last_batch_handle="wrap")
    with pytest.raises(ValueError, match="'softmax_label' has 4 samples, 'data' has 5"):
        mx.io.NDArrayIter(x, y[:4], 2)


# ------------------------------------------------------------------ metrics
def test_metrics_against_hand_computed_values():
    probs = mx.nd.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    labels = mx.nd.array([1, 1, 1])
    acc = mx.metric.create("acc")
    acc.update([labels], [probs])
    assert acc.get() == ("accuracy", pytest.approx(2 / 3))
    ce = mx.metric.CrossEntropy()
    ce.update([labels], [probs])
    assert ce.get()[1] == pytest.approx(-np.mean(np.log([0.9, 0.2, 0.7]) + 0.0), rel=1e-6)
    both = mx.metric.create(["acc", "ce"])
    both.update([labels], [probs])
    assert dict(both.get_name_value())["accuracy"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown metric 'f7'"):
        mx.metric.create("f7")


# ------------------------------------------------------------------ initializers and optimizers
def test_initializers_follow_mxnet_rules():
    mx.random.seed(0)
    w = mx.nd.zeros((50, 20))
    mx.init.Xavier()("fc_weight", w)
    scale = np.sqrt(3.0 / ((20 + 50) / 2))
    assert np.abs(w.asnumpy()).max() <= scale and np.abs(w.asnumpy()).max() > 0.9 * scale
    u = mx.nd.zeros((100,))
    mx.init.Uniform(0.5)("x_weight", u)
    assert np.abs(u.asnumpy()).max() <= 0.5 and u.asnumpy().std() > 0.2
    n = mx.nd.zeros((2000,))
    mx.init.Normal(0.3)("x_weight", n)
    assert n.asnumpy().std() == pytest.approx(0.3, rel=0.1)
    b, g = mx.nd.ones((3,)), mx.nd.zeros((3,))
    mx.init.Xavier()("fc_bias", b)
    mx.init.Xavier()("bn_gamma", g)
    assert b.asnumpy().tolist() == [0, 0, 0] and g.asnumpy().tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="Unknown initialization pattern for mystery"):
        mx.init.Uniform()("mystery", mx.nd.zeros((2,)))


def test_sgd_with_momentum_and_wd_and_adam_by_hand():
    w0, g = np.array([1.0, -2.0]), np.array([0.5, 0.25])
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5,
                              param_idx2name={0: "fc_weight", 1: "fc_bias"})
    upd = mx.optimizer.get_updater(opt)
    w, b = mx.nd.array(w0, dtype=np.float64), mx.nd.array(w0, dtype=np.float64)
    mom = np.zeros(2)
    wexp = w0.copy()
    for _ in range(2):
        upd(0, mx.nd.array(g, dtype=np.float64), w)
        upd(1, mx.nd.array(g, dtype=np.float64), b)
        mom = 0.9 * mom - 0.1 * (0.5 * g + 0.01 * wexp)
        wexp = wexp + mom
    np.testing.assert_allclose(w.asnumpy(), wexp)
    bexp = w0 - 0.1 * 0.5 * g                                       # no wd on a bias (MXNet's wd_mult)
    bexp = bexp - 0.9 * 0.1 * 0.5 * g - 0.1 * 0.5 * g
    np.testing.assert_allclose(b.asnumpy(), bexp)
    adam = mx.optimizer.Adam(learning_rate=0.01)
    upd = mx.optimizer.get_updater(adam)
    w = mx.nd.array(w0, dtype=np.float64)
    upd(0, mx.nd.array(g, dtype=np.float64), w)
    m, v = 0.1 * g, 0.001 * g * g
    lr = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(w.asnumpy(), w0 - lr * m / (np.sqrt(v) + 1e-8))
    with pytest.raises(ValueError, match="unknown optimizer 'lbfgs'"):
        mx.optimizer.create("lbfgs")


# ------------------------------------------------------------------ the .params format
def _expected_bytes(named):
    """MXNet's NDArray list layout, written out field by field from MXNet's NDArray::Save."""
    out = struct.pack("<QQ", 0x112, 0) + struct.pack("<Q", len(named))
    for _, a in named:
        flag = {np.dtype("float32"): 0, np.dtype("float64"): 1, np.dtype("int64"): 6}[a.dtype]
        out += struct.pack("<I", 0xF993FAC9) + struct.pack("<i", 0)                 # magic v2, default stype
        out += struct.pack("<I", a.ndim) + b"".join(struct.pack("<q", d) for d in a.shape)
        out += struct.pack("<ii", 1, 0) + struct.pack("<i", flag) + a.tobytes()    # cpu(0), type flag, data
    out += struct.pack("<Q", len(named))
    for name, _ in named:
        out += struct.pack("<Q", len(name)) + name.encode()
    return out


def test_nd_save_writes_mxnets_layout_and_loads_it_back(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.5, -2.0], np.float64)
    i = np.array([7], np.int64)
    path = tmp_path / "x.params"
    mx.nd.save(str(path), {"arg:w": mx.nd.array(w), "arg:b": mx.nd.array(b, dtype=np.float64),
                           "aux:i": mx.nd.array(i, dtype=np.int64)})
    assert path.read_bytes() == _expected_bytes([("arg:w", w), ("arg:b", b), ("aux:i", i)])
    back = mx.nd.load(str(path))
    assert list(back) == ["arg:w", "arg:b", "aux:i"]
    np.testing.assert_array_equal(back["arg:w"].asnumpy(), w)
    assert back["arg:b"].dtype is np.float64 and back["aux:i"].dtype is np.int64
    mx.nd.save(str(path), [mx.nd.array(w)])
    assert isinstance(mx.nd.load(str(path)), list)
    (tmp_path / "bad.params").write_bytes(b"\x00" * 16)
    with pytest.raises(mx.MXNetError, match="is not an MXNet NDArray file"):
        mx.nd.load(str(tmp_path / "bad.params"))
    (tmp_path / "short.params").write_bytes(_expected_bytes([("w", w)])[:40])
    with pytest.raises(mx.MXNetError, match="ends early"):
        mx.nd.load(str(tmp_path / "short.params"))


# ------------------------------------------------------------------ Module
def _toy(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    x = (np.eye(3)[y] @ rng.normal(0, 2, (3, 5)) + 0.3 * rng.normal(0, 1, (n, 5))).astype(np.float32)
    return x, y.astype(np.float32)


def _net():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, name="fc1", num_hidden=8)
    act = mx.sym.Activation(fc, act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(act, name="fc2", num_hidden=3), name="softmax")


def test_module_fit_score_predict_and_checkpoints(tmp_path, caplog):
    mx.random.seed(1)
    x, y = _toy()
    it = mx.io.NDArrayIter(x, y, batch_size=16, shuffle=True)
    mod = mx.mod.Module(_net(), context=mx.cpu())
    prefix = str(tmp_path / "toy")
    with caplog.at_level(logging.INFO):
        mod.fit(it, eval_data=mx.io.NDArrayIter(x, y, 16), optimizer="adam",
                optimizer_params={"learning_rate": 0.05}, initializer=mx.init.Xavier(), num_epoch=6,
                batch_end_callback=mx.callback.Speedometer(16, 2), epoch_end_callback=mx.callback.do_checkpoint(prefix))
    assert "Validation-accuracy" in caplog.text and "samples/sec" in caplog.text
    assert dict(mod.score(mx.io.NDArrayIter(x, y, 16), "acc"))["accuracy"] > 0.9
    pred = mod.predict(mx.io.NDArrayIter(x, y, 16))
    assert pred.shape == (120, 3)                                   # padding of the last batch removed
    np.testing.assert_allclose(pred.asnumpy().sum(1), 1.0, rtol=1e-5)
    arg, aux = mod.get_params()
    assert sorted(arg) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"] and aux == {}
    sym, arg2, _ = mx.model.load_checkpoint(prefix, 6)
    assert sym.list_arguments() == _net().list_arguments()
    for k in arg:
        np.testing.assert_array_equal(arg2[k].asnumpy(), arg[k].asnumpy())
    fresh = mx.mod.Module(sym)
    fresh.bind(data_shapes=[("data", (16, 5))], label_shapes=[("softmax_label", (16,))], for_training=False)
    fresh.set_params(arg2, {})
    np.testing.assert_allclose(fresh.predict(mx.io.NDArrayIter(x, y, 16)).asnumpy(), pred.asnumpy(), rtol=1e-6)


def test_module_step_by_step_uses_rescale_grad_of_one_over_batch():
    x, y = _toy(8)
    mod = mx.mod.Module(_net())
    mod.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(mx.init.Uniform(0.1))
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    before = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    mod.forward(batch, is_train=True)
    mod.backward()
    grad = mod._exec.grad_dict["fc2_bias"].asnumpy()
    mod.update()
    after = mod.get_params()[0]
    np.testing.assert_allclose(after["fc2_bias"].asnumpy(), before["fc2_bias"] - grad / 8, rtol=1e-5)
    assert mod.output_shapes == [("softmax_output", (8, 3))]
    with pytest.raises(mx.MXNetError, match="kvstore 'dist_sync' is not supported"):
        mod.init_optimizer(kvstore="dist_sync", force_init=True)


@pytest.fixture
def registry_restored():
    """The example registers MXNet's own op name 'softmax'; put back what other tests registered."""
    from mscustom.compat.mxnet import _prop
    saved = dict(_prop._PROPS)
    yield
    _prop._PROPS.clear()
    _prop._PROPS.update(saved)


def test_seed_program_mxnet_custom_softmax_mlp_on_digits(registry_restored):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "examples" / "mxnet_custom_softmax.py"
    spec = importlib.util.spec_from_file_location("mxnet_custom_softmax", path)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    acc, source = ex.train(epochs=6, limit=900)
    assert acc >= (0.85 if source == "digits" else 0.8), (acc, source)
