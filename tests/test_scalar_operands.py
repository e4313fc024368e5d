"""A Python number next to a tensor is converted once per (type, value, dtype) to a shared read-only array."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import _builtin


def _x(dtype=np.float32):
    return ms.Tensor(np.array([0.5, -1.5, 2.0, 3.0]).astype(dtype))


def test_repeated_number_shares_one_read_only_array():
    x = _x()
    a = _builtin.scalar_like(2, x)
    b = _builtin.scalar_like(2, x)
    assert a._data is b._data and a._data.dtype == np.float32
    assert not a._data.flags.writeable
    with pytest.raises(ValueError):
        a.asnumpy()[...] = 5                    # a write raises instead of changing the shared value
    assert float(_builtin.scalar_like(2, x).asnumpy()) == 2.0


def test_results_are_fresh_writeable_arrays_with_numpys_values():
    x = _x()
    for _ in range(2):                          # the second call reads the cached operand
        for r, want in [(2 * x, 2 * x.asnumpy()), (x * 2.5, x.asnumpy() * np.float32(2.5)),
                        (x - 1, x.asnumpy() - 1), (3.0 / x, np.float32(3.0) / x.asnumpy()),
                        (ops.maximum(x, 1.0), np.maximum(x.asnumpy(), 1))]:
            assert r.asnumpy().flags.writeable and r.dtype == ms.float32
            np.testing.assert_array_equal(r.asnumpy(), want)
            r.asnumpy()[0] = 7                  # writing into a result leaves the operand alone
    np.testing.assert_array_equal((2 * x).asnumpy(), 2 * x.asnumpy())


def test_dtype_and_type_are_part_of_the_key():
    f32, f64, i32 = _x(), _x(np.float64), ms.Tensor(np.array([1, 2, 3], np.int32))
    assert (2 * f32).dtype == ms.float32 and (2 * f64).dtype == ms.float64
    assert (3 * i32).dtype == ms.int32
    np.testing.assert_array_equal((3 * i32).asnumpy(), [3, 6, 9])
    assert _builtin.scalar_like(2, f32)._data is not _builtin.scalar_like(2, f64)._data


def test_signed_zero_and_nan_are_not_shared():
    x = _x()
    _builtin.scalar_like(0.0, x)
    neg = x * -0.0
    assert np.signbit(neg.asnumpy()[0]) and not np.signbit((x * 0.0).asnumpy()[0])
    n = len(_builtin._SCALARS)
    for _ in range(3):
        assert np.isnan((x * float("nan")).asnumpy()).all()
    assert len(_builtin._SCALARS) == n


def test_the_table_is_bounded():
    x = _x()
    for v in range(1, 2 * _builtin.MAX_SCALARS):
        _builtin.scalar_like(v, x)
    assert len(_builtin._SCALARS) <= _builtin.MAX_SCALARS
    assert float(_builtin.scalar_like(5, x).asnumpy()) == 5.0


def test_number_too_large_for_the_dtype_is_not_cached():
    u8 = ms.Tensor(np.array([1, 2], np.uint8))
    t = _builtin.scalar_like(300, u8)
    assert t.dtype == ms.int64 and int(t.asnumpy()) == 300
    assert (int, 300, np.dtype(np.uint8)) not in _builtin._SCALARS


def test_gradient_and_graph_mode_through_a_number_operand():
    x = _x()
    g = ms.grad(lambda a: ops.reduce_sum(2 * a * a))
    np.testing.assert_array_equal(g(x).asnumpy(), 4 * x.asnumpy())
    np.testing.assert_array_equal(g(x).asnumpy(), 4 * x.asnumpy())
    f = ms.jit(lambda a: 2 * a + 1.5)
    for _ in range(3):
        np.testing.assert_array_equal(f(x).asnumpy(), 2 * x.asnumpy() + np.float32(1.5))
