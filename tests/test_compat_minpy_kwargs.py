"""minpy.numpy with NumPy's keyword arguments (out=, axis=, keepdims=, dtype=); NumPy is the oracle.

minpy's array constructors give float32 unless told otherwise, so the float64 operands here say so.
"""

import numpy as onp
import pytest

import mscustom.compat.minpy.numpy as np
from mscustom.compat.minpy.core import grad

A = onp.arange(6.0).reshape(2, 3) - 2.5


@pytest.mark.parametrize("name,kwargs", [
    ("sum", {"axis": 1, "keepdims": True}), ("sum", {"axis": (0, 1)}), ("sum", {"dtype": onp.float32}),
    ("mean", {"axis": 0, "keepdims": True}), ("mean", {"axis": (0, 1), "dtype": onp.float32}),
    ("max", {"axis": 1, "keepdims": True}), ("min", {"axis": 0}), ("amax", {}), ("amin", {"keepdims": True}),
])
def test_reductions_match_numpy(name, kwargs):
    got = getattr(np, name)(np.array(A, dtype=onp.float64), **kwargs)
    want = getattr(onp, name)(A, **kwargs)
    assert got.asnumpy().dtype == want.dtype
    assert got.shape == want.shape
    onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("name", ["exp", "tanh", "square", "negative", "absolute", "sign"])
def test_unary_out_and_dtype(name):
    out = np.zeros((2, 3), dtype=onp.float64)
    res = getattr(np, name)(np.array(A, dtype=onp.float64), out=out)
    assert res is out
    onp.testing.assert_allclose(out.asnumpy(), getattr(onp, name)(A), rtol=1e-12)
    assert out.asnumpy().dtype == onp.float64
    r32 = getattr(np, name)(A, dtype=onp.float32)
    assert r32.asnumpy().dtype == getattr(onp, name)(A, dtype=onp.float32).dtype == onp.float32


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power"])
def test_binary_out_into_numpy_array(name):
    b = onp.full((2, 3), 1.5)
    out = onp.empty((2, 3))
    res = getattr(np, name)(np.array(onp.abs(A) + 0.5, dtype=onp.float64), b, out=out)
    assert res is out
    onp.testing.assert_allclose(out, getattr(onp, name)(onp.abs(A) + 0.5, b), rtol=1e-12)


def test_float64_is_kept():
    assert np.exp(2.0).asnumpy().dtype == onp.float64 == onp.exp(2.0).dtype
    assert np.add(1.5, 2.0).asnumpy().dtype == onp.float64
    assert np.dot([[1.0, 2.0]], [[3.0], [4.0]]).asnumpy().dtype == onp.float64
    assert np.mean(np.array([1, 2], dtype=onp.int64)).asnumpy().dtype == onp.mean(onp.array([1, 2])).dtype == onp.float64


def test_dot_and_concatenate_out():
    out = np.zeros((2, 2), dtype=onp.float64)
    assert np.dot(np.array(A, dtype=onp.float64), np.array(A.T), out=out) is out
    onp.testing.assert_allclose(out.asnumpy(), A @ A.T)
    out = np.zeros((2, 6), dtype=onp.float64)
    np.concatenate([np.array(A, dtype=onp.float64), np.array(A, dtype=onp.float64)], axis=1, out=out)
    onp.testing.assert_array_equal(out.asnumpy(), onp.concatenate([A, A], axis=1))


def test_gradient_flows_through_out():
    def loss(x):
        buf = np.zeros((2, 3), dtype=onp.float64)
        np.multiply(x, x, out=buf)
        return np.sum(buf, axis=None, keepdims=False)
    onp.testing.assert_allclose(grad(loss)(np.array(A, dtype=onp.float64)).asnumpy(), 2 * A)

    def loss2(x):
        return np.sum(np.mean(x, axis=1, keepdims=True) * x, dtype=onp.float64)
    g = grad(loss2)(np.array(A, dtype=onp.float64)).asnumpy()
    m = A.mean(axis=1, keepdims=True)
    onp.testing.assert_allclose(g, onp.broadcast_to(m + A.sum(axis=1, keepdims=True) / 3, A.shape), rtol=1e-12)


def test_bad_keywords_name_the_function():
    with pytest.raises(ValueError, match=r"minpy.numpy.exp: out= has shape \(3,\), the result has shape \(2, 3\)"):
        np.exp(np.array(A, dtype=onp.float64), out=np.zeros(3, dtype=onp.float64))
    with pytest.raises(TypeError, match=r"minpy.numpy.add: cannot write the float64 result into out= of dtype int64"):
        np.add(np.array(A, dtype=onp.float64), 1.0, out=onp.zeros((2, 3), onp.int64))
    with pytest.raises(TypeError, match=r"minpy.numpy.sum: unsupported keyword argument\(s\) \['where'\]"):
        np.sum(np.array(A, dtype=onp.float64), where=True)
    with pytest.raises(TypeError, match=r"minpy.numpy.max: no dtype="):
        np.max(np.array(A, dtype=onp.float64), dtype=onp.float32)
