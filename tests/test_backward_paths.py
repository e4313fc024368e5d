"""Gradient shortcuts of built-in ops give exactly the general path's values."""

import numpy as np

import mscustom as ms
from mscustom.testing import check_grad


def test_square_by_mul_gives_the_two_products_sum_exactly():
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        a = rng.standard_normal((3, 5)).astype(dt)
        x = ms.Tensor(a)
        got = ms.grad(lambda t: (t * t * 0.7).sum())(x).asnumpy()
        # the same products with two distinct tensors (no shortcut): g * x twice, then summed
        other = ms.Tensor(a.copy())
        want = ms.grad(lambda t: (t * other * 0.7).sum())(x).asnumpy()
        want = want + want
        np.testing.assert_array_equal(got, want)
        assert got.dtype == dt


def test_square_by_mul_second_order_and_broadcast():
    x = ms.Tensor(np.array([0.5, -1.5, 2.0]))
    check_grad(lambda t: t * t, x)
    check_grad(lambda t: ms.grad(lambda u: (u * u * u).sum())(t), x)
    g2 = ms.grad(lambda t: ms.grad(lambda u: (u * u).sum())(t).sum())(x)
    np.testing.assert_array_equal(g2.asnumpy(), [2.0, 2.0, 2.0])
