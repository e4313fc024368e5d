"""Custom ops on a real CUDA GPU: jit kernels through numba-cuda and compiled CUDA aot kernels.

Skipped where no CUDA device is present (CI has none; the simulator tests in
``test_custom_gpu_sim.py`` cover the jit path there). The checks run in a
subprocess so that initialising the CUDA driver never touches the test
process.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CUDA_LIB = REPO / "aot_kernels" / "build" / "libkernels_cuda.so"

PROBE = "from numba import cuda; print(int(cuda.is_available()))"


def _gpu_present():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    try:
        proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                              timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and proc.stdout.strip().endswith("1")


pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not _gpu_present(), reason="no CUDA device (numba.cuda.is_available() is False)")]

SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    from numba import cuda
    import mscustom as ms
    from mscustom.ops import Custom, CustomRegOp, DataType

    def same(*args):
        return next(a for a in args if isinstance(a, (list, ms.DType)))

    def square_kernel(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * x[i]

    def square_grad_kernel(x, dout, dx):
        i = cuda.grid(1)
        if i < dx.size:
            dx[i] = 2 * x[i] * dout[i]

    def scale_kernel(x, s, out, shift):              # grid-stride: any launch size
        start, step = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, out.size, step):
            out[i] = x[i] * s + shift

    def minmax_kernel(a, b, lo, hi):
        i = cuda.grid(1)
        if i < lo.size:
            lo[i] = min(a[i], b[i])
            hi[i] = max(a[i], b[i])

    res = {}
    rng = np.random.default_rng(0)
    ms.set_device("GPU")
    for n in (7, 1 << 20):
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        sq_grad = Custom(square_grad_kernel, lambda x, d: x, lambda x, d: x, func_type="jit")
        sq = Custom(square_kernel, same, same, func_type="jit",
                    bprop=lambda x, out, dout: (sq_grad(x, dout),))
        res[f"jit_square_{n}"] = bool(np.allclose(sq(ms.Tensor(x)).asnumpy(), x * x))
        g = ms.grad(lambda t: (sq(t) * 3.0).sum())(ms.Tensor(x))
        res[f"jit_grad_{n}"] = bool(np.allclose(g.asnumpy(), 6 * x, rtol=1e-5))
        info = CustomRegOp().input(0, "x").output(0, "y").attr("shift", "optional", "float", value=0.5)
        scaled = Custom(scale_kernel, lambda x, s: x, lambda x, s: x, func_type="jit", reg_info=info,
                        launch=(4, 64))
        scaled_out = scaled(ms.Tensor(x), 3.0).asnumpy()        # the GPU may fuse x * s + shift (FMA)
        res[f"jit_launch_{n}"] = bool(np.allclose(scaled_out, 3 * x + 0.5, rtol=1e-5, atol=1e-6))
        mm = Custom(minmax_kernel, lambda a, b: (a, a), lambda a, b: (a, a), func_type="jit")
        lo, hi = mm(ms.Tensor(x), ms.Tensor(y))
        res[f"jit_minmax_{n}"] = bool(np.array_equal(lo.asnumpy(), np.minimum(x, y))
                                      and np.array_equal(hi.asnumpy(), np.maximum(x, y)))
        for dt in (np.float32, np.float64):
            xd, yd = x.astype(dt), y.astype(dt)
            sq_c = Custom(sys.argv[1] + ":CustomSquareCuda", same, same, func_type="aot")
            add_c = Custom(sys.argv[1] + ":CustomAddCuda", same, same, func_type="aot")
            res[f"aot_square_{n}_{dt.__name__}"] = bool(np.allclose(sq_c(ms.Tensor(xd)).asnumpy(), xd * xd))
            res[f"aot_add_{n}_{dt.__name__}"] = bool(np.allclose(add_c(ms.Tensor(xd), ms.Tensor(yd)).asnumpy(),
                                                                 xd + yd))
        stats = {s.kernel: s.calls for s in sq_c.kernel_stats()}
        res["aot_stats"] = stats

    # reg info choosing the GPU kernel by target: the same op runs the C kernel on CPU
    cpu_info = (CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default)
                .target("CPU").get_op_info())
    gpu_info = dict(cpu_info, target="GPU")
    both = Custom(sys.argv[1] + ":CustomSquareCuda", same, same, func_type="aot", reg_info=gpu_info)
    both.add_kernel(sys.argv[2] + ":CustomSquare", "aot", reg_info=cpu_info)
    x = np.arange(5, dtype=np.float32)
    gpu_out = both(ms.Tensor(x)).asnumpy()
    ms.set_device("CPU")
    cpu_out = both(ms.Tensor(x)).asnumpy()
    res["select"] = [bool(np.array_equal(gpu_out, x * x)), bool(np.array_equal(cpu_out, x * x)),
                     sorted((s.kernel, s.calls) for s in both.kernel_stats())]

    # a .cu source compiled on demand by nvcc into the build cache
    ms.set_device("GPU")
    src = sys.argv[3]
    cube = Custom(src + ":CubeCuda", same, same, func_type="aot")
    res["aot_source"] = bool(np.allclose(cube(ms.Tensor(x)).asnumpy(), x ** 3))

    # a kernel failing on the device reports its code and symbol
    try:
        Custom(sys.argv[1] + ":CustomSquareCuda", lambda x: x, lambda x: ms.int32, func_type="aot",
               name="wrong_dtype")(ms.Tensor(x))
        res["error"] = "no error"
    except (RuntimeError, TypeError, ValueError) as exc:
        res["error"] = str(exc)
    print(json.dumps(res))
''')

CUBE_CU = textwrap.dedent('''
    #include "mscustom_aot.h"
    __global__ void cube(const float *x, float *y, int64_t n) {
      int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
      if (i < n) y[i] = x[i] * x[i] * x[i];
    }
    extern "C" int CubeCuda(int nparam, void **params, int *ndims, int64_t **shapes,
                            const char **dtypes, void *stream, void *extra) {
      (void)dtypes; (void)extra;
      if (nparam != 2) return MS_ERR_ARGS;
      int64_t n = ms_numel(ndims[0], shapes[0]);
      if (n == 0) return MS_OK;
      cube<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
          (const float *)params[0], (float *)params[1], n);
      return cudaGetLastError() == cudaSuccess ? MS_OK : MS_ERR_CUDA;
    }
''')


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not CUDA_LIB.exists():
        pytest.fail(f"{CUDA_LIB} is missing: run `make kernels` with nvcc on the PATH")
    src = tmp_path_factory.mktemp("cu") / "cube.cu"
    src.write_text(CUBE_CU)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(CUDA_LIB),
                           str(REPO / "aot_kernels" / "build" / "libkernels.so"), str(src)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("n", [7, 1 << 20])
def test_jit_cuda_kernels(results, n):
    for name in ("square", "grad", "launch", "minmax"):
        assert results[f"jit_{name}_{n}"] is True, name


@pytest.mark.parametrize("n", [7, 1 << 20])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_aot_cuda_kernels(results, n, dtype):
    assert results[f"aot_square_{n}_{dtype}"] is True
    assert results[f"aot_add_{n}_{dtype}"] is True


def test_kernel_selection_by_target(results):
    gpu_ok, cpu_ok, stats = results["select"]
    assert gpu_ok and cpu_ok
    assert [calls for _, calls in stats] == [1, 1]


def test_cuda_source_compiled_on_demand(results):
    assert results["aot_source"] is True


def test_device_kernel_failure_is_reported(results):
    assert "wrong_dtype" in results["error"]


# ---------------------------------------------------------------- debug mode: guard zones around GPU outputs
DEBUG_SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    from numba import cuda
    import mscustom as ms
    from mscustom import context
    from mscustom.ops import Custom

    assert context.debug_enabled()                   # MSCUSTOM_DEBUG=1 from the parent

    def same(*args):
        return next(a for a in args if isinstance(a, (list, ms.DType)))

    def square_kernel(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * x[i]

    def shifted_kernel(x, out):                      # CUDA kernels are not bounds-checked: 3 elements past
        i = cuda.grid(1)
        if i < out.size:
            out[i + 3] = x[i]

    res = {}
    ms.set_device("GPU")
    for n in (7, 1 << 20):
        x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        sq = Custom(square_kernel, same, same, func_type="jit")
        res[f"jit_square_{n}"] = bool(np.allclose(sq(ms.Tensor(x)).asnumpy(), x * x))
        sq_c = Custom(sys.argv[1] + ":CustomSquareCuda", same, same, func_type="aot")
        res[f"aot_square_{n}"] = bool(np.allclose(sq_c(ms.Tensor(x)).asnumpy(), x * x))

    def outcome(op, x):
        try:
            return [bool(v) for v in np.atleast_1d(op(ms.Tensor(x)).asnumpy() == 1)]
        except (IndexError, RuntimeError) as exc:
            return str(exc)

    x = np.ones(7, np.float32)
    res["jit_overrun"] = outcome(Custom(shifted_kernel, same, same, func_type="jit", name="shifted"), x)
    for name, src in zip(("fine", "past", "before"), sys.argv[2:5]):
        res[f"aot_{name}"] = outcome(Custom(src + ":SpillCuda", same, same, func_type="aot", name=name), x)
    print(json.dumps(res))
''')

SPILL_CU = textwrap.dedent('''
    #include "mscustom_aot.h"
    /* writes 1 into y[-BEFORE] .. y[n + EXTRA - 1]: EXTRA floats past the end, BEFORE before the start */
    __global__ void spill(float *y, int64_t n) {
      int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x - BEFORE;
      if (i < n + EXTRA) y[i] = 1.0f;
    }
    extern "C" int SpillCuda(int nparam, void **params, int *ndims, int64_t **shapes,
                             const char **dtypes, void *stream, void *extra) {
      (void)dtypes; (void)extra;
      if (nparam != 2) return MS_ERR_ARGS;
      int64_t n = ms_numel(ndims[1], shapes[1]);
      int64_t threads = n + EXTRA + BEFORE;
      spill<<<(unsigned)((threads + 255) / 256), 256, 0, (cudaStream_t)stream>>>((float *)params[1], n);
      return cudaGetLastError() == cudaSuccess ? MS_OK : MS_ERR_CUDA;
    }
''')


@pytest.fixture(scope="module")
def debug_results(tmp_path_factory):
    if not CUDA_LIB.exists():
        pytest.fail(f"{CUDA_LIB} is missing: run `make kernels` with nvcc on the PATH")
    tmp = tmp_path_factory.mktemp("cu_debug")
    sources = []
    for name, extra, before in (("fine", 0, 0), ("past", 5, 0), ("before", 0, 2)):
        src = tmp / f"spill_{name}.cu"
        src.write_text(f"#define EXTRA {extra}\n#define BEFORE {before}\n" + SPILL_CU)
        sources.append(str(src))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["MSCUSTOM_DEBUG"] = "1"
    proc = subprocess.run([sys.executable, "-c", DEBUG_SCRIPT, str(CUDA_LIB), *sources],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("n", [7, 1 << 20])
def test_debug_mode_keeps_gpu_results(debug_results, n):
    assert debug_results[f"jit_square_{n}"] is True
    assert debug_results[f"aot_square_{n}"] is True


def test_debug_mode_reports_a_jit_gpu_kernel_writing_past_its_output(debug_results):
    msg = debug_results["jit_overrun"]
    assert isinstance(msg, str), msg
    assert msg.startswith("op 'shifted': jit kernel 'shifted_kernel' wrote outside output 0 (shape [7], "
                          "float32): 12 byte(s) past its end"), msg


def test_debug_mode_reports_an_aot_cuda_kernel_writing_outside_its_output(debug_results):
    assert debug_results["aot_fine"] == [True] * 7
    past, before = debug_results["aot_past"], debug_results["aot_before"]
    assert isinstance(past, str) and isinstance(before, str), (past, before)
    assert past.startswith("op 'past': AOT kernel 'SpillCuda' wrote outside output 0 (shape [7], float32, "
                           "28 bytes): 20 byte(s) past its end."), past
    assert "op 'before'" in before and "output 0 " in before and ": 8 byte(s) before its start." in before, before
