"""Checkpoints move between MindSpore 2.10 and mscustom: parameter names, shapes and order, and the
optimizer state that lets a resumed run continue its learning-rate schedule and Adam's bias correction.

``tests/data/ms210_*.ckpt`` were written by real MindSpore 2.10 (CPU): ``ms210_conv1d_adam_step4.ckpt``
by ``ModelCheckpoint`` after 4 steps of ``Model.train`` of the network below with
``nn.Adam(learning_rate=nn.ExponentialDecayLR(0.1, 0.5, 1))`` on ``_data()``, and
``ms210_batchnorm2d.ckpt`` by ``ms.save_checkpoint`` of a standalone ``nn.BatchNorm2d(3)`` with moving
mean [0.5, 1, 1.5] and variance [2, 3, 4]. The expected values are MindSpore's.
"""

import os

import numpy as np
import pytest

import mscustom as ms
from mscustom import dataset as ds
from mscustom import nn
from mscustom.train import CheckpointConfig, Model, ModelCheckpoint

DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.mark.parametrize("make,want", [
    (lambda: nn.Conv1d(2, 3, 3, has_bias=True), [["weight", [3, 2, 1, 3], True], ["bias", [3], True]]),
    (lambda: nn.BatchNorm2d(3), [["mean", [3], False], ["variance", [3], False], ["gamma", [3], True],
                                 ["beta", [3], True]]),
    (lambda: nn.BatchNorm1d(3), [["mean", [3], False], ["variance", [3], False], ["gamma", [3], True],
                                 ["beta", [3], True]]),
    (lambda: nn.SequentialCell([nn.Conv1d(1, 2, 3), nn.BatchNorm1d(2)]),
     [["0.weight", [2, 1, 1, 3], True], ["1.moving_mean", [2], False], ["1.moving_variance", [2], False],
      ["1.gamma", [2], True], ["1.beta", [2], True]]),
    (lambda: nn.SequentialCell([nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)]),
     [["0.weight", [2, 1, 3, 3], True], ["1.moving_mean", [2], False], ["1.moving_variance", [2], False],
      ["1.gamma", [2], True], ["1.beta", [2], True]]),
])
def test_parameter_names_shapes_and_order(make, want):
    assert [[p.name, list(p.shape), p.requires_grad] for p in make().get_parameters()] == want


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3, pad_mode="valid", has_bias=True, weight_init="ones", bias_init="zeros")
        self.fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(self.conv(x).mean(-1))


def _data():
    rs = np.random.RandomState(0)
    x, y = rs.randn(8, 2, 5).astype(np.float32), rs.randn(8, 2).astype(np.float32)

    def gen():
        for i in range(4):
            yield x[2 * i:2 * i + 2], y[2 * i:2 * i + 2]
    return ds.GeneratorDataset(gen, ["x", "y"], shuffle=False)


def _make():
    net = _Net()
    return net, nn.Adam(net.trainable_params(), learning_rate=nn.ExponentialDecayLR(0.1, 0.5, 1))


# MindSpore 2.10 after 8 steps (4, a checkpoint, 4 more)
_CONV_ROW = [[0.8320586681365967, 0.8296805620193481, 0.8297807574272156],
             [0.8662493824958801, 0.8263015747070312, 1.0679597854614258]]
_FC_W = [[0.8280547857284546] * 3, [0.8267724514007568] * 3]
_FC_B = [-0.13923360407352448, -0.1370195895433426]


def _check_after_8(net):
    np.testing.assert_allclose(net.conv.weight.asnumpy(), np.array([[[r] for r in _CONV_ROW]] * 3)
                               .reshape(3, 2, 1, 3), rtol=2e-5)
    np.testing.assert_allclose(net.fc.weight.asnumpy(), _FC_W, rtol=2e-5)
    np.testing.assert_allclose(net.fc.bias.asnumpy(), _FC_B, rtol=2e-5)


def test_resume_from_a_mindspore_checkpoint_continues_schedule_and_bias_correction():
    d = ms.load_checkpoint(os.path.join(DATA, "ms210_conv1d_adam_step4.ckpt"))
    net, opt = _make()
    assert ms.load_param_into_net(net, d)[0] == []
    not_loaded, unused = ms.load_param_into_net(opt, d)
    assert not_loaded == [] and unused == []                # MindSpore's result too
    assert opt.global_step == 4
    Model(net, nn.MSELoss(), opt).train(1, _data())
    _check_after_8(net)


def test_model_checkpoint_holds_mindspores_entries_and_resumes(tmp_path):
    net, opt = _make()
    ckpt = ModelCheckpoint(prefix="m", directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=4))
    Model(net, nn.MSELoss(), opt).train(1, _data(), callbacks=[ckpt])
    mine = ms.load_checkpoint(str(tmp_path / "m-1_4.ckpt"))
    theirs = ms.load_checkpoint(os.path.join(DATA, "ms210_conv1d_adam_step4.ckpt"))
    assert list(mine) == list(theirs)
    for name in theirs:
        a, b = mine[name].asnumpy(), theirs[name].asnumpy()
        assert a.shape == b.shape and a.dtype == b.dtype, name
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-7, err_msg=name)
    assert mine["global_step"].asnumpy().tolist() == [4]
    np.testing.assert_allclose(mine["beta1_power"].asnumpy(), 0.9 ** 4, rtol=1e-6)
    net2, opt2 = _make()
    ms.load_param_into_net(net2, mine)
    ms.load_param_into_net(opt2, mine)
    Model(net2, nn.MSELoss(), opt2).train(1, _data())
    _check_after_8(net2)


def test_momentum_and_sgd_scalars_are_checkpointed(tmp_path):
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    ms.save_checkpoint(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt), str(tmp_path / "t.ckpt"))
    d = ms.load_checkpoint(str(tmp_path / "t.ckpt"))
    # MindSpore 2.10's entries for the same TrainOneStepCell, in its order
    assert list(d) == ["weight", "bias", "global_step", "learning_rate", "momentum", "moments.weight",
                       "moments.bias"]
    assert d["learning_rate"].shape == () and d["momentum"].asnumpy().dtype == np.float32
    sgd = nn.SGD(nn.Dense(3, 2).trainable_params(), learning_rate=0.5, momentum=0.8)
    d["learning_rate"] = ms.Parameter(ms.Tensor(np.float32(0.25)), name="learning_rate")
    d["global_step"] = ms.Parameter(ms.Tensor(np.array([7], np.int32)), name="global_step")
    ms.load_param_into_net(sgd, d)
    assert sgd.global_step == 7 and sgd.get_lr().item() == 0.25 and sgd.momentum == pytest.approx(0.9)


def test_standalone_batchnorm_checkpoint_from_mindspore():
    bn = nn.BatchNorm2d(3)
    assert ms.load_param_into_net(bn, ms.load_checkpoint(os.path.join(DATA, "ms210_batchnorm2d.ckpt"))) == ([], [])
    assert bn.moving_mean.asnumpy().tolist() == [0.5, 1.0, 1.5]
    assert bn.moving_variance.asnumpy().tolist() == [2.0, 3.0, 4.0]
