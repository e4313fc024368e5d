"""Per-thread autodiff: threads taking gradients over shared Parameters each get their own graph."""

import threading

import numpy as np

import mscustom as ms
from mscustom import nn
from mscustom._core import tape


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(6, 16)
        self.dense2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.dense2(ms.ops.tanh(self.dense1(x)))


def test_concurrent_grads_over_shared_parameters_match_the_serial_ones():
    ms.set_seed(3)
    net = _Net()
    weights = net.trainable_params()
    rng = np.random.default_rng(0)
    batches = [ms.Tensor(rng.standard_normal((4, 6)).astype(np.float32)) for _ in range(8)]

    def loss(x):
        return (net(x) ** 2).sum()

    grad_fn = ms.grad(loss, grad_position=None, weights=weights)
    expected = [[g.asnumpy().copy() for g in grad_fn(x)] for x in batches]
    failures = []
    start = threading.Barrier(8)

    def worker(i):
        start.wait()
        for _ in range(40):
            got = grad_fn(batches[i])
            for g, e in zip(got, expected[i]):
                if not np.allclose(g.asnumpy(), e, rtol=1e-5, atol=1e-6):
                    failures.append(i)
                    return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures
    assert all(p._node is None for p in weights)      # shared Parameters are never marked


def test_recording_state_is_per_thread():
    seen = []
    with tape.recording():
        t = threading.Thread(target=lambda: seen.append(tape.is_recording()))
        t.start()
        t.join()
        assert tape.is_recording()
    assert seen == [False]
    assert not tape.is_recording()
