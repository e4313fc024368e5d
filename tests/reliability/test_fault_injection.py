"""Fault injection: twenty ways a user's kernel goes wrong, each a clear error, the process intact.

Every scenario runs in one fresh process under glibc's heap checks
(``MALLOC_CHECK_=3``, ``MALLOC_PERTURB_``): each bad kernel must raise an
error naming its op, the process must go on to run a correct kernel, and it
must exit normally (glibc aborts on a corrupted heap, at the latest when the
process frees everything at exit). The two faults no check can turn into an
error (a write through NULL, ``abort()``) end the process with their signal,
after a line naming the op (``test_kernel_guard.py``).
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

C_SOURCE = r"""
#include <stdint.h>
#include <string.h>
static int64_t numel(int nd, int64_t *s) { int64_t n = 1; for (int i = 0; i < nd; i++) n *= s[i]; return n; }
#define KERNEL(name) int name(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, \
                              void *stream, void *extra)
KERNEL(LoopInput) { float *x = params[0], *y = params[1]; int64_t n = numel(ndims[0], shapes[0]);
                    for (int64_t i = 0; i < n; i++) y[i] = 2 * x[i]; return 0; }
#define PAST(bytes) KERNEL(Past##bytes) { float *x = params[0], *y = params[1]; \
    int64_t n = numel(ndims[1], shapes[1]); for (int64_t i = 0; i < n; i++) y[i] = x[i]; \
    memset((char *)y + 4 * n, 0x5A, bytes); return 0; }
PAST(16) PAST(4096) PAST(65536) PAST(1048576)
KERNEL(Before) { float *y = params[1]; y[-4] = 1; y[0] = 1; return 0; }
KERNEL(ReadPast) { float *x = params[0], *y = params[1]; int64_t n = numel(ndims[1], shapes[1]);
                   for (int64_t i = 0; i < n; i++) y[i] = x[2 * n + i]; return 0; }
KERNEL(Code3) { return 3; }
/* a (rows, cols) copy that takes its row stride from the input's columns */
KERNEL(WrongStride) { float *x = params[0], *y = params[1]; int64_t r = shapes[1][0], c = shapes[0][1];
                      for (int64_t i = 0; i < r; i++) for (int64_t j = 0; j < c; j++) y[i * c + j] = x[i * c + j];
                      return 0; }
"""

SCRIPT = r'''
import json, sys, os
import numpy as np
import numba
import mscustom as ms
from mscustom import ops

src = sys.argv[1]
x1 = ms.Tensor(np.arange(100_000, dtype=np.float32))
x2 = ms.Tensor(np.ones((64, 32), np.float32))
small = ms.Tensor(np.ones(256, np.float32))
same = lambda s: s

def aot(sym, shape=same):
    return ops.Custom(f"{src}:{sym}", out_shape=shape, out_dtype=same, func_type="aot", name=f"aot_{sym}")

def jit(fn, shape=same, dtype=same):
    return ops.Custom(fn, out_shape=shape, out_dtype=dtype, func_type="jit", name=f"jit_{fn.__name__}")

def loop_index(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]

def loop_flat(x, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i]

def axis_overflow(x, out):            # out has fewer columns: out[i, j] walks past an axis
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = x[i, j]

def before_start(x, out):
    for i in range(out.size):
        out.flat[i - 8] = 1.0

def parallel_over(x, out):
    for i in numba.prange(x.size):
        out.flat[i] = x.flat[i] * 2

def wider(x, out):                     # float64 output sized by the float32 input's byte count
    for i in range(x.size * 2):
        out.flat[i] = 1.0

def div_zero(x, out):
    z = 0
    for i in range(out.size):
        out.flat[i] = i // z

def wrong_shape(x):
    return x[:3]

def raises(x):
    raise ValueError("a bad value")

half = lambda s: [s[0] // 2]
scenarios = [
    ("aot loop over input, out half", lambda: aot("LoopInput", half)(x1)),
    ("aot loop over input, out quarter", lambda: aot("LoopInput", lambda s: [s[0] // 4])(x1)),
    ("aot loop over input, out one", lambda: aot("LoopInput", lambda s: [1])(x1)),
    ("aot 16 B past", lambda: aot("Past16")(small)),
    ("aot 4 KiB past", lambda: aot("Past4096")(small)),
    ("aot 64 KiB past", lambda: aot("Past65536")(small)),
    ("aot 1 MiB past", lambda: aot("Past1048576")(small)),
    ("aot before start", lambda: aot("Before")(small)),
    ("aot read past input", lambda: aot("ReadPast")(small)),
    ("aot error code", lambda: aot("Code3")(small)),
    ("aot wrong row stride", lambda: aot("WrongStride", lambda s: [s[0], s[1] // 2])(x2)),
    ("jit index past out", lambda: jit(loop_index, half)(x1)),
    ("jit flat past out", lambda: jit(loop_flat, half)(x1)),
    ("jit axis overflow", lambda: jit(axis_overflow, lambda s: [s[0], s[1] // 2])(x2)),
    ("jit before start", lambda: jit(before_start)(small)),
    ("jit prange past out", lambda: jit(parallel_over, half)(x1)),
    ("jit wider output", lambda: jit(wider, same, lambda t: ms.float64)(small)),
    ("jit integer division by zero", lambda: jit(div_zero)(small)),
    ("pyfunc wrong shape", lambda: ops.Custom(wrong_shape, same, same, func_type="pyfunc", name="py_shape")(small)),
    ("pyfunc raises", lambda: ops.Custom(raises, same, same, func_type="pyfunc", name="py_raises")(small)),
]
results = []
for name, run in scenarios:
    try:
        run()
        results.append([name, None, ""])
    except Exception as exc:
        results.append([name, type(exc).__name__, str(exc)])
good = ops.Custom(loop_flat, out_shape=same, out_dtype=same, func_type="jit")
results.append(["after", bool(np.array_equal(good(small).asnumpy(), small.asnumpy())), ""])
print(json.dumps(results))
'''


def test_twenty_kernel_faults_each_end_in_a_clear_error_and_the_heap_survives(tmp_path):
    src = tmp_path / "faults.c"
    src.write_text(C_SOURCE)
    env = dict(os.environ, MALLOC_CHECK_="3", MALLOC_PERTURB_="165")
    env.pop("MSCUSTOM_DEBUG", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(src)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=400)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) == 21
    *faults, after = results
    assert after[1] is True                         # the process still computes right
    for name, kind, message in faults:
        assert kind is not None, f"{name}: no error"
        assert "op '" in message, (name, message)
        if name.startswith(("aot", "jit")) and "code" not in name and "division" not in name:
            assert kind == "OutOfBoundsError", (name, kind, message)
    by_name = {name: message for name, _, message in faults}
    assert "wrote 1048576 byte(s) past the end of output 0" in by_name["aot 1 MiB past"]
    assert "likely out_shape is input 0's shape" in by_name["aot loop over input, out one"]
    assert "wrote 16 byte(s) before the start" in by_name["aot before start"]
    assert "read" in by_name["aot read past input"] and "input 0" in by_name["aot read past input"]
    assert "indexed out of bounds" in by_name["jit axis overflow"]
    assert "error code 3" in by_name["aot error code"]
