"""Gradients computed on arrays when nothing records the backward equal those of the op calls.

``mul``'s and ``reduce_sum``'s gradients and backward's accumulation skip their op calls when no tape,
capture or profiler would see them (``dispatch.unrecorded``); these tests force the op calls and
compare: same values bit for bit, same dtypes and shapes.
"""

import numpy as np
from hypothesis import given, strategies as st

import mscustom as ms
from mscustom import ops
from mscustom._core import dispatch as _dispatch


def with_op_calls(work):
    """``work()`` with the array shortcuts off: an open timing request makes ``unrecorded`` false."""
    _dispatch.TIMING[0] += 1
    try:
        return work()
    finally:
        _dispatch.TIMING[0] -= 1


def _same(a, b):
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())


FUNCTIONS = {
    "square_sum": lambda x, y: (x * x).sum(),
    "product_sum": lambda x, y: (x * y).sum(),
    "product_axis": lambda x, y: ops.reduce_sum(x * y, 0),
    "keep_dims": lambda x, y: ops.reduce_sum(x * x, -1, keep_dims=True) * 2.5,
    "broadcast": lambda x, y: (x * y[..., :1]).sum(),
    "reused": lambda x, y: (x * y + x * x + y * x).sum(),
}


@given(name=st.sampled_from(sorted(FUNCTIONS)), dtype=st.sampled_from(["float16", "float32", "float64"]),
       shape=st.sampled_from([(1,), (4,), (2, 3), (3, 1, 2)]), seed=st.integers(0, 2 ** 16))
def test_array_shortcuts_match_the_op_calls(name, dtype, shape, seed):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.standard_normal(shape).astype(dtype))
    y = ms.Tensor(rng.standard_normal(shape).astype(dtype))
    g = ms.grad(FUNCTIONS[name], grad_position=(0, 1))
    _same(g(x, y), with_op_calls(lambda: g(x, y)))


def test_zero_d_gradients_are_arrays():
    x = ms.Tensor(np.float32(3.0))
    g = ms.grad(lambda a: a * a)(x)
    assert type(g.asnumpy()) is np.ndarray and g.shape == () and float(g.asnumpy()) == 6.0


def test_grad_of_grad_still_records_the_inner_backward():
    x = ms.Tensor(np.float32([0.5, -1.0, 2.0]))
    inner = ms.grad(lambda a: (a * a * a).sum())
    g2 = ms.grad(lambda a: inner(a).sum())(x)
    np.testing.assert_allclose(g2.asnumpy(), 6 * x.asnumpy(), rtol=1e-6)


def test_mixed_dtypes_take_the_op_calls():
    x = ms.Tensor(np.float16([1, 2]))
    y = ms.Tensor(np.float32([3, 4]))
    gx, gy = ms.grad(lambda a, b: (a * b).sum(), grad_position=(0, 1))(x, y)
    assert gx.dtype == ms.float16 and gy.dtype == ms.float32
    np.testing.assert_array_equal(gx.asnumpy(), np.float16([3, 4]))
    np.testing.assert_array_equal(gy.asnumpy(), np.float32([1, 2]))
