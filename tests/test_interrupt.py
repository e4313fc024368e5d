"""Ctrl-C while a long kernel runs: KeyboardInterrupt, and everything stays usable afterwards.

A child process runs a custom op (pyfunc, jit or aot) whose kernel spins for
about two seconds, inside ``ms.grad`` so that the tape is recording; the test
sends it SIGINT meanwhile. A pyfunc kernel is Python code, so the
KeyboardInterrupt comes at once; a jit or aot kernel is machine code that
Python cannot stop, so it comes when the kernel returns. The child catches
it (it must be a KeyboardInterrupt, not wrapped into another error), then
checks that the tape is back to rest (recording depth 0, no per-thread
leaves), re-runs the op on the same plan (the output is large enough to come
from the output pool) and a gradient through it, compares both with NumPy and
prints what it found as JSON.

Each kernel computes ``out = 2 * x`` with ``out[0] = x[0] * n``, the product
taken as ``n`` additions: ``n`` (an int64 input) sets how long it runs.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT_SECONDS = 120            # the whole child, compiles included

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs SIGINT delivery to a child process")

AOT_SOURCE = r"""
#include "mscustom_aot.h"
/* params = [x float64 (N,), n int64 (1,), out float64 (N,)] */
int SpinScale(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
              void *stream, void *extra) {
  const double *x = (const double *)params[0];
  int64_t n = ((const int64_t *)params[1])[0], i, size;
  double *out = (double *)params[2], acc = 0.0;
  (void)stream; (void)extra; (void)dtypes;
  if (nparam != 3) return MS_ERR_SHAPE;
  size = ms_numel(ndims[0], shapes[0]);
  for (i = 0; i < n; ++i) acc += x[0];
  for (i = 1; i < size; ++i) out[i] = 2.0 * x[i];
  out[0] = acc;
  return MS_OK;
}
"""

CHILD = r'''
import json, signal, sys, time
# a shell that ran the suite in the background leaves SIGINT ignored, and Python then installs no
# KeyboardInterrupt handler: install it, as an interactive program has it
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
import mscustom as ms
from mscustom import ops
from mscustom._core import tape

KIND, SRC = sys.argv[1], sys.argv[2]
SIZE = 1 << 18                      # 2 MiB of float64: the output comes from the plan's reuse pool


def spin_py(x, n):
    acc = 0.0
    for _ in range(int(n[0])):
        acc += x[0]
    out = 2.0 * x
    out[0] = acc
    return out


def spin_jit(x, n, out):
    acc = 0.0
    for i in range(n[0]):
        acc += x[0]
    for i in range(1, x.size):
        out[i] = 2.0 * x[i]
    out[0] = acc


def bprop(x, n, out, dout):
    scale = ops.ones_like(x) * 2.0
    return dout * scale, ops.zeros_like(n)


func = {"pyfunc": spin_py, "jit": spin_jit, "aot": SRC + ":SpinScale"}[KIND]
op = ops.Custom(func, out_shape=lambda x, n: x, out_dtype=lambda x, n: x, func_type=KIND, bprop=bprop)
x = ms.Tensor(np.linspace(1.0, 2.0, SIZE))
small = ms.Tensor(np.array([10], np.int64))
xs = x.asnumpy()
want = 2.0 * xs
want[0] = 10 * xs[0]


def loss(t, n):
    return (op(t, n) * t).sum()


def check_round():
    """The op and a gradient through it, against NumPy."""
    got = op(x, small).asnumpy()
    np.testing.assert_allclose(got, want)
    g = ms.grad(loss)(x, small).asnumpy()
    np.testing.assert_allclose(g, 2.0 * xs + want)      # d/dt (op(t) * t) with op's bprop 2 * dout


check_round()
# how many additions make about 2 s of kernel time
if KIND == "pyfunc":
    big = 10 ** 10                 # Python stops at once: the kernel never needs to finish
else:
    probe = 10 ** 7
    t0 = time.perf_counter()
    op(x, ms.Tensor(np.array([probe], np.int64)))
    rate = probe / max(time.perf_counter() - t0, 1e-6)
    big = int(min(max(2.0 * rate, 10 ** 7), 10 ** 11))
n_big = ms.Tensor(np.array([big], np.int64))
plans_before = len(op.op.plans)
print("READY", flush=True)
t0 = time.perf_counter()
caught = None
try:
    ms.grad(loss)(x, n_big)
except KeyboardInterrupt as exc:
    caught = type(exc).__name__
except BaseException as exc:       # anything else is a failure to report
    caught = f"{type(exc).__name__}: {exc}"
waited = time.perf_counter() - t0
state = {"caught": caught, "waited": waited, "depth": tape.STATE.depth, "leaves": len(tape.STATE.leaves),
         "recording": tape.is_recording()}
check_round()                      # same plan, same pool, same tape: all still right
check_round()
state["plans_same"] = len(op.op.plans) == plans_before
state["x_off_tape"] = x._node is None
print(json.dumps(state), flush=True)
'''


def _run_child(tmp_path, kind):
    src = tmp_path / "spin.c"
    src.write_text(AOT_SOURCE)
    script = tmp_path / "child.py"
    script.write_text(CHILD)                # a file, so Numba can cache the jit kernel
    env = dict(os.environ, PYTHONPATH=str(REPO), MSCUSTOM_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"), OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, str(script), kind, str(src)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + SCRIPT_SECONDS
        line = proc.stdout.readline()
        while line and line.strip() != "READY" and time.monotonic() < deadline:
            line = proc.stdout.readline()
        assert line.strip() == "READY", f"child did not get ready:\n{line}{proc.stderr.read()}"
        time.sleep(0.5)                     # well inside the kernel's two seconds
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=SCRIPT_SECONDS)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, f"child failed (exit {proc.returncode}):\n{out}\n{err}"
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["pyfunc", "jit", "aot"])
def test_ctrl_c_during_a_long_kernel_leaves_everything_usable(tmp_path, kind):
    state = _run_child(tmp_path, kind)
    assert state["caught"] == "KeyboardInterrupt"          # not wrapped into another error
    assert state["depth"] == 0 and not state["recording"] and state["leaves"] == 0
    assert state["plans_same"] and state["x_off_tape"]
    if kind == "pyfunc":
        # Python code stops at once: far sooner than the 10**10 additions would take
        assert state["waited"] < 60


def test_keyboard_interrupt_from_a_pyfunc_kernel_passes_through_unwrapped():
    """In process: the interrupt leaves the kernel as it is (kernel failures get wrapped, it does not)."""
    import numpy as np

    import mscustom as ms
    from mscustom import ops
    from mscustom._core import tape

    stop = {"now": False}

    def kernel(x):
        if stop["now"]:
            raise KeyboardInterrupt
        return x * 3.0

    op = ops.Custom(kernel, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc",
                    bprop=lambda x, out, dout: (dout * 3.0,))
    x = ms.Tensor(np.arange(4.0))
    stop["now"] = True
    with pytest.raises(KeyboardInterrupt):
        op(x)
    with pytest.raises(KeyboardInterrupt):
        ms.grad(lambda t: op(t).sum())(x)
    assert tape.STATE.depth == 0 and not tape.STATE.leaves
    stop["now"] = False
    np.testing.assert_allclose(op(x).asnumpy(), 3.0 * np.arange(4.0))
    np.testing.assert_allclose(ms.grad(lambda t: op(t).sum())(x).asnumpy(), [3.0] * 4)
    assert sum(s.calls for s in op.kernel_stats()) == 2          # the interrupted calls are not counted


def test_keyboard_interrupt_in_a_bprop_kernel_leaves_the_next_gradient_right():
    """An interrupt during the backward pass (inside a Custom bprop's kernel) leaves nothing behind."""
    import numpy as np

    import mscustom as ms
    from mscustom import ops
    from mscustom._core import tape

    stop = {"now": False}

    def grad_kernel(x, dout):
        if stop["now"]:
            raise KeyboardInterrupt
        return 2.0 * x * dout

    square_grad = ops.Custom(grad_kernel, out_shape=lambda x, d: x, out_dtype=lambda x, d: x, func_type="pyfunc")
    square = ops.Custom(lambda x: x * x, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc",
                        bprop=lambda x, out, dout: (square_grad(x, dout),))
    w = ms.Parameter(ms.Tensor(np.array([1.0, -3.0])), name="w")
    step = ms.value_and_grad(lambda t: (square(t) * w).sum(), grad_position=0, weights=[w])
    x = ms.Tensor(np.array([0.5, 2.0]))
    stop["now"] = True
    with pytest.raises(KeyboardInterrupt):
        step(x)
    assert tape.STATE.depth == 0 and not tape.STATE.leaves and x._node is None and w._node is None
    stop["now"] = False
    loss, (gx, (gw,)) = step(x)
    np.testing.assert_allclose(loss.asnumpy(), 0.25 - 12.0)
    np.testing.assert_allclose(gx.asnumpy(), [1.0, -12.0])
    np.testing.assert_allclose(gw.asnumpy(), [0.25, 4.0])
