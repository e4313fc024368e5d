"""Functional losses with MindSpore's names, arguments and reduction defaults (``smooth_l1_loss``
returns the elementwise loss unless told otherwise). Expected values come from real MindSpore 2.10
(CPU), see ms_oracle_cases.py.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad
from ms_oracle_cases import run

T = ms.Tensor

CASES = [
    ('ops.cross_entropy(X, T(np.array([2, 1], np.int32)))',
     ('float32', (), [0.6836969])),
    ("ops.cross_entropy(X, T(np.array([2, 1], np.int32)), reduction='sum', label_smoothing=0.1)",
     ('float32', (), [1.692394])),
    ('ops.cross_entropy(X, T(np.array([2, 1], np.int32)), weight=T(np.array([1.0, 2.0, 0.5], np.float32)))',
     ('float32', (), [0.2957302])),
    ("ops.cross_entropy(X, T(np.array([2, 0], np.int32)), ignore_index=0, reduction='none')",
     ('float32', (2,), [1.330308, 0.0])),
    ('ops.cross_entropy(X, T(np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], np.float32)))',
     ('float32', (), [2.871197])),
    ('ms.grad(lambda x: ops.cross_entropy(x, T(np.array([2, 1], np.int32))))(X)',
     ('float32', (2, 3), [0.3593512, 0.008451114, -0.3678023, 0.01133075, -0.0182032, 0.006872454])),
    ('ops.mse_loss(X, P)',
     ('float32', (), [7.6875])),
    ("ops.mse_loss(X, P, reduction='none')",
     ('float32', (2, 3), [1.0, 12.25, 2.25, 14.0625, 7.5625, 9.0])),
    ('ms.grad(lambda x: ops.mse_loss(x, P))(X)',
     ('float32', (2, 3), [0.3333333, -1.166667, -0.5, -1.25, 0.9166667, -1.0])),
    ('ops.nll_loss(X, T(np.array([2, 1], np.int32)))',
     ('float32', (), [-1.75])),
    ("ops.nll_loss(X, T(np.array([2, 1], np.int32)), weight=T(np.array([1.0, 2.0, 0.5], np.float32)), reduction='sum')",
     ('float32', (), [-6.25])),
    ('ms.grad(lambda x: ops.nll_loss(x, T(np.array([2, 1], np.int32))))(X)',
     ('float32', (2, 3), [0.0, 0.0, -0.5, 0.0, -0.5, 0.0])),
    ('ops.binary_cross_entropy(T(np.array([0.2, 0.7, 0.9], np.float32)), T(np.array([0.0, 1.0, 1.0], np.float32)))',
     ('float32', (), [0.228393])),
    ("ops.binary_cross_entropy(T(np.array([0.2, 0.7, 0.9], np.float32)), T(np.array([0.0, 1.0, 1.0], np.float32)), T(np.array([1.0, 2.0, 0.5], np.float32)), reduction='none')",
     ('float32', (3,), [0.2231435, 0.7133499, 0.05268027])),
    ('ms.grad(lambda x: ops.binary_cross_entropy(x, T(np.array([0.0, 1.0, 1.0], np.float32))))(T(np.array([0.2, 0.7, 0.9], np.float32)))',
     ('float32', (3,), [0.4166666, -0.4761905, -0.3703704])),
    ('ops.binary_cross_entropy_with_logits(X, T(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]], np.float32)))',
     ('float32', (), [1.598014])),
    ("ops.binary_cross_entropy_with_logits(X, T(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]], np.float32)), T(np.array([1.0, 2.0, 0.5], np.float32)), T(np.array([2.0, 1.0, 3.0], np.float32)), reduction='sum')",
     ('float32', (), [16.67329])),
    ('ms.grad(lambda x: ops.binary_cross_entropy_with_logits(x, T(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]], np.float32))))(X)',
     ('float32', (2, 3), [0.1362624, -0.1507751, -0.06292343, -0.1131965, 0.1587624, -0.04621665])),
    ('ops.l1_loss(X, P)',
     ('float32', (), [2.583333])),
    ("ops.l1_loss(X, P, reduction='sum')",
     ('float32', (), [15.5])),
    ('ms.grad(lambda x: ops.l1_loss(x, P))(X)',
     ('float32', (2, 3), [0.1666667, -0.1666667, -0.1666667, -0.1666667, 0.1666667, -0.1666667])),
    ('ops.smooth_l1_loss(X, P)',
     ('float32', (2, 3), [0.5, 3.0, 1.0, 3.25, 2.25, 2.5])),
    ("ops.smooth_l1_loss(X, P, beta=0.5, reduction='mean')",
     ('float32', (), [2.333333])),
    ('ms.grad(lambda x: ops.smooth_l1_loss(x, P).sum())(X)',
     ('float32', (2, 3), [1.0, -1.0, -1.0, -1.0, 1.0, -1.0])),
    ('ops.kl_div(ops.log_softmax(X, 1), ops.softmax(P, 1))',
     ('float32', (), [0.6750628])),
    ("ops.kl_div(ops.log_softmax(X, 1), ops.softmax(P, 1), reduction='sum')",
     ('float32', (), [4.050377])),
    ("ops.kl_div(ops.log_softmax(X, 1), ops.softmax(P, 1), reduction='batchmean')",
     ('float32', (), [2.025188])),
    ('ms.grad(lambda x: ops.kl_div(x, ops.softmax(P, 1)))(X)',
     ('float32', (2, 3), [-0.0219336, -0.04643345, -0.09829962, -0.1234173, -0.007889796, -0.03535962])),
    ("ops.mse_loss(X, P, reduction='avg')",
     ('err', 'ValueError')),
    # dtypes and edge cases
    ('ops.cross_entropy(T(np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 5), T(np.array([[0, 2], [1, 1]], np.int32)))',
     ('float32', (), [1.15125])),
    ('ops.cross_entropy(X, T(np.array([2, 1], np.int32)), T(np.array([1.0, 2.0, 0.5], np.float32)), label_smoothing=0.2)',
     ('float32', (), [0.6408743])),
    ('ops.nll_loss(X, T(np.array([2, -100], np.int32)))',
     ('float32', (), [-0.5])),
    ('ops.nll_loss(T(np.array([-0.5, -1.0, -2.0], np.float32)), T(np.array(1, np.int32)))',
     ('float32', (), [1.0])),
    ("ops.binary_cross_entropy_with_logits(X, T(np.ones((2, 3), np.float32)), reduction='none')",
     ('float32', (2, 3), [0.2014133, 2.350207, 0.474077, 1.136871, 0.04858733, 1.501929])),
    ('ops.l1_loss(X, T(np.array([1.0, 0.0, -1.0], np.float32)))',
     ('float32', (), [1.541667])),
    ("ops.mse_loss(X, P, reduction='sum')",
     ('float32', (), [46.125])),
    ("ops.smooth_l1_loss(X, P, reduction='sum')",
     ('float32', (), [12.5])),
    ("ops.kl_div(X, P, reduction='none')",
     ('float32', (2, 3), [-1.096574, 3.091429, 0.3862944, 5.545837, -1.096574, 3.166828])),
    ('ops.cross_entropy(I.reshape(1, 3), T(np.array([0], np.int32)))',
     ('err', 'TypeError')),
    ('ops.nll_loss(X, T(np.array([0.0, 1.0], np.float32)))',
     ('err', 'TypeError')),
    ('ops.cross_entropy(X, T(np.ones((2, 2), np.float32)))',
     ('err', 'ValueError')),
    ("ops.kl_div(X, P, reduction='avg')",
     ('err', 'ValueError')),
    ("ops.binary_cross_entropy_with_logits(X, P, reduction='batchmean')",
     ('err', 'ValueError')),
]


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0][:40] for c in CASES])
def test_matches_mindspore(expr, expected):
    run(expr, expected)


X = T(np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]]))
Y = T(np.array([[0.5, 1.25, 2.0], [3.0, 0.25, 1.75]]))
LABELS = T(np.array([2, 1], np.int32))
W = T(np.array([1.0, 2.0, 0.5]))
PROB = T(np.array([[0.2, 0.7, 0.9], [0.4, 0.1, 0.6]]))
TARGET = T(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]]))


@pytest.mark.parametrize("fn,x", [
    (lambda x: ops.cross_entropy(x, LABELS, W, label_smoothing=0.2), X),
    (lambda x: ops.cross_entropy(x, T(np.array([2, 0], np.int32)), ignore_index=0, reduction="sum"), X),
    (lambda x: ops.cross_entropy(x, ops.softmax(Y, 1), W), X),
    (lambda x: ops.nll_loss(x, LABELS, W), X), (lambda x: ops.mse_loss(x, Y), X),
    (lambda x: ops.l1_loss(x, Y, "sum"), X), (lambda x: ops.smooth_l1_loss(x, Y * 0.9, 0.5, "mean"), X),
    (lambda x: ops.kl_div(x, ops.softmax(Y, 1), "batchmean"), X),
    (lambda x: ops.binary_cross_entropy(x, TARGET, W), PROB),
    (lambda x: ops.binary_cross_entropy_with_logits(x, TARGET, W, T(np.array([2.0, 1.0, 3.0]))), X),
])
def test_gradients_match_finite_differences(fn, x):
    check_grad(fn, x)


def test_errors_name_the_loss():
    x = T(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="op 'mse_loss': reduction must be one of 'mean', 'sum', 'none', got 'avg'"):
        ops.mse_loss(x, x, reduction="avg")
    with pytest.raises(TypeError, match="op 'nll_loss': target must be an integer tensor of class indices"):
        ops.nll_loss(x, T(np.array([0.0, 1.0], np.float32)))
    with pytest.raises(ValueError, match="op 'nll_loss': target shape \\[3\\] does not match inputs shape"):
        ops.nll_loss(x, T(np.array([0, 1, 2], np.int32)))
    with pytest.raises(ValueError, match="op 'smooth_l1_loss': beta must be a positive number"):
        ops.smooth_l1_loss(x, x, beta=0)


def test_losses_replay_in_graph_mode():
    @ms.jit
    def f(x, y):
        return ops.cross_entropy(x, y, label_smoothing=0.1) + ops.binary_cross_entropy_with_logits(x, ops.ones_like(x))

    x = np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]], np.float32)
    first = f(T(x), LABELS).asnumpy()
    f(T(x * 2), T(np.array([0, 0], np.int32)))
    again = f(T(x), LABELS).asnumpy()
    np.testing.assert_allclose(again, first, rtol=1e-6)
    assert abs(float(f(T(x * 2), T(np.array([0, 0], np.int32))).asnumpy()) - float(first)) > 1e-3
