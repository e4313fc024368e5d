"""The attention op's softmax and softmax-gradient row loops (``ops/nn/attention_loops.py``): pinned to
the float64 formula, NaN where NumPy's form gives NaN, the same bits on every thread budget, and
the op's values with and without them equal within float rounding."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mscustom as ms
from mscustom.ops.nn import attention, attention_loops


def _softmax64(s, scale):
    z = s.astype(np.float64) * scale
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 30), n=st.integers(1, 80), dtype=st.sampled_from([np.float32, np.float64]),
       scale=st.floats(0.05, 2.0), seed=st.integers(0, 2**16))
def test_rows_match_the_float64_formula_on_every_budget(rows, n, dtype, scale, seed):
    rng = np.random.default_rng(seed)
    s = (rng.standard_normal((rows, n)) * 4).astype(dtype)
    da = rng.standard_normal((rows, n)).astype(dtype)
    p64 = _softmax64(s, scale)
    want_grad = (da - (da * p64).sum(-1, keepdims=True)) * p64 * scale
    saved, attention_loops._MIN_SPLIT_BYTES = attention_loops._MIN_SPLIT_BYTES, 0
    results = []
    try:
        for threads in (1, 2, 3):
            ms.set_context(runtime_num_threads=threads)
            p = s.copy()
            attention_loops.softmax(p, scale)
            g = da.copy()
            attention_loops.softmax_grad(g, p, scale)
            results.append((p, g))
    finally:
        ms.set_context(runtime_num_threads=0)
        attention_loops._MIN_SPLIT_BYTES = saved
    tol = 4e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(results[0][0], p64, rtol=tol, atol=tol)
    np.testing.assert_allclose(results[0][1], want_grad, rtol=tol * 10, atol=tol * 10 * scale)
    for p, g in results[1:]:
        np.testing.assert_array_equal(p, results[0][0])
        np.testing.assert_array_equal(g, results[0][1])


def test_nan_scores_and_fully_masked_rows_give_nan_rows():
    s = np.array([[0.0, 1.0, np.nan], [-np.inf, -np.inf, -np.inf], [1.0, -np.inf, 2.0]], np.float32)
    attention_loops.softmax(s, 1.0)
    assert np.isnan(s[0]).all() and np.isnan(s[1]).all()
    np.testing.assert_allclose(s[2], _softmax64(np.array([1.0, -np.inf, 2.0]), 1.0), rtol=1e-6)
    assert s[2, 1] == 0.0


@pytest.mark.parametrize("masked", [False, True])
def test_the_op_with_and_without_the_loops(monkeypatch, masked):
    rng = np.random.default_rng(4)
    q, k, v = (ms.Tensor(rng.standard_normal((2, 4, 9, 8)).astype(np.float32)) for _ in range(3))
    mask = ms.Tensor(rng.standard_normal((9, 9)).astype(np.float32))
    masks = ((mask, "add", None),) if masked else ()

    def loss(q, k, v, m):
        out, w = attention.attention((q, k, v), ((0, None, None), (1, None, None), (2, None, None)), 1, "plain",
                                     masks=((m, "add", None),) if masked else ())
        return (out * out).sum() + (w * w).sum()

    def run():
        grads = ms.grad(loss, (0, 1, 2, 3) if masked else (0, 1, 2))(q, k, v, mask)
        out, w = attention.attention((q, k, v), ((0, None, None), (1, None, None), (2, None, None)), 1, "plain",
                                     masks=masks)
        return [out.asnumpy(), w.asnumpy()] + [g.asnumpy() for g in grads]

    calls = []
    real = attention_loops.softmax_grad
    monkeypatch.setattr(attention_loops, "softmax_grad", lambda *a: calls.append(1) or real(*a))
    loops = run()
    assert calls
    monkeypatch.setattr(attention_loops, "takes", lambda *a: False)
    numpy_form = run()
    for got, want in zip(loops, numpy_form):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6 * max(1.0, np.abs(want).max()))
