"""Optimizers (AdamWeightDecay, AdamW, RMSProp, Adagrad), parameter groups, learning-rate kinds and
schedules, each against a NumPy reimplementation of MindSpore's documented formula."""

import math

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

STEPS = 4


def make(rng, shapes=((3, 2), (2,)), names=("w", "b")):
    return [ms.Parameter(ms.Tensor(rng.normal(size=s).astype(np.float64)), name=n) for s, n in zip(shapes, names)]


def run_and_compare(opt_factory, reference, rng, shapes=((3, 2), (2,)), names=("w", "b"), rtol=1e-10):
    params = make(rng, shapes, names)
    start = [p.asnumpy().copy() for p in params]
    grads = [[rng.normal(size=p.shape) for p in params] for _ in range(STEPS)]
    opt = opt_factory(params)
    for gs in grads:
        assert opt(tuple(ms.Tensor(g) for g in gs)) is True
    want = reference(start, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=rtol, atol=1e-12, err_msg=p.name)
    return opt


# ------------------------------------------------------------------ update rules
def test_adam_weight_decay_matches_mindspore_formula(rng):
    lr, b1, b2, eps, wd = 0.01, 0.8, 0.9, 1e-6, 0.1

    def ref(ps, grads):
        ms_ = [np.zeros_like(p) for p in ps]
        vs = [np.zeros_like(p) for p in ps]
        for gs in grads:
            for k, g in enumerate(gs):
                ms_[k] = b1 * ms_[k] + (1 - b1) * g
                vs[k] = b2 * vs[k] + (1 - b2) * g * g
                ps[k] = ps[k] - lr * (ms_[k] / (np.sqrt(vs[k]) + eps) + wd * ps[k])
        return ps
    run_and_compare(lambda ps: nn.AdamWeightDecay(ps, learning_rate=lr, beta1=b1, beta2=b2, eps=eps,
                                                  weight_decay=wd), ref, rng)


@pytest.mark.parametrize("amsgrad,maximize", [(False, False), (True, False), (False, True)])
def test_adamw_matches_mint_formula(amsgrad, maximize, rng):
    lr, b1, b2, eps, wd = 0.01, 0.9, 0.99, 1e-8, 0.05

    def ref(ps, grads):
        m = [np.zeros_like(p) for p in ps]
        v = [np.zeros_like(p) for p in ps]
        vmax = [np.zeros_like(p) for p in ps]
        for t, gs in enumerate(grads, start=1):
            for k, g in enumerate(gs):
                g = -g if maximize else g
                ps[k] = ps[k] - lr * wd * ps[k]
                m[k] = b1 * m[k] + (1 - b1) * g
                v[k] = b2 * v[k] + (1 - b2) * g * g
                mh, vh = m[k] / (1 - b1 ** t), v[k] / (1 - b2 ** t)
                if amsgrad:
                    vmax[k] = np.maximum(vmax[k], vh)
                    vh = vmax[k]
                ps[k] = ps[k] - lr * mh / (np.sqrt(vh) + eps)
        return ps
    run_and_compare(lambda ps: nn.AdamW(ps, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd, amsgrad=amsgrad,
                                        maximize=maximize), ref, rng)


@pytest.mark.parametrize("centered,momentum", [(False, 0.0), (False, 0.9), (True, 0.5)])
def test_rmsprop_matches_mindspore_formula(centered, momentum, rng):
    lr, rho, eps = 0.01, 0.9, 1e-10

    def ref(ps, grads):
        s = [np.ones_like(p) for p in ps]                # MindSpore 2.10 starts the mean square at ones
        mg = [np.zeros_like(p) for p in ps]
        mom = [np.zeros_like(p) for p in ps]
        for gs in grads:
            for k, g in enumerate(gs):
                s[k] = rho * s[k] + (1 - rho) * g * g
                if centered:
                    mg[k] = rho * mg[k] + (1 - rho) * g
                    denom = np.sqrt(s[k] - mg[k] ** 2 + eps)
                else:
                    denom = np.sqrt(s[k] + eps)
                mom[k] = momentum * mom[k] + lr * g / denom
                ps[k] = ps[k] - mom[k]
        return ps
    run_and_compare(lambda ps: nn.RMSProp(ps, learning_rate=lr, decay=rho, momentum=momentum, epsilon=eps,
                                          centered=centered), ref, rng)


@pytest.mark.parametrize("update_slots", [True, False])
def test_adagrad_matches_apply_adagrad(update_slots, rng):
    lr, h0 = 0.1, 0.1

    def ref(ps, grads):
        h = [np.full_like(p, h0) for p in ps]
        for gs in grads:
            for k, g in enumerate(gs):
                if update_slots:
                    h[k] = h[k] + g * g
                ps[k] = ps[k] - lr * g / np.sqrt(h[k])
        return ps
    run_and_compare(lambda ps: nn.Adagrad(ps, accum=h0, learning_rate=lr, update_slots=update_slots), ref, rng)


def test_weight_decay_then_centralization_then_loss_scale(rng):
    """MindSpore's order: decay (wd * loss_scale) on the scaled gradient, centralization (4-D weights), then
    / loss_scale."""
    lr, wd, scale = 0.1, 0.01, 8.0

    def ref(ps, grads):
        for gs in grads:
            new = []
            for p, g in zip(ps, gs):
                g = g + wd * scale * p
                if p.ndim == 4:
                    g = g - g.mean(axis=(1, 2, 3), keepdims=True)
                new.append(p - lr * g / scale)
            ps = new
        return ps
    run_and_compare(lambda ps: nn.SGD([{"params": ps, "weight_decay": wd, "grad_centralization": True}],
                                      learning_rate=lr, loss_scale=scale),
                    ref, rng, shapes=((4, 2, 3, 3), (4,)), names=("conv.weight", "conv.bias"))


# ------------------------------------------------------------------ groups and learning-rate kinds
def test_groups_with_own_lr_kinds_and_order_params(rng):
    sched = nn.WarmUpLR(0.4, warmup_steps=2)

    def ref(ps, grads):
        w, b = ps
        for t, (gw, gb) in enumerate(grads):        # gradients follow order_params: (b, w)
            w = w - [0.1, 0.2, 0.3, 0.4][t] * gw
            b = b - 0.4 * min(t, 2) / 2 * gb
        return [w, b]
    params = make(rng)
    w, b = params
    start = [p.asnumpy().copy() for p in params]
    opt = nn.SGD([{"params": [w], "lr": [0.1, 0.2, 0.3, 0.4]}, {"params": [b], "lr": sched},
                  {"order_params": [b, w]}], learning_rate=1.0)
    assert opt.parameters[0] is b and opt.is_group_lr
    grads = [[rng.normal(size=p.shape) for p in params] for _ in range(STEPS)]
    lrs = opt.get_lr()                                   # float32 scalar Tensors, as in MindSpore
    assert [t.dtype for t in lrs] == [ms.float32] * 2 and [t.item() for t in lrs] == pytest.approx([0.0, 0.1])
    for gw, gb in grads:
        opt((ms.Tensor(gb), ms.Tensor(gw)))
    want = ref(start, grads)
    np.testing.assert_allclose(w.asnumpy(), want[0], rtol=1e-12)
    np.testing.assert_allclose(b.asnumpy(), want[1], rtol=1e-6)   # the schedule gives float32
    assert opt.get_lr_parameter(b).item() == pytest.approx(0.4)


@pytest.mark.parametrize("make_lr", [
    lambda: [0.5, 0.25, 0.125, 0.0625],
    lambda: ms.Tensor(np.array([0.5, 0.25, 0.125, 0.0625], np.float32)),
    lambda: nn.ExponentialDecayLR(0.5, 0.5, decay_steps=1),
])
def test_learning_rate_list_tensor_or_schedule_steps_with_global_step(make_lr, rng):
    def ref(ps, grads):
        for t, gs in enumerate(grads):
            ps = [p - 0.5 * 0.5 ** t * g for p, g in zip(ps, gs)]
        return ps
    opt = run_and_compare(lambda ps: nn.Momentum(ps, make_lr(), momentum=0.0), ref, rng, rtol=1e-6)
    assert opt.global_step == STEPS


def test_learning_rate_list_too_short_is_an_error(rng):
    params = make(rng)
    opt = nn.SGD(params, learning_rate=[0.1])
    g = tuple(ms.Tensor(np.ones(p.shape)) for p in params)
    opt(g)
    before = params[0].asnumpy().copy()
    with pytest.raises(ValueError, match=r"SGD: learning_rate lists 1 values \(one per step\) but step 2"):
        opt(g)
    np.testing.assert_array_equal(params[0].asnumpy(), before)


def test_group_and_lr_errors(rng):
    w, b = make(rng)
    with pytest.raises(ValueError, match="order_params lists .* which no parameter group holds"):
        nn.SGD([{"params": [w]}, {"order_params": [w, b]}])
    with pytest.raises(ValueError, match="order_params must list each of the 2 grouped parameters exactly once"):
        nn.SGD([{"params": [w, b]}, {"order_params": [w]}])
    with pytest.raises(TypeError, match="grad_centralization must be a bool, got str"):
        nn.SGD([{"params": [w], "grad_centralization": "yes"}])
    with pytest.raises(ValueError, match=r"every learning_rate in the list must be finite and >= 0"):
        nn.SGD([w], learning_rate=[0.1, -1.0])
    with pytest.raises(TypeError, match="AdamW: betas must be a pair"):
        nn.AdamW([w], betas=0.9)
    with pytest.raises(ValueError, match=r"RMSProp: epsilon must be in \(0, inf\)"):
        nn.RMSProp([w], epsilon=0.0)


# ------------------------------------------------------------------ schedules and lists
def test_schedules_match_formulas():
    steps = [0, 1, 3, 5, 9]
    for s in steps:
        t = ms.Tensor(np.int32(s))
        np.testing.assert_allclose(float(nn.ExponentialDecayLR(0.1, 0.9, 4)(t)), 0.1 * 0.9 ** (s / 4), rtol=1e-6)
        np.testing.assert_allclose(float(nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)(t)),
                                   0.1 * 0.9 ** (s // 4), rtol=1e-6)
        np.testing.assert_allclose(float(nn.CosineDecayLR(0.01, 0.1, 4)(t)),
                                   0.01 + 0.045 * (1 + math.cos(math.pi * min(s, 4) / 4)), rtol=1e-6)
        np.testing.assert_allclose(float(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)(t)),
                                   0.09 * (1 - min(s, 4) / 4) ** 0.5 + 0.01, rtol=1e-6)
        horizon = 4 * max(math.ceil(s / 4), 1)
        np.testing.assert_allclose(float(nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0, update_decay_steps=True)(t)),
                                   0.09 * (1 - s / horizon) ** 2 + 0.01, rtol=1e-6)
        np.testing.assert_allclose(float(nn.WarmUpLR(0.1, 4)(s)), 0.1 * min(s, 4) / 4, rtol=1e-6)
    out = nn.WarmUpLR(0.1, 4)(2)
    assert out.dtype == ms.float32 and out.shape == ()
    with pytest.raises(ValueError, match="CosineDecayLR: min_lr must be below max_lr"):
        nn.CosineDecayLR(0.2, 0.1, 4)
    with pytest.raises(TypeError, match="ExponentialDecayLR: decay_steps must be an int, got float"):
        nn.ExponentialDecayLR(0.1, 0.9, 2.5)


def test_dynamic_lr_lists_match_the_documented_examples():
    assert nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == [0.1] * 2 + [0.05] * 3 + [0.01] * 5
    np.testing.assert_allclose(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2), [0.1, 0.1, 0.055, 0.055, 0.01, 0.01])
    np.testing.assert_allclose(nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1])
    np.testing.assert_allclose(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
                               [0.1, 0.1, 0.09, 0.09, 0.081, 0.081])
    np.testing.assert_allclose(nn.exponential_decay_lr(0.1, 0.9, 6, 1, 2, is_stair=True),
                               [0.1, 0.1, 0.09, 0.09, 0.081, 0.081])
    with pytest.raises(ValueError, match="piecewise_constant_lr: milestone must be strictly increasing"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
