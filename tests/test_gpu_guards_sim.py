"""Debug-mode guard zones around GPU outputs (MSCUSTOM_DEBUG), in Numba's CUDA simulator, in a subprocess.

jit GPU kernels must give the same results with the guards as without. The
simulator cannot show a jit kernel overrunning (its arrays are NumPy arrays:
an index past the end raises IndexError, a negative one wraps around), so the
overrun checks run the aot GPU runner (``CudaDevice.runner``) with a
*CPU-compiled* C kernel of the aot calling convention: the simulator's device
arrays are host memory, so the kernel's pointers are real. That needs the
test-only hook ``runners._SIMULATOR_FOR_TESTS``. Real-GPU overruns are in
``test_gpu_device.py``.
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

KERNEL_C = textwrap.dedent("""
    #include "mscustom_aot.h"
    /* out0 = 2x, out1 = x + 1; then EXTRA floats past the end of out1 and BEFORE floats before its start */
    int TwoOut(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
               void *stream, void *extra) {
      int64_t i, n = ms_numel(ndims[0], shapes[0]);
      const float *x = (const float *)params[0];
      float *a = (float *)params[1], *b = (float *)params[2];
      (void)dtypes; (void)stream; (void)extra;
      if (nparam != 3) return MS_ERR_ARGS;
      for (i = 0; i < n; ++i) { a[i] = 2.0f * x[i]; b[i] = x[i] + 1.0f; }
      for (i = 0; i < EXTRA; ++i) b[n + i] = -1.0f;
      for (i = 1; i <= BEFORE; ++i) b[-i] = -2.0f;
      return MS_OK;
    }
""")

SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    from numba import cuda
    import mscustom as ms
    from mscustom.ops import Custom
    from mscustom.ops.custom import _guards
    from mscustom.ops.custom.aot import runners

    made = []                                   # every GuardedOutputs built: proof the guarded path ran
    init = _guards.GuardedOutputs.__init__
    def counting_init(self, cuda, outputs, stream=None, **kw):
        init(self, cuda, outputs, stream, **kw)
        made.append([list(v.shape) for v in self.views])
    _guards.GuardedOutputs.__init__ = counting_init

    def two_out(x, a, b):                       # a = 2x, b = x + 1, over the flat index
        i = cuda.grid(1)
        if i < a.size:
            if a.ndim == 1:
                a[i] = 2 * x[i]
                b[i] = x[i] + 1
            else:
                r, c = i // a.shape[1], i % a.shape[1]
                a[r, c] = 2 * x[r, c]
                b[r, c] = x[r, c] + 1

    ms.set_device("GPU")
    res = {"jit": []}
    for shape, dt in [((7,), "float32"), ((3, 4), "float64"), ((5,), "int32"), ((2, 3), "int64"),
                      ((0,), "float32")]:
        x = (np.arange(int(np.prod(shape))) - 3).astype(dt).reshape(shape)
        outs = {}
        for debug in (False, True):
            ms.set_context(debug=debug)
            op = Custom(two_out, lambda x: (x, x), lambda x: (x, x), func_type="jit")
            before = len(made)
            a, b = op(ms.Tensor(x))
            outs[debug] = (a.asnumpy(), b.asnumpy(), len(made) - before)
        same = all(np.array_equal(p, q) and p.dtype == q.dtype for p, q in zip(outs[False][:2], outs[True][:2]))
        right = np.array_equal(outs[True][0], 2 * x) and np.array_equal(outs[True][1], x + 1)
        res["jit"].append([list(shape), dt, bool(same), bool(right), outs[False][2], outs[True][2]])

    runners._SIMULATOR_FOR_TESTS = True
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    def aot(src, name, debug):
        ms.set_context(debug=debug)
        op = Custom(src + ":TwoOut", lambda x: (x, x), lambda x: (x, x), func_type="aot", name=name)
        try:
            a, b = op(ms.Tensor(x))
        except RuntimeError as exc:
            return str(exc)
        return [bool(np.array_equal(a.asnumpy(), 2 * x)), bool(np.array_equal(b.asnumpy(), x + 1)),
                op.kernel_stats()[0].kernel]
    fine, past, early = sys.argv[1:4]
    res["aot_plain"] = aot(fine, "plain", False)
    made.clear()
    res["aot_fine"] = aot(fine, "fine", True)
    res["aot_fine_guarded"] = list(made)
    res["aot_past"] = aot(past, "past", True)
    res["aot_before"] = aot(early, "early", True)
    runners._SIMULATOR_FOR_TESTS = False
    res["refused"] = aot(fine, "refused", False)            # the message, or the results if not refused
    print(json.dumps(res))
''')


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    tmp = tmp_path_factory.mktemp("gpuguard")
    sources = []
    for name, extra, before in (("fine", 0, 0), ("past", 3, 0), ("before", 0, 2)):
        src = tmp / f"{name}.c"
        src.write_text(f"#define EXTRA {extra}\n#define BEFORE {before}\n" + KERNEL_C)
        sources.append(str(src))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", MSCUSTOM_CACHE_DIR=str(tmp / "cache"))
    env.pop("MSCUSTOM_DEBUG", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *sources], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_jit_gpu_results_are_the_same_with_guard_zones(results):
    assert len(results["jit"]) == 5
    for shape, dtype, same, right, plain_guards, debug_guards in results["jit"]:
        assert same and right, (shape, dtype)
        # a signature's first call is checked in either mode (each op here is called once)
        assert plain_guards == 1 and debug_guards == 1, (shape, dtype)


def test_aot_gpu_runner_in_bounds_kernel_passes_with_guards(results):
    assert results["aot_plain"][:2] == [True, True]                 # the simulated runner
    assert results["aot_fine"][:2] == [True, True]
    assert results["aot_fine"][2].endswith(":TwoOut[GPU]")
    assert results["aot_fine_guarded"] == [[[2, 5], [2, 5]]]


def test_aot_gpu_runner_reports_a_write_past_the_end_of_output_1(results):
    msg = results["aot_past"]
    assert isinstance(msg, str), msg
    assert msg.startswith("op 'past': AOT kernel 'TwoOut' wrote outside output 1 (shape [2, 5], float32, "
                          "40 bytes): 12 byte(s) past its end"), msg


def test_aot_gpu_runner_reports_a_write_before_the_start(results):
    msg = results["aot_before"]
    assert isinstance(msg, str), msg
    assert "op 'early'" in msg and "output 1 " in msg and "8 byte(s) before its start" in msg, msg
    assert "past its end" not in msg


def test_the_simulator_is_refused_without_the_test_hook(results):
    assert isinstance(results["refused"], str), results["refused"]
    assert "op 'refused'" in results["refused"]
    assert "CUDA simulator (NUMBA_ENABLE_CUDASIM=1) cannot run" in results["refused"]


def test_overrun_words_how_far_a_kernel_wrote():
    import numpy as np

    from mscustom.ops.custom import _guards
    g = np.full(16, _guards.GUARD_BYTE, np.uint8)
    assert _guards.overrun(g, g) is None
    past, early = g.copy(), g.copy()
    past[4] = 0
    early[13] = 0
    assert _guards.overrun(g, past) == "5 byte(s) past its end"
    assert _guards.overrun(early, past) == "5 byte(s) past its end and 3 byte(s) before its start"
    past[-1] = 0
    assert _guards.overrun(g, past) == "16 byte(s) past its end (at least: the guard zone is full)"


def test_device_guard_zones_keep_outputs_256_byte_aligned():
    from mscustom.ops.custom import _guards
    for nbytes in (1, 40, 4097, 5000, 123457, 1 << 20, 1 << 30):
        g = _guards.device_guard_size(nbytes)
        assert g % 256 == 0 and 4096 <= g <= 1 << 20 and (g >= nbytes or g == 1 << 20), nbytes
