"""``layer_norm_last``'s row loops (``ops/nn/norm_loops.py``): pinned to the float64 formula, the same
bits on every thread budget for ``y`` and ``dx`` (rows are independent), ``dgamma``/``dbeta`` added in
chunk order (the same bits from run to run), and NumPy's form where the loops do not apply."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mscustom as ms
from mscustom.ops.nn import norm_loops
from mscustom.ops.nn.layer_norm_last import layer_norm_last


def _reference(x, gamma, beta, dy, eps):
    x, gamma, beta, dy = (a.astype(np.float64) for a in (x, gamma, beta, dy))
    mean = x.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    g = dy * gamma
    dx = (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)) * rstd
    rows = (-1, x.shape[-1])
    return xhat * gamma + beta, dx, (dy * xhat).reshape(rows).sum(0), dy.reshape(rows).sum(0)


def _run(x, gamma, beta, dy, eps):
    t = ms.Tensor
    xt, gt, bt = t(x), t(gamma), t(beta)

    def loss(a, g, b):
        return (layer_norm_last(a, g, b, eps) * t(dy)).sum()
    y = layer_norm_last(xt, gt, bt, eps).asnumpy()
    dx, dgamma, dbeta = ms.grad(loss, (0, 1, 2))(xt, gt, bt)
    return y, dx.asnumpy(), dgamma.asnumpy(), dbeta.asnumpy()


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 40), c=st.integers(1, 70), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**16))
def test_loops_match_the_float64_formula_on_every_budget(rows, c, dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, c)) * 3 + 1).astype(dtype)
    gamma, beta = rng.uniform(0.5, 1.5, c).astype(dtype), rng.standard_normal(c).astype(dtype)
    dy = rng.standard_normal((rows, c)).astype(dtype)
    want = _reference(x, gamma, beta, dy, 1e-5)
    saved, norm_loops._MIN_SPLIT_BYTES = norm_loops._MIN_SPLIT_BYTES, 0      # split even small inputs
    results = {}
    try:
        for threads in (1, 2, 3):
            ms.set_context(runtime_num_threads=threads)
            results[threads] = _run(x, gamma, beta, dy, 1e-5)
        again = _run(x, gamma, beta, dy, 1e-5)
    finally:
        ms.set_context(runtime_num_threads=0)
        norm_loops._MIN_SPLIT_BYTES = saved
    tol = 2e-5 if dtype == np.float32 else 1e-11
    for got, ref in zip(results[1], want):
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * max(1.0, np.abs(ref).max()) * max(1, rows) ** 0.5)
    for threads in (2, 3):
        np.testing.assert_array_equal(results[threads][0], results[1][0])     # y: rows are independent
        np.testing.assert_array_equal(results[threads][1], results[1][1])     # dx too
        for got, ref in zip(results[threads][2:], results[1][2:]):
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(ref).max()))
    for got, ref in zip(again, results[3]):
        np.testing.assert_array_equal(got, ref)


def test_large_rows_split_on_two_threads_and_keep_the_values():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 64, 128)).astype(np.float32)
    gamma, beta = rng.uniform(0.5, 1.5, 128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    assert x.nbytes >= norm_loops._MIN_SPLIT_BYTES
    try:
        ms.set_context(runtime_num_threads=1)
        one = _run(x, gamma, beta, dy, 1e-5)
        ms.set_context(runtime_num_threads=2)
        two = _run(x, gamma, beta, dy, 1e-5)
    finally:
        ms.set_context(runtime_num_threads=0)
    assert "backward_chunks" in norm_loops._LOOPS       # the split ran on Numba's threads
    np.testing.assert_array_equal(two[0], one[0])
    np.testing.assert_array_equal(two[1], one[1])
    for got, ref in zip(two[2:], one[2:]):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16])
def test_other_dtypes_keep_numpys_form(dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 8)).astype(dtype)
    gamma, beta = np.ones(8, dtype), np.zeros(8, dtype)
    y = layer_norm_last(ms.Tensor(x), ms.Tensor(gamma), ms.Tensor(beta), 1e-5).asnumpy()
    assert y.dtype == dtype
    np.testing.assert_allclose(y, _reference(x, gamma, beta, x, 1e-5)[0], rtol=0, atol=1e-2)
