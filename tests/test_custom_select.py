"""Kernel selection for ops.Custom: several kernels per op, by dtype, device target and layout."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType

REPO = Path(__file__).resolve().parents[1]


def same(*args):
    return args[0]


def info(dtype, target, n_in=1):
    reg = CustomRegOp()
    for i in range(n_in):
        reg = reg.input(i, f"x{i}")
    return reg.output(0, "y").dtype_format(*([dtype] * (n_in + 1))).target(target).get_op_info()


@pytest.fixture(autouse=True)
def cpu():
    ms.set_device("CPU")
    yield
    ms.set_device("CPU")


def tagged(tag):
    """A pyfunc kernel that squares and adds ``tag``, so the result tells which kernel ran."""
    def kernel(x):
        return x * x + tag
    kernel.__name__ = f"square_plus_{tag}"
    return kernel


def three_kernel_op():
    return (ops.Custom(tagged(0), same, same, reg_info=info(DataType.F32_Default, "CPU"), name="sq")
            .add_kernel(tagged(1000), reg_info=info(DataType.F64_Default, "CPU"))
            .add_kernel(tagged(2000), reg_info=[info(DataType.F32_Default, "GPU"),
                                               info(DataType.F64_Default, "GPU")]))


def test_add_kernel_returns_the_op_and_lists_every_kernel():
    op = three_kernel_op()
    assert isinstance(op, ops.Custom)
    assert [k.name for k in op.kernels] == ["pyfunc:square_plus_0[CPU]", "pyfunc:square_plus_1000[CPU]",
                                            "pyfunc:square_plus_2000[GPU]", "pyfunc:square_plus_2000[GPU]"]


def test_the_kernel_is_chosen_by_dtype_and_by_device_target():
    op = three_kernel_op()
    x32, x64 = ms.Tensor([2.0], ms.float32), ms.Tensor([2.0], ms.float64)
    assert op(x32).tolist() == [4.0] and op(x32).dtype == ms.float32
    assert op(x64).tolist() == [1004.0] and op(x64).dtype == ms.float64
    ms.set_device("GPU")
    assert op(x32).tolist() == [2004.0]
    assert op(x64).tolist() == [2004.0]
    ms.set_device("CPU")
    assert op(x32).tolist() == [4.0]                      # plans were dropped on the target change
    # one GPU kernel entry per reg info: the float32 row and the float64 row
    assert [(s.kernel, s.calls) for s in op.kernel_stats()] == [
        ("pyfunc:square_plus_0[CPU]", 3), ("pyfunc:square_plus_1000[CPU]", 2),
        ("pyfunc:square_plus_2000[GPU]", 1), ("pyfunc:square_plus_2000[GPU]", 1)]


def test_no_matching_row_lists_the_supported_rows():
    op = ops.Custom(tagged(0), same, same, reg_info=info(DataType.F32_Default, "CPU"), name="f32_only")
    # (float64 is cast to a float32 row, as MindSpore does: tests/test_custom_select_casts.py)
    with pytest.raises(TypeError, match=r"op 'f32_only' has no kernel on 'CPU' for inputs "
                                        r"\(int32/DefaultFormat\); supported rows \(inputs\) -> \(outputs\):\n"
                                        r"  \(float32/DefaultFormat\) -> \(float32/DefaultFormat\)"):
        op(ms.Tensor([1], ms.int32))


def test_no_kernel_for_the_device_target_says_which_exist():
    # (a reg info naming only CPU or only GPU pins the op there instead: tests/test_custom_reginfo_targets.py)
    op = ops.Custom(tagged(0), same, same, reg_info=info(DataType.F32_Default, "Ascend"), name="ascend_only")
    ms.set_device("GPU")
    with pytest.raises(RuntimeError, match=r"op 'ascend_only' has no kernel for device target 'GPU' \(it has "
                                           r"kernels for \['Ascend'\]\)"):
        op(ms.Tensor([1.0]))


def test_catch_all_kernels_are_tried_after_kernels_with_rows():
    op = ops.Custom(tagged(0), same, same, name="fallback").add_kernel(
        tagged(1000), reg_info=info(DataType.F64_Default, "CPU"))
    assert [k.rows is None for k in op.kernels] == [False, True, True]
    assert op(ms.Tensor([1.0], ms.float64)).tolist() == [1001.0]
    assert op(ms.Tensor([1.0], ms.float32)).tolist() == [1.0]


def test_nchw_input_runs_a_nhwc_only_kernel_through_layout_conversion(rng):
    seen = []

    def channel_cumsum_nhwc(x):
        seen.append(x.shape)
        return np.cumsum(x, axis=3)

    op = ops.Custom(channel_cumsum_nhwc, same, same, reg_info=info(DataType.F32_NHWC, "CPU"))
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = op(ms.Tensor(x).set_format("NCHW"))
    assert seen == [(2, 4, 5, 3)]                          # the kernel saw NHWC data
    assert y.shape == (2, 3, 4, 5) and y.format == "NCHW"
    np.testing.assert_allclose(y.asnumpy(), np.cumsum(x, axis=1), rtol=1e-6)


def test_kernel_for_the_matching_layout_is_preferred():
    op = (ops.Custom(lambda x: x + 1, same, same, reg_info=info(DataType.F32_NHWC, "CPU"))
          .add_kernel(lambda x: x + 2, reg_info=info(DataType.F32_NCHW, "CPU")))
    y = op(ms.Tensor(np.zeros((1, 2, 2, 2), np.float32)).set_format("NCHW"))
    assert float(y.asnumpy().max()) == 2.0


def test_default_targets_per_kind():
    assert [k.target for k in ops.Custom(same, same, same).kernels] == ["CPU", "GPU"]
    aot = importlib.util.find_spec("mscustom.ops.custom.aot")
    lib = REPO / "aot_kernels/build/libkernels.so"
    if aot is None or importlib.util.find_spec("cffi") is None or not lib.is_file():
        pytest.skip("aot kernels are not available")
    ms.set_device("GPU")
    gpu_made = ops.Custom(f"{lib}:CustomSquare", same, same, func_type="aot")
    ms.set_device("CPU")
    assert [k.target for k in gpu_made.kernels] == ["GPU"]


# ---------------------------------------------------------------- with the jit and aot kinds
def square_kernel(x, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i] * x.flat[i]


def test_aot_float32_jit_float64_and_gpu_kernels_on_one_op():
    for module in ("mscustom.ops.custom.jit", "mscustom.ops.custom.aot", "numba", "cffi"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not available")
    lib = REPO / "aot_kernels/build/libkernels.so"
    if not lib.is_file():
        pytest.skip("aot_kernels/build/libkernels.so is not built (run make)")
    op = (ops.Custom(f"{lib}:CustomSquare", same, same, func_type="aot",
                     reg_info=info(DataType.F32_Default, "CPU"), name="square")
          .add_kernel(square_kernel, func_type="jit", reg_info=info(DataType.F64_Default, "CPU"))
          .add_kernel(tagged(2000), reg_info=info(DataType.F32_Default, "GPU")))
    assert [k.kind for k in op.kernels] == ["aot", "jit", "pyfunc"]
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(op(ms.Tensor(x, ms.float32)).asnumpy(), x * x)
    np.testing.assert_allclose(op(ms.Tensor(x, ms.float64)).asnumpy(), x * x)
    ms.set_device("GPU")
    np.testing.assert_allclose(op(ms.Tensor(x, ms.float32)).asnumpy(), x * x + 2000)
    assert {s.kind: s.calls for s in op.kernel_stats()} == {"aot": 1, "jit": 1, "pyfunc": 1}


def test_jit_options_pass_through_custom():
    if importlib.util.find_spec("mscustom.ops.custom.jit") is None or importlib.util.find_spec("numba") is None:
        pytest.skip("kernel kind jit (or Numba) is not available")
    op = ops.Custom(square_kernel, same, same, func_type="jit", debug=True)
    assert [k.target for k in op.kernels] == ["CPU", "GPU"]
    assert op.kernels[0].name == "jit:square_kernel[CPU](python)"
    assert op(ms.Tensor([3.0])).tolist() == [9.0]
    with pytest.raises(TypeError, match=r"op 'square_kernel': unknown keyword argument\(s\) \['threads'\] for "
                                        r"func_type 'jit'; its kernel options are \['launch', 'parallel', 'debug', "
                                        r"'vector_math'\]"):
        ops.Custom(square_kernel, same, same, func_type="jit", threads=4)
