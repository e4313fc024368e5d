"""``ops/_products.matmul``: ``np.matmul`` with a stack times one matrix as one product and a stack of small
products split among the thread budget -- the same values, dtypes and errors as ``np.matmul``."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mscustom as ms
from mscustom.ops import _products
from mscustom.ops.nn import _batch_threads


@pytest.fixture
def two_threads(monkeypatch):
    """A budget of two threads and no size threshold, so every stack of products is split."""
    monkeypatch.setattr(_products, "MIN_SPLIT_FLOPS", 0)
    ms.set_context(runtime_num_threads=2)
    yield
    ms.set_context(runtime_num_threads=0)


def _arrays(rng, shape, dtype):
    return (rng.standard_normal(shape) * 3).astype(dtype)


@settings(max_examples=60, deadline=None)
@given(lead=st.lists(st.integers(1, 4), min_size=1, max_size=3), m=st.integers(1, 9), k=st.integers(1, 9),
       n=st.integers(1, 9), dtype=st.sampled_from([np.float32, np.float64]), with_out=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_a_stack_times_one_matrix_is_one_product_with_matmuls_values(lead, m, k, n, dtype, with_out, seed):
    rng = np.random.default_rng(seed)
    x, y = _arrays(rng, tuple(lead) + (m, k), dtype), _arrays(rng, (k, n), dtype)
    want = np.matmul(x, y)
    out = np.empty_like(want) if with_out else None
    got = _products.matmul(x, y, out=out)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert out is None or got is out
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_the_product_is_the_row_block_of_one_blas_call():
    """The stacked rows as one (rows, K) matrix: the sums of np.matmul on that 2-D matrix, bit for bit."""
    rng = np.random.default_rng(0)
    x, y = _arrays(rng, (16, 64, 128), np.float32), _arrays(rng, (128, 384), np.float32)
    np.testing.assert_array_equal(_products.matmul(x, y), np.matmul(x.reshape(-1, 128), y).reshape(16, 64, 384))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(b=st.integers(1, 7), h=st.integers(1, 3), m=st.integers(1, 8), k=st.integers(1, 8), n=st.integers(1, 8),
       y_lead=st.sampled_from(["same", "one", "none"]), transposed=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_split_products_equal_numpy_bit_for_bit(two_threads, b, h, m, k, n, y_lead, transposed, seed):
    """(The fixture holds for every example: the budget and threshold do not change between them.)"""
    rng = np.random.default_rng(seed)
    x = _arrays(rng, (b, h, m, 2 * k), np.float32)[..., ::2]     # not contiguous: never the one-product case
    yshape = {"same": (b, h, k, n), "one": (1, h, k, n), "none": (k, n)}[y_lead]
    y = _arrays(rng, yshape[:-2] + (n, k), np.float32).swapaxes(-1, -2) if transposed else \
        _arrays(rng, yshape, np.float32)
    want = np.matmul(x, y)
    out = np.full_like(want, np.nan)
    assert _products.matmul(x, y, out=out) is out
    np.testing.assert_array_equal(out, want)


def test_split_runs_on_the_budgets_threads(two_threads, monkeypatch):
    seen = []
    real = _batch_threads.over_chunks
    monkeypatch.setattr(_batch_threads, "over_chunks",
                        lambda chunks, work, workers: seen.append((list(chunks), workers)) or real(chunks, work, workers))
    rng = np.random.default_rng(1)
    x, y = _arrays(rng, (6, 4, 8, 8), np.float32), _arrays(rng, (6, 4, 8, 8), np.float32)
    out = np.empty((6, 4, 8, 8), np.float32)
    _products.matmul(x, y, out=out)
    assert seen == [([(0, 3), (3, 6)], 2)]
    np.testing.assert_array_equal(out, np.matmul(x, y))


def test_one_thread_and_small_products_are_numpys_own_call(monkeypatch):
    monkeypatch.setattr(_batch_threads, "over_chunks", lambda *a: pytest.fail("split on one thread"))
    ms.set_context(runtime_num_threads=1)
    try:
        x = np.ones((4, 2, 3, 3), np.float32)
        out = np.empty((4, 2, 3, 3), np.float32)
        _products.matmul(x, x, out=out)
    finally:
        ms.set_context(runtime_num_threads=0)
    np.testing.assert_array_equal(out, np.matmul(x, x))


def test_mismatched_shapes_raise_as_numpy_does(two_threads):
    x, y = np.ones((3, 2, 4), np.float32), np.ones((5, 6), np.float32)
    with pytest.raises(ValueError, match="matmul"):
        _products.matmul(x, y)
    with pytest.raises(ValueError):
        _products.matmul(np.ones((3, 2, 4)), np.ones((3, 5, 6)), out=np.empty((3, 2, 6)))


def test_a_dense_layer_on_sequences_matches_numpy():
    """nn.Dense on (batch, seq, features) in eager and graph mode: the flattened product's values."""
    from mscustom import nn
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 5, 8)).astype(np.float32)
    layer = nn.Dense(8, 3)
    w, bias = layer.weight.asnumpy(), layer.bias.asnumpy()
    want = x @ w.T + bias
    np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-6)
    f = ms.jit(lambda t: layer(t))
    for _ in range(3):
        np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-6)
