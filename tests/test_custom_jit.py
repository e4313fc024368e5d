"""Kernel kind "jit" of ops.Custom: Numba-compiled destination-passing kernels on CPU."""

import subprocess
import sys
import threading
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import prange

import mscustom as ms
from mscustom.ops import Custom, CustomRegOp
from mscustom.ops.custom import jit
from mscustom.testing import check_grad

REPO = Path(__file__).resolve().parents[1]


def same(*args):
    """out_shape/out_dtype rule: like the first tensor argument."""
    return next(a for a in args if isinstance(a, list) or isinstance(a, ms.DType))


def cpu_entry(op):
    return next(k for k in op.kernels if k.target == "CPU")


def dispatcher(op):
    """The Numba dispatcher behind an op's CPU jit kernel."""
    return cpu_entry(op).bind.__self__.dispatcher


# ---------------------------------------------------------------- kernels
def square_kernel(x, out):
    for i in range(x.size):
        out[i] = x[i] * x[i]


def add_kernel(a, b, out):
    for i in range(out.size):
        out[i] = a[i] + b[i]


def square_prange(x, out):
    for i in prange(x.size):
        out[i] = x[i] * x[i]


def square_grad_kernel(x, dout, dx):
    for i in range(x.size):
        dx[i] = 2.0 * x[i] * dout[i]


def split_kernel(x, pos, neg):
    for i in range(x.size):
        pos[i] = max(x[i], 0.0)
        neg[i] = min(x[i], 0.0)


def axpb_kernel(a, x, b, out):                 # a and b are scalars in call order
    for i in range(x.size):
        out[i] = a * x[i] + b


def attr_kernel(x, out, scale, offset, flip):  # attributes after the outputs, reg-info order
    for i in range(x.size):
        v = x[i] * scale + offset
        out[i] = -v if flip else v


def matrix_kernel(x, out):                     # 2-D, indexes rows and columns
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] * 10 + j


# ---------------------------------------------------------------- forward results
def test_elementwise_square_matches_numpy(rng):
    sq = Custom(square_kernel, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="jit")
    x = rng.standard_normal(17).astype(np.float32)
    y = sq(ms.Tensor(x))
    assert y.dtype == ms.float32
    np.testing.assert_allclose(y.asnumpy(), x * x, rtol=1e-6)
    assert [k.name for k in sq.kernels] == ["jit:square_kernel[CPU]", "jit:square_kernel[GPU]"]
    entry = cpu_entry(sq)
    assert entry.kind == "jit" and not entry.allocates
    (stat,) = [s for s in sq.kernel_stats() if s.kernel == "jit:square_kernel[CPU]"]
    assert stat.kind == "jit" and stat.calls == 1 and stat.seconds == 0     # counted, not timed
    with ms.ops.custom_op_usage() as usage:
        sq(ms.Tensor(x))
    (row,) = usage.report()
    assert row.calls == 1 and row.seconds > 0


def test_two_inputs(rng):
    add = Custom(add_kernel, same, same, func_type="jit")
    a, b = rng.standard_normal((2, 9))
    np.testing.assert_allclose(add(ms.Tensor(a, ms.float64), ms.Tensor(b, ms.float64)).asnumpy(), a + b)


def test_second_dtype_compiles_a_second_signature(rng):
    sq = Custom(square_kernel, same, same, func_type="jit")
    x = rng.standard_normal(5)
    y32 = sq(ms.Tensor(x, ms.float32))
    y64 = sq(ms.Tensor(x, ms.float64))
    assert (y32.dtype, y64.dtype) == (ms.float32, ms.float64)
    np.testing.assert_allclose(y64.asnumpy(), x * x)
    np.testing.assert_allclose(y32.asnumpy(), (x * x).astype(np.float32), rtol=1e-6)
    assert {sig[0].dtype.name for sig in dispatcher(sq).overloads} == {"float32", "float64"}


def test_prange_kernel_is_compiled_parallel(rng):
    sq = Custom(square_prange, same, same, func_type="jit")
    x = rng.standard_normal(100_001).astype(np.float32)
    np.testing.assert_allclose(sq(ms.Tensor(x)).asnumpy(), x * x, rtol=1e-6)
    assert dispatcher(sq).targetoptions.get("parallel")


def test_parallel_option_without_prange():
    sq = Custom(square_kernel, same, same, func_type="jit", parallel=True)
    assert dispatcher(sq).targetoptions.get("parallel")
    plain = Custom(square_kernel, same, same, func_type="jit")
    assert not dispatcher(plain).targetoptions.get("parallel")


def test_multiple_outputs(rng):
    split = Custom(split_kernel, out_shape=lambda x: (x, x), out_dtype=lambda x: (x, x), func_type="jit")
    x = rng.standard_normal(12).astype(np.float32)
    pos, neg = split(ms.Tensor(x))
    np.testing.assert_array_equal(pos.asnumpy(), np.maximum(x, 0))
    np.testing.assert_array_equal(neg.asnumpy(), np.minimum(x, 0))


def test_scalar_arguments_keep_their_call_order(rng):
    axpb = Custom(axpb_kernel, out_shape=lambda a, x, b: x, out_dtype=lambda a, x, b: x, func_type="jit")
    x = rng.standard_normal(6).astype(np.float32)
    np.testing.assert_allclose(axpb(2.5, ms.Tensor(x), -1).asnumpy(), 2.5 * x - 1, rtol=1e-6)
    np.testing.assert_allclose(axpb(-3, ms.Tensor(x), 0.5).asnumpy(), -3 * x + 0.5, rtol=1e-6)


def test_attribute_values_follow_the_outputs_in_reg_info_order(rng):
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("scale", "required", "float", value=1.0)
            .attr("offset", "optional", "float", value=0.0)
            .attr("flip", "optional", "bool", value=False))
    op = Custom(attr_kernel, same, same, func_type="jit", reg_info=info)
    x = rng.standard_normal(4)
    t = ms.Tensor(x, ms.float64)
    np.testing.assert_allclose(op(t).asnumpy(), x)
    np.testing.assert_allclose(op(t, scale=2.0, offset=1.0).asnumpy(), 2 * x + 1)
    np.testing.assert_allclose(op(t, scale=2.0, flip=True).asnumpy(), -2 * x)


def test_non_contiguous_input_is_made_contiguous(rng):
    m = Custom(matrix_kernel, same, same, func_type="jit")
    x = rng.standard_normal((3, 4))
    view = x.T                                          # a transposed view, not C-contiguous
    assert not view.flags.c_contiguous
    np.testing.assert_allclose(m(view).asnumpy(), x.T * 10 + np.arange(3))


def test_user_njit_function_is_used_as_it_is(rng):
    user = numba.njit(square_kernel)
    sq = Custom(user, same, same, func_type="jit")
    assert dispatcher(sq) is user
    x = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(sq(ms.Tensor(x)).asnumpy(), x * x, rtol=1e-6)


def test_function_defined_by_exec_compiles_without_the_disk_cache(rng):
    ns = {}
    exec("def cube(x, out):\n    for i in range(x.size):\n        out[i] = x[i] ** 3\n", ns)
    cube = Custom(ns["cube"], same, same, func_type="jit")
    x = rng.standard_normal(4)
    np.testing.assert_allclose(cube(ms.Tensor(x, ms.float64)).asnumpy(), x ** 3)
    assert type(dispatcher(cube)._cache).__name__ == "NullCache"
    module_level = Custom(square_kernel, same, same, func_type="jit")
    assert type(dispatcher(module_level)._cache).__name__ == "FunctionCache"


def test_gradient_through_a_jit_bprop(rng):
    square_grad = Custom(square_grad_kernel, same, same, func_type="jit")
    sq = Custom(square_kernel, same, same, func_type="jit",
                bprop=lambda x, out, dout: (square_grad(x, dout),))
    x = ms.Tensor(rng.standard_normal(5), ms.float64)
    g = ms.grad(lambda t: sq(t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy())
    check_grad(sq, x)


# ---------------------------------------------------------------- debugging without Numba
def test_debug_option_runs_the_python_source():
    seen = []

    def spy(x, out):                                # appending to a Python list only works uncompiled
        seen.append(x.shape)
        for i in range(x.size):
            out[i] = x[i] + 1

    op = Custom(spy, same, same, func_type="jit", debug=True)
    assert cpu_entry(op).name == "jit:spy[CPU](python)"
    np.testing.assert_allclose(op(ms.Tensor([1.0, 2.0])).asnumpy(), [2.0, 3.0])
    assert seen == [(2,)]


def test_disable_env_runs_prange_kernels_in_python(monkeypatch):
    monkeypatch.setenv(jit.DISABLE_ENV, "1")
    op = Custom(square_prange, same, same, func_type="jit")
    assert dispatcher(op) is None
    np.testing.assert_allclose(op(ms.Tensor([3.0, -2.0])).asnumpy(), [9.0, 4.0])


# ---------------------------------------------------------------- threads
def test_threads_racing_for_the_first_compile():
    def inc_kernel(x, out):
        for i in range(x.size):
            out[i] = x[i] + 1

    op = Custom(inc_kernel, same, same, func_type="jit")
    x = ms.Tensor(np.arange(8, dtype=np.int32))
    barrier = threading.Barrier(6)
    results, errors = [], []

    def worker():
        barrier.wait()
        try:
            results.append(op(x).asnumpy())
        except Exception as exc:                    # reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 6 and all((r == np.arange(1, 9)).all() for r in results)
    assert len(dispatcher(op).overloads) == 1


# ---------------------------------------------------------------- errors
def test_compile_error_names_op_kernel_and_numba_message():
    def broken(x, out):
        out[0] = x.no_such_attribute

    op = Custom(broken, same, same, func_type="jit", name="bad_op")
    with pytest.raises(RuntimeError, match=r"(?s)op 'bad_op': jit kernel 'broken' failed to compile "
                                           r"for \(array\(float32, 1d, C\).*no_such_attribute") as info:
        op(ms.Tensor([1.0]))
    assert isinstance(info.value.__cause__, numba.core.errors.NumbaError)


def test_exception_inside_the_kernel_names_the_op():
    def checked(x, out):
        for i in range(x.size):
            if x[i] < 0:
                raise ValueError("negative input")
            out[i] = x[i]

    op = Custom(checked, same, same, func_type="jit", name="checked_op")
    with pytest.raises(RuntimeError, match="op 'checked_op': jit kernel 'checked' raised ValueError: "
                                           "negative input") as info:
        op(ms.Tensor([1.0, -1.0]))
    assert isinstance(info.value.__cause__, ValueError)


def test_bad_construction_arguments():
    common = dict(op_name="k", rows=None, attr_specs=[], n_out=1)
    with pytest.raises(ValueError, match="op 'k': jit kernels run on 'CPU' or 'GPU'.*'Ascend'"):
        jit.make_kernel(square_kernel, target="Ascend", options={}, **common)
    with pytest.raises(TypeError, match="op 'k': a jit kernel must be a Python function.*got str"):
        jit.make_kernel("square", target="CPU", options={}, **common)
    with pytest.raises(ValueError, match=r"op 'sq': launch must be \(blocks, threads\).*got \(0, 32\)"):
        Custom(square_kernel, same, same, func_type="jit", name="sq", launch=(0, 32))


def test_gpu_target_without_a_device_says_so():
    from numba import cuda
    if cuda.is_available():
        pytest.skip("a CUDA device (or the simulator) is available")
    sq = Custom(square_kernel, same, same, func_type="jit", name="gpu_sq")
    ms.set_device("GPU")
    try:
        with pytest.raises(RuntimeError, match="op 'gpu_sq': jit kernel 'square_kernel' targets GPU, but "
                                               "no CUDA device is available.*NUMBA_ENABLE_CUDASIM"):
            sq(ms.Tensor([1.0]))
    finally:
        ms.set_device("CPU")


def test_import_mscustom_does_not_import_numba():
    code = "import sys, mscustom; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- large outputs
def _address(t):
    return t.asnumpy().__array_interface__["data"][0]


def test_large_outputs_come_from_the_reuse_pool():
    sq = Custom(square_prange, same, same, func_type="jit")
    x = ms.Tensor(np.ones(1 << 19, np.float32))     # 2 MiB output: pooled
    first = _address(sq(x))
    assert _address(sq(x)) == first                 # the first result was dropped: its buffer is reused
    kept = sq(x)
    assert _address(sq(x)) != _address(kept)        # a result still referenced is never handed out again
