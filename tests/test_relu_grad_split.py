"""relu's gradient over large arrays split among the thread budget's threads (``graph_mode/loops.py``):
the bits of NumPy's ``dy * (x > 0)`` (signed zeros and NaN included), eager and in graph replays."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops import _loop_loader
from mscustom.ops.graph_mode import loops


@pytest.fixture
def two_threads():
    _loop_loader.load()
    ms.set_context(runtime_num_threads=2)
    yield
    ms.set_context(runtime_num_threads=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_gives_numpys_bits(two_threads, dtype):
    rng = np.random.default_rng(0)
    n = loops.SPLIT_BYTES // np.dtype(dtype).itemsize + 123
    x = rng.standard_normal(n).astype(dtype)
    dy = rng.standard_normal(n).astype(dtype)
    x[:4] = [0.0, -0.0, np.nan, np.inf]
    dy[4:8] = [np.inf, -np.inf, np.nan, -0.0]
    x[4:8] = -1.0
    o = np.full(n, 7, dtype)
    assert loops.relu_grad_split(dy, x, o)
    with np.errstate(invalid="ignore"):
        want = np.multiply(dy, x > 0)
    np.testing.assert_array_equal(o, want)
    assert np.array_equal(np.signbit(o), np.signbit(want))
    got = ops.relu_grad(ms.Tensor(dy), ms.Tensor(x)).asnumpy()      # the eager kernel
    assert np.array_equal(np.signbit(got), np.signbit(want)) and np.array_equal(got, want, equal_nan=True)


def test_small_arrays_and_one_thread_are_left_to_the_other_paths():
    _loop_loader.load()
    a = np.ones(8, np.float32)
    assert not loops.relu_grad_split(a, a, np.empty_like(a))
    big = np.ones(loops.SPLIT_BYTES // 4, np.float32)
    ms.set_context(runtime_num_threads=1)
    try:
        assert not loops.relu_grad_split(big, big, np.empty_like(big))
    finally:
        ms.set_context(runtime_num_threads=0)


def test_a_replayed_step_with_large_relus_gives_the_eager_values(two_threads, monkeypatch):
    split = []
    real = loops.relu_grad_split
    monkeypatch.setattr(loops, "relu_grad_split", lambda *a: split.append(real(*a)) or split[-1])
    rng = np.random.default_rng(1)
    net = nn.SequentialCell(nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1), nn.ReLU(), nn.Flatten(), nn.Dense(16 * 64, 4))
    x = ms.Tensor(rng.standard_normal((160, 3, 8, 8)).astype(np.float32))     # 640 KiB of ReLU values

    def loss(x):
        return (net(x) ** 2).sum()
    grad = ms.value_and_grad(loss, None, net.trainable_params())
    want = [g.asnumpy() for g in grad(x)[1]]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        step = ms.jit(lambda x: grad(x)[1])
        for _ in range(3):
            got = [g.asnumpy() for g in step(x)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert split and all(split)                 # eager and replays took the split loop
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
