"""BatchNorm's training mode as one op each way (``ops/nn/batch_norm.py``): the composed ops' values."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops import functional as F
from mscustom.ops.nn import batch_norm as B
from mscustom.ops.nn import norm as N
from mscustom.testing import check_grad

from _graph_pairs import run_pair, step_pair, the_record

T = ms.Tensor


def _composed(x, gamma, beta, eps=1e-5):
    """The composed ops ``batch_norm`` ran before (and still runs for other dtypes)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = N._channel_shape(x)
    y, mean, var = N._normalize(x, axes, eps)
    return F.add(F.mul(y, F.reshape(gamma, shape)), F.reshape(beta, shape)), mean, var


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (6, 2), (3, 4, 7)])
def test_forward_and_gradients_match_the_composed_ops(dtype, tol, shape):
    rng = np.random.default_rng(0)
    c = shape[1]
    x = T((rng.standard_normal(shape) * 3 + 1).astype(dtype))
    g, b = T(rng.standard_normal(c).astype(dtype)), T(rng.standard_normal(c).astype(dtype))
    dy = T(rng.standard_normal(shape).astype(dtype))
    y, mean, var = B.batch_norm_train(x, g, b, 1e-5)
    yr, meanr, varr = _composed(x, g, b)
    np.testing.assert_allclose(y.asnumpy(), yr.asnumpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(mean.asnumpy(), meanr.asnumpy().ravel(), rtol=tol, atol=tol)
    np.testing.assert_allclose(var.asnumpy(), varr.asnumpy().ravel(), rtol=tol, atol=tol)
    grads = [ms.grad(lambda *a, f=f: (f(*a)[0] * dy).sum(), grad_position=(0, 1, 2))(x, g, b)
             for f in (lambda *a: B.batch_norm_train(*a, 1e-5), _composed)]
    for new, ref in zip(*grads):
        np.testing.assert_allclose(new.asnumpy(), ref.asnumpy(), rtol=tol, atol=tol * 10)


def test_check_grad():
    rng = np.random.default_rng(1)
    x = T(rng.standard_normal((3, 2, 4)) * 2)
    g, b = T(rng.standard_normal(2)), T(rng.standard_normal(2))
    check_grad(lambda a, k, c: ops.batch_norm(a, T(np.zeros(2)), T(np.ones(2)), k, c, training=True) ** 3,
               x, g, b, rtol=1e-5, atol=1e-6)


def test_layer_steps_match_in_eager_and_graph_mode_and_float16_stays_composed():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            bn = nn.BatchNorm2d(3, momentum=0.8)
            bn.set_train(True)
            for _ in range(3):
                y = bn(T(x))
            outs.append((y.asnumpy(), bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    xm = x.mean((0, 2, 3))
    expect = 0.2 * xm * (1 + 0.8 + 0.64)                    # three updates from zero: (1 - m) * batch each
    np.testing.assert_allclose(outs[0][1], expect, rtol=1e-5, atol=1e-6)
    assert not B.takes(x.astype(np.float16), np.ones(3, np.float16), np.zeros(3, np.float16))
    bn16 = nn.BatchNorm2d(3)
    bn16.set_train(True)
    y16 = ops.batch_norm(T(x.astype(np.float16)), bn16.moving_mean.astype(ms.float16),
                         bn16.moving_variance.astype(ms.float16), T(np.ones(3, np.float16)),
                         T(np.zeros(3, np.float16)), training=True)
    assert y16.dtype == ms.float16


def test_bad_operands_name_the_op():
    x = T(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="op 'batch_norm_train': gamma must have shape \\[3\\]"):
        B.batch_norm_train(x, T(np.ones(2, np.float32)), T(np.ones(3, np.float32)), 1e-5)
    with pytest.raises(TypeError, match="op 'batch_norm_train'"):
        B.batch_norm_train(x, T(np.ones(3, np.float64)), T(np.ones(3, np.float32)), 1e-5)


def test_second_derivative_raises_naming_the_backward_op():
    x = T(np.random.default_rng(3).random((4, 2, 3)).astype(np.float32))
    g, b = T(np.ones(2, np.float32)), T(np.zeros(2, np.float32))
    stats = (T(np.zeros(2, np.float32)), T(np.ones(2, np.float32)))
    first = ms.grad(lambda a: (ops.batch_norm(a, *stats, g, b, training=True) ** 3).sum())
    with pytest.raises(RuntimeError, match="op 'batch_norm_train_grad' has no gradient"):
        ms.grad(lambda a: first(a).sum())(x)


def test_loops_match_float64_sums_of_numpy():
    """The loops' vectorised float64 sums (reassociated) against NumPy's, values far from zero mean
    included (the variance is taken around the mean, never as E[x^2] - mean^2)."""
    from mscustom.ops.nn import cnn_loops
    rng = np.random.default_rng(4)
    fwd, bwd = cnn_loops.get("bn_forward"), cnn_loops.get("bn_backward")
    for dtype, tol in ((np.float32, 2e-6), (np.float64, 1e-13)):
        for n, c, p in ((3, 2, 37), (2, 3, 1), (5, 1, 64)):
            x = (rng.standard_normal((n, c, p)) * 0.5 + 100.0).astype(dtype)
            dy = rng.standard_normal((n, c, p)).astype(dtype)
            gamma, beta = rng.random(c).astype(dtype) + 0.5, rng.random(c).astype(dtype)
            eps = dtype(1e-5)
            y, mean, var = np.empty_like(x), np.empty(c, dtype), np.empty(c, dtype)
            fwd(x, gamma, beta, eps, y, mean, var, 0, c)           # every channel
            x64 = x.astype(np.float64)
            m64 = x64.mean((0, 2))
            v64 = ((x64 - m64[:, None]) ** 2).mean((0, 2))
            np.testing.assert_allclose(mean, m64, rtol=tol)
            np.testing.assert_allclose(var, v64, rtol=max(tol, 1e-4 if dtype == np.float32 else tol))
            xhat = (x64 - mean.astype(np.float64)[:, None]) / np.sqrt(var.astype(np.float64) + eps)[:, None]
            np.testing.assert_allclose(y, xhat * gamma[:, None] + beta[:, None], rtol=tol * 10, atol=tol * 10)
            dx, dg, db = np.empty_like(x), np.empty(c, dtype), np.empty(c, dtype)
            bwd(x, gamma, mean, var, dy, eps, dx, dg, db, 0, c)
            d64 = dy.astype(np.float64)
            np.testing.assert_allclose(db, d64.sum((0, 2)), rtol=tol * 10, atol=tol * 10)
            np.testing.assert_allclose(dg, (d64 * xhat).sum((0, 2)), rtol=tol * 10, atol=tol * 10)
            expect = gamma[:, None] / np.sqrt(var.astype(np.float64) + eps)[:, None] * (
                d64 - d64.mean((0, 2))[:, None] - xhat * (d64 * xhat).mean((0, 2))[:, None])
            np.testing.assert_allclose(dx, expect, rtol=tol * 100, atol=tol * 100)


def test_batchnorm_then_relu_is_one_kernel_in_replays_with_the_eager_values():
    """conv -> BatchNorm2d -> ReLU training steps: graph replays run BatchNorm and the ReLU of its output
    as one kernel (a "chain" step) and give the eager losses, parameters and moving statistics bit for bit."""
    rng = np.random.default_rng(5)
    x = ms.Tensor(rng.standard_normal((6, 2, 9, 9)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 6).astype(np.int32))

    def net():
        return nn.SequentialCell(nn.Conv2d(2, 4, 3, pad_mode="pad", padding=1, has_bias=False), nn.BatchNorm2d(4),
                                 nn.ReLU(), nn.Conv2d(4, 4, 3, pad_mode="same", has_bias=False), nn.BatchNorm2d(4),
                                 nn.ReLU(), nn.Flatten(), nn.Dense(4 * 81, 3))

    def every(n):
        return n.get_parameters()
    steps, nets = step_pair(net, lambda params: nn.Momentum(params, 0.05, 0.9), params=every)
    run_pair(steps, nets, x, y, 4, params=every)
    chained = [st for st in the_record(steps[1]).steps if st.kind == "kernel" and st.mode == "chain"
               and st.op.name == "batch_norm_train"]
    assert len(chained) == 2 and all(len(st.outs) == 4 for st in chained)     # y, mean, var and relu(y)


def test_an_effect_on_the_normalized_values_keeps_batchnorm_and_relu_apart():
    """An in-place effect on BatchNorm's output between it and the ReLU: the ReLU must see the changed
    values, so the replay does not compute it early (and gives the eager values)."""
    from mscustom._core import capture

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(3)
            self.relu = nn.ReLU()

        def construct(self, x):
            y = self.bn(x)
            capture.effect(lambda a: np.negative(a, out=a), y)      # flips the signs in place
            return self.relu(y)

    rng = np.random.default_rng(6)
    x = ms.Tensor(rng.standard_normal((4, 3, 5, 5)).astype(np.float32))
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = Net()
            net.set_train(True)
            f = net if mode == ms.PYNATIVE_MODE else ms.jit(net.construct)
            outs.append([f(x).asnumpy() for _ in range(3)])
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    assert (outs[1][-1] > 0).any() and (outs[1][-1] == 0).any()
