"""WithGradCell, ForwardValueAndGrad, ParameterUpdate (values are MindSpore 2.10's for the same calls), the loss
scale update Cells (MindSpore's scale sequence) and TrainOneStepWithLossScaleCell (MindSpore 2.10 cannot run it
on CPU: it needs NPUGetFloatStatusV2; checked against its documented semantics)."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

X = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
Y = np.array([[1.0], [0.2]], np.float32)


def _net():
    return nn.Dense(2, 1, weight_init=ms.Tensor(np.array([[0.5, -0.25]], np.float32)),
                    bias_init=ms.Tensor(np.array([0.1], np.float32)))


def _close(got, exp):
    np.testing.assert_allclose(np.asarray(got.asnumpy() if isinstance(got, ms.Tensor) else got), exp, rtol=1e-6,
                               atol=1e-7)


def test_with_grad_cell_and_forward_value_and_grad():
    x, y = ms.Tensor(X), ms.Tensor(Y)
    g = nn.WithGradCell(_net(), nn.MSELoss())(x, y)
    _close(g[0], [[-0.6999999284744263, -2.200000047683716]])
    _close(g[1], [-0.4999999403953552])
    g = nn.WithGradCell(_net())(x)
    _close(g[0], [[1.5, 1.0]])
    _close(g[1], [2.0])
    wl = nn.WithLossCell(_net(), nn.MSELoss())
    loss, g = nn.ForwardValueAndGrad(wl, weights=wl.trainable_params(), get_by_list=True)(x, y)
    _close(loss, 0.48499998450279236)
    _close(g[0], [[-0.6999999284744263, -2.200000047683716]])
    loss, g = nn.ForwardValueAndGrad(wl, get_all=True)(x, y)
    _close(g[0], [[-0.44999998807907104, 0.22499999403953552], [0.20000001788139343, -0.10000000894069672]])
    _close(g[1], [[0.8999999761581421], [-0.40000003576278687]])
    loss, g = nn.ForwardValueAndGrad(wl)(x, y)
    _close(g, [[-0.44999998807907104, 0.22499999403953552], [0.20000001788139343, -0.10000000894069672]])
    net = _net()
    out, (gi, gw) = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_all=True, get_by_list=True,
                                           sens_param=True)(x, ms.Tensor(np.array([[2.0], [-1.0]], np.float32)))
    _close(out, [[0.10000000149011612], [0.6000000238418579]])
    _close(gi[0], [[1.0, -0.5], [-0.5, 0.25]])
    _close(gw[0], [[1.5, 5.0]])
    _close(gw[1], [1.0])
    with pytest.raises(TypeError, match="ForwardValueAndGrad"):
        nn.ForwardValueAndGrad(wl, get_by_list=True)


def test_parameter_update():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    out = nn.ParameterUpdate(p)(ms.Tensor(np.array([3.0, 4.0], np.float32)))
    _close(out, [3.0, 4.0])
    _close(p, [3.0, 4.0])
    with pytest.raises(ValueError, match="ParameterUpdate"):
        nn.ParameterUpdate(p)(ms.Tensor(np.ones(3, np.float32)))


def test_dynamic_and_fixed_update_cells():
    u = nn.DynamicLossScaleUpdateCell(2 ** 4, 2, 3)
    assert [n for n, _ in u.parameters_and_names()] == ["cur_iter", "last_overflow_iter"]
    assert u.get_loss_scale() == 16
    s = ms.Parameter(ms.Tensor(16.0, ms.float32), name="s")
    seq = []
    for ov in [False, False, False, True, False, True, True, False, False, False]:
        r = u(s, ms.Tensor(ov))
        seq.append((float(s.asnumpy()), bool(r.asnumpy())))
    # MindSpore 2.10 (CPU), the same calls
    assert seq == [(16.0, False), (16.0, False), (32.0, False), (16.0, True), (16.0, False), (8.0, True), (4.0, True),
                   (4.0, False), (4.0, False), (8.0, False)]
    f = nn.FixedLossScaleUpdateCell(8.0)
    assert bool(f(s, ms.Tensor(True)).asnumpy()) and f.get_loss_scale() == 8.0 and float(s.asnumpy()) == 8.0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_train_one_step_with_loss_scale():
    net = _net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt,
                                            scale_sense=ms.Tensor(np.full((1,), 8.0), ms.float32))
    loss, overflow, scale = step(ms.Tensor(X), ms.Tensor(Y))
    _close(loss, 0.48499998450279236)
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()[0]) == 8.0
    # the gradients are unscaled: the same update as plain SGD
    _close(net.weight, [[0.5 + 0.07, -0.25 + 0.22]])
    _close(net.bias, [0.1 + 0.05])
    # an overflowing step is skipped and the dynamic scale halves
    net = _net()
    upd = nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2, 2)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                            scale_sense=upd)
    names = [n for n, _ in step.parameters_and_names()]
    assert "scale_sense" in names and "loss_scaling_manager.cur_iter" in names
    bad = ms.Tensor(np.array([[np.inf, 1.0], [0.5, -1.0]], np.float32))
    _, overflow, scale = step(bad, ms.Tensor(Y))
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1024.0
    assert float(step.scale_sense.asnumpy()) == 512.0
    _close(net.weight, [[0.5, -0.25]])
    for _ in range(2):
        step(ms.Tensor(X), ms.Tensor(Y))
    assert float(step.scale_sense.asnumpy()) == 1024.0                   # grown after 2 finite steps
    step.set_sense_scale(ms.Tensor(4.0, ms.float32))
    assert float(step.scale_sense.asnumpy()) == 4.0
    with pytest.raises(TypeError, match="TrainOneStepWithLossScaleCell"):
        nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()), 2.0)
