"""The peers of ``bench/threads_bench.py``: torch eager's ResNet-ish and Transformer steps and the GELU
forward with 1 and 2 threads, and jax.jit's GELU forward on default threads.

torch and jax are not dependencies of mscustom: run this with an interpreter that has them::

    /work/venv-peer/bin/python bench/peer_threads.py

As ``threads_bench.py`` measures mscustom: ``torch.set_num_threads(n)`` alternating 1 and 2, wall
time, the fastest batch of each alternation, every alternation printed. XLA sizes its pool once
per process, so jax's GELU is timed on default threads only (wall time, fastest of single calls:
its output's pages may or may not be reused, see ``peer_gelu.py``).
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import peer_torch_resnet  # noqa: E402
import peer_torch_transformer  # noqa: E402
from timing import best_seconds  # noqa: E402

SHAPE = (4096, 1024)
C = 0.7978845608028654


def measure(name, fn, number, rounds=5, alternations=4):
    res = {1: [], 2: []}
    for n in (1, 2):
        torch.set_num_threads(n)
        for _ in range(3):
            fn()
    for _ in range(alternations):
        for n in (1, 2):
            torch.set_num_threads(n)
            fn()
            res[n].append(best_seconds(fn, number, rounds))
    t1, t2 = min(res[1]), min(res[2])
    print(f"{name}: 1 thread {t1 * 1e3:.2f} ms, 2 threads {t2 * 1e3:.2f} ms, speedup {t1 / t2:.2f}x "
          f"(ms per alternation, 1 thread: {[round(a * 1e3, 1) for a in res[1]]}, "
          f"2 threads: {[round(b * 1e3, 1) for b in res[2]]})", flush=True)


def main():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal(SHAPE, dtype=np.float32))
    b = torch.from_numpy(rng.standard_normal(SHAPE[1], dtype=np.float32))
    with torch.no_grad():
        measure(f"torch {torch.__version__} eager GELU(tanh) fwd, (4096, 1024) float32",
                lambda: torch.nn.functional.gelu(x + b, approximate="tanh"), 5)
    measure("torch eager ResNet-ish step", peer_torch_resnet.make_step(np.random.default_rng(3)), 3)
    measure("torch eager Transformer encoder layer step", peer_torch_transformer.make_step(), 5)

    import jax
    import jax.numpy as jnp
    jx, jb = jnp.asarray(x.numpy()), jnp.asarray(b.numpy())
    fwd = jax.jit(lambda x, b: 0.5 * (x + b) * (1.0 + jnp.tanh(C * ((x + b) + 0.044715 * (x + b) ** 3))))
    fwd(jx, jb).block_until_ready()
    best = min(best_seconds(lambda: fwd(jx, jb).block_until_ready(), 1, 1) for _ in range(40))
    print(f"jax {jax.__version__} jit GELU(tanh) fwd, default threads ({os.cpu_count()} CPUs): "
          f"{best * 1e3:.2f} ms (fastest call, wall)")


if __name__ == "__main__":
    main()
