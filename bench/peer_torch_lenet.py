"""The LeNet-like step of ``bench/graph_bench.py`` in PyTorch eager mode, against the same NumPy baseline.

PyTorch is not a dependency of mscustom: run this with an interpreter that has torch and numpy
(``python -m venv ~/torch-oracle && ~/torch-oracle/bin/pip install torch numpy``)::

    ~/torch-oracle/bin/python bench/peer_torch_lenet.py

It prints ``torch eager / NumPy by hand`` for the step graph_bench.py times (conv 3x3 1->16 + bias,
ReLU, 2x2 max pool, conv 3x3 16->32 + bias, ReLU, 2x2 max pool, dense 800->10, softmax cross
entropy, SGD lr 0.01, batch 32 of 1x28x28, float32), both on one thread, measured in alternating
rounds in this process (CPU time per step, the fastest round). Compare its torch time with the
mscustom times ``graph_bench.py`` prints, running the two scripts alternately: NumPy's own step is
slower inside a process that loaded torch (its OpenMP runtime), so ratios to the two NumPy
baselines do not compare; the absolute CPU times of alternating runs do.
"""

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baselines import numpy_lenet_step  # noqa: E402


def _torch_step(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h = torch.relu(torch.nn.functional.conv2d(x, w1, b1))
    h = torch.nn.functional.max_pool2d(h, 2, 2)
    h = torch.relu(torch.nn.functional.conv2d(h, w2, b2))
    h = torch.nn.functional.max_pool2d(h, 2, 2)
    z = torch.nn.functional.linear(h.flatten(1), w3, b3)
    loss = torch.nn.functional.cross_entropy(z, y)
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        for p, g in zip(params, grads):
            p.sub_(g, alpha=0.01)
    return loss


def _best_ms(fn, steps):
    t0 = time.process_time()
    for _ in range(steps):
        fn()
    return (time.process_time() - t0) / steps * 1e3


def main(rounds=7, steps=5):
    torch.set_num_threads(1)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((32, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 32).astype(np.int32)
    shapes = ((16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (10, 800), (10,))
    hand = [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]
    params = [torch.tensor(p.copy(), requires_grad=True) for p in hand]
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    # the same step two ways: the same losses
    for _ in range(3):
        lt = float(_torch_step(params, xt, yt))
        ln = float(numpy_lenet_step(hand, x, y, np.float32(0.01)))
        assert abs(lt - ln) < 1e-4 * max(1.0, abs(ln)), (lt, ln)
    best = {"np": float("inf"), "torch": float("inf")}
    for _ in range(rounds):
        best["np"] = min(best["np"], _best_ms(lambda: numpy_lenet_step(hand, x, y, np.float32(0.01)), steps))
        best["torch"] = min(best["torch"], _best_ms(lambda: _torch_step(params, xt, yt), steps))
    print(f"LeNet-like CNN SGD step, batch 32: torch {torch.__version__} eager {best['torch']:.3f} ms, "
          f"NumPy by hand {best['np']:.3f} ms, torch / NumPy {best['torch'] / best['np']:.2f}x")


if __name__ == "__main__":
    main()
