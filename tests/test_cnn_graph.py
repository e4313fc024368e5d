"""Convolution and pooling in graph replays: into-kernels and the conv+bias+ReLU chain give the eager values."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom._core.registry import get_op
from mscustom.ops.nn import conv as C
from mscustom.ops.nn import pool as P

from _graph_pairs import run_pair, step_pair, the_record

ATTRS = {"stride": (2, 1), "pad": (1, 0, 1, 1), "dilation": (1, 2), "groups": 2}


def _specials(shape, dtype, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[::7] = -0.0
    flat[3::11] = np.nan
    flat[5::13] = np.inf
    return a


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_conv_into_kernels_write_the_eager_values(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 9, 8)).astype(dtype)
    w = rng.standard_normal((6, 2, 3, 2)).astype(dtype)
    b = _specials((6,), dtype, 1)
    y = C._conv2d_compute(ATTRS, (x, w))
    got = np.full(y.shape, 7, dtype)
    get_op("conv2d").attrs["FComputeInto"](ATTRS, (x, w), (got,))
    np.testing.assert_array_equal(got, y)
    yb = get_op("conv2d_bias").attrs["FComputeAlloc<cpu>"](ATTRS, (x, w, b))
    np.testing.assert_array_equal(yb, y + b.reshape(1, -1, 1, 1))
    get_op("conv2d_bias").attrs["FComputeInto"](ATTRS, (x, w, b), (got,))
    np.testing.assert_array_equal(got, yb)
    # the chain: conv2d_bias then relu, as the two separate kernels write them
    relu = get_op("relu").attrs["FComputeInto"]
    want_a = np.full(y.shape, 7, dtype)
    relu({}, (yb,), (want_a,))
    accept, chain = get_op("conv2d_bias").attrs["FFuseConsumer"]["relu"]
    assert accept is None
    outs = (np.full(y.shape, 7, dtype), np.full(y.shape, 7, dtype))
    chain(ATTRS, (x, w, b), outs)
    for g_, w_ in zip(outs, (yb, want_a)):
        np.testing.assert_array_equal(g_, w_)
        assert np.array_equal(np.signbit(g_), np.signbit(w_))
    # the input gradient into a buffer (and a strided one)
    dy = rng.standard_normal(y.shape).astype(dtype)
    ai = dict(ATTRS, x_shape=x.shape)
    want = C._backprop_input_compute(ai, (dy, w))
    into = get_op("conv2d_backprop_input").attrs["FComputeInto"]
    got = np.full(x.shape, 7, dtype)
    into(ai, (dy, w), (got,))
    np.testing.assert_array_equal(got, want)
    strided = np.full(x.shape[:3] + (2 * x.shape[3],), 7, dtype)[..., ::2]
    into(ai, (dy, w), (strided,))
    np.testing.assert_array_equal(strided, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_pool_into_kernels_write_the_eager_values(dtype):
    attrs = {"kernel": (3, 2), "stride": (2, 1), "pad": (1, 1, 0, 1)}
    x = _specials((2, 3, 8, 7), dtype, 2)
    y, idx = P._max_pool_compute(attrs, (x,))
    outs = (np.full(y.shape, 7, dtype), np.full(y.shape, 7, np.int32))
    get_op("max_pool2d").attrs["FComputeInto"](attrs, (x,), outs)
    np.testing.assert_array_equal(outs[0], y)
    np.testing.assert_array_equal(outs[1], idx)
    dy = np.random.default_rng(3).standard_normal(y.shape).astype(dtype)
    ga = dict(attrs, x_shape=x.shape)
    got = np.full(x.shape, 7, dtype)
    get_op("max_pool2d_grad").attrs["FComputeInto"](ga, (dy, idx), (got,))
    np.testing.assert_array_equal(got, P._max_pool_grad_compute(ga, (dy, idx)))


def _lenet():
    return nn.SequentialCell(nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(4, 6, 3, pad_mode="pad", padding=1, has_bias=True), nn.ReLU(),
                             nn.AvgPool2d(2, 2), nn.Flatten(), nn.Dense(54, 3))


def test_cnn_training_step_replays_with_the_eager_values():
    rng = np.random.default_rng(4)
    x = ms.Tensor(rng.standard_normal((5, 1, 14, 14)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 5).astype(np.int32))
    steps, nets = step_pair(_lenet, lambda params: nn.SGD(params, 0.1))
    run_pair(steps, nets, x, y, 3)
    assert the_record(steps[1]).describe()["modes"]["chain"] >= 2       # conv+bias+ReLU, twice


def test_conv2d_bias_op_checks_and_gradient():
    x = ms.Tensor(np.ones((1, 2, 4, 4), np.float32))
    w = ms.Tensor(np.ones((3, 2, 3, 3), np.float32))
    from mscustom._core.dispatch import call
    with pytest.raises(ValueError, match=r"op 'conv2d_bias': the bias must have shape \[3\]"):
        call(get_op("conv2d_bias"), (x, w, ms.Tensor(np.ones(2, np.float32))), dict(C._base_attrs(
            {"stride": (1, 1), "pad": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1})))
    # a bias of another dtype keeps the former add (promotion), as before
    y = ops.conv2d(x, w, ms.Tensor(np.ones(3, np.float64)))
    assert y.dtype == ms.float64
    from mscustom.testing import check_grad
    xt = ms.Tensor(np.random.default_rng(5).standard_normal((2, 2, 5, 4)))
    wt = ms.Tensor(np.random.default_rng(6).standard_normal((4, 1, 2, 3)))
    bt = ms.Tensor(np.random.default_rng(7).standard_normal(4))
    check_grad(lambda a, k, c: ops.relu(ops.conv2d(a, k, c, groups=2, pad_mode="same")) ** 2, xt, wt, bt)
