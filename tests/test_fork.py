"""fork() after custom ops of every kind: the child runs them again, with the right results.

A process that has run a pyfunc op, a parallel jit kernel (Numba's threading
layer started its threads) and OpenMP aot kernels on enough elements to start
an OpenMP team (GNU OpenMP's pool exists), with the aot plans hot enough to
use the Numba caller, forks; the child runs every op again. Without the fork
hooks (``mscustom/ops/custom/_forksafe.py`` and the ``pthread_atfork`` handler
in ``aot_kernels/mscustom_aot.h``) the child hangs in its first OpenMP region
(aot) or is terminated by Numba's omp layer (jit).

Each scenario runs in a fresh interpreter (``subprocess.run`` with a timeout),
and the forked child carries its own alarm and is watched with a deadline by
its parent, so a hang fails the test instead of hanging the suite.
OMP_NUM_THREADS / NUMBA_NUM_THREADS are set to 2 so that thread pools exist
even on a one-core machine.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LIB = REPO / "aot_kernels" / "build" / "libkernels.so"
CHILD_SECONDS = 40              # the child's own alarm; the parent waits a little longer
SCRIPT_SECONDS = 180            # the whole scenario, compiles included

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.fixture(scope="module", autouse=True)
def kernels_built():
    if shutil.which("make") is not None:
        subprocess.run(["make", "kernels"], cwd=REPO, check=True, capture_output=True)
    elif not LIB.is_file():
        pytest.skip("aot_kernels/build/libkernels.so is missing and make is not installed")


def run_scenario(*parts):
    """Run ``PRELUDE`` and ``parts`` in a fresh interpreter; return the JSON object it prints last."""
    env = dict(os.environ, OMP_NUM_THREADS="2", NUMBA_NUM_THREADS="2", PYTHONPATH=str(REPO))
    env.pop("MSCUSTOM_AOT_CALLER", None)
    env.pop("NUMBA_THREADING_LAYER", None)
    script = PRELUDE + "".join(textwrap.dedent(part) for part in parts)
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=SCRIPT_SECONDS)
    assert proc.returncode == 0, f"scenario failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


# Helpers shared by the scenarios: the ops, one round of calls checked against NumPy,
# and a fork whose child is watched with a deadline.
PRELUDE = textwrap.dedent(f"""
    import json, os, signal, sys, time
    import numpy as np
    LIB = {str(LIB)!r}
    CHILD_SECONDS = {CHILD_SECONDS}
    N = 1 << 20                 # > MS_PARALLEL_MIN_WORK: the aot kernels start an OpenMP team

    def threads():
        return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else -1

    def fork_and_watch(child_fn):
        # child_fn() returns a dict; the child prints it as JSON on a pipe and exits 0
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            signal.alarm(CHILD_SECONDS)         # a hung child dies instead of hanging its parent
            code = 1
            try:
                report = child_fn()
                os.write(w, json.dumps(report).encode())
                code = 0
            except BaseException as exc:
                os.write(w, json.dumps({{"error": repr(exc)}}).encode())
            finally:
                os._exit(code)
        os.close(w)
        deadline = time.monotonic() + CHILD_SECONDS + 10
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                done, status = os.waitpid(pid, 0)
                break
            time.sleep(0.02)
        data = b""
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
        os.close(r)
        report = json.loads(data) if data else {{}}
        report["exit"] = os.waitstatus_to_exitcode(status)
        return report
""")

EVERY_KIND = """
    import numba
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops.custom import _forksafe

    def square_py(x):
        return x * x

    def square_prange(x, out):
        for i in numba.prange(x.size):
            out[i] = x[i] * x[i]

    same = lambda *a: a[0]
    rng = np.random.default_rng(0)
    a = rng.random(N, dtype=np.float32)
    b = rng.random(N, dtype=np.float32)
    small = np.arange(4, dtype=np.float32)
    x, y, s = ms.Tensor(a), ms.Tensor(b), ms.Tensor(small)
    sq_py = ops.Custom(square_py, same, same, func_type="pyfunc")
    sq_jit = ops.Custom(square_prange, same, same, func_type="jit")
    sq_aot = ops.Custom(LIB + ":CustomSquare", same, same, func_type="aot")
    add_aot = ops.Custom(LIB + ":CustomAdd", same, same, func_type="aot")

    def callers():
        # which caller each aot plan that calls its runner uses ("numba" once hot); a plan the
        # compiled call path serves (p.cfast) calls the kernel from C instead
        plans = [p for op in (sq_aot, add_aot) for p in op.op.plans.values() if p.cfast is None]
        for p in plans:                                 # the Numba caller is compiled in the background
            if p.runner.state.get("thread") is not None:
                p.runner.state["thread"].join(60)
        return sorted({p.runner.state["caller"] for p in plans})

    def one_round(calls):
        # every op `calls` times; returns the names of those whose result was wrong
        bad = []
        checks = [("pyfunc", lambda: sq_py(x), a * a), ("jit", lambda: sq_jit(x), a * a),
                  ("aot square", lambda: sq_aot(x), a * a), ("aot add", lambda: add_aot(x, y), a + b),
                  ("aot square small", lambda: sq_aot(s), small * small)]
        for name, fn, want in checks:
            for _ in range(calls):
                got = fn().asnumpy()
            if not np.array_equal(got, want):
                bad.append(name)
        return bad

    def child_round():
        bad = one_round(70)
        return {"bad": bad, "callers": callers(), "threads": threads(),
                "paused": _forksafe.state["paused"], "numba_rearmed": _forksafe.state["numba_rearmed"]}
"""


def test_child_of_a_process_that_ran_every_kind_runs_them_again():
    report = run_scenario(EVERY_KIND, """
        parent = {"bad": one_round(70), "callers": callers(), "layer": numba.threading_layer(),
                  "threads": threads()}
        child = fork_and_watch(child_round)
        after = {"bad": one_round(3), "threads": threads()}
        print(json.dumps({"parent": parent, "child": child, "after": after}))
    """)
    parent, child, after = report["parent"], report["child"], report["after"]
    assert parent["bad"] == [] and parent["callers"] == ["numba"], parent
    assert child["exit"] == 0, f"the forked child failed or hung: {child}"
    assert child["bad"] == [], child
    assert child["callers"] == ["numba"], child            # the Numba caller path ran in the child
    assert child["paused"] is True, child                   # GNU OpenMP's pool was ended before the fork
    if parent["layer"] == "omp":
        assert child["numba_rearmed"] is True, child
    if parent["threads"] > 1:
        # the child started worker threads of its own: its parallel regions were not serialised
        assert child["threads"] > 1, child
    assert after["bad"] == [], after                        # and the parent goes on after the fork
    if parent["threads"] > 1:
        assert after["threads"] > 1, after


def test_multiprocessing_fork_pool_worker_runs_ops_the_parent_ran():
    report = run_scenario(EVERY_KIND, """
        import multiprocessing as mp

        def in_worker():
            return {"bad": one_round(2), "pid": os.getpid()}

        parent_bad = one_round(70)
        with mp.get_context("fork").Pool(1) as pool:
            worker = pool.apply_async(in_worker).get(timeout=CHILD_SECONDS)
        print(json.dumps({"parent": parent_bad, "worker": worker, "me": os.getpid()}))
    """)
    assert report["parent"] == []
    assert report["worker"]["pid"] != report["me"]
    assert report["worker"]["bad"] == [], report


def test_header_alone_keeps_a_plain_c_caller_fork_safe():
    """The kernel library protects itself when called without mscustom (no Python fork hooks)."""
    report = run_scenario("""
        from cffi import FFI
        ffi = FFI()
        ffi.cdef("int CustomSquare(int, void **, int *, int64_t **, const char **, void *, void *);")
        lib = ffi.dlopen(LIB)
        a = np.random.default_rng(0).random(N, dtype=np.float32)
        out = np.empty_like(a)
        names = [ffi.new("char[]", b"float32") for _ in range(2)]
        dtypes = ffi.new("const char *[2]", names)
        shape = ffi.new("int64_t[1]", [N])
        shapes = ffi.new("int64_t *[2]", [shape, shape])
        ndims = ffi.new("int[2]", [1, 1])
        params = ffi.new("void *[2]", [ffi.from_buffer(a), ffi.from_buffer(out)])

        def square_ok():
            out[:] = 0
            rc = lib.CustomSquare(2, params, ndims, shapes, dtypes, ffi.NULL, ffi.NULL)
            return rc == 0 and bool(np.array_equal(out, a * a))

        parent = {"ok": square_ok(), "threads": threads(), "mscustom": "mscustom" in sys.modules}
        child = fork_and_watch(lambda: {"ok": square_ok(), "threads": threads()})
        print(json.dumps({"parent": parent, "child": child}))
    """)
    parent, child = report["parent"], report["child"]
    assert parent["ok"] and not parent["mscustom"], parent
    assert child["exit"] == 0 and child["ok"], f"the forked child failed or hung: {child}"
    if parent["threads"] > 1:
        assert child["threads"] > 1, child


WAIT_POLICY = textwrap.dedent('''
    import os, sys
    import mscustom as ms
    from mscustom import ops
    ops.Custom("aot_kernels/build/libkernels.so:CustomSquare", lambda s: s, lambda d: d, func_type="aot")
    print(os.environ.get("OMP_WAIT_POLICY"))
''')


@pytest.mark.parametrize("given, expected", [(None, "passive"), ("active", "active")])
def test_openmp_waits_passively_unless_the_user_says_otherwise(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    out = subprocess.run([sys.executable, "-c", WAIT_POLICY], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == expected


BUDGET_FIRST = textwrap.dedent('''
    import os
    import mscustom as ms
    import numba
    ms.set_context(runtime_num_threads=2)        # starts Numba's threading layer: GNU OpenMP loads here
    maps = open("/proc/self/maps").read()
    print("gomp" in maps, os.environ.get("OMP_WAIT_POLICY"))
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_a_budget_set_before_any_kernel_still_makes_openmp_wait_passively():
    """``numba.set_num_threads`` (the budget's Numba half) loads OpenMP before any kernel runs; the
    passive default must be set before that, or idle OpenMP workers spin against BLAS's threads (a
    product right after a parallel loop took twice its time)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", BUDGET_FIRST], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    loaded, policy = out.stdout.split()[-2:]
    if loaded == "True":                # Numba's omp layer (without it there is nothing to wait)
        assert policy == "passive"


FORK_DURING_TIER_UP = textwrap.dedent('''
    import os, signal, sys
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops.custom import aot
    op = ops.Custom("aot_kernels/build/libkernels.so:CustomSquare", lambda s: s, lambda d: d, func_type="aot")
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    for _ in range(aot._TIER_UP_CALLS):
        op(x)                                   # the last call starts the caller's background compile
    pid = os.fork()
    if pid == 0:
        signal.alarm(30)
        ok = all(np.array_equal(op(x).asnumpy(), np.arange(4) ** 2) for _ in range(100))
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status))
''')


def test_fork_while_the_numba_caller_compiles_in_the_background():
    out = subprocess.run([sys.executable, "-c", FORK_DURING_TIER_UP], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "0"
    assert "Exception ignored" not in out.stderr, out.stderr[-2000:]
