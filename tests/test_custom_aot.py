"""Kernel kind "aot" of ops.Custom: the example C/C++ kernels of aot_kernels/ through cffi."""

import shutil
import subprocess
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom._core import dispatch
from mscustom.ops import Custom, CustomRegOp
from mscustom.ops.custom import aot
from mscustom.testing import check_grad

REPO = Path(__file__).resolve().parents[1]
LIB = "aot_kernels/build/libkernels.so"


@pytest.fixture(scope="module", autouse=True)
def kernels_built():
    lib = REPO / LIB
    if not lib.is_file():
        if shutil.which("make") is None:
            pytest.skip("aot_kernels/build/libkernels.so is missing and make is not installed")
        subprocess.run(["make", "kernels"], cwd=REPO, check=True, capture_output=True)


def same(*args):
    """out_shape/out_dtype rule: like the first tensor argument."""
    return next(a for a in args if isinstance(a, list) or isinstance(a, ms.DType))


def k(symbol):
    return f"{LIB}:{symbol}"


def aot_op(symbol, out_shape=same, out_dtype=same, **kwargs):
    return Custom(k(symbol), out_shape, out_dtype, func_type="aot", **kwargs)


def entry(op):
    (e,) = op.kernels
    return e


def runner(op):
    (plan,) = op.op.plans.values()
    return plan.runner


# ---------------------------------------------------------------- element-wise kernels
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_add_and_mul(rng, dtype):
    add, mul = aot_op("CustomAdd"), aot_op("CustomMul")
    a = (rng.standard_normal((3, 5)) * 10).astype(dtype)
    b = (rng.standard_normal((3, 5)) * 10).astype(dtype)
    ta, tb = ms.Tensor(a), ms.Tensor(b)
    np.testing.assert_allclose(add(ta, tb).asnumpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose(mul(ta, tb).asnumpy(), a * b, rtol=1e-6)
    assert entry(add).kind == "aot" and entry(add).name == "aot:libkernels.so:CustomAdd[CPU]"
    assert add.kernel_stats()[0].calls == 1 and add.kernel_stats()[0].seconds == 0   # counted, not timed
    with ms.ops.custom_op_usage() as usage:
        add(ta, tb)
    assert [(r.calls, r.seconds > 0) for r in usage.report()] == [(1, True)]


def test_square_with_its_grad_as_bprop(rng):
    square_grad = aot_op("CustomSquareGrad")
    square = aot_op("CustomSquare", bprop=lambda x, out, dout: (square_grad(x, dout),))
    x = ms.Tensor(rng.standard_normal((4, 3)), ms.float64)
    np.testing.assert_allclose(square(x).asnumpy(), x.asnumpy() ** 2)
    g = ms.grad(lambda t: square(t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy())
    check_grad(square, x)


def test_sum_rows_written_in_cpp(rng):
    sum_rows = aot_op("CustomSumRows", out_shape=lambda s: s[:-1])
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(sum_rows(ms.Tensor(x, ms.float64)).asnumpy(), x.sum(-1))


# ---------------------------------------------------------------- nn kernels
def test_bias_add_relu_forward_and_backward(rng):
    grad = aot_op("CustomBiasAddReluGrad", out_shape=lambda d, o: (d, [d[-1]]), out_dtype=lambda d, o: (d, d))
    op = aot_op("CustomBiasAddRelu", bprop=lambda x, b, out, dout: grad(dout, out))
    x = rng.standard_normal((5, 3))
    b = rng.standard_normal(3)
    tx, tb = ms.Tensor(x, ms.float64), ms.Tensor(b, ms.float64)
    np.testing.assert_allclose(op(tx, tb).asnumpy(), np.maximum(x + b, 0))
    gx, gb = ms.grad(lambda u, v: (op(u, v) * 3.0).sum(), grad_position=(0, 1))(tx, tb)
    mask = (x + b) > 0
    np.testing.assert_allclose(gx.asnumpy(), 3.0 * mask)
    np.testing.assert_allclose(gb.asnumpy(), 3.0 * mask.sum(0))
    check_grad(op, tx, tb)


def _softmax_ce(x, labels):
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    return -np.log(p[np.arange(len(labels)), labels]), p


def _sce_op():
    grad = aot_op("CustomSoftmaxCrossEntropyGrad", out_shape=lambda p, l, d: p, out_dtype=lambda p, l, d: p)
    return aot_op("CustomSoftmaxCrossEntropy", name="sce",
                  out_shape=lambda x, labels: (x[:-1], x), out_dtype=lambda x, labels: (x, x),
                  bprop=lambda x, labels, out, dout: (grad(out[1], labels, dout[0]), None))


def test_softmax_cross_entropy_forward_and_backward(rng):
    sce = _sce_op()
    x = rng.standard_normal((6, 4))
    labels = np.array([0, 3, 1, 1, 2, 0], np.int32)
    tx, tl = ms.Tensor(x, ms.float64), ms.Tensor(labels)
    loss, probs = sce(tx, tl)
    want_loss, want_probs = _softmax_ce(x, labels)
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=1e-12)
    np.testing.assert_allclose(probs.asnumpy(), want_probs, rtol=1e-12)
    kept = []                                       # the bprop reads probs: keep it alive

    def loss_of(u):
        outs = sce(u, tl)
        kept.append(outs)
        return outs[0]

    g = ms.grad(lambda u: loss_of(u).sum())(tx)
    np.testing.assert_allclose(g.asnumpy(), want_probs - np.eye(4)[labels], atol=1e-12)
    check_grad(loss_of, tx)


def test_bprop_reads_an_output_the_caller_dropped(rng):
    sce = _sce_op()
    x = rng.standard_normal((3, 4))
    labels = np.array([0, 3, 1], np.int64)
    g = ms.grad(lambda u: sce(u, ms.Tensor(labels))[0].sum())(ms.Tensor(x, ms.float64))
    _, want_probs = _softmax_ce(x, labels)
    np.testing.assert_allclose(g.asnumpy(), want_probs - np.eye(4)[labels], atol=1e-12)


def test_bad_label_reports_the_value_error_code():
    sce = _sce_op()
    with pytest.raises(RuntimeError, match=r"op 'sce': AOT kernel 'CustomSoftmaxCrossEntropy' .* "
                                           r"error code 4 \(MS_ERR_VALUE in mscustom_aot.h.s codes\)"):
        sce(ms.Tensor(np.zeros((2, 3))), ms.Tensor(np.array([0, 7], np.int64)))


# ---------------------------------------------------------------- attributes
def test_scale_kernel_reads_reg_info_attributes(rng):
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("scale", "required", "float", value=1.0).attr("bias", "optional", "float", value=0.0))
    scale = aot_op("CustomScale", reg_info=info)
    x = rng.standard_normal(7).astype(np.float32)
    t = ms.Tensor(x)
    np.testing.assert_allclose(scale(t).asnumpy(), x)
    np.testing.assert_allclose(scale(t, scale=3.0, bias=-0.5).asnumpy(), 3 * x - 0.5, rtol=1e-6)
    np.testing.assert_allclose(scale(t, bias=2.0).asnumpy(), x + 2, rtol=1e-6)


def test_every_attribute_kind_reaches_the_kernel():
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("n", "required", "int", value=5).attr("alpha", "required", "float", value=0.25)
            .attr("flag", "required", "bool", value=True).attr("axes", "required", "listInt", value=[1, 2, 4])
            .attr("mode", "required", "str", value="mean")
            .attr("weights", "required", "listFloat", value=[0.5, 1.5]))
    probe = aot_op("CustomAttrProbe", out_shape=(10,), out_dtype=ms.float64, reg_info=info)
    out = probe(ms.Tensor([0.0])).asnumpy()
    np.testing.assert_allclose(out, [5, 0.25, 1, 3, 7, 4, 1, 2, 2.0, 6])
    out = probe(ms.Tensor([0.0]), n=-3, flag=False, axes=[], mode="sum", weights=[1.0]).asnumpy()
    np.testing.assert_allclose(out, [-3, 0.25, 0, 0, 0, 3, 0, 1, 1.0, 6])


def test_no_attributes_gives_a_null_extra():
    probe = aot_op("CustomAttrProbe", out_shape=(10,), out_dtype=ms.float64)
    out = probe(ms.Tensor([0.0])).asnumpy()
    assert out[9] == -1 and out[0] == -1 and out[3] == -1


def test_scalar_arguments_become_0d_arrays_in_call_order(tmp_path, monkeypatch):
    src = tmp_path / "axpb.c"
    src.write_text(textwrap.dedent("""
        #include "mscustom_aot.h"
        /* params = [a (0-d float64), x float32, b (0-d int64), flag (0-d bool), out float32] */
        int Axpb(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                 void *stream, void *extra) {
          int64_t i, n;
          double a; int64_t b; int flag;
          (void)stream; (void)extra;
          if (nparam != 5 || ndims[0] != 0 || ndims[2] != 0 || ndims[3] != 0) return MS_ERR_SHAPE;
          if (!ms_dtype_is(dtypes[0], "float64") || !ms_dtype_is(dtypes[2], "int64") ||
              !ms_dtype_is(dtypes[3], "bool")) return MS_ERR_DTYPE;
          a = *(double *)params[0]; b = *(int64_t *)params[2]; flag = *(unsigned char *)params[3];
          n = ms_numel(ndims[1], shapes[1]);
          for (i = 0; i < n; ++i)
            ((float *)params[4])[i] = (float)(a * ((float *)params[1])[i] + b) * (flag ? -1.0f : 1.0f);
          return MS_OK;
        }
    """))
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    axpb = Custom(f"{src}:Axpb", lambda a, x, b, f: x, lambda a, x, b, f: x, func_type="aot")
    x = np.array([1.0, 2.0, -3.0], np.float32)
    np.testing.assert_allclose(axpb(2.0, ms.Tensor(x), 3, False).asnumpy(), 2 * x + 3)
    np.testing.assert_allclose(axpb(0.5, ms.Tensor(x), -1, True).asnumpy(), -(0.5 * x - 1))
    assert entry(axpb).name == "aot:axpb.c:Axpb[CPU]"          # named for the source, not its cache entry


# ---------------------------------------------------------------- init hook and error codes
def test_init_hook_rejects_a_signature_with_its_code():
    add = aot_op("CustomAdd", name="add")
    with pytest.raises(RuntimeError, match=r"op 'add': AOT init function 'CustomAddInit' rejected the "
                                           r"signature \(float32\[3\], float32\[4\], float32\[3\]\) "
                                           r"with error code 2 \(MS_ERR_SHAPE in mscustom_aot.h.s codes\)"):
        add(ms.Tensor(np.zeros(3, np.float32)), ms.Tensor(np.zeros(4, np.float32)))


def test_kernel_failure_code_names_op_and_symbol():
    fail = aot_op("CustomFail", name="always_fails")
    with pytest.raises(RuntimeError, match=r"op 'always_fails': AOT kernel 'CustomFail' \(.*libkernels\.so\) "
                                           r"returned error code 7$"):
        fail(ms.Tensor([1.0]))
    assert entry(fail).stats["calls"] == 0


def test_dtype_the_kernel_does_not_support_reports_its_code():
    square = aot_op("CustomSquare", name="sq")
    with pytest.raises(RuntimeError, match=r"error code 1 \(MS_ERR_DTYPE in mscustom_aot.h.s codes\)"):
        square(ms.Tensor(np.arange(3, dtype=np.int32)))


# ---------------------------------------------------------------- resolving libraries and symbols
def _make(func, name="op"):
    return aot.make_kernel(func, op_name=name, target="CPU", rows=None, attr_specs=[], n_out=1, options={})


def test_missing_library_lists_the_paths_tried(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"(?s)op 'op': AOT library or source 'nowhere/libx\.so' not found; "
                                         r"tried:\n  .*nowhere/libx\.so\n  .*nowhere/libx\.so") as info:
        Custom("nowhere/libx.so:Func", same, same, func_type="aot", name="op")
    assert str(tmp_path / "nowhere/libx.so") in str(info.value)
    assert str(REPO / "nowhere/libx.so") in str(info.value)


def test_missing_symbol_gives_the_loader_message():
    with pytest.raises(ValueError, match=r"op 'op': symbol 'NoSuchKernel' not found in AOT library "
                                         r"'.*libkernels\.so'.*undefined symbol: NoSuchKernel"):
        aot_op("NoSuchKernel", name="op")


def test_library_that_does_not_load_gives_the_loader_message(tmp_path):
    bad = tmp_path / "libbroken.so"
    bad.write_text("not an ELF file")
    with pytest.raises(ValueError, match=r"op 'op': cannot load AOT library '.*libbroken\.so': "):
        _make(f"{bad}:Func")


def test_func_string_format_is_checked():
    with pytest.raises(ValueError, match=r"op 'op': an aot func must look like 'path/to/lib\.so:Func'.*"
                                         r"got 'libkernels\.so'"):
        _make("libkernels.so")
    with pytest.raises(ValueError, match=r"C identifier after the colon.*symbol 'not-a-name'"):
        _make(f"{LIB}:not-a-name")
    with pytest.raises(TypeError, match=r"op 'op': an aot func must be a string.*got int"):
        _make(42)


def test_relative_path_falls_back_to_the_project_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                     # not found in the cwd, found under the root
    assert entry(aot_op("CustomSquare")).name == "aot:libkernels.so:CustomSquare[CPU]"
    found, tried = aot.resolve_path(LIB)
    assert found == (REPO / LIB).resolve() and tried[0] == tmp_path / LIB


def test_library_is_opened_once():
    a, b = aot.KIND._open(k("CustomAdd"), "add"), aot.KIND._open(k("CustomMul"), "mul")
    assert a.library is b.library


def test_source_file_is_built_on_demand(tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    add = Custom("aot_kernels/elementwise.c:CustomAdd", same, same, func_type="aot")
    a = np.arange(4.0)
    np.testing.assert_allclose(add(a, a).asnumpy(), 2 * a)
    assert [p.suffix for p in (tmp_path / "cache").glob("elementwise-*.so")] == [".so"]


def test_source_that_does_not_compile_names_the_op(tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "bad.c"
    src.write_text("int Bad(void) { return missing_symbol_here; }\n")
    with pytest.raises(RuntimeError, match=r"(?s)op 'op': compiling AOT kernel source .*bad\.c.*"
                                           r"missing_symbol_here"):
        Custom(f"{src}:Bad", same, same, func_type="aot", name="op")


# ---------------------------------------------------------------- the two callers
@pytest.mark.parametrize("policy", ["cffi", "numba"])
def test_both_callers_give_the_same_results(rng, monkeypatch, policy):
    monkeypatch.setenv(aot.CALLER_ENV, policy)
    add = aot_op("CustomAdd")
    a, b = rng.standard_normal((2, 3, 4))
    ta, tb = ms.Tensor(a, ms.float64), ms.Tensor(b, ms.float64)
    np.testing.assert_allclose(add(ta, tb).asnumpy(), a + b)
    assert runner(add).state["caller"] == policy
    strided = b.T.copy().T                          # same shape, not C-contiguous: copied first
    assert not strided.flags.c_contiguous
    np.testing.assert_allclose(add(ta, strided).asnumpy(), a + b)
    with pytest.raises(RuntimeError, match="returned error code 7"):
        aot_op("CustomFail")(ta)


def test_auto_policy_switches_hot_plans_to_the_numba_caller(monkeypatch):
    """The runner's own tier-up (the calls the compiled call path leaves to Python: tapes, captures)."""
    monkeypatch.setenv(aot.CALLER_ENV, "auto")
    square = aot_op("CustomSquare")
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    square(x)
    assert runner(square).state["caller"] == "cffi"
    for _ in range(aot._TIER_UP_CALLS):
        dispatch.call_owner(square, x)                  # the Python call path, which calls the runner
    runner(square).state["thread"].join(60)            # the caller is compiled in the background
    assert runner(square).state["caller"] == "numba"
    np.testing.assert_allclose(square(x).asnumpy(), np.arange(4) ** 2)
    assert entry(square).stats["calls"] == aot._TIER_UP_CALLS + 2


def test_unknown_caller_policy_is_an_error(monkeypatch):
    monkeypatch.setenv(aot.CALLER_ENV, "fastest")
    square = aot_op("CustomSquare", name="sq")
    with pytest.raises(ValueError, match=r"op 'sq': \$MSCUSTOM_AOT_CALLER must be 'auto', 'cffi' or "
                                         r"'numba', got 'fastest'"):
        square(ms.Tensor([1.0]))


@pytest.mark.parametrize("policy", ["cffi", "numba"])
def test_threads_calling_one_plan_at_once(monkeypatch, policy):
    monkeypatch.setenv(aot.CALLER_ENV, policy)
    mul = aot_op("CustomMul")
    inputs = [np.full(64, i, np.float64) for i in range(8)]
    mul(ms.Tensor(inputs[0]), ms.Tensor(inputs[0]))           # bind once
    barrier = threading.Barrier(8)
    errors = []

    def worker(i):
        t = ms.Tensor(inputs[i])
        barrier.wait()
        for _ in range(200):
            out = mul(t, t).asnumpy()
            if not (out == i * i).all():
                errors.append((i, out[:3]))
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---------------------------------------------------------------- GPU
def test_gpu_kernel_without_a_device_says_so():
    from numba import cuda
    if cuda.is_available():
        pytest.skip("a CUDA device (or the simulator) is available")
    if not (REPO / "aot_kernels/build/libkernels_cuda.so").is_file():
        pytest.skip("libkernels_cuda.so was not built (no nvcc)")
    info = CustomRegOp().input(0, "x").output(0, "y").target("GPU")
    sq = Custom("aot_kernels/build/libkernels_cuda.so:CustomSquareCuda", same, same, func_type="aot",
                reg_info=info, name="sq_gpu")
    assert entry(sq).name == "aot:libkernels_cuda.so:CustomSquareCuda[GPU]"
    ms.set_device("GPU")
    try:
        with pytest.raises(RuntimeError, match="op 'sq_gpu': AOT kernel 'aot:libkernels_cuda.so:"
                                               "CustomSquareCuda\\[GPU\\]' targets GPU, but no CUDA device "
                                               "is available"):
            sq(ms.Tensor([1.0, 2.0]))
    finally:
        ms.set_device("CPU")


# ---------------------------------------------------------------- large outputs
def _address(t):
    return t.asnumpy().__array_interface__["data"][0]


def test_large_outputs_come_from_the_reuse_pool():
    square = aot_op("CustomSquare")
    x = ms.Tensor(np.ones(1 << 19, np.float32))               # 2 MiB output: pooled
    first = _address(square(x))
    assert _address(square(x)) == first


def test_interrupt_right_after_the_cffi_call_takes_its_lock_releases_it():
    import linecache
    import sys

    add = aot_op("CustomAdd")
    a = np.arange(4.0, dtype=np.float32)
    add(ms.Tensor(a), ms.Tensor(a))                  # the signature's checked first call, on guarded buffers
    seen = {}

    def local(frame, event, arg):                    # Ctrl-C on the line after the acquire
        if event == "line":
            text = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
            if "acquire(False)" in text:
                seen["lock"] = frame.f_locals["acquire"].__self__
            elif "lock" in seen and "raised" not in seen:
                seen["raised"] = True
                raise KeyboardInterrupt
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_name == "call_cffi" else None

    sys.settrace(tracer)
    try:
        with pytest.raises(KeyboardInterrupt):
            add(ms.Tensor(a), ms.Tensor(a))
    finally:
        sys.settrace(None)
    assert seen.get("raised") and not seen["lock"].locked()
    np.testing.assert_allclose(add(ms.Tensor(a), ms.Tensor(a)).asnumpy(), a + a)
