"""One thread against two: the GELU jit kernel with ``prange`` rows, the ResNet-ish and Transformer steps.

The JIT and real-model issues ask for a speedup with two threads on a quiet
machine (GELU kernel >= 1.7x, ResNet-ish and Transformer graph steps >= 1.5x).
The budget is switched with ``ms.set_context(runtime_num_threads=n)`` (BLAS,
Numba and the convolutions' batch split follow it), alternating 1 and 2
threads so that a neighbour's burst hits both; times are wall time (CPU time
would add the threads up), the fastest batch of each alternation. A busy
machine shows up as alternations that disagree: each one is printed. Each case
runs in a process of its own, which imports mscustom before NumPy (as
``mscustom/_threads.py`` recommends: OpenBLAS's workers then stop spinning
a few microseconds after a product instead of 0.1 s).

    .venv/bin/python bench/threads_bench.py [gelu] [resnet] [transformer]
"""

import math
import os
import sys

import mscustom as ms   # before NumPy: OpenBLAS's workers then stop spinning soon (mscustom/_threads.py)
from mscustom import ops
import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gelu_bench as gb  # noqa: E402
from timing import best_seconds  # noqa: E402

C, A, HALF, ONE = gb.C, gb.A, gb.HALF, gb.ONE


def gelu_fwd_rows(x, b, out):
    """The GELU kernel of ``gelu_bench.py`` with its rows in ``prange``."""
    for i in numba.prange(x.shape[0]):
        for j in range(x.shape[1]):
            z = x[i, j] + b[j]
            out[i, j] = HALF * z * (ONE + math.tanh(C * (z + A * z * z * z)))


def measure(name, fn, number, rounds=5, alternations=4):
    """Best wall time per call with 1 and with 2 threads; prints each alternation's figures."""
    res = {1: [], 2: []}
    try:
        for n in (1, 2):
            ms.set_context(runtime_num_threads=n)
            for _ in range(3):
                fn()
        for _ in range(alternations):
            for n in (1, 2):
                ms.set_context(runtime_num_threads=n)
                fn()
                res[n].append(best_seconds(fn, number, rounds))
    finally:
        ms.set_context(runtime_num_threads=0)
    t1, t2 = min(res[1]), min(res[2])
    print(f"{name}: 1 thread {t1 * 1e3:.2f} ms, 2 threads {t2 * 1e3:.2f} ms, speedup {t1 / t2:.2f}x "
          f"(ms per alternation, 1 thread: {[round(a * 1e3, 1) for a in res[1]]}, "
          f"2 threads: {[round(b * 1e3, 1) for b in res[2]]})", flush=True)
    return t1 / t2


def main(which):
    if "gelu" in which:
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal(gb.SHAPE, dtype=np.float32))
        b = ms.Tensor(rng.standard_normal(gb.SHAPE[1], dtype=np.float32))
        op = ops.Custom(gelu_fwd_rows, out_shape=lambda x, b: x, out_dtype=lambda x, b: x, func_type="jit")
        measure("GELU fwd jit, prange rows, (4096, 1024) float32", lambda: op(x, b), 5)
    if "resnet" in which:
        import resnet_bench as rb
        rng = np.random.default_rng(3)
        x = ms.Tensor(rng.standard_normal((32, 3, 32, 32)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))
        step, _ = rb.make_step(ms.GRAPH_MODE)
        ms.set_context(mode=ms.GRAPH_MODE)
        measure("ResNet-ish step, graph", lambda: step(x, y), 3)
    if "transformer" in which:
        import transformer_bench as tb
        ms.set_context(mode=ms.GRAPH_MODE)
        x = ms.Tensor(np.random.default_rng(0).standard_normal((tb.BATCH, tb.SEQ, tb.D_MODEL)).astype(np.float32))
        step = tb._step(ms.GRAPH_MODE)
        measure("Transformer encoder layer step, graph", lambda: step(x), 5)


if __name__ == "__main__":
    cases = sys.argv[1:] or ["gelu", "resnet", "transformer"]
    if len(cases) == 1:
        main(cases)
    else:       # each case in a process of its own: one case's idle worker threads never slow the next
        import subprocess
        for case in cases:
            subprocess.run([sys.executable, os.path.abspath(__file__), case], check=True)
