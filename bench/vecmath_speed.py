"""Per-function speed of ``vecmath`` against Numba's scalar libm calls (the speed table of docs/vecmath.md).

``out[i] = f(x[i])`` over 4M elements (x ~ N(0, 9); |x| for log, sqrt, rsqrt; x - 1 kept above -1
for log1p), float32 and float64, one thread: GB/s counted as the bytes read and written, process CPU
time, the fastest of alternating rounds (so a shared machine's slow phases hit both alike).

    .venv/bin/python bench/vecmath_speed.py [--rounds 7]
"""

import argparse
import math
import os
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from mscustom.ops.custom import vecmath as vm  # noqa: E402

N = 1 << 22
NAMES = ("exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "pow", "sqrt", "rsqrt")


def _loop(f):
    """An njit loop applying ``f`` (a vecmath function or an njit function) elementwise."""
    @numba.njit
    def run(x, out):
        for i in range(x.size):
            out[i] = f(x[i])
    return run


def _inputs(name, dtype, rng):
    x = rng.standard_normal(N) * 3
    if name in ("log", "sqrt", "rsqrt", "pow"):
        x = np.abs(x) + 1e-3
    if name == "log1p":
        x = np.maximum(x, -0.999)
    return x.astype(dtype)


def main(rounds=7):
    rng = np.random.default_rng(0)
    print("| function | float32 vecmath | float32 libm | speed-up | float64 vecmath | float64 libm | speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in NAMES:
        cells = []
        for dtype in (np.float32, np.float64):
            x = _inputs(name, dtype, rng)
            out = np.empty_like(x)
            if name == "pow":
                c = dtype(1.7)
                fv = numba.njit(inline="always")(lambda v: vm.pow(v, c))
                fl = numba.njit(inline="always")(lambda v: math.pow(v, c))
            elif name == "sigmoid":
                one = dtype(1.0)
                fv = vm.sigmoid
                fl = numba.njit(inline="always")(lambda v: one / (one + math.exp(-v)))
            elif name == "rsqrt":
                one = dtype(1.0)
                fv = vm.rsqrt
                fl = numba.njit(inline="always")(lambda v: one / math.sqrt(v))
            else:
                fv, fl = getattr(vm, name), getattr(math, name)
            runs = {"vec": _loop(fv), "libm": _loop(fl)}
            for f in runs.values():
                f(x, out)
            best = {k: float("inf") for k in runs}
            for _ in range(rounds):
                for k, f in runs.items():
                    t0 = time.process_time()
                    f(x, out)
                    best[k] = min(best[k], time.process_time() - t0)
            gb = {k: 2 * x.nbytes / t / 1e9 for k, t in best.items()}
            cells += [f"{gb['vec']:.2f}", f"{gb['libm']:.2f}", f"{gb['vec'] / gb['libm']:.1f}x"]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    main(parser.parse_args().rounds)
