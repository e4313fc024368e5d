"""Graph mode gives eager's results on the kinds of models the project trains.

Each case builds the same network twice from one seed, trains it a few steps
in PYNATIVE_MODE and in GRAPH_MODE on the same batches, and compares the loss
curve and the final parameters. Custom ops of every kernel kind sit inside
the networks, with their bprops or derived gradients.
"""

import math
import os

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops import CustomRegOp, DataType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AOT_LIB = os.path.join(ROOT, "aot_kernels", "build", "libkernels.so")


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


# ------------------------------------------------------------------ custom ops of each kind
def _silu_kernel(x, out):
    xs, os_ = x.reshape(-1), out.reshape(-1)
    for i in range(xs.size):
        os_[i] = xs[i] / (1.0 + math.exp(-xs[i]))


def _silu_grad_kernel(x, dout, dx):
    xs, ds, gs = x.reshape(-1), dout.reshape(-1), dx.reshape(-1)
    for i in range(xs.size):
        s = 1.0 / (1.0 + math.exp(-xs[i]))
        gs[i] = ds[i] * s * (1.0 + xs[i] * (1.0 - s))


def _f32(n_in, n_out):
    reg = CustomRegOp()
    for i in range(n_in):
        reg = reg.input(i, f"x{i}")
    for i in range(n_out):
        reg = reg.output(i, f"y{i}")
    return reg.dtype_format(*[DataType.F32_Default] * (n_in + n_out)).target("CPU").get_op_info()


def _jit_silu():
    grad = ops.Custom(_silu_grad_kernel, lambda x, d: x, lambda x, d: x, func_type="jit", reg_info=_f32(2, 1))
    return ops.Custom(_silu_kernel, lambda x: x, lambda x: x, func_type="jit", reg_info=_f32(1, 1),
                      bprop=lambda x, out, dout: (grad(x, dout),))


def _aot_bias_relu():
    grad = ops.Custom(f"{AOT_LIB}:CustomBiasAddReluGrad", lambda d, o: (d, [d[-1]]), lambda d, o: (d, d),
                      func_type="aot")
    return ops.Custom(f"{AOT_LIB}:CustomBiasAddRelu", lambda x, b: x, lambda x, b: x, func_type="aot",
                      bprop=lambda x, b, out, dout: grad(dout, out))


def _pyfunc_scale():
    return ops.Custom(lambda x: x * np.float32(0.5), lambda x: x, lambda x: x, func_type="pyfunc",
                      bprop=lambda x, out, dout: (dout * 0.5,))


class _CustomMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(12, 16)
        self.w2 = ms.Parameter(nn.initializer("he_uniform", (10, 16)), name="w2")
        self.b2 = ms.Parameter(nn.initializer("zeros", (10,)), name="b2")
        self.silu, self.bias_relu, self.scale = _jit_silu(), _aot_bias_relu(), _pyfunc_scale()
        self.fc3 = nn.Dense(10, 3)

    def construct(self, x):
        h = self.silu(self.fc1(x))
        h = self.bias_relu(ops.matmul(h, self.w2.T), self.b2)
        return self.fc3(self.scale(h))


# ------------------------------------------------------------------ the cases
def _mlp():
    return nn.SequentialCell(nn.Dense(12, 16), nn.GELU(), nn.Dense(16, 3)), (12,)


def _cnn():
    net = nn.SequentialCell(
        nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(4, 6, 3, pad_mode="valid"), nn.ReLU(), nn.AvgPool2d(2, 2), nn.Flatten(), nn.Dense(6, 3))
    return net, (1, 8, 8)


def _regularised():
    net = nn.SequentialCell(nn.Dense(12, 16), nn.LayerNorm((16,)), nn.Tanh(), nn.Dropout(p=0.3),
                            nn.Dense(16, 3))
    return net, (12,)


def _custom():
    return _CustomMLP(), (12,)


CASES = {
    "mlp-sgd-momentum": (_mlp, lambda p: nn.SGD(p, 0.05, momentum=0.9, nesterov=True),
                         lambda: nn.CrossEntropyLoss(label_smoothing=0.1)),
    "cnn-batchnorm-adam": (_cnn, lambda p: nn.Adam(p, 0.01),
                           lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
    "dropout-layernorm-adamw-schedule": (
        _regularised,
        lambda p: nn.AdamWeightDecay(p, nn.CosineDecayLR(0.001, 0.01, 4), weight_decay=0.01),
        lambda: nn.CrossEntropyLoss(weight=ms.Tensor(np.array([1.0, 2.0, 0.5], np.float32)), ignore_index=2)),
    "custom-kinds-rmsprop": (_custom, lambda p: nn.RMSProp(p, 0.01),
                             lambda: nn.CrossEntropyLoss()),
    "mlp-momentum-nll": (_mlp, lambda p: nn.Momentum(p, 0.05, 0.9),
                         lambda: _LogSoftmaxNLL()),
}


class _LogSoftmaxNLL(nn.Cell):
    def __init__(self):
        super().__init__()
        self.nll = nn.NLLLoss()

    def construct(self, logits, labels):
        return self.nll(ops.log_softmax(logits, 1), labels)


def _batches(shape, n=5, seed=2):
    rng = np.random.default_rng(seed)
    return [(ms.Tensor(rng.standard_normal((6,) + shape).astype(np.float32)),
             ms.Tensor(rng.integers(0, 3, 6).astype(np.int32))) for _ in range(n)]


def _train(case, mode):
    build, make_opt, make_loss = CASES[case]
    ms.set_context(mode=mode)
    ms.set_seed(5)
    net, shape = build()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, make_loss()), make_opt(net.trainable_params()))
    step.set_train()
    losses = [float(step(x, y).asnumpy()) for x, y in _batches(shape)]
    net.set_train(False)
    x, _ = _batches(shape, 1, seed=9)[0]
    predictions = net(x).asnumpy().copy()
    state = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    return losses, state, predictions, step


@pytest.mark.parametrize("case", sorted(CASES))
def test_training_in_graph_mode_matches_eager(case):
    e_loss, e_state, e_pred, _ = _train(case, ms.PYNATIVE_MODE)
    g_loss, g_state, g_pred, step = _train(case, ms.GRAPH_MODE)
    np.testing.assert_allclose(g_loss, e_loss, rtol=1e-5, atol=1e-6)
    assert g_state.keys() == e_state.keys()
    for name in e_state:
        np.testing.assert_allclose(g_state[name], e_state[name], rtol=1e-4, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(g_pred, e_pred, rtol=1e-4, atol=1e-6)
    assert step._graph_fn.stats["replayed"] == 4 and step._graph_fn.eager_reason is None


def test_model_train_in_graph_mode_matches_eager():
    from mscustom.dataset import NumpySlicesDataset
    from mscustom.train import Model

    def run(mode):
        ms.set_context(mode=mode)
        ms.set_seed(1)
        net, _ = _mlp()
        rng = np.random.default_rng(0)
        data = {"x": rng.standard_normal((40, 12)).astype(np.float32),
                "y": rng.integers(0, 3, 40).astype(np.int32)}
        ds = NumpySlicesDataset(data, shuffle=False).batch(8)
        model = Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), 0.01), metrics={"accuracy"})
        model.train(2, ds)
        return model.eval(ds)["accuracy"], [p.asnumpy().copy() for p in net.trainable_params()]

    e_acc, e_params = run(ms.PYNATIVE_MODE)
    g_acc, g_params = run(ms.GRAPH_MODE)
    assert g_acc == e_acc
    for a, b in zip(g_params, e_params):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_a_long_record_replays_without_name_clashes():
    """A record with ~100 steps (LeNet forward+backward): generated names of steps and values never clash."""
    import warnings

    from mscustom.graph import GraphFallbackWarning

    def run(mode):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.SequentialCell(
            nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(6, 8, 3, pad_mode="valid", has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
            nn.Dense(32, 3))
        net.set_train()
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
        loss_fn = nn.CrossEntropyLoss()
        step = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
        losses = []
        for x, y in _batches((1, 16, 16), n=4):
            loss, grads = step(x, y)
            opt(grads)
            losses.append(float(loss.asnumpy()))
        return losses

    eager = run(ms.PYNATIVE_MODE)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphFallbackWarning)
        graph = run(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
