"""ops.dot / Tensor.dot against real MindSpore 2.10's values (and minpy's documented array methods)."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
B = np.arange(40, dtype=np.float32).reshape(2, 4, 5) / 10


def test_dot_of_rank_3_tensors_is_numpys_nd_dot():
    out = ops.dot(ms.Tensor(A), ms.Tensor(B))
    assert out.shape == (2, 3, 2, 5) and out.dtype == ms.float32
    # MindSpore 2.10: the first values of ops.dot(a, b)
    np.testing.assert_allclose(out.asnumpy().reshape(-1)[:5], [0.70000005, 0.76000005, 0.82000005, 0.88, 0.94],
                               rtol=1e-6)
    np.testing.assert_allclose(ms.Tensor(A).dot(ms.Tensor(B)).asnumpy(), np.dot(A, B), rtol=1e-6)


def test_dot_gradients_match_mindspore():
    gx, gy = ms.grad(lambda x, y: ops.dot(x, y).sum(), grad_position=(0, 1))(ms.Tensor(A), ms.Tensor(B))
    np.testing.assert_allclose(gx.asnumpy().reshape(-1)[:4], [12.0, 17.0, 22.0, 27.0], rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy().reshape(-1)[:4], [6.0, 6.0, 6.0, 6.0], rtol=1e-6)


def test_dot_checks_its_inputs_as_mindspore_does():
    with pytest.raises(TypeError, match="For 'dot', the inputs must be the same type, but got x1_type: Float32 "
                                        "and x2_type: Float16"):
        ops.dot(ms.Tensor(A), ms.Tensor(B.astype(np.float16)))
    with pytest.raises(ValueError, match="For 'dot', the inputs x1, x2 should have 'dimension >= 2'"):
        ops.dot(ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="For 'dot', the 'x1' doesn't support 'Int32'"):
        ops.dot(ms.Tensor(np.ones((2, 3), np.int32)), ms.Tensor(np.ones((3, 2), np.int32)))
    with pytest.raises(ValueError, match=r"For 'dot', the last dimension of x1 \(4\)"):
        ops.dot(ms.Tensor(A), ms.Tensor(np.ones((3, 5), np.float32)))


def test_minpy_documented_array_methods():
    """minpy's Array documents reshape (a shape or ints), dot, argmax, T, shape, ndim, size, dtype, asnumpy."""
    import mscustom.compat.minpy.numpy as mnp
    x = mnp.ones((2, 3)) * 2.0
    w = mnp.ones((3, 4))
    assert x.reshape([3, 2]).shape == (3, 2) and x.reshape(3, 2).shape == (3, 2)
    np.testing.assert_array_equal(x.dot(w).asnumpy(), np.full((2, 4), 6.0))
    # minpy's ones() gives float32 (its MXNet-backed constructors' default), and * 2.0 keeps it
    assert x.T.shape == (3, 2) and x.ndim == 2 and x.size == 6 and x.asnumpy().dtype == np.float32
    assert x.argmax(axis=1).asnumpy().tolist() == [0, 0]
