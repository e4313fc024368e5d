"""BatchNorm in inference mode as one op (``ops/nn/batch_norm_infer.py``), and a graph replay's conv +
inference BatchNorm as one step (``graph_mode/kernels.py``; the direct loops apply it as they copy).

The op gives the composed form's bits, values and gradients (float32, float64, 2-D to 4-D); replays
give eager mode's bits through the direct loops and through im2col, read the running statistics
afresh at every replay, and keep the composed ops for exports and float16.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops.nn import batch_norm_infer, norm
from mscustom.testing import check_grad


def _composed(monkeypatch):
    monkeypatch.setattr(norm._bn_infer, "takes", lambda *arrays: False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(6, 5), (3, 5, 7), (2, 5, 4, 6)])
def test_the_op_gives_the_composed_forms_bits_and_gradients(monkeypatch, dtype, shape):
    rng = np.random.default_rng(sum(shape))
    x = ms.Tensor(rng.standard_normal(shape).astype(dtype) * 3)
    g, b = (ms.Tensor(rng.standard_normal(5).astype(dtype)) for _ in range(2))
    mean, var = ms.Tensor(rng.standard_normal(5).astype(dtype)), ms.Tensor(rng.random(5).astype(dtype) + 0.1)
    seed = ms.Tensor(rng.standard_normal(shape).astype(dtype))

    def run():
        y = ops.batch_norm(x, mean, var, g, b, training=False, eps=1e-3)
        grads = ms.grad(lambda x, g, b: (ops.batch_norm(x, mean, var, g, b, training=False, eps=1e-3) * seed
                                         ).sum(), (0, 1, 2))(x, g, b)
        return [y.asnumpy()] + [t.asnumpy() for t in grads]

    ops_seen = []
    real = batch_norm_infer.batch_norm_infer
    monkeypatch.setattr(norm._bn_infer, "batch_norm_infer", lambda *a: ops_seen.append(1) or real(*a))
    one_op = run()
    assert ops_seen
    _composed(monkeypatch)
    for got, want in zip(one_op, run()):
        assert np.array_equal(got, want)


def test_check_grad():
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((3, 2, 4)) * 2)
    g, b = ms.Tensor(rng.standard_normal(2)), ms.Tensor(rng.standard_normal(2))
    mean, var = ms.Tensor(rng.standard_normal(2)), ms.Tensor(rng.random(2) + 0.5)
    check_grad(lambda a, k, c: ops.batch_norm(a, mean, var, k, c, training=False) ** 3, x, g, b,
               rtol=1e-5, atol=1e-6)


def test_shape_and_dtype_errors_name_the_op():
    x = ms.Tensor(np.zeros((2, 3, 4), np.float32))
    c3, c4 = ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="batch_norm_infer.*gamma must have shape \\[3\\]"):
        batch_norm_infer.batch_norm_infer(x, c4, c3, c3, c3, 1e-5)
    with pytest.raises(TypeError, match="batch_norm_infer.*float32 or float64"):
        batch_norm_infer.batch_norm_infer(x, c3, c3, c3, ms.Tensor(np.ones(3)), 1e-5)


class _ConvBN(nn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


def _net(rng, cin, cout):
    net = _ConvBN(cin, cout)
    net.bn.moving_mean.set_data(ms.Tensor(rng.standard_normal(cout).astype(np.float32)))
    net.bn.moving_variance.set_data(ms.Tensor(rng.random(cout).astype(np.float32) + 0.5))
    net.bn.gamma.set_data(ms.Tensor(rng.standard_normal(cout).astype(np.float32)))
    net.bn.beta.set_data(ms.Tensor(rng.standard_normal(cout).astype(np.float32)))
    net.set_train(False)
    return net


@pytest.mark.parametrize("hw", [16, 6])          # 256 positions: the direct loops; 36: im2col, then the op's pass
def test_replayed_conv_and_inference_batch_norm_are_one_step_with_eager_bits(hw):
    from mscustom.ops.graph_mode import kernels
    rng = np.random.default_rng(hw)
    net = _net(rng, 5, 6)
    x = ms.Tensor(rng.standard_normal((3, 5, hw, hw)).astype(np.float32))
    calls = []
    real = kernels._conv2d_bn_infer_into
    try:
        kernels._CONSUMERS["conv2d"]["batch_norm_infer"] = (None, lambda *a, **k: calls.append(1) or real(*a, **k),
                                                            True)
        kernels.install()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = net(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = [net(x).asnumpy() for _ in range(3)]
        assert calls, "the replay did not run conv2d and the BatchNorm as one step"
        for g in graph:
            assert np.array_equal(g, eager)
        # the running statistics are read at every replay: changed in place, the next replay follows
        net.bn.moving_mean.set_data(net.bn.moving_mean + 1.0)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager2 = net(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        assert np.array_equal(net(x).asnumpy(), eager2) and not np.array_equal(eager2, eager)
    finally:
        kernels._CONSUMERS["conv2d"]["batch_norm_infer"] = (None, real, True)
        kernels.install()
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_float16_and_exports_keep_the_composed_ops(monkeypatch):
    c = np.ones(3, np.float32)
    assert not batch_norm_infer.takes(np.zeros((2, 3, 4), np.float16), c, c, c, c)     # dtypes differ
    assert not batch_norm_infer.takes(np.zeros((2, 3, 4), np.float16), *(c.astype(np.float16),) * 4)
    assert batch_norm_infer.takes(np.zeros((2, 3, 4), np.float32), c, c, c, c)
    seen = []
    monkeypatch.setattr(norm._bn_infer, "batch_norm_infer", lambda *a: seen.append(1))
    monkeypatch.setattr(norm, "_exporting", lambda: True)           # MindIR / ONNX captures read the composed ops
    net = nn.BatchNorm2d(3)
    net.set_train(False)
    y = net(ms.Tensor(np.ones((2, 3, 4, 4), np.float32)))
    assert not seen and np.allclose(y.asnumpy(), 1 / np.sqrt(1 + 1e-5))
