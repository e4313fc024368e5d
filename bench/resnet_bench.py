"""A ResNet-ish CIFAR training step in graph and eager mode, against a NumPy GEMM baseline.

The step: batch 32 of 3x32x32 float32; conv 3x3 3->16 + BatchNorm + ReLU; one BasicBlock
(two conv 3x3 + BatchNorm, ReLU, identity or 1x1-conv + BatchNorm shortcut) at each of widths
16, 32 (stride 2) and 64 (stride 2); global mean pool; dense 64->10; softmax cross entropy;
Momentum (lr 0.01, momentum 0.9). BLAS on one thread.

The baseline, measured in the same alternating rounds, is the step's matrix products alone done
by hand with NumPy on whole-batch column matrices (forward, input gradient, filter gradient of
every convolution): the floor any im2col implementation pays. Ratios to it compare runs on a
loaded machine; graph mode is measured in the steady state of a training run (after the replay at
which its elementwise chains are fused). ``bench/peer_torch_resnet.py`` times torch eager on the same step (run the two
alternately and compare absolute CPU times). Times are process CPU time, the fastest batch.

    .venv/bin/python bench/resnet_bench.py
"""

import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import mscustom as ms  # noqa: E402
from mscustom import nn, ops  # noqa: E402
from mscustom._core import fusion  # noqa: E402

# (in, out, stride) of each convolution: stem, then per block conv1, conv2 (+ 1x1 projection)
CONVS = [(3, 16, 1, 3, 32), (16, 16, 1, 3, 32), (16, 16, 1, 3, 32),
         (16, 32, 2, 3, 32), (32, 32, 1, 3, 16), (16, 32, 2, 1, 32),
         (32, 64, 2, 3, 16), (64, 64, 1, 3, 8), (32, 64, 2, 1, 16)]


class Block(nn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.SequentialCell(nn.Conv2d(cin, cout, 1, stride, has_bias=False), nn.BatchNorm2d(cout))

    def construct(self, x):
        h = self.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        s = x if self.down is None else self.down(x)
        return self.relu(h + s)


class ResNetish(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stem = nn.SequentialCell(nn.Conv2d(3, 16, 3, 1, pad_mode="pad", padding=1, has_bias=False),
                                      nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.SequentialCell(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.fc = nn.Dense(64, 10)

    def construct(self, x):
        h = self.blocks(self.stem(x))
        return self.fc(ops.mean(h, (2, 3)))


def make_step(mode):
    ms.set_context(mode=mode)
    net = ResNetish()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    return step, net


def numpy_gemm_step(mats):
    """The step's convolution products on whole-batch column matrices: y = W @ cols, dcols = W.T @ dy,
    dW = dy @ cols.T per convolution."""
    for w, cols, dy in mats:
        np.matmul(w, cols)
        np.matmul(w.T, dy)
        np.matmul(dy, cols.T)


def gemm_mats(rng, n=32):
    mats = []
    for cin, cout, stride, k, h in CONVS:
        p = n * (h // stride) ** 2
        mats.append((rng.standard_normal((cout, cin * k * k)).astype(np.float32),
                     rng.standard_normal((cin * k * k, p)).astype(np.float32),
                     rng.standard_normal((cout, p)).astype(np.float32)))
    return mats


def _best_ms(fn, steps, repeat=3):
    fn()
    runs = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(steps):
            fn()
        runs.append((time.process_time() - t0) / steps * 1e3)
    return min(runs)


def main(rounds=5):
    rng = np.random.default_rng(3)
    x = ms.Tensor(rng.standard_normal((32, 3, 32, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))
    mats = gemm_mats(rng)
    eager, _ = make_step(ms.PYNATIVE_MODE)
    graph, _ = make_step(ms.GRAPH_MODE)

    def run_eager():
        ms.set_context(mode=ms.PYNATIVE_MODE)
        return eager(x, y)

    def run_graph():
        ms.set_context(mode=ms.GRAPH_MODE)
        return graph(x, y)

    fns = {"gemm": (lambda: numpy_gemm_step(mats), 10), "graph": (run_graph, 5), "eager": (run_eager, 3)}
    best = {}
    with threadpool_limits(1):
        # the steady state of a training run: past the replay at which graph mode fuses the record's
        # elementwise chains (compiled in a background thread; waited for here)
        for _ in range(fusion.REPLAYS_BEFORE_FUSING + 2):
            run_graph()
        fusion.wait()
        run_graph()
        for _ in range(rounds):
            for name, (fn, steps) in fns.items():
                best[name] = min(best.get(name, float("inf")), _best_ms(fn, steps))
    g = best["gemm"]
    print(f"NumPy GEMM baseline (the step's conv products, whole batch): {g:.2f} ms")
    for name in ("graph", "eager"):
        print(f"ResNet-ish CIFAR step, batch 32, {name}: {best[name]:.2f} ms = {best[name] / g:.2f}x the GEMM baseline")
    return best


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
