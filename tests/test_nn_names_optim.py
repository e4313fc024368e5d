"""Optimizers AdaMax, ASGD, Rprop, ProximalAdagrad, LazyAdam, AdamOffload, AdaFactor (and weight decay with a loss scale): parameters after
three steps equal MindSpore 2.10's for the same gradients. Comments list MindSpore's state names."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

STEPS = [
    ('nn.AdaMax(params, learning_rate=0.01)', 3, [0.49042243, -0.99042243, 1.99042249, 0.10957759], [[0.27673298, -0.2], [1.52326703, -0.72326696]]),  # state: ['b', 'beta1_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.AdaMax(params, learning_rate=0.05, beta1=0.8, beta2=0.9, eps=1e-3, weight_decay=0.1, loss_scale=2.0)', 3, [0.42035896, -0.91908163, 1.90984607, 0.13117057], [[0.17232063, -0.06422456], [1.43979144, -0.76211458]]),  # state: ['b', 'beta1_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.ASGD(params, learning_rate=0.1)', 3, [0.47998524, -0.95997047, 1.93994105, 0.10999686], [[0.22665904, -0.19999401], [1.55495381, -0.7458114]]),  # state: ['ax_.b', 'ax_.w', 'b', 'eta_b', 'eta_w', 'global_step', 'learning_rate', 'mu_b', 'mu_w', 'w']
    ('nn.ASGD(params, learning_rate=0.2, lambd=0.1, alpha=0.5, t0=1.0, weight_decay=0.05)', 3, [0.41752064, -0.83504128, 1.7093116, 0.1109645], [[0.13412008, -0.1826999], [1.4751966, -0.72690576]]),  # state: ['ax_.b', 'ax_.w', 'b', 'eta_b', 'eta_w', 'global_step', 'learning_rate', 'mu_b', 'mu_w', 'w']
    ('nn.Rprop(params, learning_rate=0.1)', 3, [0.34999999, -0.84999996, 1.85000002, 0.25], [[-0.064, -0.2], [1.86400008, -1.06400001]]),  # state: ['b', 'global_step', 'learning_rate', 'prev.b', 'prev.w', 'step_size.b', 'step_size.w', 'w']
    ('nn.Rprop(params, learning_rate=0.3, etas=(0.3, 1.5), step_sizes=(0.01, 0.4))', 3, [0.10999998, -0.61000001, 1.61000001, 0.49000001], [[-0.80000001, -0.2], [2.60000014, -1.79999995]]),  # state: ['b', 'global_step', 'learning_rate', 'prev.b', 'prev.w', 'step_size.b', 'step_size.w', 'w']
    ('nn.ProximalAdagrad(params, learning_rate=0.1)', 3, [0.46025142, -0.94572246, 1.93490493, 0.12662797], [[0.16138624, -0.2], [1.62256432, -0.81100577]]),  # state: ['accum.b', 'accum.w', 'b', 'global_step', 'learning_rate', 'w']
    ('nn.ProximalAdagrad(params, accum=0.5, learning_rate=0.3, l1=0.2, l2=0.1)', 3, [0.1517536, -0.59484518, 1.5213083, 0.0], [[-0.0, -0.0], [1.31985581, -0.56946772]]),  # state: ['accum.b', 'accum.w', 'b', 'global_step', 'learning_rate', 'w']
    ('nn.ProximalAdagrad(params, learning_rate=0.3, l1=0.2)', 3, [0.0, -0.49341139, 1.5347116, 0.0], [[-0.0, 0.0], [1.47268522, -0.60254097]]),  # state: ['accum.b', 'accum.w', 'b', 'global_step', 'learning_rate', 'w']
    ('nn.LazyAdam(params, learning_rate=0.1)', 3, [0.40228665, -0.90228647, 1.90228653, 0.19771306], [[0.01946731, -0.2], [1.78053272, -0.98053259]]),  # state: ['b', 'beta1_power', 'beta2_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.LazyAdam(params, learning_rate=0.1, use_nesterov=True, weight_decay=0.01)', 3, [0.3225846, -0.82203662, 1.81987047, 0.26818314], [[-0.10373624, 0.07111815], [1.8971864, -1.09940016]]),  # state: ['b', 'beta1_power', 'beta2_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.Adam(params, learning_rate=0.05, weight_decay=0.1, loss_scale=2.0)', 3, [0.40658087, -0.9051798, 1.89266741, 0.12703283], [[0.15809017, -0.05369983], [1.41992235, -0.77323431]]),  # state: ['b', 'beta1_power', 'beta2_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.SGD(params, learning_rate=0.05, weight_decay=0.1, loss_scale=2.0)', 3, [0.48753738, -0.97507477, 1.95514953, 0.10100752], [[0.27731389, -0.19701499], [1.49126875, -0.70093274]]),  # state: ['accum.b', 'accum.w', 'b', 'global_step', 'learning_rate', 'momentum', 'stat.b', 'stat.w', 'w']
    ('nn.Momentum(params, 0.05, 0.9, weight_decay=0.1, loss_scale=4.0)', 3, [0.48365867, -0.96731734, 1.93701088, 0.09839513], [[0.27176166, -0.19441397], [1.47299933, -0.69286096]]),  # state: ['b', 'global_step', 'learning_rate', 'moments.b', 'moments.w', 'momentum', 'w']

    ('nn.AdamOffload(params, learning_rate=0.1)', 3, [0.40228665, -0.90228647, 1.90228653, 0.19771306], [[0.0194673, -0.2], [1.78053272, -0.98053253]]),  # state: ['b', 'beta1_power', 'beta2_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.AdamOffload(params, learning_rate=0.05, beta1=0.8, use_nesterov=True, weight_decay=0.1, loss_scale=2.0)', 3, [0.36747196, -0.86398077, 1.84632242, 0.15480405], [[0.11013243, -0.01304491], [1.36534548, -0.76778269]]),  # state: ['b', 'beta1_power', 'beta2_power', 'global_step', 'learning_rate', 'moment1.b', 'moment1.w', 'moment2.b', 'moment2.w', 'w']
    ('nn.AdaFactor(params)', 3, [0.49792355, -0.99792361, 1.99792349, 0.10207644], [[0.29573861, -0.2], [1.50327361, -0.70545614]]),  # state: ['b', 'exp_avg.b', 'exp_avg.w', 'exp_avg_sq_b', 'exp_avg_sq_col_b', 'exp_avg_sq_col_w', 'exp_avg_sq_row_b', 'exp_avg_sq_row_w', 'exp_avg_sq_w', 'global_step', 'learning_rate', 'step', 'w']
    ('nn.AdaFactor(params, beta1=None)', 3, [0.48844856, -0.9884485, 1.9884485, 0.11155146], [[0.27908334, -0.2], [1.51606858, -0.72678107]]),  # state: ['Parameter$1', 'b', 'exp_avg_sq_b', 'exp_avg_sq_col_b', 'exp_avg_sq_col_w', 'exp_avg_sq_row_b', 'exp_avg_sq_row_w', 'exp_avg_sq_w', 'global_step', 'learning_rate', 'step', 'w']
    ('nn.AdaFactor(params, warmup_init=True, weight_decay=0.1)', 3, [0.4999994, -0.99999905, 1.99999833, 0.10000015], [[0.29999921, -0.19999991], [1.49999976, -0.70000046]]),  # state: ['b', 'exp_avg.b', 'exp_avg.w', 'exp_avg_sq_b', 'exp_avg_sq_col_b', 'exp_avg_sq_col_w', 'exp_avg_sq_row_b', 'exp_avg_sq_row_w', 'exp_avg_sq_w', 'global_step', 'learning_rate', 'step', 'w']
    ('nn.AdaFactor(params, learning_rate=0.05, relative_step=False, scale_parameter=False, clip_threshold=0.5, decay_rate=0.6)', 3, [0.49547502, -0.99547499, 1.99547493, 0.10452499], [[0.2843914, -0.2], [1.5119909, -0.71998477]]),  # state: ['b', 'exp_avg.b', 'exp_avg.w', 'exp_avg_sq_b', 'exp_avg_sq_col_b', 'exp_avg_sq_col_w', 'exp_avg_sq_row_b', 'exp_avg_sq_row_w', 'exp_avg_sq_w', 'global_step', 'learning_rate', 'step', 'w']
    ('nn.AdaFactor(params, learning_rate=0.05, relative_step=False, eps=(1e-20, 1e-2))', 3, [0.48960093, -0.98960096, 1.9896009, 0.11039909], [[0.27866408, -0.2], [1.51639068, -0.72731787]]),  # state: ['b', 'exp_avg.b', 'exp_avg.w', 'exp_avg_sq_b', 'exp_avg_sq_col_b', 'exp_avg_sq_col_w', 'exp_avg_sq_row_b', 'exp_avg_sq_row_w', 'exp_avg_sq_w', 'global_step', 'learning_rate', 'step', 'w']
]


def _run(ctor, steps):
    w = ms.Parameter(ms.Tensor(np.array([0.5, -1.0, 2.0, 0.1], np.float32)), name="w")
    b = ms.Parameter(ms.Tensor(np.array([[0.3, -0.2], [1.5, -0.7]], np.float32)), name="b")
    opt = eval(ctor, {"nn": nn, "np": np, "ms": ms, "params": [w, b]})
    for k in range(steps):
        gw = np.array([0.1, -0.2, 0.3, -0.05], np.float32) * (k + 1) * (-1) ** k
        gb = np.array([[0.4, 0.0], [-0.3, 0.25]], np.float32) / (k + 1)
        opt((ms.Tensor(gw), ms.Tensor(gb)))
    return opt, w, b


@pytest.mark.parametrize("case", STEPS, ids=[c[0].split("(")[0] + str(i) for i, c in enumerate(STEPS)])
def test_optimizer_steps(case):
    ctor, steps, w_expected, b_expected = case
    _, w, b = _run(ctor, steps)
    np.testing.assert_allclose(w.asnumpy(), w_expected, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(b.asnumpy(), b_expected, rtol=1e-5, atol=2e-6)


def test_state_names_and_errors():
    opt, _, _ = _run("nn.ASGD(params)", 1)
    assert [p.name for p in opt.ax] == ["ax_.w", "ax_.b"] and [p.name for p in opt.eta] == ["eta_w", "eta_b"]
    assert [p.name for p in opt.mu] == ["mu_w", "mu_b"]
    opt, _, _ = _run("nn.Rprop(params)", 1)
    assert [p.name for p in opt.prev] == ["prev.w", "prev.b"] and opt.step_size[0].name == "step_size.w"
    opt, _, _ = _run("nn.AdaMax(params)", 1)
    assert [p.name for p in opt.moment2] == ["moment2.w", "moment2.b"]
    assert opt.checkpoint_scalars()["beta1_power"] == np.float32(0.9)
    opt, _, _ = _run("nn.ProximalAdagrad(params)", 1)
    assert opt.accum[1].name == "accum.b"
    with pytest.raises(ValueError, match="Rprop"):
        _run("nn.Rprop(params, etas=(1.5, 1.2))", 1)
    with pytest.raises(ValueError, match="AdaMax"):
        _run("nn.AdaMax(params, beta1=1.0)", 1)


def test_adafactor_state_names():
    opt, _, _ = _run("nn.AdaFactor(params)", 1)
    assert [p.name for p in opt.exp_avg] == ["exp_avg.w", "exp_avg.b"]
    assert [p.name for p in opt.exp_avg_sq_row] == ["exp_avg_sq_row_w", "exp_avg_sq_row_b"]
    assert opt.exp_avg_sq_col[1].shape == (2,) and opt.exp_avg_sq[0].shape == (4,) and opt.step.name == "afactor_step"
    with pytest.raises(ValueError, match="AdaFactor"):
        _run("nn.AdaFactor(params, learning_rate=0.1)", 1)
