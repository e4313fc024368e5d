"""Primitive classes ops.Eye, ScatterNd, Unstack, L2Normalize, Identity, SquaredDifference (and the
functions ops.scatter_nd, ops.unstack) and nn.ConstantPad1d/2d/3d. Expected values are MindSpore
2.10 (CPU)'s for the same calls."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops, Tensor


def _eq(t, expected, dtype=None, rtol=1e-6):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected), rtol=rtol, atol=1e-6)
    if dtype is not None:
        assert t.dtype == dtype


def test_eye():
    _eq(ops.Eye()(2, 3, ms.float32), [[1, 0, 0], [0, 1, 0]], ms.float32)
    _eq(ops.Eye()(3, 3, ms.int32), np.eye(3), ms.int32)
    _eq(ops.Eye()(2, 2, ms.bool_), [[True, False], [False, True]], ms.bool_)
    with pytest.raises(TypeError, match="primitive 'Eye'"):
        ops.Eye()(2.5, 2, ms.float32)


def test_scatter_nd():
    idx, upd = Tensor(np.array([[0], [2], [0]], np.int32)), Tensor(np.array([1., 2., 3.], np.float32))
    _eq(ops.ScatterNd()(idx, upd, (4,)), [4, 0, 2, 0], ms.float32)        # repeated indices add
    _eq(ops.scatter_nd(idx, upd, (4,)), [4, 0, 2, 0])
    idx2, upd2 = Tensor(np.array([[0, 1], [1, 1]], np.int32)), Tensor(np.array([5., 6.], np.float32))
    _eq(ops.ScatterNd()(idx2, upd2, (2, 3)), [[0, 5, 0], [0, 6, 0]])
    _eq(ops.ScatterNd()(Tensor(np.array([[1]], np.int32)), Tensor(np.array([[1., 2., 3.]], np.float32)), (2, 3)),
        [[0, 0, 0], [1, 2, 3]])
    w = Tensor(np.array([1., 2., 3., 4.], np.float32))
    _eq(ms.grad(lambda u: (ops.ScatterNd()(idx, u, (4,)) * w).sum())(upd), [1, 3, 1])


def test_unstack():
    x = Tensor(np.arange(6).reshape(2, 3).astype(np.float32))
    r = ops.Unstack()(x)
    assert isinstance(r, tuple) and len(r) == 2
    _eq(r[0], [0, 1, 2], ms.float32)
    _eq(r[1], [3, 4, 5])
    for r in (ops.Unstack(axis=1)(x), ops.Unstack(-1)(x), ops.unstack(x, 1)):
        assert len(r) == 3
        for t, e in zip(r, [[0, 3], [1, 4], [2, 5]]):
            _eq(t, e)
    _eq(ms.grad(lambda a: ops.Unstack(1)(a)[1].sum() * 2 + ops.Unstack(1)(a)[0].sum())(x), [[1, 2, 0], [1, 2, 0]])


def test_l2_normalize():
    xx = Tensor(np.array([[1., 2., 2.], [3., 4., 0.]], np.float32))
    _eq(ops.L2Normalize()(xx), [[0.3162277638912201, 0.4472135901451111, 1.0],
                                [0.9486832618713379, 0.8944271802902222, 0]])
    expected = [[0.3333333432674408, 0.6666666865348816, 0.6666666865348816],
                [0.6000000238418579, 0.800000011920929, 0]]
    _eq(ops.L2Normalize(axis=1)(xx), expected)
    _eq(ops.L2Normalize(axis=(1,))(xx), expected)
    _eq(ops.L2Normalize(axis=-1, epsilon=100.)(xx), [[0.1, 0.2, 0.2], [0.3, 0.4, 0]])
    w = Tensor(np.array([[1., 0., 0.], [0., 1., 0.]], np.float32))
    _eq(ms.grad(lambda a: (ops.L2Normalize(axis=1)(a) * w).sum())(xx),
        [[0.29629629850387573, -0.07407408207654953, -0.07407408207654953],
         [-0.09600000083446503, 0.07199998944997787, 0]],
        rtol=1e-5)
    _eq(ms.grad(lambda a: (ops.L2Normalize()(a) * w).sum())(xx),
        [[0.2846049666404724, -0.08944271504878998, 0], [-0.09486832469701767, 0.044721368700265884, 0]], rtol=1e-5)
    with pytest.raises(TypeError, match="axis"):        # MindSpore: "the length of 'axis' must be 1"
        ops.L2Normalize(axis=(0, 1))(xx)


def test_identity_and_squared_difference():
    x = Tensor(np.arange(6).reshape(2, 3).astype(np.float32))
    out = ops.Identity()(x)
    _eq(out, x.asnumpy(), ms.float32)
    assert out is not x
    _eq(ms.grad(lambda a: (ops.Identity()(a) * 3).sum())(x), np.full((2, 3), 3.0))
    ones = Tensor(np.array([1., 1., 1.], np.float32))
    _eq(ops.SquaredDifference()(x, ones), [[1, 0, 1], [4, 9, 16]], ms.float32)
    a, b = Tensor(np.array([1, 5], np.int32)), Tensor(np.array([3, 2], np.int32))
    _eq(ops.SquaredDifference()(a, b), [4, 9], ms.int32)
    _eq(ops.SquaredDifference()(x, 2.0), [[4, 1, 0], [1, 4, 9]])
    ga, gb = ms.grad(lambda a, b: ops.SquaredDifference()(a, b).sum(), grad_position=(0, 1))(x, ones)
    _eq(ga, [[-2, 0, 2], [4, 6, 8]])
    _eq(gb, [-2, -6, -10])


def test_constant_pad():
    v = Tensor(np.arange(1, 7).reshape(1, 2, 3).astype(np.float32))
    _eq(nn.ConstantPad1d(2, 0.5)(v), [[[0.5, 0.5, 1, 2, 3, 0.5, 0.5], [0.5, 0.5, 4, 5, 6, 0.5, 0.5]]])
    _eq(nn.ConstantPad1d((1, 0), 1)(v), [[[1, 1, 2, 3], [1, 4, 5, 6]]])
    _eq(nn.ConstantPad1d((-1, 1), 0)(v), [[[2, 3, 0], [5, 6, 0]]])
    _eq(nn.ConstantPad2d(1, 9)(v), [[[9, 9, 9, 9, 9], [9, 1, 2, 3, 9], [9, 4, 5, 6, 9], [9, 9, 9, 9, 9]]])
    _eq(nn.ConstantPad2d((1, 0, 0, 1), -1.)(v), [[[-1, 1, 2, 3], [-1, 4, 5, 6], [-1, -1, -1, -1]]])
    v4 = Tensor(np.arange(1, 5).reshape(1, 1, 2, 2).astype(np.float32))
    out = nn.ConstantPad3d(1, 0)(v4)
    assert out.shape == (1, 3, 4, 4)
    _eq(out[0, 1], [[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 0, 0, 0]])
    assert float(out.sum().asnumpy()) == 10.0
    _eq(nn.ConstantPad3d((1, 0, 0, 0, 0, 1), 2.)(v4), [[[[2, 1, 2], [2, 3, 4]], [[2, 2, 2], [2, 2, 2]]]])
    _eq(ms.grad(lambda a: (nn.ConstantPad1d(1, 3.)(a) ** 2).sum())(v), [[[2, 4, 6], [8, 10, 12]]])
    _eq(nn.ConstantPad1d(1, 2.7)(Tensor(np.array([[1, 2]], np.int32))), [[2, 1, 2, 2]], ms.int32)
    _eq(nn.ConstantPad1d(1, 2)(Tensor(np.array([[1.5, 2.]], np.float32))), [[2, 1.5, 2, 2]], ms.float32)
    with pytest.raises(ValueError, match="ConstantPad1d"):             # MindSpore: ValueError, length must be 2
        nn.ConstantPad1d((1, 1, 1, 1), 0.)
    with pytest.raises(ValueError, match="ConstantPad2d"):             # MindSpore: a multiple of 2
        nn.ConstantPad2d((1, 1, 1), 0.)
    with pytest.raises(TypeError, match="ConstantPad1d"):
        nn.ConstantPad1d(1.5, 0.)
    _eq(nn.ConstantPad2d((1, 1), 0.)(v), [[[0, 1, 2, 3, 0], [0, 4, 5, 6, 0]]])   # a shorter tuple pads fewer axes
