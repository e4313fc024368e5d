"""Convolutions split their batch among the thread budget's threads (``ops/nn/_batch_threads.py``).

Forward and input gradient are computed per sample either way, so every budget gives the same bits;
the filter gradient adds the threads' terms in a fixed order (equal to one thread's within rounding,
and the same from run to run).
"""

import contextlib
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mscustom as ms
from mscustom import ops
from mscustom import nn
from mscustom.ops.nn import _batch_threads, batch_norm, conv


@contextlib.contextmanager
def _split_everything(threads):
    """Budget ``threads`` with the size thresholds lifted, so small inputs are split too."""
    saved = conv._MIN_SPLIT_BYTES, batch_norm._MIN_SPLIT_BYTES
    conv._MIN_SPLIT_BYTES = batch_norm._MIN_SPLIT_BYTES = 0
    ms.set_context(runtime_num_threads=threads)
    try:
        yield
    finally:
        conv._MIN_SPLIT_BYTES, batch_norm._MIN_SPLIT_BYTES = saved
        ms.set_context(runtime_num_threads=0)


@pytest.fixture
def budget():
    yield lambda n: ms.set_context(runtime_num_threads=n)
    ms.set_context(runtime_num_threads=0)


def _conv_and_grads(x, w, stride, pad):
    def loss(x, w):
        return (ops.conv2d(x, w, stride=stride, pad_mode="pad", padding=pad) ** 2).sum()
    y = ops.conv2d(x, w, stride=stride, pad_mode="pad", padding=pad).asnumpy()
    gx, gw = ms.grad(loss, (0, 1))(x, w)
    return y, gx.asnumpy(), gw.asnumpy()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 7), c=st.integers(1, 5), o=st.integers(1, 6), k=st.sampled_from([1, 3]),
       stride=st.integers(1, 2), pad=st.integers(0, 1), hw=st.integers(3, 9), seed=st.integers(0, 2**16))
def test_every_budget_gives_one_threads_values(n, c, o, k, stride, pad, hw, seed):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.standard_normal((n, c, hw, hw)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((o, c, k, k)).astype(np.float32))
    results = {}
    for threads in (1, 2, 3):
        with _split_everything(threads):
            results[threads] = _conv_and_grads(x, w, stride, pad)
    for threads in (2, 3):
        y, gx, gw = results[threads]
        np.testing.assert_array_equal(y, results[1][0])
        np.testing.assert_array_equal(gx, results[1][1])
        np.testing.assert_allclose(gw, results[1][2], rtol=2e-5, atol=2e-5 * np.abs(results[1][2]).max())


def test_large_batch_two_threads_matches_and_repeats(budget):
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((32, 16, 32, 32)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
    budget(1)
    one = _conv_and_grads(x, w, 1, 1)
    budget(2)
    two, again = _conv_and_grads(x, w, 1, 1), _conv_and_grads(x, w, 1, 1)
    np.testing.assert_array_equal(two[0], one[0])
    np.testing.assert_array_equal(two[1], one[1])
    np.testing.assert_allclose(two[2], one[2], rtol=1e-5, atol=1e-5 * np.abs(one[2]).max())
    np.testing.assert_array_equal(again[2], two[2])         # a fixed split: the same bits every run


def _batch_norm_step(x, seed):
    bn = nn.BatchNorm2d(x.shape[1])
    bn.set_train()
    rng = np.random.default_rng(seed)
    bn.gamma.set_data(ms.Tensor(rng.uniform(0.5, 1.5, x.shape[1]).astype(np.float32)))
    bn.beta.set_data(ms.Tensor(rng.standard_normal(x.shape[1]).astype(np.float32)))
    dy = ms.Tensor(rng.standard_normal(x.shape).astype(np.float32))

    def loss(x):
        return (bn(x) * dy).sum()
    value, gx = ms.value_and_grad(loss)(x)
    return value.asnumpy(), gx.asnumpy(), bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), c=st.integers(1, 9), hw=st.integers(2, 7), seed=st.integers(0, 2**16))
def test_batch_norm_gives_the_same_bits_under_every_budget(n, c, hw, seed):
    x = ms.Tensor(np.random.default_rng(seed).standard_normal((n, c, hw, hw)).astype(np.float32) * 3 + 1)
    results = {}
    for threads in (1, 2, 3):
        with _split_everything(threads):
            results[threads] = _batch_norm_step(x, seed)
    for threads in (2, 3):
        for got, want in zip(results[threads], results[1]):
            np.testing.assert_array_equal(got, want)


def test_a_workers_error_is_raised_after_every_worker_stopped():
    done, gate = [], threading.Event()

    def work(share):
        if share[0][0] == 1:
            raise ValueError("chunk 1 failed")
        gate.wait(5)                    # the other shares finish after the failure
        done.append(share)
        return share

    timer = threading.Timer(0.2, gate.set)
    timer.start()
    with pytest.raises(ValueError, match="chunk 1 failed"):
        _batch_threads.over_chunks([(0, 1), (1, 2), (2, 3)], work, 3)
    timer.join()
    assert sorted(done) == [[(0, 1)], [(2, 3)]]


_FORK = """
import os, numpy as np, mscustom as ms
from mscustom import ops
from mscustom.ops.nn import conv, conv_direct
conv._MIN_SPLIT_BYTES = conv_direct.MIN_SPLIT_BYTES = 0     # the pool and Numba's threads both split
ms.set_context(runtime_num_threads=2)
x = ms.Tensor(np.ones((8, 3, 8, 8), np.float32)); w = ms.Tensor(np.ones((4, 3, 3, 3), np.float32))
x16 = ms.Tensor(np.ones((8, 4, 16, 16), np.float32)); w4 = ms.Tensor(np.ones((4, 4, 3, 3), np.float32))
want16 = ops.conv2d(x16, w4, pad_mode="pad", padding=1).asnumpy()      # the direct loops, on Numba's threads
want = ops.conv2d(x, w, pad_mode="pad", padding=1).asnumpy()      # the parent's pool exists now
pid = os.fork()
if pid == 0:
    ok = np.array_equal(ops.conv2d(x, w, pad_mode="pad", padding=1).asnumpy(), want)   # a fresh pool
    ok = ok and np.array_equal(ops.conv2d(x16, w4, pad_mode="pad", padding=1).asnumpy(), want16)  # OpenMP again
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print("ok" if os.waitstatus_to_exitcode(status) == 0 else "child failed")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_gets_its_own_pool():
    out = subprocess.run([sys.executable, "-c", _FORK], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
