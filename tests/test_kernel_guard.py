"""A user's kernel never corrupts the process: checked first calls, guarded buffers, crash labels.

The first call of every new signature of a jit or aot kernel runs on guarded
buffers (bounds-checked code for jit); a kernel that writes past its output
raises an error naming the op, the kernel, the output, its declared shape, how
far it wrote and the likely out_shape. A fatal signal inside a kernel names the
op and the kernel before the process dies with the signal.
"""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mscustom as ms
from mscustom import ops
from mscustom._core import kernelguard
from mscustom.ops.custom._guards import OutOfBoundsError

REPO = Path(__file__).resolve().parents[1]

AOT_SRC = textwrap.dedent(r"""
    #include <stdint.h>
    #include <string.h>
    static int64_t numel(int nd, int64_t *s) { int64_t n = 1; for (int i = 0; i < nd; i++) n *= s[i]; return n; }
    /* y[i] = 2 x[i] over the INPUT's size, whatever the output's: the commonest out_shape mistake */
    int LoopInput(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                  void *stream, void *extra) {
        float *x = (float *)params[0], *y = (float *)params[1];
        int64_t n = numel(ndims[0], shapes[0]);
        for (int64_t i = 0; i < n; i++) y[i] = 2.0f * x[i];
        return 0;
    }
    /* a correct kernel, then EXTRA bytes written past the output's end (0x5A each) */
    int WritePast(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                  void *stream, void *extra) {
        float *x = (float *)params[0], *y = (float *)params[1];
        int64_t n = numel(ndims[1], shapes[1]);
        for (int64_t i = 0; i < n; i++) y[i] = x[i];
        memset((char *)y + n * 4, 0x5A, (size_t)EXTRA);
        return 0;
    }
    int WriteBefore(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                    void *stream, void *extra) {
        float *x = (float *)params[0], *y = (float *)params[1];
        int64_t n = numel(ndims[1], shapes[1]);
        for (int64_t i = 0; i < n; i++) y[i] = x[i];
        y[-3] = 1.0f;
        return 0;
    }
    /* reads twice as far as its input holds */
    int ReadPast(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                 void *stream, void *extra) {
        float *x = (float *)params[0], *y = (float *)params[1];
        int64_t n = numel(ndims[1], shapes[1]);
        for (int64_t i = 0; i < n; i++) y[i] = x[i] + x[i + n + 5000];
        return 0;
    }
    /* writes through NULL when x[0] is 42: a crash no check of the first call can see */
    int NullWhen42(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                   void *stream, void *extra) {
        float *x = (float *)params[0], *y = (float *)params[1];
        int64_t n = numel(ndims[0], shapes[0]);
        if (x[0] == 42.0f) *(volatile float *)0 = 1.0f;
        for (int64_t i = 0; i < n; i++) y[i] = x[i];
        return 0;
    }
""")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    d = tmp_path_factory.mktemp("guard")
    paths = {}
    for extra in (16, 4096, 65536, 1 << 20):
        p = d / f"over_{extra}.c"
        p.write_text(f"#define EXTRA {extra}\n" + AOT_SRC)
        paths[extra] = str(p)
    return paths


def aot(path, symbol, out_shape=lambda s: s, name=None):
    return ops.Custom(f"{path}:{symbol}", out_shape=out_shape, out_dtype=lambda t: t, func_type="aot",
                      name=name or symbol)


def loop_over_input(x, out):                 # the kernel: indexes the output by the input's size
    for i in range(x.shape[0]):
        out[i] = x[i] * 2


def flat_over_input(x, out):                 # the same through .flat, which Numba does not bounds-check
    for i in range(x.size):
        out.flat[i] = x.flat[i] * 2


@pytest.mark.parametrize("kernel", [loop_over_input, flat_over_input])
def test_a_jit_kernel_writing_past_a_too_small_out_shape_raises_naming_op_output_and_fix(kernel):
    op = ops.Custom(kernel, out_shape=lambda s: [s[0] // 2], out_dtype=lambda t: t, func_type="jit", name="dbl")
    x = ms.Tensor(np.ones(100_000, np.float32))
    with pytest.raises(OutOfBoundsError) as info:
        op(x)
    msg = str(info.value)
    # out[i] stops at Numba's bounds check first (said so); .flat[i] is seen by the guarded buffers only
    stopped = "indexed out of bounds (index is out of bounds): it " if kernel is loop_over_input else ""
    assert msg.startswith(f"op 'dbl': jit kernel '{kernel.__name__}' {stopped}wrote 200000 byte(s) past the end of "
                          "output 0 (shape [50000], float32, 200000 bytes)"), msg
    assert "it wrote at least 100000 element(s) where out_shape gives 50000" in msg
    assert "the likely out_shape is input 0's shape (out_shape=lambda x: x)" in msg
    assert "first call's check of this signature" in msg and "MSCUSTOM_DEBUG=1" in msg
    with pytest.raises(OutOfBoundsError):      # the signature stays checked until a call passes
        op(x)
    assert isinstance(info.value, IndexError) and isinstance(info.value, RuntimeError)


@pytest.mark.parametrize("fraction", [2, 4, 100_000])
def test_an_aot_kernel_looping_over_its_input_is_stopped_at_any_size(kernels, fraction):
    # 1/2, 3/4 and all but one element of the output missing (the last crashed even in debug mode before)
    op = aot(kernels[16], "LoopInput", out_shape=lambda s: [max(1, s[0] // fraction)], name="loop")
    with pytest.raises(OutOfBoundsError, match=r"op 'loop': AOT kernel 'LoopInput' .* wrote \d+ byte\(s\) past the "
                                               r"end of output 0 .*likely out_shape is input 0's shape"):
        op(ms.Tensor(np.ones(100_000, np.float32)))


@pytest.mark.parametrize("extra", [16, 4096, 65536, 1 << 20])
def test_aot_writes_from_16_bytes_to_1_mib_past_an_output_are_measured_exactly(kernels, extra):
    op = aot(kernels[extra], "WritePast", name="past")
    x = np.arange(1000, dtype=np.float32)
    with pytest.raises(OutOfBoundsError, match=rf"wrote {extra} byte\(s\) past the end of output 0 \(shape \[1000\]"):
        op(ms.Tensor(x))


def test_aot_writes_before_the_start_and_reads_past_an_input_are_reported(kernels):
    with pytest.raises(OutOfBoundsError, match=r"wrote 12 byte\(s\) before the start of output 0"):
        aot(kernels[16], "WriteBefore")(ms.Tensor(np.ones(64, np.float32)))
    with pytest.raises(OutOfBoundsError, match=r"read \d+ byte\(s\) past the end of input 0 \(shape \[64\]"):
        aot(kernels[16], "ReadPast")(ms.Tensor(np.ones(64, np.float32)))


def test_a_correct_kernel_is_checked_once_then_runs_on_the_fast_path(kernels):
    op = aot(kernels[16], "LoopInput", name="fine")
    x = ms.Tensor(np.arange(10, dtype=np.float32))
    for _ in range(4):
        np.testing.assert_array_equal(op(x).asnumpy(), 2 * np.arange(10, dtype=np.float32))
    plan = next(iter(op._op.plans.values()))
    assert not hasattr(plan.runner, "checked")        # the checking runner handed over to the bound one
    assert op.kernel_stats()[0].calls >= 1

    jop = ops.Custom(flat_over_input, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="jit")
    for _ in range(3):
        np.testing.assert_array_equal(jop(x).asnumpy(), 2 * np.arange(10, dtype=np.float32))
    assert not hasattr(next(iter(jop._op.plans.values())).runner, "checked")


def test_debug_mode_checks_every_call_data_dependent_indices_included():
    def by_value(x, out):                     # writes out[x[0]]: fine for small values only
        out.flat[int(x[0])] = 1.0

    ms.set_context(debug=True)
    try:
        op = ops.Custom(by_value, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="jit", name="byval")
        op(ms.Tensor(np.zeros(8, np.float32)))
        with pytest.raises(OutOfBoundsError, match=r"op 'byval'.*every call \(MSCUSTOM_DEBUG=1\)"):
            op(ms.Tensor(np.array([20, 0, 0, 0, 0, 0, 0, 0], np.float32)))
    finally:
        ms.set_context(debug=False)


def test_a_parallel_kernel_overrunning_in_worker_threads_is_caught():
    import numba

    def par(x, out):
        for i in numba.prange(x.size):
            out.flat[i] = x.flat[i] + 1

    op = ops.Custom(par, out_shape=lambda s: [s[0] // 4], out_dtype=lambda t: t, func_type="jit", name="par")
    with pytest.raises(OutOfBoundsError, match=r"op 'par'.* past the end of output 0 \(shape \[50000\]"):
        op(ms.Tensor(np.ones(200_000, np.float32)))


@settings(max_examples=25, deadline=None)
@given(past=st.integers(0, 70_000), before=st.integers(0, 3000), n=st.integers(1, 5000))
def test_guarded_buffer_measures_any_reach_exactly(past, before, n):
    buf = kernelguard.GuardedBuffer((n,), np.float32, reach=1 << 20)
    try:
        arr = buf.array
        assert arr.ctypes.data % 64 == 0
        arr[...] = 1.0
        base = arr.ctypes.data
        raw = kernelguard._bytes_at
        if past:
            raw(base + arr.nbytes, past)[...] = 7          # through the pages the handler opens
        if before:
            raw(base - before, before)[...] = 7
        early, late = buf.outside()
        assert late == (past or None) and early == (before or None)
        assert np.all(arr == 1.0)
    finally:
        buf.close()


def _crash(code, tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ)
    env.pop("MSCUSTOM_DEBUG", None)
    return subprocess.run([sys.executable, str(script)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=240)


@pytest.mark.skipif(not kernelguard.AVAILABLE, reason="needs the kernel guard extension (make fastcall)")
@pytest.mark.parametrize("warm", [False, True])
def test_a_null_write_in_an_aot_kernel_names_the_op_and_ends_with_the_signal(kernels, tmp_path, warm):
    # warm: the first call passes its check, and a later call crashes on the compiled call path (in C)
    proc = _crash(f"""
        import numpy as np, mscustom as ms
        from mscustom import ops
        op = ops.Custom({kernels[16]!r} + ":NullWhen42", lambda s: s, lambda t: t, func_type="aot", name="nul")
        if {warm}:
            for _ in range(3):
                op(ms.Tensor(np.ones(4, np.float32)))
        op(ms.Tensor(np.full(4, 42, np.float32)))
        print("survived")
    """, tmp_path)
    assert proc.returncode == -signal.SIGSEGV, (proc.returncode, proc.stderr[-2000:])
    assert "survived" not in proc.stdout
    assert "mscustom: fatal SIGSEGV (segmentation fault) while running op 'nul', kernel aot:" in proc.stderr
    assert ":NullWhen42[CPU]" in proc.stderr
    assert "crash.py" in proc.stderr                    # faulthandler's Python stack follows


@pytest.mark.skipif(not kernelguard.AVAILABLE, reason="needs the kernel guard extension (make fastcall)")
def test_a_crashing_jit_kernel_on_a_warm_call_names_itself(tmp_path):
    proc = _crash("""
        import numpy as np, mscustom as ms
        from mscustom import ops

        def far(x, out):                        # data-dependent index: 1e12 elements away when x[0] == 42
            k = 0
            if x[0] == 42:
                k = 10 ** 12
            for i in range(x.size):
                out.flat[i + k] = x.flat[i]

        op = ops.Custom(far, lambda s: s, lambda t: t, func_type="jit", name="farjit")
        for _ in range(3):
            op(ms.Tensor(np.ones(4, np.float32)))
        op(ms.Tensor(np.full(4, 42, np.float32)))
        print("survived")
    """, tmp_path)
    assert proc.returncode == -signal.SIGSEGV, (proc.returncode, proc.stderr[-2000:])
    assert "while running op 'farjit', kernel jit:far[CPU]" in proc.stderr
