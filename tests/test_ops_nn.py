"""Activations, softmax/log_softmax and one_hot against NumPy and finite differences."""

import warnings

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------- activations
def test_relu_forward_and_dtypes():
    x = T([-1.5, 0.0, 2.0])
    np.testing.assert_array_equal(ops.relu(x).asnumpy(), [0.0, 0.0, 2.0])
    assert ops.relu(x).dtype == ms.float32
    i = ms.Tensor([-3, 4])
    assert ops.relu(i).dtype == ms.int64
    np.testing.assert_array_equal(ops.relu(i).asnumpy(), [0, 4])
    with pytest.raises(TypeError, match="op 'relu': input 0 must be a number type, got bool"):
        ops.relu(ms.Tensor(np.array([True])))


def test_relu_gradient_and_its_second_derivative():
    x = T([-1.5, 0.0, 2.0, 0.3])
    g = ms.grad(lambda t: ops.relu(t).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 0.0, 1.0, 1.0])
    check_grad(lambda t: ops.relu(t) * t, T([-1.5, -0.2, 0.4, 2.0]))
    d2 = ms.grad(ms.grad(lambda t: (ops.relu(t) * t).sum()))(T([-1.0, 2.0]))
    np.testing.assert_array_equal(d2.asnumpy(), [0.0, 2.0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sigmoid_tanh_forward(dtype, rng):
    a = rng.uniform(-4, 4, size=(3, 4)).astype(dtype)
    tol = 1e-3 if dtype == np.float16 else 1e-6
    s = ops.sigmoid(ms.Tensor(a))
    assert s.asnumpy().dtype == dtype
    np.testing.assert_allclose(s.asnumpy(), 1 / (1 + np.exp(-a.astype(np.float64))), rtol=tol, atol=tol)
    np.testing.assert_allclose(ops.tanh(ms.Tensor(a)).asnumpy(), np.tanh(a.astype(np.float64)),
                               rtol=tol, atol=tol)
    assert ops.tanh(ms.Tensor(a)).asnumpy().dtype == dtype


def test_sigmoid_is_stable_for_large_inputs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ops.sigmoid(T([-1000.0, -50.0, 0.0, 50.0, 1000.0])).asnumpy()
    np.testing.assert_allclose(out, [0.0, 1.9287498e-22, 0.5, 1.0, 1.0], rtol=1e-6)


@pytest.mark.parametrize("op", [ops.sigmoid, ops.tanh, ops.relu])
def test_activation_gradients(op, rng):
    x = T(rng.uniform(-2, 2, size=(2, 5)))
    check_grad(op, x)


# ---------------------------------------------------------------- softmax family
@pytest.mark.parametrize("axis", [-1, 0, 1, (0, 2)])
def test_softmax_and_log_softmax_forward(axis, rng):
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    np_axis = axis
    np.testing.assert_allclose(ops.softmax(ms.Tensor(x), axis).asnumpy(), np_softmax(x, np_axis), rtol=1e-5)
    np.testing.assert_allclose(ops.log_softmax(ms.Tensor(x), axis).asnumpy(),
                               np.log(np_softmax(x, np_axis)), rtol=1e-5, atol=1e-6)


def test_softmax_is_stable_for_large_logits():
    x = T([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = ops.softmax(x).asnumpy()
        ls = ops.log_softmax(x).asnumpy()
    np.testing.assert_allclose(s[0], np_softmax(np.array([0.0, 1.0, 2.0]), -1), rtol=1e-6)
    np.testing.assert_allclose(ls[1], [-2000.0, -1000.0, 0.0], rtol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_gradients(axis, rng):
    x = T(rng.normal(size=(3, 4)))
    w = T(rng.normal(size=(3, 4)))          # a non-uniform upstream gradient
    check_grad(lambda t: ops.softmax(t, axis) * w, x)
    check_grad(lambda t: ops.log_softmax(t, axis) * w, x)


def test_softmax_second_derivative_matches_finite_differences(rng):
    x = T(rng.normal(size=(4,)))
    w = T(rng.normal(size=(4,)))
    first = ms.grad(lambda t: (ops.softmax(t) * w).sum())
    check_grad(lambda t: first(t) * w, x)


def test_softmax_errors():
    with pytest.raises(ValueError, match="op 'softmax': axis 2 is out of range for a tensor of rank 2"):
        ops.softmax(T(np.ones((2, 3))), 2)
    with pytest.raises(TypeError,
                       match="op 'log_softmax': input 0 must be float16, float32 or float64, got int64"):
        ops.log_softmax(ms.Tensor([1, 2]))


def test_cross_entropy_built_from_ops_has_the_textbook_gradient(rng):
    logits = T(rng.normal(size=(4, 5)))
    labels = ms.Tensor([0, 3, 1, 4])
    onehot = ops.one_hot(labels, 5, 1.0, 0.0)

    def loss(z):
        return -(ops.log_softmax(z) * onehot).sum(axis=1).mean()

    g = ms.grad(loss)(logits)
    np.testing.assert_allclose(g.asnumpy(), (np_softmax(logits.asnumpy(), -1) - onehot.asnumpy()) / 4,
                               rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- one_hot
def test_one_hot_values_dtypes_and_axis():
    idx = ms.Tensor([0, 2, 1])
    out = ops.one_hot(idx, 3)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), np.eye(3, dtype=np.int64)[[0, 2, 1]])
    f = ops.one_hot(idx, 3, 1.0, 0.0)
    assert f.dtype == ms.float32
    on, off = ms.Tensor(np.float16(5)), ms.Tensor(np.float16(-1))
    h = ops.one_hot(idx, 4, on, off, axis=0)
    assert h.dtype == ms.float16 and h.shape == (4, 3)
    np.testing.assert_array_equal(h.asnumpy(), np.where(np.eye(4)[[0, 2, 1]].T > 0, 5, -1))


def test_one_hot_out_of_range_indices_give_off_rows_and_nd_indices_work():
    idx = ms.Tensor(np.array([[0, -1], [5, 1]], np.int32))
    out = ops.one_hot(idx, 3, 1.0, 0.0)
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.asnumpy(), [[[1, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0]]])
    mid = ops.one_hot(idx, 3, 1.0, 0.0, axis=1)
    np.testing.assert_array_equal(mid.asnumpy(), np.moveaxis(out.asnumpy(), -1, 1))


def test_one_hot_errors():
    with pytest.raises(TypeError, match="op 'one_hot': indices must be an integer tensor, got float32"):
        ops.one_hot(T([0.0, 1.0]), 2)
    with pytest.raises(ValueError, match="op 'one_hot': depth must be a non-negative int, got -1"):
        ops.one_hot(ms.Tensor([0]), -1)
    with pytest.raises(ValueError, match=r"op 'one_hot': axis 3 is out of range for inserting an axis"):
        ops.one_hot(ms.Tensor([0]), 2, axis=3)
