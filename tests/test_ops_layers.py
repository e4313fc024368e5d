"""Normalization, activation, dropout, gather and the small MindSpore ops, against NumPy."""

import math

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad

RNG = np.random.default_rng(3)


def T(a):
    return ms.Tensor(np.asarray(a))


# ------------------------------------------------------------------ normalization
def test_batch_norm_training_values_update_and_grad():
    x = RNG.normal(2.0, 3.0, size=(4, 3, 2, 2))
    rm, rv = T(np.zeros(3)), T(np.ones(3))
    g, b = T(RNG.normal(size=3)), T(RNG.normal(size=3))
    y = ops.batch_norm(T(x), rm, rv, g, b, training=True, momentum=0.1, eps=1e-5)
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    ref = ref * g.asnumpy()[None, :, None, None] + b.asnumpy()[None, :, None, None]
    np.testing.assert_allclose(y.asnumpy(), ref, atol=1e-10)
    np.testing.assert_allclose(rm.asnumpy(), 0.1 * mean)
    np.testing.assert_allclose(rv.asnumpy(), 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1))
    check_grad(lambda x, g, b: ops.batch_norm(x, T(np.zeros(3)), T(np.ones(3)), g, b, training=True) ** 3,
               T(x), g, b)


def test_batch_norm_inference_uses_running_stats():
    x = RNG.normal(size=(2, 3))
    rm, rv = T(np.array([1.0, 2.0, 3.0])), T(np.array([4.0, 1.0, 0.25]))
    y = ops.batch_norm(T(x), rm, rv, T(np.ones(3)), T(np.zeros(3)), training=False, eps=0.0)
    np.testing.assert_allclose(y.asnumpy(), (x - rm.asnumpy()) / np.sqrt(rv.asnumpy()))
    np.testing.assert_array_equal(rm.asnumpy(), [1.0, 2.0, 3.0])
    check_grad(lambda x: ops.batch_norm(x, rm, rv, T(np.ones(3)), T(np.zeros(3))) ** 2, T(x))


def test_layer_and_group_norm():
    x = RNG.normal(size=(2, 4, 3))
    w, b = RNG.normal(size=3), RNG.normal(size=3)
    y = ops.layer_norm(T(x), (3,), T(w), T(b), eps=1e-5)
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y.asnumpy(), ref, atol=1e-10)
    check_grad(lambda x, w, b: ops.layer_norm(x, (3,), w, b) ** 3, T(x), T(w), T(b))
    gx = RNG.normal(size=(2, 4, 3, 2))
    y = ops.group_norm(T(gx), 2, T(np.ones(4)), T(np.zeros(4)), eps=1e-5).asnumpy()
    grp = gx.reshape(2, 2, -1)
    ref = ((grp - grp.mean(-1, keepdims=True)) / np.sqrt(grp.var(-1, keepdims=True) + 1e-5)).reshape(gx.shape)
    np.testing.assert_allclose(y, ref, atol=1e-10)
    check_grad(lambda x: ops.group_norm(x, 2) ** 3, T(gx))
    with pytest.raises(ValueError, match="group_norm: num_groups must be a positive int dividing the 4"):
        ops.group_norm(T(gx), 3)


# ------------------------------------------------------------------ activations
def test_activations_values_and_grads():
    xs = np.array([-3.0, -0.5, 0.3, 2.0, 7.0])
    x = T(xs)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(ops.gelu(x).asnumpy(), 0.5 * xs * (1 + erf(xs / math.sqrt(2))))
    tanh_ref = 0.5 * xs * (1 + np.tanh(math.sqrt(2 / math.pi) * (xs + 0.044715 * xs ** 3)))
    np.testing.assert_allclose(ops.gelu(x, approximate="tanh").asnumpy(), tanh_ref)
    np.testing.assert_allclose(ops.silu(x).asnumpy(), xs / (1 + np.exp(-xs)))
    np.testing.assert_array_equal(ops.relu6(x).asnumpy(), np.clip(xs, 0, 6))
    np.testing.assert_allclose(ops.leaky_relu(x, 0.1).asnumpy(), np.where(xs > 0, xs, 0.1 * xs))
    for fn in (ops.gelu, lambda t: ops.gelu(t, "tanh"), ops.silu, ops.relu6, ops.leaky_relu, ops.erf):
        check_grad(fn, x)
    with pytest.raises(ValueError, match="gelu: approximate must be 'none' or 'tanh'"):
        ops.gelu(x, "fast")


def test_dropout_fresh_mask_scaling_and_grad():
    ms.set_seed(5)
    x = T(np.ones((200, 50), np.float32))
    a, b = ops.dropout(x, p=0.3).asnumpy(), ops.dropout(x, p=0.3).asnumpy()
    assert not np.array_equal(a, b)                             # fresh randomness per call
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((a == 0).mean() - 0.3) < 0.02
    assert ops.dropout(x, p=0.3, training=False) is x
    g = ms.grad(lambda t: (ops.dropout(t, p=0.5) * 3.0).sum())(x).asnumpy()
    assert set(np.unique(g)) <= {0.0, 6.0} and 0.4 < (g == 0).mean() < 0.6
    ms.set_seed(5)
    np.testing.assert_array_equal(ops.dropout(x, p=0.3).asnumpy(), a)         # set_seed reproduces
    with pytest.raises(ValueError, match=r"dropout: p .* must be in \[0, 1\)"):
        ops.dropout(x, p=1.0)


# ------------------------------------------------------------------ gather
def test_gather_values_and_scatter_add_gradient():
    x = RNG.normal(size=(4, 3, 2))
    idx = np.array([[3, 0], [3, 3]])
    for axis in (0, 1):
        i = idx % x.shape[axis]
        np.testing.assert_array_equal(ops.gather(T(x), T(i), axis).asnumpy(), np.take(x, i, axis=axis))
        check_grad(lambda t: ops.gather(t, T(i), axis) ** 2, T(x))
    g = ms.grad(lambda t: ops.gather(t, T(idx), 0).sum())(T(x)).asnumpy()
    np.testing.assert_array_equal(g[:, 0, 0], [1, 0, 0, 3])       # repeated rows add up
    check_grad(lambda t: ms.grad(lambda a: (ops.gather(a, T(idx), 0) ** 3).sum())(t), T(x))
    with pytest.raises(IndexError, match="op 'gather': index 4 is out of range for an axis of size 4"):
        ops.gather(T(x), T(np.array([4])), 0)
    with pytest.raises(TypeError, match="input_indices must be an integer tensor"):
        ops.gather(T(x), T(np.array([1.0])), 0)


# ------------------------------------------------------------------ small ops
def test_creation_ops_dtypes_and_values():
    assert ops.ones((2, 3)).dtype == ms.float32 and ops.ones((2, 3)).asnumpy().sum() == 6
    assert ops.zeros(4, ms.int32).dtype == ms.int32
    assert ops.full((2,), 7).dtype == ms.int64 and ops.full((2,), 0.5).dtype == ms.float32
    assert ops.full((2,), True).dtype == ms.bool_
    np.testing.assert_array_equal(ops.full((2, 2), 3, dtype=ms.float64).asnumpy(), np.full((2, 2), 3.0))
    a = ops.arange(5)
    assert a.dtype == ms.int64 and a.asnumpy().tolist() == [0, 1, 2, 3, 4]
    f = ops.arange(1, 2, 0.25)
    assert f.dtype == ms.float32 and f.asnumpy().tolist() == [1.0, 1.25, 1.5, 1.75]
    assert ops.arange(5, 0, -2).asnumpy().tolist() == [5, 3, 1]
    with pytest.raises(ValueError, match="arange: step must not be 0"):
        ops.arange(0, 3, 0)
    with pytest.raises(TypeError, match="ones: shape must be"):
        ops.ones((2, -1))


def test_random_ops_follow_set_seed():
    ms.set_seed(11)
    u, n = ops.uniform((1000,), T(np.float32(-2.0)), T(np.float32(3.0))), ops.standard_normal((1000,))
    assert u.dtype == ms.float32 and n.dtype == ms.float32
    assert -2.0 <= u.asnumpy().min() and u.asnumpy().max() < 3.0 and abs(u.asnumpy().mean() - 0.5) < 0.2
    assert abs(n.asnumpy().mean()) < 0.1 and abs(n.asnumpy().std() - 1) < 0.1
    ms.set_seed(11)
    np.testing.assert_array_equal(ops.uniform((1000,), -2.0, 3.0).asnumpy(), u.asnumpy())
    with pytest.raises(ValueError, match="uniform: minval must be less than maxval"):
        ops.uniform((2,), 1.0, 1.0)


def test_max_min_return_values_and_indices():
    x = T(np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 0.0]]))
    v, i = ops.max(x, axis=1)
    assert v.asnumpy().tolist() == [5.0, 7.0] and i.asnumpy().tolist() == [1, 0] and i.dtype == ms.int64
    v, i = ops.min(x, axis=0, keepdims=True)
    assert v.shape == (1, 3) and i.asnumpy().tolist() == [[0, 1, 1]]
    v, i = ops.max(x)
    assert v.item() == 7.0 and i.item() == 0            # axis None: index 0, as MindSpore documents
    g = ms.grad(lambda t: ops.max(t, axis=0)[0].sum())(x).asnumpy()
    np.testing.assert_array_equal(g, [[0, 1, 1], [1, 0, 0]])


def test_argmax_clamp_split_cat():
    x = T(np.array([[1.0, 9.0, 3.0], [8.0, 2.0, 8.0]]))
    assert ops.argmax(x).item() == 1
    assert ops.argmax(x, dim=1).asnumpy().tolist() == [1, 0]
    assert ops.argmax(x, 1, keepdim=True).shape == (2, 1)
    np.testing.assert_array_equal(ops.clamp(x, 2.0, 8.0).asnumpy(), np.clip(x.asnumpy(), 2, 8))
    np.testing.assert_array_equal(ops.clip_by_value(x, clip_value_max=3.0).asnumpy(),
                                  np.minimum(x.asnumpy(), 3))
    check_grad(lambda t: ops.clamp(t, 2.5, 7.5) ** 2, x)
    with pytest.raises(ValueError, match="clamp: at least one of min and max"):
        ops.clamp(x)
    parts = ops.split(T(np.arange(10.0)), 4)
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    parts = ops.split(x, [1, 2], axis=1)
    assert [p.shape for p in parts] == [(2, 1), (2, 2)]
    check_grad(lambda t: ops.split(t, [1, 2], axis=1)[1] ** 2, x)
    with pytest.raises(ValueError, match="must be non-negative and add up to 3"):
        ops.split(x, [1, 1], axis=1)
    np.testing.assert_array_equal(ops.cat([x, x], axis=0).asnumpy(), np.concatenate([x.asnumpy()] * 2))
