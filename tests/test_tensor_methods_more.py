"""Tensor-only methods: new_*, dtype shorthands, layout queries, transposes, in-place forms
(values from MindSpore 2.10 CPU; in-place semantics as MindSpore documents them)."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import Tensor


def X():
    return Tensor(np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32))


def test_new_and_dtype_methods():
    x, i = X(), Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    z = x.new_zeros((2,))
    assert z.dtype == ms.float32 and z.asnumpy().tolist() == [0.0, 0.0]
    o = i.new_ones((2,))
    assert o.dtype == ms.int32 and o.asnumpy().tolist() == [1, 1]
    assert x.new_zeros((2, 3), dtype=ms.int32).dtype == ms.int32
    e = x.new_empty((2, 3))
    assert e.shape == (2, 3) and e.dtype == ms.float32
    with pytest.raises(TypeError):
        x.new_zeros((2,), 3)
    assert (x.double().dtype, x.half().dtype, x.long().dtype, x.short().dtype, x.bfloat16().dtype) == (
        ms.float64, ms.float16, ms.int64, ms.int16, ms.bfloat16)
    b = i.byte()
    assert b.dtype == ms.uint8 and b.asnumpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    assert x.type() == "Float32" and x.type(ms.int32).asnumpy().tolist() == [[1, -2, 3], [4, 5, -6]]
    assert x.type_as(i).dtype == ms.int32


def test_layout_queries():
    x = X()
    assert (x.itemsize, x.nbytes, x.strides) == (4, 24, (12, 4))
    assert (x.stride(), x.stride(1), x.stride(-2)) == ([3, 1], 1, 3)
    assert x.storage_offset() == 0 and x.is_contiguous() is True and x.ndimension() == 2
    assert (x.is_signed(), Tensor(np.array([1], np.uint8)).is_signed(), Tensor([True]).is_signed()) == (
        True, False, False)
    assert isinstance(x.data_ptr(), int) and x.device == "CPU"
    assert x.reshape_as(Tensor(np.zeros((3, 2)))).asnumpy().tolist() == [[1, -2], [3, 4], [5, -6]]
    t = [[1.0, 4.0], [-2.0, 5.0], [3.0, -6.0]]
    assert x.mT.asnumpy().tolist() == t and x.mH.asnumpy().tolist() == t and x.H.asnumpy().tolist() == t
    assert Tensor(np.zeros((2, 3, 4))).mT.shape == (2, 4, 3)
    with pytest.raises(ValueError, match="only 2-D"):
        Tensor(np.zeros((2, 3, 4))).H


def test_inplace_values():
    y = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    cases = [
        (lambda x: x.add_(y), [[2, 0, 6], [5, 7, -3]]),
        (lambda x: x.add_(y, alpha=2), [[3, 2, 9], [6, 9, 0]]),
        (lambda x: x.add_(1), [[2, -1, 4], [5, 6, -5]]),
        (lambda x: x.sub_(y, alpha=2), [[-1, -6, -3], [2, 1, -12]]),
        (lambda x: x.mul_(y), [[1, -4, 9], [4, 10, -18]]),
        (lambda x: x.div_(y, rounding_mode="floor"), [[1, -1, 1], [4, 2, -2]]),
        (lambda x: x.remainder_(2.5), [[1, 0.5, 0.5], [1.5, 0, 1.5]]),
        (lambda x: x.floor_divide_(y), [[1, -1, 1], [4, 2, -2]]),
        (lambda x: x.fill_(2.5), [[2.5] * 3] * 2),
        (lambda x: x.fill_(Tensor(3.0)), [[3.0] * 3] * 2),
        (lambda x: x.sign_(), [[1, -1, 1], [1, 1, -1]]),
        (lambda x: x.mul_(0.5).floor_(), [[0, -1, 1], [2, 2, -3]]),
        (lambda x: x.masked_fill_(Tensor(np.array([True, False, True])), 0.5), [[0.5, -2, 0.5], [0.5, 5, 0.5]]),
        (lambda x: x.index_fill_(1, Tensor(np.array([0, 2], np.int32)), -1.0), [[-1, -2, -1], [-1, 5, -1]]),
        (lambda x: x.index_add_(1, Tensor(np.array([0, 2], np.int32)), Tensor(np.ones((2, 2), np.float32)), alpha=2),
         [[3, -2, 5], [6, 5, -4]]),
        (lambda x: x.scatter_(1, Tensor(np.array([[0], [2]], np.int64)), Tensor(np.array([[9.0], [8.0]], np.float32))),
         [[9, -2, 3], [4, 5, 8]]),
        (lambda x: x.scatter_add_(1, Tensor(np.array([[0], [2]], np.int64)),
                                  Tensor(np.array([[9.0], [8.0]], np.float32))), [[10, -2, 3], [4, 5, 2]]),
    ]
    for fn, want in cases:
        x = X()
        assert fn(x) is x
        np.testing.assert_allclose(x.asnumpy(), np.array(want, np.float32), rtol=1e-6)
    for name, f in [("exp_", np.exp), ("sigmoid_", lambda a: 1 / (1 + np.exp(-a)))]:
        x = X()
        getattr(x, name)()
        np.testing.assert_allclose(x.asnumpy(), f(X().asnumpy()), rtol=1e-6)
    x = Tensor(np.array([1.0, 4.0], np.float32))
    np.testing.assert_allclose(x.log_().asnumpy(), np.log([1.0, 4.0]), rtol=1e-6)
    i = Tensor(np.array([1, 2], np.int32))
    with pytest.raises(TypeError):
        i.add_(1.5)
    assert i.add_(1).asnumpy().tolist() == [2, 3] and i.dtype == ms.int32
    with pytest.raises(ValueError, match="broadcast"):
        Tensor(np.array([1.0, 2.0], np.float32)).add_(Tensor(np.ones((2, 2), np.float32)))


def test_inplace_gradients():
    a = Tensor(np.array([1.0, 2.0], np.float32))

    def g(t):
        b = t * 1
        b.add_(t)
        b.mul_(t)                   # b = 2 t^2
        return b.sum()

    def g2(t):
        b = t * 1
        b.exp_()
        return b.sum()

    def g3(t):
        b = t * 1
        b.fill_(0.0)
        b.sub_(t, alpha=3)          # b = -3 t
        return (b * t).sum()

    assert ms.grad(g)(a).asnumpy().tolist() == [4.0, 8.0]
    np.testing.assert_allclose(ms.grad(g2)(a).asnumpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    assert ms.grad(g3)(a).asnumpy().tolist() == [-6.0, -12.0]


def test_random_fills():
    ms.manual_seed(3)
    x = Tensor(np.zeros((1000,), np.float32))
    assert x.uniform_(2.0, 3.0) is x
    v = x.asnumpy()
    assert v.min() >= 2.0 and v.max() < 3.0
    ms.manual_seed(3)
    assert np.array_equal(Tensor(np.zeros((1000,), np.float32)).uniform_(2.0, 3.0).asnumpy(), v)
    n = Tensor(np.zeros((2000,), np.float32)).normal_(1.0, 0.5).asnumpy()
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    r = Tensor(np.zeros((500,), np.int32)).random_(0, 5).asnumpy()
    assert set(r.tolist()) <= {0, 1, 2, 3, 4} and r.dtype == np.int32
    ex = Tensor(np.zeros((2000,), np.float32)).exponential_(2.0).asnumpy()
    assert ex.min() >= 0 and abs(ex.mean() - 0.5) < 0.05
    bern = Tensor(np.zeros((2000,), np.float32)).bernoulli_(0.25).asnumpy()
    assert set(np.unique(bern).tolist()) <= {0.0, 1.0} and abs(bern.mean() - 0.25) < 0.05
    g = ms.Generator().manual_seed(1)
    a = Tensor(np.zeros(4, np.float32)).uniform_(generator=g).asnumpy()
    g.manual_seed(1)
    assert np.array_equal(Tensor(np.zeros(4, np.float32)).uniform_(generator=g).asnumpy(), a)
    with pytest.raises(ValueError):
        Tensor(np.zeros(2, np.float32)).normal_(0.0, -1.0)


def test_more_tensor_only_forms():
    x = X()
    assert x.has_init is False and x.init is None and x.init_flag is False and x.data is x
    assert x.itemset((0, 1), 9.0) is x and x.asnumpy().tolist() == [[1, 9, 3], [4, 5, -6]]
    assert X().sum_to_size((1, 3)).asnumpy().tolist() == [[5, 3, -3]]
    assert X().sum_to_size(3).asnumpy().tolist() == [5, 3, -3]
    assert X().sum_to_size(2, 1).asnumpy().tolist() == [[2], [3]]
    assert ms.grad(lambda t: t.sum_to_size((1, 3)).sum())(X()).asnumpy().tolist() == [[1] * 3] * 2
    assert X().resize(3, 3).asnumpy().tolist() == [[1, -2, 3], [4, 5, -6], [0, 0, 0]]
    assert X().resize((1, 2)).asnumpy().tolist() == [[1, -2]]
    assert X().is_pinned() is False and X().is_shared() is False
    assert X().move_to("CPU").asnumpy().tolist() == X().asnumpy().tolist()
    with pytest.raises(RuntimeError, match="device target"):
        X().move_to("Ascend")
    assert X().ptp(axis=1).asnumpy().tolist() == [5, 11] and float(X().ptp().asnumpy()) == 11.0
    np.testing.assert_allclose(X().inv().asnumpy(), [[1, -0.5, 0.33333343], [0.25, 0.2, -0.16666667]], rtol=1e-6)
    assert X().log_normal().shape == (2, 3) and X().cauchy().dtype == ms.float32 and X().uniform().shape == (2, 3)
    assert Tensor(np.array([0.0, 1.0], np.float32)).bernoulli().asnumpy().tolist() == [0.0, 1.0]
