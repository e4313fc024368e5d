"""Losses against NumPy formulas, their reductions, and their gradients by finite differences."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn
from mscustom.testing import check_grad

RNG = np.random.default_rng(11)


def T(a):
    return ms.Tensor(np.asarray(a))


def log_softmax(x, axis):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def test_cross_entropy_indices_weight_ignore_smoothing():
    x = RNG.normal(size=(5, 4))
    y = np.array([0, 3, 1, -100, 3])
    w = np.array([1.0, 2.0, 0.5, 3.0])
    lp = log_softmax(x, 1)
    keep = y != -100
    ys = np.where(keep, y, 0)
    nll = -w[ys] * lp[np.arange(5), ys] * keep
    assert nn.CrossEntropyLoss()(T(x), T(ys)).item() == pytest.approx(-lp[np.arange(5), ys].mean())
    loss = nn.CrossEntropyLoss(weight=T(w))(T(x), T(y)).item()
    assert loss == pytest.approx(nll.sum() / (w[ys] * keep).sum())
    none = nn.CrossEntropyLoss(weight=T(w), reduction="none")(T(x), T(y)).asnumpy()
    np.testing.assert_allclose(none, nll)
    eps = 0.2
    smooth = -(lp * w).sum(1) / 4 * keep
    ls = nn.CrossEntropyLoss(weight=T(w), reduction="sum", label_smoothing=eps)(T(x), T(y)).item()
    assert ls == pytest.approx(((1 - eps) * nll + eps * smooth).sum())
    check_grad(lambda t: nn.CrossEntropyLoss(weight=T(w), label_smoothing=0.1)(t, T(y)), T(x))


def test_cross_entropy_probabilities_and_spatial():
    x = RNG.normal(size=(3, 4))
    p = np.abs(RNG.normal(size=(3, 4)))
    p /= p.sum(1, keepdims=True)
    ref = -(p * log_softmax(x, 1)).sum(1).mean()
    assert nn.CrossEntropyLoss()(T(x), T(p)).item() == pytest.approx(ref)
    check_grad(lambda t: nn.CrossEntropyLoss(label_smoothing=0.3)(t, T(p)), T(x))
    xs = RNG.normal(size=(2, 3, 4, 4))                        # (N, C, H, W) with (N, H, W) labels
    ys = RNG.integers(0, 3, size=(2, 4, 4))
    lp = log_softmax(xs, 1)
    ref = -np.take_along_axis(lp, ys[:, None], 1).mean()
    assert nn.CrossEntropyLoss()(T(xs), T(ys)).item() == pytest.approx(ref)


def test_cross_entropy_errors():
    with pytest.raises(ValueError, match="CrossEntropyLoss: label 4 is out of range for 4 classes"):
        nn.CrossEntropyLoss()(T(np.zeros((2, 4))), T(np.array([0, 4])))
    with pytest.raises(ValueError, match="class-index labels must have shape \\[2\\]"):
        nn.CrossEntropyLoss()(T(np.zeros((2, 4))), T(np.array([[0, 1]])))
    with pytest.raises(ValueError, match="weight must have shape \\[4\\]"):
        nn.CrossEntropyLoss(weight=T(np.ones(3)))(T(np.zeros((2, 4))), T(np.array([0, 1])))
    with pytest.raises(ValueError, match="reduction must be one of"):
        nn.CrossEntropyLoss(reduction="avg")


def test_nll_loss_matches_cross_entropy_of_log_softmax():
    x = RNG.normal(size=(6, 3))
    y = RNG.integers(0, 3, size=6)
    lp = log_softmax(x, 1)
    assert nn.NLLLoss()(T(lp), T(y)).item() == pytest.approx(nn.CrossEntropyLoss()(T(x), T(y)).item())
    check_grad(lambda t: nn.NLLLoss(weight=T(np.array([1.0, 2.0, 3.0])))(t, T(y)), T(lp))


def test_softmax_cross_entropy_with_logits_defaults():
    x = RNG.normal(size=(4, 3))
    y = RNG.integers(0, 3, size=4)
    per = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(T(x), T(y))
    np.testing.assert_allclose(per.asnumpy(), -log_softmax(x, 1)[np.arange(4), y])   # reduction "none"


def test_regression_losses():
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    d = a - b
    assert nn.MSELoss()(T(a), T(b)).item() == pytest.approx((d ** 2).mean())
    assert nn.L1Loss(reduction="sum")(T(a), T(b)).item() == pytest.approx(np.abs(d).sum())
    beta = 0.5
    ref = np.where(np.abs(d) < beta, 0.5 * d ** 2 / beta, np.abs(d) - 0.5 * beta)
    np.testing.assert_allclose(nn.SmoothL1Loss(beta=beta)(T(a), T(b)).asnumpy(), ref)   # reduction "none"
    np.testing.assert_allclose(nn.SmoothL1Loss()(T([1.0, 2.0, 3.0]), T([1.0, 2.0, 2.0])).asnumpy(), [0, 0, 0.5])
    check_grad(lambda s: nn.SmoothL1Loss(beta=beta, reduction="mean")(s, T(b)), T(a))
    with pytest.raises(ValueError, match="SmoothL1Loss: beta must be a positive number"):
        nn.SmoothL1Loss(beta=0)


def test_binary_cross_entropies():
    x = RNG.normal(size=(4, 3)) * 3
    y = RNG.integers(0, 2, size=(4, 3)).astype(np.float64)
    p = 1 / (1 + np.exp(-x))
    w = RNG.uniform(0.5, 2, size=(3,))
    ref = -(w * (y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert nn.BCELoss(weight=T(w))(T(p), T(y)).item() == pytest.approx(ref.mean())
    assert nn.BCEWithLogitsLoss(weight=T(w))(T(x), T(y)).item() == pytest.approx(ref.mean())
    pw = np.array([2.0, 1.0, 0.5])
    ref_pw = -(pw * y * np.log(p) + (1 - y) * np.log(1 - p)).sum()
    assert nn.BCEWithLogitsLoss(reduction="sum", pos_weight=T(pw))(T(x), T(y)).item() == pytest.approx(ref_pw)
    check_grad(lambda t: nn.BCELoss()(t, T(y)), T(p))
    check_grad(lambda t: nn.BCEWithLogitsLoss(pos_weight=T(pw))(t, T(y)), T(x))
    # saturated inputs stay finite: logs are clamped at -100, logits never overflow
    assert nn.BCELoss(reduction="sum")(T([0.0, 1.0]), T([1.0, 0.0])).item() == pytest.approx(200.0)
    big = nn.BCEWithLogitsLoss()(T([1000.0, -1000.0]), T([0.0, 1.0])).item()
    assert big == pytest.approx(1000.0)


def test_kl_div_loss():
    lp = log_softmax(RNG.normal(size=(4, 5)), 1)
    t = np.abs(RNG.normal(size=(4, 5)))
    t[0, 0] = 0.0
    t /= t.sum(1, keepdims=True)
    per = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - lp), 0)
    assert nn.KLDivLoss()(T(lp), T(t)).item() == pytest.approx(per.mean())
    assert nn.KLDivLoss("batchmean")(T(lp), T(t)).item() == pytest.approx(per.sum() / 4)
    np.testing.assert_allclose(nn.KLDivLoss("none")(T(lp), T(t)).asnumpy(), per)
    check_grad(lambda s: nn.KLDivLoss("sum")(s, T(t)), T(lp))
    with pytest.raises(ValueError, match="KLDivLoss: reduction must be one of"):
        nn.KLDivLoss("max")
