"""Kernel kind "jit" of ops.Custom: Numba-compiled destination-passing kernels on CPU."""

import subprocess
import sys
import threading
from collections import namedtuple
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import prange

import mscustom as ms
from mscustom._core import dispatch
from mscustom._core.opdef import OpDef
from mscustom.ops.custom import jit
from mscustom.testing import check_grad

REPO = Path(__file__).resolve().parents[1]
AttrSpec = namedtuple("AttrSpec", "name param_type value_type default_value")


def make_op(func, *, n_in=1, n_out=1, out_shape=None, attrs=(), bprop=None, options=None, name="t"):
    """An op with one jit kernel, called like ops.Custom calls it (tensors, scalar template, attrs)."""
    op = OpDef(name, num_inputs=n_in, num_outputs=n_out)
    op.set_attr("FInferShape", lambda a, shapes: (shapes, out_shape(*shapes) if out_shape
                                                  else [shapes[0]] * n_out))
    specs = [AttrSpec(n, "required", t, d) for n, t, d in attrs]
    entry = jit.make_kernel(func, op_name=name, target="CPU", rows=None, attr_specs=specs,
                            n_out=n_out, options=options or {})
    op.add_kernel(entry)
    if bprop is not None:
        op.set_attr("FGradient", lambda ins, outs, dout, a: list(
            bprop(*ins, outs[0] if n_out == 1 else tuple(outs), dout[0] if n_out == 1 else tuple(dout))))

    def call(*args, **kwargs):
        tensors = tuple(a for a in args if isinstance(a, ms.Tensor))
        values = {"__template__": tuple(None if isinstance(a, ms.Tensor) else a for a in args)}
        for n, _, d in attrs:
            values[n] = kwargs.get(n, d)
        return dispatch.call(op, tensors, values)

    call.op, call.entry = op, entry
    return call


def _kernel_state(entry):
    return entry.bind.__self__


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
    sq = make_op(square_kernel)
    x = rng.standard_normal(17).astype(np.float32)
    y = sq(ms.Tensor(x))
    assert y.dtype == ms.float32
    np.testing.assert_allclose(y.asnumpy(), x * x, rtol=1e-6)
    assert sq.entry.kind == "jit" and sq.entry.name == "jit:square_kernel[CPU]"
    assert not sq.entry.allocates
    assert sq.entry.stats["calls"] == 1 and sq.entry.stats["seconds"] > 0


def test_two_inputs(rng):
    add = make_op(add_kernel, n_in=2)
    a, b = rng.standard_normal((2, 9))
    np.testing.assert_allclose(add(ms.Tensor(a, ms.float64), ms.Tensor(b, ms.float64)).asnumpy(), a + b)


def test_second_dtype_compiles_a_second_signature(rng):
    sq = make_op(square_kernel)
    x = rng.standard_normal(5)
    y32 = sq(ms.Tensor(x, ms.float32))
    y64 = sq(ms.Tensor(x, ms.float64))
    assert (y32.dtype, y64.dtype) == (ms.float32, ms.float64)
    np.testing.assert_allclose(y64.asnumpy(), x * x)
    np.testing.assert_allclose(y32.asnumpy(), (x * x).astype(np.float32), rtol=1e-6)
    compiled = {sig[0].dtype.name for sig in _kernel_state(sq.entry).dispatcher.overloads}
    assert compiled == {"float32", "float64"}


def test_prange_kernel_is_compiled_parallel(rng):
    sq = make_op(square_prange)
    x = rng.standard_normal(100_001).astype(np.float32)
    np.testing.assert_allclose(sq(ms.Tensor(x)).asnumpy(), x * x, rtol=1e-6)
    assert _kernel_state(sq.entry).dispatcher.targetoptions.get("parallel")


def test_parallel_option_without_prange(rng):
    sq = make_op(square_kernel, options={"parallel": True})
    assert _kernel_state(sq.entry).dispatcher.targetoptions.get("parallel")
    plain = make_op(square_kernel)
    assert not _kernel_state(plain.entry).dispatcher.targetoptions.get("parallel")


def test_multiple_outputs(rng):
    split = make_op(split_kernel, n_out=2)
    x = rng.standard_normal(12).astype(np.float32)
    pos, neg = split(ms.Tensor(x))
    np.testing.assert_array_equal(pos.asnumpy(), np.maximum(x, 0))
    np.testing.assert_array_equal(neg.asnumpy(), np.minimum(x, 0))


def test_scalar_arguments_keep_their_call_order(rng):
    axpb = make_op(axpb_kernel)
    x = rng.standard_normal(6).astype(np.float32)
    np.testing.assert_allclose(axpb(2.5, ms.Tensor(x), -1).asnumpy(), 2.5 * x - 1, rtol=1e-6)
    np.testing.assert_allclose(axpb(-3, ms.Tensor(x), 0.5).asnumpy(), -3 * x + 0.5, rtol=1e-6)


def test_attribute_values_follow_the_outputs_in_reg_info_order(rng):
    op = make_op(attr_kernel, attrs=[("scale", "float", 1.0), ("offset", "float", 0.0), ("flip", "bool", False)])
    x = rng.standard_normal(4)
    t = ms.Tensor(x, ms.float64)
    np.testing.assert_allclose(op(t).asnumpy(), x)
    np.testing.assert_allclose(op(t, scale=2.0, offset=1.0).asnumpy(), 2 * x + 1)
    np.testing.assert_allclose(op(t, scale=2.0, flip=True).asnumpy(), -2 * x)


def test_non_contiguous_input_is_made_contiguous(rng):
    m = make_op(matrix_kernel)
    x = rng.standard_normal((3, 4))
    t = ms.Tensor._wrap(x.T)                      # a transposed view, not C-contiguous
    expect = x.T * 10 + np.arange(3)
    np.testing.assert_allclose(m(t).asnumpy(), expect)


def test_user_njit_function_is_used_as_it_is(rng):
    user = numba.njit(square_kernel)
    sq = make_op(user)
    assert _kernel_state(sq.entry).dispatcher is user
    x = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(sq(ms.Tensor(x)).asnumpy(), x * x, rtol=1e-6)


def test_function_defined_by_exec_compiles_without_the_disk_cache(rng):
    ns = {}
    exec("def cube(x, out):\n    for i in range(x.size):\n        out[i] = x[i] ** 3\n", ns)
    cube = make_op(ns["cube"])
    x = rng.standard_normal(4)
    np.testing.assert_allclose(cube(ms.Tensor(x, ms.float64)).asnumpy(), x ** 3)
    assert type(_kernel_state(cube.entry).dispatcher._cache).__name__ == "NullCache"
    module_level = make_op(square_kernel)
    assert type(_kernel_state(module_level.entry).dispatcher._cache).__name__ == "FunctionCache"


def test_gradient_through_a_jit_bprop(rng):
    grad_op = make_op(square_grad_kernel, n_in=2, name="square_grad")
    sq = make_op(square_kernel, bprop=lambda x, out, dout: (grad_op(x, dout),))
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

    op = make_op(spy, options={"debug": True})
    assert op.entry.name.endswith("(python)")
    np.testing.assert_allclose(op(ms.Tensor([1.0, 2.0])).asnumpy(), [2.0, 3.0])
    assert seen == [(2,)]


def test_disable_env_runs_prange_kernels_in_python(monkeypatch):
    monkeypatch.setenv(jit.DISABLE_ENV, "1")
    op = make_op(square_prange)
    assert _kernel_state(op.entry).dispatcher is None
    np.testing.assert_allclose(op(ms.Tensor([3.0, -2.0])).asnumpy(), [9.0, 4.0])


# ---------------------------------------------------------------- threads
def test_threads_racing_for_the_first_compile():
    def inc_kernel(x, out):
        for i in range(x.size):
            out[i] = x[i] + 1

    op = make_op(inc_kernel)
    x = ms.Tensor(np.arange(8, dtype=np.int32))
    barrier = threading.Barrier(6)
    results, errors = [], []

    def worker():
        barrier.wait()
        try:
            results.append(op(x).asnumpy())
        except Exception as exc:                    # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 6 and all((r == np.arange(1, 9)).all() for r in results)
    assert len(_kernel_state(op.entry).dispatcher.overloads) == 1


# ---------------------------------------------------------------- errors
def test_compile_error_names_op_kernel_and_numba_message():
    def broken(x, out):
        out[0] = x.no_such_attribute

    op = make_op(broken, name="bad_op")
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

    op = make_op(checked, name="checked_op")
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
    with pytest.raises(ValueError, match=r"op 'k': launch must be \(blocks, threads\).*got \(0, 32\)"):
        jit.make_kernel(square_kernel, target="GPU", options={"launch": (0, 32)}, **common)


def test_gpu_target_without_a_device_says_so():
    from numba import cuda
    if cuda.is_available():
        pytest.skip("a CUDA device (or the simulator) is available")
    op = OpDef("gpu_sq", num_inputs=1)
    op.set_attr("FInferShape", lambda a, s: (s, [s[0]]))
    op.add_kernel(jit.make_kernel(square_kernel, op_name="gpu_sq", target="GPU", rows=None,
                                  attr_specs=[], n_out=1, options={}))
    ms.set_device("GPU")
    try:
        with pytest.raises(RuntimeError, match="op 'gpu_sq': jit kernel 'square_kernel' targets GPU, but "
                                               "no CUDA device is available.*NUMBA_ENABLE_CUDASIM"):
            dispatch.call(op, (ms.Tensor([1.0]),), {})
    finally:
        ms.set_device("CPU")


def test_import_mscustom_does_not_import_numba():
    code = "import sys, mscustom; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- large outputs
def test_large_outputs_come_from_the_reuse_pool():
    sq = make_op(square_prange)
    x = ms.Tensor(np.ones(1 << 19, np.float32))     # 2 MiB output: pooled
    first = sq(x).asnumpy().__array_interface__["data"][0]
    second = sq(x).asnumpy().__array_interface__["data"][0]   # the first result was dropped
    assert first == second
    kept = sq(x)
    assert kept.asnumpy().__array_interface__["data"][0] != sq(x).asnumpy().__array_interface__["data"][0]
