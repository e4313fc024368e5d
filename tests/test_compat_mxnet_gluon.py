"""Gluon on the MXNet front end, against values taken from real MXNet 1.9.1 (written here as literals).

Each expected value below came from running the same program on MXNet 1.9.1
with only the import changed (same inputs, same initial weights).
"""

import importlib.util
import os
import re
from pathlib import Path

import numpy as np
import pytest

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet import autograd, gluon, nd

ROOT = Path(__file__).resolve().parents[1]


def _close(got, want, rtol=1e-5, atol=5e-6):
    """float32 results to MXNet's within a few float32 roundings (log_softmax differs there by ~3e-6)."""
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    np.testing.assert_allclose(got, np.asarray(want, dtype=np.float64), rtol=rtol, atol=atol)


# ------------------------------------------------------------------ names, repr, deferred shapes
def test_global_names_count_per_class_and_params_take_the_prefix():
    a, b = gluon.nn.Dense(5), gluon.nn.Dense(5, in_units=3)
    na, nb = int(re.fullmatch(r"dense(\d+)", a.name).group(1)), int(re.fullmatch(r"dense(\d+)", b.name).group(1))
    assert nb == na + 1 and a.prefix == a.name + "_"
    assert list(a.collect_params().keys()) == [f"{a.name}_weight", f"{a.name}_bias"]
    assert a.weight.shape == (5, 0) and b.weight.shape == (5, 3) and a.bias.shape == (5,)
    assert repr(a) == "Dense(None -> 5, linear)"
    assert repr(a.collect_params()) == (f"{a.name}_ (\n  Parameter {a.name}_weight (shape=(5, 0), dtype=float32)\n"
                                        f"  Parameter {a.name}_bias (shape=(5,), dtype=float32)\n)")


def test_name_scope_prefixes_children_and_repr_matches_mxnet():
    seq = gluon.nn.Sequential(prefix="seq_")
    with seq.name_scope():
        seq.add(gluon.nn.Dense(4, activation="relu"), gluon.nn.Dense(2))
    assert list(seq.collect_params().keys()) == ["seq_dense0_weight", "seq_dense0_bias", "seq_dense1_weight",
                                                 "seq_dense1_bias"]
    assert repr(seq) == "Sequential(\n  (0): Dense(None -> 4, Activation(relu))\n  (1): Dense(None -> 2, linear)\n)"
    seq.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="Please pass one batch of data through the network"):
        seq[0].weight.data()
    assert seq(nd.ones((2, 3))).shape == (2, 2)
    assert seq[0].weight.shape == (4, 3) and seq[0].bias.data().asnumpy().tolist() == [0.0, 0.0, 0.0, 0.0]
    w = seq[0].weight.data().asnumpy()
    assert np.abs(w).max() <= 0.07 and np.abs(w).max() > 0       # mx.init.Uniform() by default


def test_layer_reprs_and_parameter_names():
    c = gluon.nn.Conv2D(4, (3, 3), strides=2, padding=1, in_channels=2, activation="relu", prefix="c_")
    assert c.weight.shape == (4, 2, 3, 3)
    assert repr(c) == "Conv2D(2 -> 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), Activation(relu))"
    assert repr(gluon.nn.Conv2D(4, 3)) == "Conv2D(None -> 4, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(gluon.nn.MaxPool2D()) == ("MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False, "
                                          "global_pool=False, pool_type=max, layout=NCHW)")
    bn = gluon.nn.BatchNorm(prefix="bn_")
    assert repr(bn) == ("BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, "
                        "in_channels=None)")
    assert list(bn.collect_params().keys()) == ["bn_gamma", "bn_beta", "bn_running_mean", "bn_running_var"]
    assert (bn.running_mean.grad_req, bn.gamma.grad_req) == ("null", "write")
    assert repr(gluon.nn.Dropout(0.5)) == "Dropout(p = 0.5, axes=())"
    assert repr(gluon.nn.Flatten()) == "Flatten" and repr(gluon.nn.Activation("tanh")) == "Activation(tanh)"
    assert list(gluon.nn.Dense(2, in_units=2, use_bias=False, prefix="myfc_").collect_params().keys()) == ["myfc_weight"]
    d = gluon.nn.Dense(2, flatten=False)
    d.initialize()
    assert d(nd.ones((2, 3, 4))).shape == (2, 3, 2) and d.weight.shape == (2, 4)
    d = gluon.nn.Dense(2)
    d.initialize()
    assert d(nd.ones((2, 3, 4))).shape == (2, 2) and d.weight.shape == (2, 12)


# ------------------------------------------------------------------ Parameter and ParameterDict
def test_parameter_api_and_errors():
    p = gluon.Parameter("w", shape=(2, 3))
    assert (p.name, p.grad_req, p.lr_mult, p.wd_mult, p.init) == ("w", "write", 1.0, 1.0, None)
    p.initialize(init=mx.init.Constant(2.0), ctx=mx.cpu())
    assert p.data().asnumpy().tolist() == [[2.0] * 3] * 2 and p.grad().asnumpy().tolist() == [[0.0] * 3] * 2
    assert p.list_ctx() == [mx.cpu()] and len(p.list_data()) == 1
    with pytest.warns(UserWarning, match="Parameter 'w' is already initialized, ignoring"):
        p.initialize()
    p.initialize(init="ones", force_reinit=True)
    assert p.data().asnumpy().tolist() == [[1.0] * 3] * 2
    with pytest.raises(RuntimeError, match="Parameter 'q' has not been initialized"):
        gluon.Parameter("q", shape=(2,)).data()
    p.grad_req = "null"
    with pytest.raises(RuntimeError, match="Cannot get gradient array for Parameter 'w' because grad_req='null'"):
        p.grad()
    with pytest.raises(ValueError, match="Cannot initialize Parameter 'v' because it has invalid shape"):
        gluon.Parameter("v", shape=(2, 0)).initialize()
    with pytest.raises(ValueError, match="init must be an mx.init.Initializer or one of"):
        gluon.Parameter("u", shape=(2,)).initialize(init="bogus")
    pd = gluon.ParameterDict("pre_")
    a = pd.get("a", shape=(2,))
    assert a.name == "pre_a" and pd.get("a") is a and list(pd.keys()) == ["pre_a"]
    with pytest.raises(AssertionError, match="desired '\\(3,\\)' vs stored '\\(2,\\)'"):
        pd.get("a", shape=(3,))


def test_block_params_by_attribute_and_hybrid_symbol():
    class Net(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.fc = gluon.nn.Dense(3, in_units=2)
                self.scale = self.params.get("scale", shape=(3,), init=mx.init.One())

        def hybrid_forward(self, F, x, scale):
            return F.broadcast_mul(F.relu(self.fc(x)), scale)

    net = Net(prefix="net0_")
    assert list(net.collect_params().keys()) == ["net0_scale", "net0_dense0_weight", "net0_dense0_bias"]
    assert list(net._reg_params) == ["scale"]
    assert repr(net) == "Net(\n  (fc): Dense(2 -> 3, linear)\n)"
    net.initialize()
    s = net(mx.sym.var("data"))
    assert isinstance(s, mx.sym.Symbol)
    assert s.list_arguments() == ["data", "net0_dense0_weight", "net0_dense0_bias", "net0_scale"]


# ------------------------------------------------------------------ hybridize: graph-mode replay
def test_hybridize_replays_outside_record_and_matches_imperative():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, in_units=3, activation="relu"), gluon.nn.Dense(2, in_units=4))
    net.initialize(mx.init.Xavier())
    x = nd.array(np.random.default_rng(0).normal(size=(5, 3)))
    want = net(x).asnumpy()
    net.hybridize()
    for _ in range(3):
        _close(net(x), want)
    assert net._graph.stats == {"recorded": 1, "replayed": 2, "eager": 0}
    net[0].weight.set_data(net[0].weight.data().asnumpy() * 2)       # replays read the parameters afresh
    net.hybridize(False)
    want2 = net(x).asnumpy()
    net.hybridize()
    net(x)
    _close(net(x), want2)
    x.attach_grad()
    with autograd.record():                                           # under record: op by op on the tape
        y = net(x)
    y.backward()
    assert net[0].weight.grad().asnumpy().any()


# ------------------------------------------------------------------ losses (MXNet 1.9.1's values)
PRED = [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]


def test_softmax_cross_entropy_loss_matches_mxnet():
    L = gluon.loss.SoftmaxCrossEntropyLoss()
    assert repr(L) == "SoftmaxCrossEntropyLoss(batch_axis=0, w=None)"
    assert (L._sparse_label, L._axis, L._weight, L._batch_axis, L._from_logits) == (True, -1, None, 0, False)
    pred, lab = nd.array(PRED), nd.array([1, 2])
    _close(L(pred, lab), [0.4643663763999939, 0.07077132165431976])
    _close(gluon.loss.SoftmaxCrossEntropyLoss(weight=2.0)(pred, lab), [0.9287327527999878, 0.14154264330863953])
    _close(L(pred, lab, nd.array([[0.5], [2.0]])), [0.23218318819999695, 0.14154264330863953])
    _close(gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)(pred, nd.array([[0, 1, 0], [0.5, 0, 0.5]])),
           [0.4643663763999939, 1.5207712650299072])
    _close(gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True)(nd.log_softmax(pred), lab),
           [0.4643663763999939, 0.07077132165431976])
    p3 = nd.array(np.arange(24).reshape(2, 3, 4) / 10.0)
    _close(L(p3, nd.array([[0, 1, 2], [3, 0, 1]])), [1.4425344467163086, 1.4092011451721191])
    _close(gluon.loss.SoftmaxCrossEntropyLoss(axis=1)(p3, nd.array([[0, 1, 2, 0], [2, 0, 1, 1]])),
           [1.2512505054473877, 1.1512504816055298])
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with autograd.record():
        loss = L(nd.dot(x, nd.array([[1., 0., 1.], [0., 1., 1.]])), nd.array([0, 2]))
    loss.backward()
    _close(x.grad, [[-0.2447267770767212, 0.9099714159965515], [-0.04660990089178085, -0.01714501529932022]])


def test_l2_loss_matches_mxnet():
    L2 = gluon.loss.L2Loss()
    assert repr(L2) == "L2Loss(batch_axis=0, w=1.0)"
    pred = nd.array(PRED)
    _close(L2(pred, nd.zeros((2, 3))), [0.875, 1.6683334112167358])
    _close(gluon.loss.L2Loss(weight=3.0)(pred, nd.ones((2, 3))), [0.625, 4.40500020980835])
    _close(L2(nd.array([1., 2.]), nd.array([0., 0.])), [0.5, 2.0])
    _close(L2(nd.array([[1.], [2.]]), nd.array([0., 0.])), [0.5, 2.0])
    _close(gluon.loss.L2Loss(batch_axis=1)(pred, nd.zeros((2, 3))), [0.2524999976158142, 1.25, 2.3125])
    with pytest.raises(ValueError, match="cannot be reshaped to the prediction's shape"):
        L2(pred, nd.zeros((4,)))


# ------------------------------------------------------------------ Trainer
X4 = [[1., 2., 3.], [0.5, -1., 2.], [1., 1., 1.], [-1., 0., 2.]]
W0 = [[0.1, -0.2, 0.3], [0.0, 0.5, -0.1]]


def _dense_with_w0():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.weight.set_data(nd.array(W0))
    return net


def test_trainer_sgd_momentum_wd_rescales_by_batch_size():
    net = _dense_with_w0()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    assert tr.learning_rate == 0.1 and tr.optimizer.rescale_grad == 1.0
    L = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(3):
        with autograd.record():
            loss = L(net(nd.array(X4)), nd.array([0, 1, 1, 0]))
        loss.backward()
        tr.step(4)
        losses.append(loss.mean().asscalar())
    assert tr.optimizer.rescale_grad == 0.25
    _close(losses, [0.87204885, 0.83897394, 0.7801658])
    _close(net.weight.data(), [[0.0033809803426265717, -0.00796990841627121, 0.310014933347702],
                               [0.09605832397937775, 0.3062880039215088, -0.11113636940717697]])
    _close(net.bias.data(), [-0.061234667897224426, 0.06123445928096771])      # wd reaches biases too, as Gluon


def test_trainer_adam_and_l2_sgd_match_mxnet():
    net = _dense_with_w0()
    tr = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    L = gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(3):
        with autograd.record():
            loss = L(net(nd.array(X4)), nd.array([0, 1, 1, 0]))
        loss.backward()
        tr.step(4)
    _close(net.weight.data(), [[0.06999270617961884, -0.17002315819263458, 0.3277042508125305],
                               [0.030007289722561836, 0.47002315521240234, -0.1277046501636505]])
    _close(net.bias.data(), [-0.030036162585020065, 0.030036162585020065])
    net = _dense_with_w0()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    target = nd.array([[1., 0.], [0., 1.], [1., 1.], [0., 0.]])
    losses = []
    for _ in range(3):
        with autograd.record():
            loss = gluon.loss.L2Loss()(net(nd.array(X4)), target)
        loss.backward()
        tr.step(4)
        losses.append(loss.asnumpy())
    _close(losses, [[0.16249999403953552, 0.9031250476837158, 0.25, 0.07249999791383743],
                    [0.17258858680725098, 0.791507363319397, 0.22806592285633087, 0.05800794064998627],
                    [0.18904700875282288, 0.6123543381690979, 0.19353294372558594, 0.03961177170276642]])
    _close(net.weight.data(), [[0.18358589708805084, -0.038530901074409485, 0.24947993457317352],
                               [0.035081587731838226, 0.3241462707519531, 0.02953454852104187]])
    _close(net.bias.data(), [-0.010859496891498566, 0.11104679107666016])
    assert gluon.Trainer(net.collect_params(), "sgd").learning_rate == 0.01
    tr.set_learning_rate(0.5)
    assert tr.learning_rate == 0.5


def test_trainer_refuses_stale_gradients_and_bad_arguments():
    net, other = _dense_with_w0(), _dense_with_w0()
    tr = gluon.Trainer(list(net.collect_params().values()) + list(other.collect_params().values()), "sgd")
    with autograd.record():
        loss = net(nd.ones((1, 3))).sum()
    loss.backward()
    with pytest.raises(UserWarning, match=f"Gradient of Parameter `{other.weight.name}` on context cpu\\(0\\) has "
                                          "not been updated by backward since last `step`"):
        tr.step(1)
    before = other.weight.data().asnumpy()
    tr.step(1, ignore_stale_grad=True)
    assert np.array_equal(other.weight.data().asnumpy(), before)
    assert not np.allclose(net.weight.data().asnumpy(), W0)
    with pytest.raises(UserWarning, match="has not been updated by backward"):
        tr.step(1)                                   # stepped already: the gradients are stale again
    with pytest.raises(ValueError, match="First argument must be a list or dict of Parameters, got <class 'int'>"):
        gluon.Trainer(3, "sgd")
    with pytest.raises(ValueError, match="optimizer_params must be None if optimizer is an instance of Optimizer"):
        gluon.Trainer(net.collect_params(), mx.optimizer.SGD(), {"learning_rate": 0.1})


# ------------------------------------------------------------------ data
def test_array_dataset_and_dataloader_match_mxnet():
    ds = gluon.data.ArrayDataset(np.arange(10).reshape(5, 2).astype("float32"), np.arange(5))
    assert len(ds) == 5 and ds[1][0].tolist() == [2.0, 3.0] and ds[1][1] == 1
    batches = list(gluon.data.DataLoader(ds, batch_size=2))
    assert [[type(t).__name__ for t in b] for b in batches] == [["NDArray", "NDArray"]] * 3
    assert [t.dtype for t in batches[0]] == [np.float32, np.int64]
    assert [[t.asnumpy().tolist() for t in b] for b in batches] == [
        [[[0.0, 1.0], [2.0, 3.0]], [0, 1]], [[[4.0, 5.0], [6.0, 7.0]], [2, 3]], [[[8.0, 9.0]], [4]]]
    for last, n, epochs in (("keep", 3, [[[0, 1], [2, 3], [4]]] * 2), ("discard", 2, [[[0, 1], [2, 3]]] * 2),
                            ("rollover", 2, [[[0, 1], [2, 3]], [[4, 0], [1, 2], [3, 4]]])):
        dl = gluon.data.DataLoader(ds, batch_size=2, last_batch=last)
        assert len(dl) == n
        assert [[b[1].asnumpy().tolist() for b in dl] for _ in range(2)] == epochs
    single = gluon.data.ArrayDataset(nd.arange(6).reshape((3, 2)))
    assert [b.shape for b in gluon.data.DataLoader(single, batch_size=2)] == [(2, 2), (1, 2)]
    assert gluon.data.ArrayDataset([1, 2, 3], [4, 5, 6])[1] == (2, 5)
    with pytest.raises(AssertionError, match="all arrays must have the same length; array 0 has length 3"):
        gluon.data.ArrayDataset(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="last_batch must be one of 'keep', 'discard', or 'rollover'"):
        gluon.data.DataLoader(ds, batch_size=2, last_batch="foo")


def test_dataloader_shuffle_follows_numpy_global_seed_as_mxnet():
    np.random.seed(0)
    ds = gluon.data.ArrayDataset(np.arange(7, dtype=np.float32), np.arange(7) * 10)
    first = [b[1].asnumpy().tolist() for b in gluon.data.DataLoader(ds, batch_size=3, shuffle=True)]
    second = [b[1].asnumpy().tolist() for b in gluon.data.DataLoader(ds, batch_size=3, shuffle=True)]
    assert first == [[60, 20, 10], [30, 0, 50], [40]]
    assert second == [[10, 0, 60], [30, 40, 20], [50]]


# ------------------------------------------------------------------ layers: BatchNorm, Dropout, nd ops
def test_batchnorm_matches_mxnet_and_updates_running_stats_in_backward():
    bn = gluon.nn.BatchNorm(in_channels=2)
    bn.initialize()
    x = nd.array(np.arange(16).reshape(2, 2, 2, 2) / 4.0)
    _close(bn(x), np.arange(16).reshape(2, 2, 2, 2) / 4.0 / np.sqrt(1 + 1e-5))
    x.attach_grad()
    with autograd.record():
        y = bn(x)
        s = (y * nd.array(np.arange(16).reshape(2, 2, 2, 2))).sum()
    assert bn.running_mean.data().asnumpy().tolist() == [0.0, 0.0]      # not in the forward ...
    s.backward()                                                        # ... but in the backward, as MXNet
    _close(y.asnumpy().ravel(), [-1.3242381811141968, -1.0834676027297974, -0.842697024345398, -0.6019264459609985,
                                 -1.3242381811141968, -1.0834676027297974, -0.842697024345398, -0.6019264459609985,
                                 0.6019264459609985, 0.842697024345398, 1.0834676027297974, 1.3242381811141968,
                                 0.6019264459609985, 0.842697024345398, 1.0834676027297974, 1.3242381811141968])
    _close(bn.running_mean.data(), [0.13750003278255463, 0.23750005662441254])
    _close(bn.running_var.data(), [1.0078125, 1.0078125])
    # dy is affine in x per channel, so dx is only the epsilon's trace (a cancellation): within 1e-6 of MXNet's
    _close(x.grad.asnumpy().ravel(), [
        -4.9597212637308985e-05, -4.04125421482604e-05, -3.145748996757902e-05, -2.227282129751984e-05,
        -4.9597212637308985e-05, -4.04125421482604e-05, -3.1227871659211814e-05, -2.2043204808142036e-05,
        2.2043204808142036e-05, 3.1227871659211814e-05, 4.04125421482604e-05, 4.9597212637308985e-05,
        2.2043204808142036e-05, 3.1227871659211814e-05, 4.04125421482604e-05, 4.9597212637308985e-05],
        rtol=0, atol=1e-6)
    _close(bn.gamma.grad(), [33.226341247558594, 33.226341247558594])
    _close(bn.beta.grad(), [44.0, 76.0])
    bn2 = gluon.nn.BatchNorm()
    bn2.initialize()
    with autograd.record():
        y = bn2(nd.array([[1., 2.], [3., 5.], [0., 1.]]))
    _close(y, [[-0.2672603726387024, -0.39223164319992065], [1.3363016843795776, 1.3728104829788208],
               [-1.0690414905548096, -0.9805790185928345]])
    y.backward()
    _close(bn2.running_mean.data(), [0.13333337008953094, 0.2666667401790619])
    _close(bn2.running_var.data(), [1.0555555820465088, 1.1888890266418457])
    with autograd.record(train_mode=False):
        y = bn2(nd.array([[1., 2.], [3., 5.], [0., 1.]]))
    assert y.shape == (3, 2)


def test_dropout_only_while_training():
    d = gluon.nn.Dropout(0.5)
    assert d(nd.ones((2, 4))).asnumpy().tolist() == [[1.0] * 4] * 2
    with autograd.record():
        z = d(nd.ones((2000,))).asnumpy()
    assert sorted(set(z.tolist())) == [0.0, 2.0] and 0.4 < (z == 0).mean() < 0.6
    with autograd.record():
        z = gluon.nn.Dropout(0.5, axes=(1,))(nd.ones((50, 6))).asnumpy()
    assert all(len(set(row.tolist())) == 1 for row in z)          # one mask value per row: shared along axis 1


def test_nd_layer_ops_match_mxnet():
    x = nd.array(np.arange(8).reshape(2, 4) / 4.0)
    assert nd.pick(x, nd.array([1, 3]), axis=1).asnumpy().tolist() == [0.25, 1.75]
    assert nd.pick(x, nd.array([5, -1]), axis=1).asnumpy().tolist() == [0.75, 1.0]
    assert nd.FullyConnected(x, nd.ones((3, 4)), nd.array([1, 2, 3]), num_hidden=3).asnumpy().tolist() == \
        [[2.5, 3.5, 4.5], [6.5, 7.5, 8.5]]
    _close(nd.BatchNorm(x, nd.array([2., 2., 2., 2.]), nd.zeros(4), nd.zeros(4), nd.ones(4)),
           [[0.0, 0.24987509846687317, 0.49975019693374634, 0.7496253252029419],
            [0.9995003938674927, 1.2493754625320435, 1.4992506504058838, 1.7491257190704346]])
    assert nd.mean(nd.array([1., 2.]), axis=0, exclude=True).asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="mx.nd.FullyConnected: input 'weight' is missing"):
        nd.FullyConnected(x, num_hidden=3)
    with pytest.raises(ValueError, match="op 'BatchNorm': gamma must have shape \\[4\\]"):
        nd.BatchNorm(x, nd.ones(3), nd.zeros(4), nd.zeros(4), nd.ones(4))


# ------------------------------------------------------------------ a small CNN trained as in MXNet
CNN_LOSSES = [0.9920008182525635, 0.632756233215332, 0.53581303358078, 0.4491267502307892]
CNN_PRED = [[0.41942501068115234, -0.31582799553871155, -1.0860910415649414],
            [-0.06835400313138962, 0.7596279978752136, -0.01846900023519993],
            [-1.4737939834594727, -0.8018069863319397, 1.965973973274231],
            [-0.5026959776878357, 0.5303369760513306, -0.6240540146827698],
            [0.5674149990081787, -0.43336498737335205, -1.1652870178222656],
            [-1.4555399417877197, -0.929967999458313, 1.5099979639053345]]
CNN_RUNNING = ([0.07958793640136719, 0.09770061075687408, 0.09662193804979324, 0.08172501623630524],
               [0.6964896321296692, 0.7200567126274109, 0.7049400806427002, 0.7012693285942078])


@pytest.mark.parametrize("hybrid", [False, True])
def test_cnn_conv_batchnorm_pool_dense_adam_matches_mxnet(hybrid):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(4, 3, padding=1, activation="relu"), gluon.nn.BatchNorm(), gluon.nn.MaxPool2D(),
            gluon.nn.Flatten(), gluon.nn.Dense(8, activation="tanh"), gluon.nn.Dense(3))
    net.initialize()
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (6, 2, 6, 6)).astype(np.float32)
    y = np.array([0, 1, 2, 1, 0, 2], np.float32)
    net(nd.array(x[:1]))                              # completes the deferred shapes
    r = np.random.RandomState(2)
    for p in net.collect_params().values():
        if p.name.endswith("weight"):
            p.set_data(nd.array(r.normal(0, 0.3, p.shape).astype(np.float32)))
    if hybrid:
        net.hybridize()
    tr = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05, "wd": 0.001})
    L = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(4):
        with autograd.record():
            loss = L(net(nd.array(x)), nd.array(y))
        loss.backward()
        tr.step(6)
        losses.append(loss.mean().asscalar())
    _close(losses, CNN_LOSSES, rtol=2e-5)
    _close(net(nd.array(x)), CNN_PRED, rtol=1e-4, atol=2e-5)
    _close(net(nd.array(x)), CNN_PRED, rtol=1e-4, atol=2e-5)          # hybridized: this one is a replay
    _close(net[1].running_mean.data(), CNN_RUNNING[0], rtol=1e-5)
    _close(net[1].running_var.data(), CNN_RUNNING[1], rtol=1e-5)
    if hybrid:
        assert net._graph.stats["replayed"] >= 1
        assert net._cached.disabled is None                # training steps: forward and backward replayed
        assert net._cached.stats["backward"]["replayed"] == 3 and net._cached.stats["forward"]["replayed"] == 3


# ------------------------------------------------------------------ the custom-op tutorial's dense layer
def _tutorial():
    spec = importlib.util.spec_from_file_location("mxnet_gluon_custom_dense",
                                                  ROOT / "examples" / "mxnet_gluon_custom_dense.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TUTORIAL_LOSSES = [1.616821050643921, 1.4650921821594238, 1.177411675453186, 1.1669042110443115,
                   1.3608096837997437, 1.244778037071228, 0.9135246276855469, 0.9919611811637878]
TUTORIAL_W = [[-0.5349767804145813, -0.4511837065219879, -0.4817661941051483],
              [0.8484402298927307, -0.23484596610069275, -0.5906147956848145],
              [0.2666965425014496, 1.3124045133590698, 0.324390709400177],
              [0.3686409592628479, 0.04710792750120163, 0.5139089822769165]]


def test_tutorial_custom_dense_trains_as_in_mxnet():
    tut = _tutorial()
    losses, net = tut.train(steps=8)
    _close(losses, TUTORIAL_LOSSES, rtol=5e-6)
    _close(net.weight.data(), TUTORIAL_W, rtol=1e-5)
    assert losses[-1] < losses[0]
    hybrid, hnet = tut.train(tut.HybridCustomDense, steps=8, hybridize=True)
    _close(hybrid, TUTORIAL_LOSSES, rtol=5e-6)
    assert hnet._cached.stats == {"forward": {"recorded": 1, "replayed": 7, "eager": 0},
                                  "backward": {"recorded": 1, "replayed": 7, "eager": 0}}
    losses, _ = tut.train(steps=6, lr=0.1, batch_size=5)
    _close(losses, [1.5068933963775635, 1.874595284461975, 1.417849063873291, 1.1709978580474854,
                    1.3664076328277588, 1.1697546243667603], rtol=5e-6)
    x = nd.array(np.ones((2, 3), np.float32))
    want = hnet(x).asnumpy()                     # hybridized, outside record: recorded, then replayed
    _close(hnet(x), want)
    assert hnet._graph.stats["replayed"] >= 1


def test_save_and_load_parameters_use_structural_names():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(3, in_units=2), gluon.nn.Dense(1, in_units=3))
    net.initialize()
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"gluon_{os.getpid()}.params")
    try:
        net.save_parameters(path)
        assert sorted(nd.load(path).keys()) == ["0.bias", "0.weight", "1.bias", "1.weight"]
        other = gluon.nn.HybridSequential()
        other.add(gluon.nn.Dense(3, in_units=2), gluon.nn.Dense(1, in_units=3))
        other.load_parameters(path)
        _close(other[0].weight.data(), net[0].weight.data().asnumpy())
        single = gluon.nn.Dense(2, in_units=3, prefix="fc_")
        single.initialize()
        single.save_parameters(path)
        assert sorted(nd.load(path).keys()) == ["bias", "weight"]              # as MXNet 1.9.1
        again = gluon.nn.Dense(2, in_units=3, prefix="other_")
        again.load_parameters(path)                                            # no '.': matched under its prefix
        _close(again.weight.data(), single.weight.data().asnumpy())
        single.collect_params().save(path, strip_prefix="fc_")
        assert sorted(nd.load(path).keys()) == ["bias", "weight"]
        net.save_parameters(path)
        with pytest.raises(AssertionError, match="is missing in file"):
            bigger = gluon.nn.HybridSequential()
            bigger.add(gluon.nn.Dense(3, in_units=2), gluon.nn.Dense(1, in_units=3), gluon.nn.Dense(1, in_units=1))
            bigger.load_parameters(path)
    finally:
        if os.path.exists(path):
            os.remove(path)


# ------------------------------------------------------------------ hybridized training: one taped node, two replays
def _dropout_net(hybrid):
    import mscustom as ms
    mx.random.seed(3)
    ms.set_seed(3)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dropout(0.4), gluon.nn.BatchNorm(),
            gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    x = nd.array(np.random.RandomState(0).normal(size=(8, 5)))
    y = nd.array(np.arange(8) % 3)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05})
    losses = []
    for i in range(5):
        if i == 1 and hybrid:
            net.hybridize()
            loss_fn.hybridize()
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(8)
        losses.append(loss.asnumpy())
    return net, losses


def test_hybridized_training_equals_op_by_op_with_dropout_and_batchnorm():
    eager, want = _dropout_net(False)
    net, got = _dropout_net(True)
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-6, atol=1e-7)   # same masks, same steps
    np.testing.assert_allclose(net[2].running_var.data().asnumpy(), eager[2].running_var.data().asnumpy(),
                               rtol=1e-6)
    assert net._cached.stats["backward"]["replayed"] == 3 and net._cached.disabled is None


def test_hybridized_dropout_gradient_uses_the_mask_of_its_own_forward():
    d = gluon.nn.Dropout(0.5)
    d.hybridize()
    for _ in range(4):
        x = nd.ones((40,))
        x.attach_grad()
        with autograd.record():
            z = d(x)
        z.backward()
        assert np.array_equal(z.asnumpy(), x.grad.asnumpy())       # d(sum z)/dx = mask / (1 - p) = z here
    assert d._cached.stats["backward"]["replayed"] == 3


def test_hybridized_block_called_twice_before_one_backward():
    def run(hybrid):
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize()
        net.weight.set_data(nd.array(W0))
        if hybrid:
            net.hybridize()
        for _ in range(2):
            a, b = nd.array(X4[:2]), nd.array(X4[2:])
            with autograd.record():
                loss = (net(a) * net(b)).sum() + net(a).sum()
            loss.backward()
        return net.weight.grad().asnumpy(), net.bias.grad().asnumpy(), net
    we, be, _ = run(False)
    wh, bh, net = run(True)
    np.testing.assert_allclose(wh, we, rtol=1e-6)
    np.testing.assert_allclose(bh, be, rtol=1e-6)
    assert net._cached.stats["backward"]["replayed"] >= 3


def test_hybridized_block_whose_python_reads_values_runs_on_the_tape():
    class SignGate(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * 2 if x.sum().asscalar() > 0 else x * 3

    from mscustom.graph import GraphFallbackWarning

    blk = SignGate()
    blk.hybridize()
    for sign, factor in ((1, 2.0), (-1, 3.0), (1, 2.0), (-1, 3.0)):
        x = nd.array([sign * 1.0, 0.5])
        x.attach_grad()
        if blk._cached is None:
            with pytest.warns(GraphFallbackWarning, match="a traced tensor's value was read into Python"):
                with autograd.record():
                    y = blk(x)
        else:
            with autograd.record():
                y = blk(x)
        y.backward()
        assert x.grad.asnumpy().tolist() == [factor, factor]
        assert y.asnumpy().tolist() == [sign * factor, 0.5 * factor]
    assert "cannot be replayed faithfully" in blk._cached.disabled


def test_deferred_shapes_of_a_user_block_come_from_its_symbol_graph():
    class MyDense(gluon.HybridBlock):
        def __init__(self, units, **kw):
            super().__init__(**kw)
            self.units = units
            self.weight = self.params.get("weight", shape=(units, 0), allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(units,), init="zeros")

        def hybrid_forward(self, F, x, weight, bias):
            return F.FullyConnected(x, weight, bias, num_hidden=self.units)

    b = MyDense(3, prefix="my_")
    b.initialize()
    assert b(nd.ones((2, 5))).shape == (2, 3) and b.weight.shape == (3, 5)      # as MXNet 1.9.1

    class Bad(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.w = self.params.get("w", shape=(0,), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.broadcast_mul(x, w)

    c = Bad(prefix="bad_")
    c.initialize()
    with pytest.raises(ValueError, match="Deferred initialization failed because shape cannot be inferred.*"
                                         "\n\tbad_w: \\(0,\\)"):
        c(nd.ones((2, 5)))
