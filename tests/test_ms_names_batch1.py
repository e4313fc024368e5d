"""MindSpore names real programs call: ``ops.sum``'s 2.10 signature, ``ms.from_numpy`` and the dtype
conversion functions. Expected values are MindSpore 2.10 (CPU)'s outputs for the same calls."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops


def _x():
    return ms.Tensor(np.arange(6).reshape(2, 3).astype(np.float32))


def test_sum_dim_keepdim_dtype():
    x = _x()
    np.testing.assert_array_equal(ops.sum(x, dim=1).asnumpy(), [3., 12.])
    np.testing.assert_array_equal(ops.sum(x, 1, True).asnumpy(), [[3.], [12.]])
    assert ops.sum(x, (0, 1)).asnumpy() == 15.0
    out = ops.sum(x, dtype=ms.float64)
    assert out.dtype == ms.float64 and out.asnumpy() == 15.0
    out = ops.sum(x, dtype=ms.int32)                    # the dtype casts first: MindSpore gives Int32 15
    assert out.dtype == ms.int32 and out.asnumpy() == 15


def test_sum_integer_dtypes():
    xi = ms.Tensor(np.arange(6).reshape(2, 3).astype(np.int32))
    assert ops.sum(xi).dtype == ms.int64 and ops.sum(xi).asnumpy() == 15
    assert ops.sum(xi, 0).dtype == ms.int64
    b = ops.sum(ms.Tensor([True, False, True]))
    assert b.dtype == ms.int64 and b.asnumpy() == 2
    f = ops.sum(xi, dtype=ms.float32)
    assert f.dtype == ms.float32 and f.asnumpy() == 15.0


def test_sum_gradient_with_dtype():
    g = ms.grad(lambda a: ops.sum(a, dim=1, dtype=ms.float64))(_x())
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), np.ones((2, 3), np.float32))


def test_sum_older_keywords_still_work():
    x = _x()
    np.testing.assert_array_equal(ops.sum(x, axis=1, keepdims=True).asnumpy(), [[3.], [12.]])
    with pytest.raises(TypeError, match="op 'sum'"):
        ops.sum(x, dim=0, axis=1)


def test_from_numpy_shares_memory():
    a = np.arange(3, dtype=np.float32)
    t = ms.from_numpy(a)
    a[0] = 7
    assert t.dtype == ms.float32
    np.testing.assert_array_equal(t.asnumpy(), [7., 1., 2.])
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ms.from_numpy([1, 2])
    c = ms.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 3).T)     # not C-contiguous: copied
    np.testing.assert_array_equal(c.asnumpy(), np.arange(6).reshape(2, 3).T)


def test_dtype_conversions():
    assert ms.dtype_to_nptype(ms.float16) is np.float16
    assert ms.dtype_to_nptype(ms.bool_) is np.bool_
    assert ms.dtype_to_nptype(ms.int64) is np.int64
    assert ms.pytype_to_dtype(int) == ms.int64
    assert ms.pytype_to_dtype(float) == ms.float64
    assert ms.pytype_to_dtype(bool) == ms.bool_
    assert ms.pytype_to_dtype(ms.float32) == ms.float32
    assert ms.pytype_to_dtype(np.float32) == ms.float32
    assert ms.dtype_to_pytype(ms.float32) is float
    assert ms.dtype_to_pytype(ms.int8) is int
    assert ms.dtype_to_pytype(ms.bool_) is bool
    with pytest.raises(TypeError, match="dtype_to_nptype"):
        ms.dtype_to_nptype(np.float32)                  # MindSpore: KeyError
    from mscustom.common import dtype as mstype
    assert mstype.dtype_to_nptype(mstype.float32) is np.float32
