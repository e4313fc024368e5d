"""Stress runs of the compiled call path and of graph replays, sized by the caller.

Two families, each returning a dict of counts (``bad`` lists what went wrong):

- ``rebind_stress(seconds, kind)``: ops.Custom calls of every kind (pyfunc, jit,
  aot) on Tensors that other threads keep rebinding (``assign_value``), freeing
  and collecting, while the calling thread compares each result with what its
  input could have held. Run it with ``MSCUSTOM_FASTCALL=0`` and ``=1`` (see
  ``run_child``) and under a debug allocator (``MALLOC_PERTURB_``,
  ``MALLOC_MMAP_THRESHOLD_``), so a read of freed memory shows as a wrong value
  or a crash. It also proves it does not hang: every thread is joined with a
  deadline (``JOIN_S``), and a thread still running then gets every thread's
  stack dumped (``faulthandler``) and a fault in ``bad``; a child run by
  ``run_child`` dumps every stack and exits if it is still running
  ``WATCHDOG_S`` after its run should have ended (a hang anywhere, at exit
  too), and the parent reports a child that never answers instead of raising.
  ``cpu_hogs(n)`` keeps the machine busy while runs repeat (``bench/reliability.py``).
- ``outside_state_cases(n, seed)``: a jitted function reads Cells, flags,
  Parameters, globals and closure tensors; between calls a random change is
  made (training flag, a sub-cell or Parameter replaced, a tensor attribute
  or global rebound, a shape or dtype changed, values written in place) and
  every replay is compared with eager execution of the same function.

``tests/test_reliability_faults.py`` runs both for seconds in CI;
``bench/reliability.py`` (``make reliability``) runs them for longer, and
repeats short rebinding runs under busy processes (``--hang-runs``).
"""

import contextlib
import faulthandler
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
JOIN_S = 15.0           # after the stop, every thread of a run must have ended within this
WATCHDOG_S = 90.0       # a child still running this long after its run should have ended dumps every
#                         thread's stack and exits (faulthandler), so a hang shows where it is
GC_SHARE = 0.25         # at most about this share of the run's time goes to the collector's full collections


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


def rebind_stress(seconds, kind, size=50_000, join_s=JOIN_S):
    """Calls of a square op on a Tensor two threads rebind; every result must be all 4s or all 9s.

    The collector's full collections hold the interpreter for their whole length (0.1-0.3 s with
    Numba loaded, up to 1 s on a busy machine), so between two of them it makes only young-generation
    collections, for a rest in proportion (``GC_SHARE``). Back to back, full collections held it
    most of the time: a jit run made a single call, its first, and when that call compiled (a cold
    Numba cache) it took 127 s instead of 4 s on a machine kept busy by two other processes, past
    the 120 s a child is given, which looked like a hang. The op is also called once before the
    threads start: a first call binds the kernel (Numba loads or compiles a jit kernel), which is
    not what this run is about. After the run every thread is joined within ``join_s`` seconds in
    all; one still running gets every thread's stack dumped and a fault in ``bad``.
    """
    import mscustom as ms
    op = make_square(kind)
    x = ms.Tensor(np.full(size, 2.0, np.float32))
    counts = {"calls": 0, "rebinds": 0, "collects": 0, "gc_seconds": 0.0, "bad": []}
    t0 = time.perf_counter()
    first = op(x).asnumpy()
    counts["first_call_s"] = time.perf_counter() - t0
    if not (first == 4.0).all():
        counts["bad"].append(f"{kind}: the first call gave {np.unique(first)[:4].tolist()}, not 4s")
    stop = threading.Event()

    def rebinder(value):
        while not stop.is_set():
            x.assign_value(ms.Tensor(np.full(size, value, np.float32)))
            counts["rebinds"] += 1

    def collector():
        next_full = 0.0
        while not stop.is_set():
            junk = [ms.Tensor(np.ones(size // 4, np.float32)) for _ in range(4)]
            del junk
            t0 = time.perf_counter()
            full = t0 >= next_full
            gc.collect(2 if full else 0)
            spent = time.perf_counter() - t0
            if full:                    # the next full one after a rest in proportion to this one
                next_full = t0 + spent / GC_SHARE
            counts["collects"] += 1
            counts["gc_seconds"] += spent
            stop.wait(0.001)

    threads = [threading.Thread(target=rebinder, args=(2.0,), daemon=True, name="rebinder-2"),
               threading.Thread(target=rebinder, args=(3.0,), daemon=True, name="rebinder-3"),
               threading.Thread(target=collector, daemon=True, name="collector")]
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
        t0 = time.perf_counter()
        join_all(threads, join_s, counts["bad"], f"rebind stress ({kind})")
        counts["join_s"] = time.perf_counter() - t0
    return counts


def join_all(threads, within, bad, what, file=None):
    """Join ``threads`` within ``within`` seconds in all; the names of those still running.

    A thread still running then gets every thread's stack written to ``file`` (standard error by
    default; ``faulthandler.dump_traceback``) and one entry in the list ``bad``.
    """
    end = time.monotonic() + within
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        out = file if file is not None else _stderr()
        out.write(f"{what}: {', '.join(stuck)} still running {within:g} s after the stop; every thread's "
                  f"stack:\n")
        out.flush()
        faulthandler.dump_traceback(file=out, all_threads=True)
        bad.append(f"{what}: thread(s) {', '.join(stuck)} did not stop within {within:g} s (stacks dumped)")
    return stuck


def _stderr():
    """A standard error faulthandler can write to (pytest may have replaced ``sys.stderr``)."""
    try:
        sys.stderr.fileno()
        return sys.stderr
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__


_HOG = """
import os
parent = os.getppid()
while os.getppid() == parent:           # busy; ends by itself if its parent dies without killing it
    for _ in range(1_000_000):
        pass
"""


@contextlib.contextmanager
def cpu_hogs(n=2):
    """``n`` busy processes (Python busy loops) for the ``with`` block, killed after it."""
    procs = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", _HOG]))
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


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
import faulthandler, json, sys
what, arg, kind, watchdog = sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
# a hang anywhere from here on, the interpreter's exit included: every thread's stack, then exit 1
faulthandler.dump_traceback_later(watchdog, exit=True)
sys.path.insert(0, {tests!r})
from reliability import stress
if what == "rebind":
    out = stress.rebind_stress(arg, kind)
elif what == "rebind_kinds":           # one run per kind of the comma-separated list, in one process
    out = {{k: stress.rebind_stress(arg, k) for k in kind.split(",")}}
elif what == "hang":                   # a child that never ends (checks the watchdog)
    import time
    time.sleep(arg)
    out = {{}}
else:
    out = {{"seen": stress._own_input_pyfunc_case(int(arg))}}
print("RESULT " + json.dumps(out), flush=True)
"""


def run_child(what, arg, kind, fastcall, timeout, watchdog=None):
    """Run ``what`` ("rebind"; "rebind_kinds", one "rebind" per kind of the comma-separated ``kind``, the
    result by kind; "own_input"; or "hang": sleep ``arg`` seconds) in a child process with the
    debug allocator settings and ``MSCUSTOM_FASTCALL`` set; returns (exit code, parsed result or None,
    stderr tail).

    The child dumps every thread's stack and exits with code 1 when it is still running ``watchdog``
    seconds after it started (default: ``WATCHDOG_S`` past its run, or ``timeout`` less a margin if
    sooner); one that still does not answer within ``timeout`` is killed, and the exit code is None.
    """
    env = dict(os.environ, MSCUSTOM_FASTCALL="1" if fastcall else "0", PYTHONPATH=str(ROOT),
               OMP_NUM_THREADS="1", **DEBUG_MALLOC)
    code = CHILD.format(tests=str(ROOT / "tests"))
    if watchdog is None:
        run_s = arg * len(kind.split(",")) if what.startswith("rebind") else 0.0
        watchdog = min(run_s + WATCHDOG_S, max(1.0, timeout - 15.0))
    try:
        proc = subprocess.run([sys.executable, "-c", code, what, str(arg), kind, str(watchdog)], env=env,
                              cwd=str(ROOT), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return None, None, f"no answer within {timeout:g} s (killed); its standard error:\n{err[-4000:]}"
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    return proc.returncode, result, proc.stderr[-4000:]


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
