"""The ResNet-ish CIFAR step of ``bench/resnet_bench.py`` in PyTorch eager mode, one thread.

PyTorch is not a dependency of mscustom: run this with an interpreter that has torch and numpy::

    /work/venv-peer/bin/python bench/peer_torch_resnet.py

It prints torch's step time and the same NumPy GEMM baseline as resnet_bench.py, measured in
alternating rounds in this process (CPU time per step, the fastest batch). NumPy is slower in a
process that loaded torch (its OpenMP runtime): compare the absolute times of alternating runs
of the two scripts, and each script's ratio to its own baseline.
"""

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

CONVS = [(3, 16, 1, 3, 32), (16, 16, 1, 3, 32), (16, 16, 1, 3, 32),
         (16, 32, 2, 3, 32), (32, 32, 1, 3, 16), (16, 32, 2, 1, 32),
         (32, 64, 2, 3, 16), (64, 64, 1, 3, 8), (32, 64, 2, 1, 16)]


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return torch.relu(h + (x if self.down is None else self.down(x)))


def _gemm_step(mats):
    for w, cols, dy in mats:
        np.matmul(w, cols)
        np.matmul(w.T, dy)
        np.matmul(dy, cols.T)


def _best_ms(fn, steps, repeat=3):
    fn()
    runs = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(steps):
            fn()
        runs.append((time.process_time() - t0) / steps * 1e3)
    return min(runs)


def make_step(rng):
    """The ResNet-ish SGD-momentum training step (torch eager) on a fixed batch drawn from ``rng``."""
    net = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                        Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
    fc = nn.Linear(64, 10)
    params = list(net.parameters()) + list(fc.parameters())
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    x = torch.from_numpy(rng.standard_normal((32, 3, 32, 32)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, 32).astype(np.int64))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(fc(net(x).mean((2, 3))), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main(rounds=5):
    torch.set_num_threads(1)
    rng = np.random.default_rng(3)
    step = make_step(rng)
    mats = []
    for cin, cout, stride, k, h in CONVS:
        p = 32 * (h // stride) ** 2
        mats.append((rng.standard_normal((cout, cin * k * k)).astype(np.float32),
                     rng.standard_normal((cin * k * k, p)).astype(np.float32),
                     rng.standard_normal((cout, p)).astype(np.float32)))

    best = {}
    for _ in range(rounds):
        for name, fn, steps in (("gemm", lambda: _gemm_step(mats), 10), ("torch", step, 5)):
            best[name] = min(best.get(name, float("inf")), _best_ms(fn, steps))
    print(f"NumPy GEMM baseline (in the torch process): {best['gemm']:.2f} ms")
    print(f"ResNet-ish CIFAR step, batch 32: torch {torch.__version__} eager {best['torch']:.2f} ms = "
          f"{best['torch'] / best['gemm']:.2f}x the GEMM baseline")


if __name__ == "__main__":
    main()
