"""bias + GELU (tanh approximation) on (4096, 1024) float32 in torch eager and jax.jit, one thread.

The peer figures for the ``gelu`` row of ``bench/run.py``. Neither library is a dependency of
mscustom: run this with an interpreter that has them::

    python3 -m venv /work/venv-peer && /work/venv-peer/bin/pip install torch "jax[cpu]"
    /work/venv-peer/bin/python bench/peer_gelu.py

Both run on one thread (``torch.set_num_threads(1)``; XLA with
``--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1``, and the
process pinned to one core: XLA splits its fused loops over a thread pool of
the machine's size even so) and are
timed next to ``np.copyto`` of the same array in the same process, as process
CPU time, the fastest of several rounds (as ``bench/gelu_bench.py`` times the
mscustom kernels; ``--json`` prints the figures as one JSON line). GB/s counts
the bytes a fused pass must move: forward reads x and writes y (2 x 16 MiB);
forward + backward also reads the output gradient and writes dx (5 x 16 MiB,
the bias and its gradient are 4 KiB each and not counted) -- the same counts as
``bench/run.py``, so the figures compare.
"""

import os

if hasattr(os, "sched_setaffinity"):     # one core: XLA's CPU client threads its loops whatever the flags say
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

SHAPE = (4096, 1024)
C = 0.7978845608028654          # sqrt(2 / pi)


def gbps(nbytes, fn, number=3, rounds=7):
    """GB/s from the fastest of ``rounds`` batches of ``number`` calls, in process CPU time."""
    fn()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t0) / number)
    return nbytes / best / 1e9


def gbps_best_call(nbytes, fn, calls=40):
    """GB/s of the fastest single call (process CPU time). jax.jit's output is a fresh 16 MiB buffer
    each call: where the allocator hands back the pages of the one just freed a call takes about a
    quarter of the time it takes on fresh pages (page faults), and a process gets one or the other
    for long stretches -- this is the figure of the better case."""
    fn()
    best = float("inf")
    for _ in range(calls):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return nbytes / best / 1e9


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE, dtype=np.float32)
    b = rng.standard_normal(SHAPE[1], dtype=np.float32)
    g = rng.standard_normal(SHAPE, dtype=np.float32)
    dst = np.empty_like(x)
    fwd_bytes, fb_bytes = 2 * x.nbytes, 5 * x.nbytes
    rows = [("copy", "np.copyto (baseline)", gbps(fwd_bytes, lambda: np.copyto(dst, x)))]

    import torch
    torch.set_num_threads(1)
    tx, tb, tg = torch.from_numpy(x), torch.from_numpy(b), torch.from_numpy(g)
    gelu = torch.nn.functional.gelu
    with torch.no_grad():
        rows.append(("torch_fwd", f"torch {torch.__version__} eager forward",
                     gbps(fwd_bytes, lambda: gelu(tx + tb, approximate="tanh"))))
    txg = tx.clone().requires_grad_(True)
    tbg = tb.clone().requires_grad_(True)

    def torch_fb():
        y = gelu(txg + tbg, approximate="tanh")
        return torch.autograd.grad(y, (txg, tbg), tg)
    rows.append(("torch_fwd_bwd", f"torch {torch.__version__} eager forward+backward", gbps(fb_bytes, torch_fb)))

    import jax
    import jax.numpy as jnp
    jx, jb, jg = jnp.asarray(x), jnp.asarray(b), jnp.asarray(g)

    def f(x, b):
        z = x + b
        return 0.5 * z * (1.0 + jnp.tanh(C * (z + 0.044715 * z * z * z)))
    fwd = jax.jit(f)

    @jax.jit
    def fb(x, b, g):
        y, vjp = jax.vjp(f, x, b)
        return (y,) + vjp(g)
    rows.append(("jax_fwd", f"jax {jax.__version__} jit forward",
                 gbps(fwd_bytes, lambda: fwd(jx, jb).block_until_ready())))
    rows.append(("jax_fwd_call", f"jax {jax.__version__} jit forward, fastest call",
                 gbps_best_call(fwd_bytes, lambda: fwd(jx, jb).block_until_ready())))
    rows.append(("jax_fwd_bwd", f"jax {jax.__version__} jit forward+backward",
                 gbps(fb_bytes, lambda: fb(jx, jb, jg)[1].block_until_ready())))
    rows.append(("copy_again", "np.copyto (baseline, again)", gbps(fwd_bytes, lambda: np.copyto(dst, x))))
    if "--json" in sys.argv:
        print(json.dumps({key: value for key, _, value in rows}))
        return
    for _, name, value in rows:
        print(f"{name:<44} {value:7.2f} GB/s")


if __name__ == "__main__":
    main()
