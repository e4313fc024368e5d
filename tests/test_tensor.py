"""The Tensor and Parameter API: construction, properties, operators and methods."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops


def test_construction_follows_mindspore_typing():
    assert ms.Tensor([1.0, 2.0]).dtype == ms.float32
    assert ms.Tensor([1, 2]).dtype == ms.int64
    assert ms.Tensor(True).dtype == ms.bool_
    assert ms.Tensor(np.zeros(2, np.float64)).dtype == ms.float64
    assert ms.Tensor([1, 2], dtype=ms.float16).dtype == ms.float16
    z = ms.Tensor(shape=(2, 3), dtype=ms.int32, init="ones")
    assert z.shape == (2, 3) and z.dtype == ms.int32 and z.asnumpy().sum() == 6
    with pytest.raises(TypeError, match="Tensor: input_data is None"):
        ms.Tensor(None)


def test_properties_and_conversions():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = ms.Tensor(a)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and len(x) == 2
    assert x.dtype == ms.float32
    np.testing.assert_array_equal(x.asnumpy(), a)
    a[0, 0] = 100.0                               # the constructor copies
    assert x.asnumpy()[0, 0] == 0.0
    assert np.asarray(x).dtype == np.float32
    assert x.astype(ms.int32).dtype == ms.int32
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert ms.Tensor([2.5]).item() == 2.5 and float(ms.Tensor(2.5)) == 2.5 and int(ms.Tensor(3)) == 3
    with pytest.raises(ValueError, match=r"Tensor.item: only a tensor with one element can be converted, "
                                         r"got shape \(2, 3\)"):
        x.item()
    with pytest.raises(ValueError, match="The truth value of a Tensor with shape"):
        bool(x)
    assert bool(ms.Tensor([1.0]))


def test_repr_shows_shape_dtype_and_values():
    text = repr(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert text.startswith("Tensor(shape=[2, 2], dtype=Float32, value=\n")     # MindSpore's layout
    assert "[3., 4.]" in text
    assert repr(ms.Tensor(3)) == "Tensor(shape=[], dtype=Int64, value= 3)"
    assert str(ms.Tensor([True])) == "[ True]"                                  # print() shows the values


def test_arithmetic_operators_and_reflected_forms():
    x = ms.Tensor([1.0, 2.0, 4.0])
    a = x.asnumpy()
    cases = [
        (x + 1, a + 1), (1 + x, 1 + a), (x - 1, a - 1), (1 - x, 1 - a), (x * 3, a * 3), (3 * x, 3 * a),
        (x / 2, a / 2), (2 / x, 2 / a), (x ** 2, a ** 2), (2 ** x, 2 ** a), (-x, -a), (+x, a),
        (abs(-x), a), (x + x, a + a), (x @ x, a @ a),
    ]
    for got, expect in cases:
        assert isinstance(got, ms.Tensor)
        assert got.dtype == ms.float32
        np.testing.assert_allclose(got.asnumpy(), expect, rtol=1e-6)


def test_operators_with_numpy_arrays_on_either_side():
    x = ms.Tensor([1.0, 2.0])
    arr = np.array([10.0, 20.0], np.float32)
    for got, expect in [(x + arr, [11, 22]), (arr + x, [11, 22]), (arr - x, [9, 18]), (arr * x, [10, 40]),
                        (arr / x, [10, 10])]:
        assert isinstance(got, ms.Tensor), type(got)
        np.testing.assert_allclose(got.asnumpy(), expect)
    m = np.ones((2, 2), np.float32)
    assert isinstance(m @ x, ms.Tensor)
    np.testing.assert_allclose((m @ x).asnumpy(), [3.0, 3.0])


def test_comparison_operators():
    x = ms.Tensor([1.0, 2.0, 3.0])
    y = ms.Tensor([3.0, 2.0, 1.0])
    for got, expect in [(x == y, [0, 1, 0]), (x != y, [1, 0, 1]), (x < y, [1, 0, 0]), (x <= y, [1, 1, 0]),
                        (x > 2, [0, 0, 1]), (x >= 2, [0, 1, 1]), (2 < x, [0, 0, 1]),
                        (np.array([2.0, 2.0, 2.0], np.float32) == x, [0, 1, 0])]:
        assert got.dtype == ms.bool_
        np.testing.assert_array_equal(got.asnumpy(), np.array(expect, bool))


def test_reduction_and_shape_methods():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ms.Tensor(a)
    assert x.sum().item() == a.sum()
    np.testing.assert_array_equal(x.sum(axis=0).asnumpy(), a.sum(0))
    np.testing.assert_array_equal(x.sum(1, keepdims=True).asnumpy(), a.sum(1, keepdims=True))
    np.testing.assert_allclose(x.mean(1).asnumpy(), a.mean(1))
    np.testing.assert_allclose(x.mean(keep_dims=True).asnumpy(), a.mean(keepdims=True))
    np.testing.assert_array_equal(x.max(0)[0].asnumpy(), a.max(0))      # MindSpore 2.10: (values, indices)
    np.testing.assert_array_equal(x.min(1, keepdims=True).asnumpy(), a.min(1, keepdims=True))
    assert x.reshape(4, 3).shape == (4, 3) and x.reshape((2, -1)).shape == (2, 6)
    assert x.view(12).shape == (12,) and x.flatten().shape == (12,)
    np.testing.assert_array_equal(x.T.asnumpy(), a.T)
    np.testing.assert_array_equal(x.transpose().asnumpy(), a.T)
    np.testing.assert_array_equal(x.transpose((1, 0)).asnumpy(), a.T)
    assert x.expand_dims(1).shape == (3, 1, 4) and x.expand_dims(1).squeeze().shape == (3, 4)
    np.testing.assert_allclose(x.exp().asnumpy(), np.exp(a), rtol=1e-6)
    np.testing.assert_allclose((x + 1).log().asnumpy(), np.log(a + 1), rtol=1e-6)
    np.testing.assert_allclose(x.sqrt().asnumpy(), np.sqrt(a), rtol=1e-6)
    np.testing.assert_array_equal(x.square().asnumpy(), a ** 2)
    np.testing.assert_array_equal((-x).abs().asnumpy(), a)
    assert x.argmax().item() == 11 and x.argmin(axis=1).tolist() == [0, 0, 0]


def test_indexing_and_item_assignment():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ms.Tensor(a)
    np.testing.assert_array_equal(x[1].asnumpy(), a[1])
    np.testing.assert_array_equal(x[:, 1:3].asnumpy(), a[:, 1:3])
    np.testing.assert_array_equal(x[x > 5].asnumpy(), a[a > 5])
    np.testing.assert_array_equal(x[[2, 0], -1].asnumpy(), a[[2, 0], -1])
    assert x[1, 2].item() == 6.0
    x[0, 0] = 42.0
    x[1] = ms.Tensor(np.zeros(4, np.float32))
    assert x.asnumpy()[0, 0] == 42.0 and x.asnumpy()[1].sum() == 0


def test_tensor_methods_are_differentiable():
    x = ms.Tensor([[1.0, -2.0], [3.0, 0.5]])
    g = ms.grad(lambda t: (t.T @ t).sum() + t.max() + t[0, 1] * 2 + t.mean())(x)
    a = x.asnumpy().astype(np.float64)
    expect = 2 * a.sum(axis=1, keepdims=True) * np.ones((1, 2)) + 0.25
    expect = expect + np.array([[0, 2], [1, 0]])
    np.testing.assert_allclose(g.asnumpy(), expect, rtol=1e-6)


def test_format_tag():
    x = ms.Tensor(np.zeros((1, 2, 3, 4), np.float32), format="NCHW")
    assert x.format == "NCHW"
    assert x.set_format("NHWC").format == "NHWC"
    with pytest.raises(ValueError, match="unknown tensor format 'XYZ'"):
        x.set_format("XYZ")


def test_parameter_name_set_data_and_grad():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    assert w.name == "w" and w.requires_grad and isinstance(w, ms.Tensor)
    assert repr(w) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"   # MindSpore prints this
    w.set_data(ms.Tensor([3.0, 4.0]))
    np.testing.assert_array_equal(w.asnumpy(), [3.0, 4.0])
    w.set_data(np.array([5, 6]))                    # keeps the parameter's dtype
    assert w.dtype == ms.float32 and w.asnumpy().tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match=r"Parameter.set_data: parameter 'w' has shape \(2,\), the new data "
                                         r"has shape \(3,\)"):
        w.set_data(ms.Tensor([1.0, 2.0, 3.0]))
    assert (w * 2).dtype == ms.float32 and type(w * 2) is ms.Tensor
    g = ms.grad(lambda x: (x * w).sum(), grad_position=None, weights=[w])(ms.Tensor([1.0, 10.0]))
    np.testing.assert_array_equal(g[0].asnumpy(), [1.0, 10.0])
    frozen = ms.Parameter(np.zeros(2, np.float32), name="f", requires_grad=False)
    assert not frozen.requires_grad
    tup = ms.ParameterTuple([w, frozen])
    assert len(tup) == 2
    with pytest.raises(TypeError, match="ParameterTuple: every element must be a Parameter, got Tensor"):
        ms.ParameterTuple([w, ms.Tensor([1.0])])


def test_ops_accept_arrays_and_python_numbers():
    np.testing.assert_allclose(ops.exp(np.zeros(2, np.float32)).asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(ops.add(1.5, 2.5).asnumpy(), 4.0)
    assert ops.add(1, 2).dtype == ms.int64
    with pytest.raises(TypeError, match="op 'exp': input must be a Tensor, got object"):
        ops.exp(object())
