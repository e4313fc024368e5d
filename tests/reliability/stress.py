"""Stress runs of the compiled call path and of graph replays, sized by the caller.

Two families, each returning a dict of counts (``bad`` lists what went wrong):

- ``rebind_stress(seconds, kind)``: ops.Custom calls of every kind (pyfunc, jit,
  aot) on Tensors that other threads keep rebinding (``assign_value``), freeing
  and collecting, while the calling thread compares each result with what its
  input could have held. Run it with ``MSCUSTOM_FASTCALL=0`` and ``=1`` (see
  ``run_child``) and under a debug allocator (``MALLOC_PERTURB_``,
  ``MALLOC_MMAP_THRESHOLD_``), so a read of freed memory shows as a wrong value
  or a crash.
- ``outside_state_cases(n, seed)``: a jitted function reads Cells, flags,
  Parameters, globals and closure tensors; between calls a random change is
  made (training flag, a sub-cell or Parameter replaced, a tensor attribute
  or global rebound, a shape or dtype changed, values written in place) and
  every replay is compared with eager execution of the same function.

``tests/test_reliability_stress.py`` runs both for seconds in CI;
``bench/reliability.py --stress`` runs them for longer.
"""

import gc
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DEBUG_MALLOC = {"MALLOC_PERTURB_": "165", "MALLOC_MMAP_THRESHOLD_": "131072"}


# ---------------------------------------------------------------- rebinding threads
def _square_pyfunc(a):
    return a * a


def _square_jit(a, out):
    for i in range(a.size):
        out.flat[i] = a.flat[i] * a.flat[i]


def make_square(kind):
    """A Custom op computing x * x of the given kind."""
    from mscustom import ops
    func = {"pyfunc": _square_pyfunc, "jit": _square_jit,
            "aot": str(ROOT / "aot_kernels" / "build" / "libkernels.so") + ":CustomSquare"}[kind]
    return ops.Custom(func, lambda x: x, lambda x: x, func_type=kind)


def rebind_stress(seconds, kind, size=50_000):
    """Calls of a square op on a Tensor two threads rebind; every result must be all 4s or all 9s."""
    import mscustom as ms
    op = make_square(kind)
    x = ms.Tensor(np.full(size, 2.0, np.float32))
    stop = threading.Event()
    counts = {"calls": 0, "rebinds": 0, "collects": 0, "bad": []}

    def rebinder(value):
        while not stop.is_set():
            x.assign_value(ms.Tensor(np.full(size, value, np.float32)))
            counts["rebinds"] += 1

    def collector():
        while not stop.is_set():
            junk = [ms.Tensor(np.ones(size // 4, np.float32)) for _ in range(4)]
            del junk
            gc.collect()
            counts["collects"] += 1
            time.sleep(0.001)

    threads = [threading.Thread(target=rebinder, args=(2.0,), daemon=True),
               threading.Thread(target=rebinder, args=(3.0,), daemon=True),
               threading.Thread(target=collector, daemon=True)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            r = op(x).asnumpy()
            counts["calls"] += 1
            first = r[0]
            if first not in (4.0, 9.0) or not (r == first).all():
                bad = np.unique(r)[:4].tolist()
                counts["bad"].append(f"{kind}: result mixes or invents values {bad}")
                if len(counts["bad"]) > 5:
                    break
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    return counts


def _own_input_pyfunc_case(rounds=5):
    """A pyfunc that replaces its own input Tensor and returns another dtype: the C path must have
    taken its own references first (a freed array used to be read and increfed)."""
    import mscustom as ms
    from mscustom import ops
    x = ms.Tensor(np.full(4, 2.0, np.float32))
    seen = []

    def kernel(a):
        x.assign_value(ms.Tensor(np.full(4, 7.0, np.float32)))
        return (a * a).astype(np.float64)

    op = ops.Custom(kernel, lambda s: s, lambda d: d)
    for _ in range(rounds):
        seen.append(op(x).asnumpy().tolist())
    return seen


CHILD = r"""
import json, sys
sys.path.insert(0, {tests!r})
from reliability import stress
what, arg, kind = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if what == "rebind":
    out = stress.rebind_stress(arg, kind)
else:
    out = {{"seen": stress._own_input_pyfunc_case(int(arg))}}
print("RESULT " + json.dumps(out), flush=True)
"""


def run_child(what, arg, kind, fastcall, timeout):
    """Run ``what`` ("rebind" or "own_input") in a child process with the debug allocator settings and
    ``MSCUSTOM_FASTCALL`` set; returns (exit code, parsed result or None, stderr tail)."""
    env = dict(os.environ, MSCUSTOM_FASTCALL="1" if fastcall else "0", PYTHONPATH=str(ROOT),
               OMP_NUM_THREADS="1", **DEBUG_MALLOC)
    code = CHILD.format(tests=str(ROOT / "tests"))
    proc = subprocess.run([sys.executable, "-c", code, what, str(arg), kind], env=env, cwd=str(ROOT),
                          capture_output=True, text=True, timeout=timeout)
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    return proc.returncode, result, proc.stderr[-2000:]


# ---------------------------------------------------------------- outside state of jitted functions
CHANGES = ("train", "eval", "swap_head", "swap_param", "rebind_attr", "rebind_global", "rebind_closure",
           "reshape_global", "retype_global", "write_global", "write_param", "none")


_G = None          # a module global the jitted function reads (rebound by the changes)


class _World:
    """What a jitted function can see besides its arguments, and the changes a user can make to it."""

    def __init__(self, rng):
        global _G
        import mscustom as ms
        from mscustom import nn
        self.ms, self.nn, self.rng = ms, nn, rng
        self.net = nn.SequentialCell(nn.Dense(4, 4), nn.Dropout(p=0.5))
        self.net.head = nn.Dense(4, 3)
        self.net.scale = ms.Tensor(np.float32(1.5))
        _G = ms.Tensor(np.arange(3, dtype=np.float32))
        box = [ms.Tensor(np.float32(2.0))]
        self.box = box

        def closure_value():
            return box[0]
        self.closure_value = closure_value

    def tensor(self, shape, dtype=np.float32):
        return self.ms.Tensor(self.rng.standard_normal(shape).astype(dtype))

    def change(self, what):
        global _G
        ms, nn = self.ms, self.nn
        if what == "train":
            self.net.set_train(True)
        elif what == "eval":
            self.net.set_train(False)
        elif what == "swap_head":
            self.net.head = nn.Dense(4, 3)
        elif what == "swap_param":
            self.net.head.weight = ms.Parameter(self.tensor((3, 4)), name="head.weight")
        elif what == "rebind_attr":
            self.net.scale = self.tensor(())
        elif what == "rebind_global":
            _G = self.tensor((3,))
        elif what == "rebind_closure":
            self.box[0] = self.tensor(())
        elif what == "reshape_global":
            _G = self.tensor((int(self.rng.integers(1, 5)),))
        elif what == "retype_global":
            _G = self.tensor((3,), np.float64 if _G.dtype == ms.float32 else np.float32)
        elif what == "write_global":
            _G[0] = float(self.rng.standard_normal())
        elif what == "write_param":
            self.net.head.bias.set_data(self.tensor((3,)))


def outside_state_cases(n, seed=0):
    """``n`` random changes of outside state between calls of a jitted function; each call compared with
    eager execution. Returns counts per change and the mismatches found."""
    rng = np.random.default_rng(seed)
    return run_changes([CHANGES[i] for i in rng.integers(len(CHANGES), size=n)], seed)


def run_changes(changes, seed=0):
    """Call a jitted function once after each change of ``changes`` (names from ``CHANGES``) and compare
    every call with eager execution of the same function."""
    import mscustom as ms
    from mscustom import ops
    rng = np.random.default_rng(seed)
    world = _World(rng)
    square = make_square("aot")

    def body(x):
        h = world.net.head(ops.relu(world.net(x)))
        return h * world.net.scale + square(_G).sum() * world.closure_value()

    jitted = ms.jit(lambda x: body(x))
    x = world.tensor((2, 4))
    counts = {"calls": 0, "bad": []}
    for k, what in enumerate(changes):
        world.change(what)
        counts[what] = counts.get(what, 0) + 1
        got = jitted(x)
        want = body(x)
        ok = got.shape == want.shape and got.dtype == want.dtype
        if ok and not world.net.training:     # Dropout draws random numbers in training: shapes only
            ok = np.allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)
        counts["calls"] += 1
        if not ok:
            counts["bad"].append(f"call {k} after '{what}': jit {got.asnumpy().tolist()} vs eager "
                                 f"{want.asnumpy().tolist()}")
    counts["stats"] = dict(jitted.stats)
    return counts
