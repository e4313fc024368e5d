"""ms.export(net, *inputs, file_name=..., file_format="ONNX"): the written model, run in onnxruntime, gives
the network's outputs; ops without an ONNX form and MindSpore's own formats are refused by name."""

import os

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(7)


def T(shape):
    return ms.Tensor(RNG.normal(size=shape).astype(np.float32))


def run_onnx(path, *inputs):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, {f"input_{k}": t.asnumpy() for k, t in enumerate(inputs)})


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.act = nn.HSwish()
        self.pool = nn.MaxPool2d(3, 2, pad_mode="pad", ceil_mode=True)
        self.avg = nn.AvgPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 2 * 2, 5)
        self.ln = nn.LayerNorm((5,))
        self.gelu = nn.GELU()
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        y = self.avg(self.pool(self.act(self.bn(self.conv(x)))))
        y = self.gelu(self.ln(self.drop(self.fc(self.flat(y)))))
        return ops.softmax(y, -1), ops.log_softmax(y, -1)[:, 1:4:2] * 2.0 + ops.tanh(y)[:, :2]


def test_conv_net_matches_onnxruntime(tmp_path):
    ms.set_seed(1)
    net = ConvNet()
    net.bn.moving_mean.set_data(T((4,)))
    net.bn.moving_variance.set_data(ms.Tensor(RNG.uniform(0.5, 2.0, 4).astype(np.float32)))
    net.set_train(False)
    x = T((2, 3, 8, 8))
    path = ms.export(net, x, file_name=str(tmp_path / "convnet"), file_format="ONNX")
    assert path == str(tmp_path / "convnet.onnx") and os.path.exists(path)
    model = onnx.load(path)
    assert model.opset_import[0].version == 17
    kinds = {n.op_type for n in model.graph.node}
    assert {"Conv", "MaxPool", "AveragePool", "Gemm", "Softmax", "LogSoftmax", "Slice"} <= kinds
    want = net(x)
    got = run_onnx(path, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.asnumpy(), rtol=1e-5, atol=1e-5)
    x2 = T((2, 3, 8, 8))                               # other values through the same file
    for g, w in zip(run_onnx(path, x2), net(x2)):
        np.testing.assert_allclose(g, w.asnumpy(), rtol=1e-5, atol=1e-5)


def test_recurrent_and_two_inputs(tmp_path):
    ms.set_seed(2)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)
            self.gru = nn.GRU(3, 4)
            self.fc = nn.Dense(8, 2)

        def construct(self, x, z):
            out, (h, c) = self.lstm(x)
            g, hg = self.gru(z)
            return self.fc(out[:, -1]) + ops.reduce_sum(hg, 0)[:, :2], ops.concat([h, c], 0)

    net = Net()
    x, z = T((2, 5, 3)), T((4, 2, 3))
    path = ms.export(net, x, z, file_name=str(tmp_path / "rnn.onnx"), file_format="ONNX")
    assert path.endswith("rnn.onnx") and not path.endswith(".onnx.onnx")
    for g, w in zip(run_onnx(path, x, z), net(x, z)):
        np.testing.assert_allclose(g, w.asnumpy(), rtol=1e-5, atol=1e-5)


def test_layers_of_this_release(tmp_path):
    net = nn.SequentialCell([nn.Upsample(size=(5, 7)), nn.ZeroPad2d((1, 0, 2, 1)), nn.Conv2d(2, 3, 3),
                             nn.PReLU(3), nn.AdaptiveAvgPool2d((2, 3)), nn.Mish(), nn.Flatten(), nn.Dense(18, 4),
                             nn.Hardtanh(), nn.Softsign()])
    x = T((2, 2, 3, 4))
    path = ms.export(net, x, file_name=str(tmp_path / "layers"), file_format="ONNX")
    np.testing.assert_allclose(run_onnx(path, x)[0], net(x).asnumpy(), rtol=1e-5, atol=1e-5)


def test_max_pool_indices(tmp_path):
    class Pool(nn.Cell):
        def construct(self, x):
            return ops.max_pool2d(x, 3, 2, padding=1, return_indices=True, ceil_mode=True)

    x = T((2, 3, 5, 6))
    path = ms.export(Pool(), x, file_name=str(tmp_path / "pool"), file_format="ONNX")
    values, indices = run_onnx(path, x)
    want_v, want_i = Pool()(x)
    np.testing.assert_allclose(values, want_v.asnumpy(), rtol=1e-6)
    assert indices.dtype == np.int64 and (indices == want_i.asnumpy()).all()


def test_refusals(tmp_path):
    net = nn.Dense(3, 2)
    x = T((1, 3))
    with pytest.raises(ValueError, match="file_format 'AIR' is MindSpore's Ascend format, which mscustom does not "
                                         "write; use file_format=\"MINDIR\""):
        ms.export(net, x, file_name=str(tmp_path / "a"), file_format="AIR")
    with pytest.raises(ValueError, match=r"For 'export', 'file_format' must be one of \['AIR', 'ONNX', 'MINDIR'\], "
                                         "but got FOO."):
        ms.export(net, x, file_name=str(tmp_path / "a"), file_format="FOO")

    def double(a):
        return a * 2

    custom = ops.Custom(double, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc")

    class WithCustom(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)

        def construct(self, x):
            return custom(self.fc(x))

    with pytest.raises(ValueError, match="ms.export: op 'double' is a Custom op .* and has no ONNX form"):
        ms.export(WithCustom(), x, file_name=str(tmp_path / "c"), file_format="ONNX")
    drop = nn.SequentialCell([nn.Dense(3, 2), nn.Dropout(p=0.5)])
    drop.set_train(True)
    with pytest.raises(ValueError, match=r"draws random numbers \(op 'dropout', such as Dropout in training; call "
                                         r"net.set_train\(False\) first\)"):
        ms.export(drop, x, file_name=str(tmp_path / "d"), file_format="ONNX")

    class Picks(nn.Cell):
        def construct(self, x):
            return x[0, [0, 2]]                 # an int and an array: one advanced index in NumPy

    with pytest.raises(ValueError, match="op 'getitem' .* has no ONNX form here"):
        ms.export(Picks(), T((2, 3)), file_name=str(tmp_path / "u"), file_format="ONNX")
    with pytest.raises(TypeError, match="give the network's example inputs as Tensors"):
        ms.export(net, file_name=str(tmp_path / "e"), file_format="ONNX")
    assert not any(p.suffix == ".onnx" for p in tmp_path.iterdir())
