"""Tensor methods bound to the ops functions of the same names (one definition): add, bool, fill,
isnan, contiguous, minimum, diagonal, trace, repeat_interleave, tril, triu, flip, isclose, outer,
addmm, lerp, atan2, floor_divide, masked_select. Expected values are MindSpore 2.10 (CPU)'s."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops, Tensor


def _x():
    return Tensor(np.arange(1, 13).reshape(3, 4).astype(np.float32))


def _eq(t, expected, dtype=None):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected), rtol=1e-6, atol=1e-6)
    if dtype is not None:
        assert t.dtype == dtype


def test_methods_are_the_ops_functions():
    for name in ("tril", "triu", "flip", "isclose", "outer", "addmm", "lerp", "atan2", "floor_divide",
                 "masked_select", "isnan", "minimum", "trace"):
        assert getattr(Tensor, name) is getattr(ops, name), name


def test_add_bool_fill_isnan_contiguous_minimum():
    x, xi = _x(), Tensor(np.array([1, 2, 3], np.int32))
    _eq(x.add(1), np.arange(2, 14).reshape(3, 4), ms.float32)
    _eq(x.add(x, alpha=2), 3 * np.arange(1, 13).reshape(3, 4))
    _eq(x.add(2, alpha=3), np.arange(7, 19).reshape(3, 4))
    _eq(xi.add(2.5), [3.5, 4.5, 5.5], ms.float32)
    _eq(xi.add(xi, alpha=2), [3, 6, 9], ms.int32)
    _eq(Tensor(np.array([0., 1., -2.], np.float32)).bool(), [False, True, True], ms.bool_)
    _eq(Tensor(np.array([1., np.nan], np.float32)).bool(), [True, True])
    y = Tensor(np.zeros(3, np.float32))
    r = y.fill(3)                                       # MindSpore 2.10: a new tensor, y unchanged
    _eq(r, [3, 3, 3], ms.float32)
    _eq(y, [0, 0, 0])
    _eq(x.fill(2.5), np.full((3, 4), 2.5))
    _eq(xi.fill(2.7), [2, 2, 2], ms.int32)
    _eq(Tensor(np.array([1., np.nan], np.float32)).isnan(), [False, True], ms.bool_)
    assert x.contiguous() is x
    _eq(x.minimum(Tensor(np.float32(5.0))), [[1, 2, 3, 4], [5, 5, 5, 5], [5, 5, 5, 5]])
    _eq(xi.minimum(2), [1, 2, 2], ms.int32)


def test_diagonal_and_trace():
    x = _x()
    x3 = Tensor(np.arange(24).reshape(2, 3, 4).astype(np.float32))
    _eq(x.diagonal(), [1, 6, 11])
    _eq(x.diagonal(1), [2, 7, 12])
    _eq(x.diagonal(-1), [5, 10])
    _eq(x3.diagonal(0, 1, 2), [[0, 5, 10], [12, 17, 22]])
    _eq(x3.diagonal(1, 0, 2), [[1, 14], [5, 18], [9, 22]])
    _eq(ops.diagonal(x, 1), [2, 7, 12])
    _eq(ms.grad(lambda a: a.diagonal(1).sum())(x), [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    _eq(x.trace(), 18, ms.float32)
    _eq(ops.trace(x), 18)
    _eq(x.trace(1), 21)
    assert x.trace(0, 0, 1, ms.float64).dtype == ms.float64
    _eq(x3.trace(0, 1, 2), [15, 51])
    _eq(Tensor(np.arange(9).reshape(3, 3).astype(np.int32)).trace(), 12, ms.int64)
    _eq(ms.grad(lambda a: a.trace())(x), [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])
    with pytest.raises(ValueError, match="op 'diagonal'"):
        x.diagonal(0, 1, 1)


def test_repeat_interleave():
    x, xi = _x(), Tensor(np.array([1, 2, 3], np.int32))
    _eq(xi.repeat_interleave(2), [1, 1, 2, 2, 3, 3], ms.int32)
    _eq(x.repeat_interleave(2, 0), np.repeat(np.arange(1, 13).reshape(3, 4), 2, 0))
    _eq(x.repeat_interleave([1, 2, 0], 0), [[1, 2, 3, 4], [5, 6, 7, 8], [5, 6, 7, 8]])
    _eq(x.repeat_interleave(Tensor(np.array([1, 2, 0])), 0), [[1, 2, 3, 4], [5, 6, 7, 8], [5, 6, 7, 8]])
    _eq(x.repeat_interleave(2, dim=1), [[1, 1, 2, 2, 3, 3, 4, 4], [5, 5, 6, 6, 7, 7, 8, 8],
                                        [9, 9, 10, 10, 11, 11, 12, 12]])
    assert ops.repeat_interleave(x, 2, 1).shape == (3, 8)
    _eq(ms.grad(lambda a: (a.repeat_interleave(2, 0) ** 2).sum())(x), 4 * np.arange(1, 13).reshape(3, 4))
    with pytest.raises(ValueError, match="op 'repeat_interleave'"):
        x.repeat_interleave([1, 2], 0)


def test_methods_of_the_new_ops():
    x = _x()
    _eq(x.tril(1), [[1, 2, 0, 0], [5, 6, 7, 0], [9, 10, 11, 12]])
    _eq(x.triu(), [[1, 2, 3, 4], [0, 6, 7, 8], [0, 0, 11, 12]])
    _eq(x.flip((0,)), [[9, 10, 11, 12], [5, 6, 7, 8], [1, 2, 3, 4]])
    _eq(x.isclose(x), np.ones((3, 4), bool), ms.bool_)
    xi = Tensor(np.array([1, 2, 3], np.int32))
    _eq(xi.outer(xi), [[1, 2, 3], [2, 4, 6], [3, 6, 9]], ms.int32)
    _eq(x.lerp(x * 2, 0.5), 1.5 * np.arange(1, 13).reshape(3, 4))
    _eq(x.atan2(x), np.full((3, 4), 0.7853981852531433))
    _eq(x.floor_divide(Tensor(np.float32(5.0))), [[0, 0, 0, 0], [1, 1, 1, 1], [1, 2, 2, 2]])
    _eq(x.masked_select(x > 6), [7, 8, 9, 10, 11, 12])
    _eq(Tensor(np.ones((3, 3), np.float32)).addmm(x, Tensor(np.ones((4, 3), np.float32)), beta=2, alpha=0.5),
        [[7, 7, 7], [15, 15, 15], [23, 23, 23]])
    p = ms.Parameter(_x(), name="p")                    # Parameters have the methods too
    _eq(p.diagonal(), [1, 6, 11])
