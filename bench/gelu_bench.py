"""bias + GELU (tanh approximation) as a jit kernel written with ``math.tanh``: GB/s on one thread.

The kernel is the one a user writes; jit kernels lower ``math.tanh`` to the
vector tanh (``mscustom.ops.custom.vecmath``) unless ``vector_math=False``,
which keeps libm's scalar ``tanhf``/``tanh`` (the "libm" rows). GB/s counts
the bytes a fused pass must move: the forward reads x and writes y (2 x 16 MiB
for (4096, 1024) float32); forward + backward also reads the output gradient
and writes dx (5 x 16 MiB; the bias and its gradient are 4 KiB each) -- the
counts ``bench/peer_gelu.py`` uses for torch eager and jax.jit, so the figures
compare. ``np.copyto`` of x, measured in the same alternating rounds, is the
baseline. Times are process CPU time, the fastest of the rounds: everything
here runs on one thread, and other programs on a shared machine do not
inflate CPU time.

With ``MSCUSTOM_PEER_PYTHON`` naming an interpreter that has torch and jax
(``python3 -m venv venv-peer && venv-peer/bin/pip install torch "jax[cpu]"``),
the jax.jit forward figure is measured too (``peer_gelu.py``, in a child
process, between the rounds here) and the forward row's target is to reach it.

Imported by ``bench/run.py`` (``--only gelu``); runnable alone too.
"""

import json
import math
import os
import subprocess
import sys
import time

import numpy as np

import mscustom as ms
from mscustom import ops

SHAPE = (4096, 1024)
C = np.float32(0.7978845608028654)         # sqrt(2/pi)
A = np.float32(0.044715)
HALF = np.float32(0.5)
ONE = np.float32(1.0)
THREE_A = np.float32(3 * 0.044715)


def gelu_fwd(x, b, out):
    """float32 throughout (np.float32 constants): math.tanh of a float32 is tanhf."""
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            z = x[i, j] + b[j]
            out[i, j] = HALF * z * (ONE + math.tanh(C * (z + A * z * z * z)))


def gelu_fwd_pyfloat(x, b, out):
    """The same with Python float constants: the arithmetic and tanh are float64."""
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            z = x[i, j] + b[j]
            out[i, j] = 0.5 * z * (1.0 + math.tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)))


def gelu_bwd(x, b, dy, dx, db):
    """dx = dy * gelu'(x + b), db = dx summed over rows."""
    for j in range(x.shape[1]):
        db[j] = 0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            z = x[i, j] + b[j]
            t = math.tanh(C * (z + A * z * z * z))
            g = dy[i, j] * (HALF * (ONE + t) + HALF * z * (ONE - t * t) * C * (ONE + THREE_A * z * z))
            dx[i, j] = g
            db[j] += g


def _cpu_best(fn, rounds, number=3):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t0) / number)
    return best


def _peer(python):
    """jax.jit and torch figures from ``peer_gelu.py`` under ``python``, or None."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_gelu.py")
    try:
        out = subprocess.run([python, script, "--json"], check=True, capture_output=True, text=True, timeout=600)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def bench_gelu(report, rounds=7):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE, dtype=np.float32)
    b = rng.standard_normal(SHAPE[1], dtype=np.float32)
    dy = rng.standard_normal(SHAPE, dtype=np.float32)
    tx, tb, tdy = ms.Tensor(x), ms.Tensor(b), ms.Tensor(dy)
    dst = np.empty_like(x)
    fwd_bytes, fb_bytes = 2 * x.nbytes, 5 * x.nbytes

    def op(kernel, **options):
        return ops.Custom(kernel, out_shape=lambda x, b: x, out_dtype=lambda x, b: x, func_type="jit", **options)
    bwd_op = ops.Custom(gelu_bwd, out_shape=lambda x, b, dy: (x, b), out_dtype=lambda x, b, dy: (x, b),
                        func_type="jit")
    bwd_libm = ops.Custom(gelu_bwd, out_shape=lambda x, b, dy: (x, b), out_dtype=lambda x, b, dy: (x, b),
                          func_type="jit", vector_math=False)
    cases = {
        "copy": lambda: np.copyto(dst, x),
        "fwd": (lambda f: lambda: f(tx, tb))(op(gelu_fwd)),
        "fwd_libm": (lambda f: lambda: f(tx, tb))(op(gelu_fwd, vector_math=False)),
        "fwd64": (lambda f: lambda: f(tx, tb))(op(gelu_fwd_pyfloat)),
        "fwd64_libm": (lambda f: lambda: f(tx, tb))(op(gelu_fwd_pyfloat, vector_math=False)),
    }
    f32 = op(gelu_fwd)
    cases["fwd_bwd"] = lambda: (f32(tx, tb), bwd_op(tx, tb, tdy))
    f32_libm = op(gelu_fwd, vector_math=False)
    cases["fwd_bwd_libm"] = lambda: (f32_libm(tx, tb), bwd_libm(tx, tb, tdy))
    for fn in cases.values():                 # compile (or load from the disk cache) and warm up
        fn()
    best = {k: float("inf") for k in cases}
    peer_python = os.environ.get("MSCUSTOM_PEER_PYTHON")
    peers = []
    for r in range(rounds):
        for k, fn in cases.items():
            best[k] = min(best[k], _cpu_best(fn, 1, number=1 if k.startswith("fwd_bwd") or "libm" in k else 3))
        if peer_python and r in (0, rounds // 2):
            got = _peer(peer_python)
            if got:
                peers.append(got)
    gb = {k: (fb_bytes if k.startswith("fwd_bwd") else fwd_bytes) / t / 1e9 for k, t in best.items()}
    copy = gb["copy"]
    # jax's better case: its fastest call, where its allocator reused the output's pages (peer_gelu.py)
    jax_fwd = max((max(p["jax_fwd"], p.get("jax_fwd_call", 0.0)) for p in peers), default=None)
    jax_fb = max((p["jax_fwd_bwd"] for p in peers), default=None)
    report("GELU fwd jit math.tanh, float32, (4096,1024)", gb["fwd"], "GB/s", "np.copyto 1 thread", copy,
           f">= jax.jit 1 thread ({jax_fwd:.3g})" if jax_fwd else ">= jax.jit (MSCUSTOM_PEER_PYTHON)",
           gb["fwd"] >= jax_fwd if jax_fwd else True)
    report("  same, vector_math=False (libm tanhf)", gb["fwd_libm"], "GB/s", "np.copyto 1 thread", copy,
           "(reference)", True)
    report("GELU fwd jit math.tanh, Python floats (float64)", gb["fwd64"], "GB/s", "np.copyto 1 thread", copy,
           "(reference)", True)
    report("  same, vector_math=False (libm tanh)", gb["fwd64_libm"], "GB/s", "np.copyto 1 thread", copy,
           "(reference)", True)
    report("GELU fwd+bwd jit math.tanh, float32", gb["fwd_bwd"], "GB/s", "np.copyto 1 thread", copy,
           f">= jax.jit 1 thread ({jax_fb:.3g})" if jax_fb else "(reference)",
           gb["fwd_bwd"] >= jax_fb if jax_fb else True)
    report("  same, vector_math=False", gb["fwd_bwd_libm"], "GB/s", "np.copyto 1 thread", copy,
           "(reference)", True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

    def _print(name, value, unit, baseline_name, baseline, target, ok):
        print(f"{name:<48} {value:7.3g} {unit} | {baseline_name} {baseline:.3g} {unit} | {target} "
              f"{'ok' if ok else 'MISSED'}")
    bench_gelu(_print)
