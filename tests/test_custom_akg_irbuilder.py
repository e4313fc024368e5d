"""func_type="akg" kernels written with TVM's ir_builder, traced into the hybrid DSL and compiled by Numba.

The kernels (tests/akg_kernels.py) never import tvm: ops.Custom provides it in their namespace, as AKG
does. Results are compared with NumPy; the GPU path runs in Numba's CUDA simulator
(tests/test_custom_akg_gpu_sim.py).
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType
from mscustom.ops.custom.hybrid.irbuilder import AkgSubsetError, trace_source

import akg_kernels as ak

RNG = np.random.default_rng(26)
T = ms.Tensor


@pytest.fixture(autouse=True)
def cpu():
    ms.set_device("CPU")
    yield


def same(*args):
    return args[0]


def akg(kernel, **kw):
    return ops.Custom(kernel, out_shape=kw.pop("out_shape", same), out_dtype=kw.pop("out_dtype", same),
                      func_type="akg", **kw)


def test_elementwise_add_of_any_rank():
    op = akg(ak.vadd)
    for shape in [(5,), (2, 3), (2, 3, 4)]:
        a, b = RNG.standard_normal(shape).astype(np.float32), RNG.standard_normal(shape).astype(np.float32)
        out = op(T(a), T(b))
        assert out.dtype == ms.float32
        np.testing.assert_array_equal(out.asnumpy(), a + b)
    assert [s.kernel for s in op.kernel_stats()][0] == "akg:vadd[CPU]"


def test_multi_index_loads_and_a_scratch_accumulator():
    x = RNG.standard_normal((4, 7))
    op = akg(ak.row_sums, out_shape=lambda s: [s[0]])
    np.testing.assert_allclose(op(T(x)).asnumpy(), x.sum(1), rtol=1e-12)


def test_if_else_scopes_and_attributes_from_the_reg_info():
    x = np.array([1.0, 2.0, 3.0, -1.0, 1.5], np.float32)
    np.testing.assert_array_equal(akg(ak.leaky_clip)(T(x)).asnumpy(), np.where(2 * x > 3, 2 * x, x * 0.25))
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("alpha", "required", "float", value=0.5)
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU").get_op_info())
    out = akg(ak.leaky_clip, reg_info=info)(T(x))
    np.testing.assert_array_equal(out.asnumpy(), np.where(2 * x > 3, 2 * x, x * 0.5))


def test_float16_none_rows_and_a_dynamic_input():
    info = (CustomRegOp().input(0, "x", "dynamic").output(0, "y")
            .dtype_format(DataType.F16_None, DataType.F16_None).target("CPU").get_op_info())
    op = akg(ak.sum_all, out_shape=lambda xs: xs[0], out_dtype=lambda xs: xs[0], reg_info=info)
    xs = [RNG.standard_normal((2, 3)).astype(np.float16) for _ in range(3)]
    out = op([T(x) for x in xs])
    assert out.dtype == ms.float16 and out.shape == (2, 3)
    # the kernel adds in float32 (Numba has no float16) and rounds once: as NumPy does in float32
    np.testing.assert_array_equal(out.asnumpy(), (xs[0].astype(np.float32) + xs[1] + xs[2]).astype(np.float16))
    out2 = op([T(xs[0]), T(xs[1])])
    np.testing.assert_array_equal(out2.asnumpy(), xs[0] + xs[1])
    with pytest.raises(TypeError, match="no kernel on 'CPU' for inputs \\(float16/DefaultFormat, float32"):
        op([T(xs[0]), T(xs[1].astype(np.float32))])


def test_flat_pointers_math_and_select():
    x = np.array([[-4.0, 0.25], [0.5, 9.0]])
    want = np.where((x >= 0) & (x < 1), np.exp(x), np.sqrt(np.abs(x)))
    np.testing.assert_allclose(akg(ak.soft_gate)(T(x)).asnumpy(), want, rtol=1e-15)


def test_two_outputs_and_casts():
    x = np.array([-2.5, 0.0, 3.0], np.float32)
    op = akg(ak.split_sign, out_shape=lambda s: (s, s), out_dtype=lambda d: (d, ms.int32))
    pos, neg = op(T(x))
    np.testing.assert_array_equal(pos.asnumpy(), np.maximum(x, 0))
    assert neg.dtype == ms.int32 and neg.asnumpy().tolist() == [-2, 0, 0]


def test_the_traced_program_is_hybrid_dsl():
    source, name, n_out = trace_source(ak.row_sums, "rs", [(2, 3)], [np.float32], {})
    assert (name, n_out) == ("akg_row_sums", 1)
    assert source == ("def akg_row_sums(in0):\n"
                      "    out0 = output_tensor((2,), 'float32')\n"
                      "    acc_0 = allocate((1,), 'float32')\n"
                      "    for r_1 in range(0, 2):\n"
                      "        acc_0[0] = float32(0.0)\n"
                      "        for c_2 in range(0, 3):\n"
                      "            acc_0[0] = (acc_0[0] + in0[r_1, c_2])\n"
                      "        out0[r_1] = acc_0[0]\n"
                      "    return out0\n")


def test_tvm_stays_out_of_the_kernel_module():
    akg(ak.vadd)(T(np.ones(2, np.float32)), T(np.ones(2, np.float32)))
    assert "tvm" not in vars(ak)


@pytest.mark.parametrize("kernel, construct", [
    (ak.uses_compute, "tvm.compute"),
    (ak.uses_pointer, "ib.pointer"),
    (ak.branches_on_data, r"a traced expression as a Python truth value \(use ib.if_scope or tvm.if_then_else\)"),
])
def test_constructs_outside_the_subset_are_named(kernel, construct):
    op = akg(kernel, name="outside")
    with pytest.raises(AkgSubsetError, match=rf"op 'outside': akg ir_builder kernel '{kernel.__name__}' uses "
                                             rf"{construct}, which is outside the supported ir_builder subset"):
        op(T(np.ones(3, np.float32)))


def test_construction_errors_name_the_op():
    with pytest.raises(TypeError, match="op 'vadd': an akg ir_builder kernel needs out_shape and out_dtype"):
        ops.Custom(ak.vadd, func_type="akg")

    def compute_only(inputs, attrs):
        return tvm.compute(inputs[0].shape, lambda i: inputs[0][i])       # noqa: F821
    with pytest.raises(ValueError, match="op 'compute_only': a TVM compute kernel is not supported here"):
        ops.Custom(compute_only, same, same, func_type="akg")

    def three_params(inputs, attrs, extra):
        ib = tvm.ir_builder.create()       # noqa: F821
        return ib
    with pytest.raises(TypeError, match=r"op 'three_params': an akg ir_builder kernel takes \(inputs, attrs\)"):
        ops.Custom(three_params, same, same, func_type="akg")


def test_no_cast_for_akg_kernels_as_in_mindspore():
    # MindSpore 2.10 casts float64 to a float32 row for pyfunc and aot kernels, never for AKG-compiled ones
    # (akg and hybrid): "Select CPU operator[...] fail! Unsupported data type!"
    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())
    op = akg(ak.vadd, reg_info=info, name="vadd32")
    a = np.array([1 / 3, 1.0])
    with pytest.raises(TypeError, match="op 'vadd32' has no kernel on 'CPU' for inputs \\(float64/DefaultFormat"):
        op(T(a), T(a))


# ---------------------------------------------------------------- against MindSpore 2.10's own results
X = np.array([[-1.0, 0.5, 2.0], [1.5, 3.0, -2.0]], np.float32)


def test_kernels_that_mindspore_runs_on_cpu_give_its_values():
    np.testing.assert_array_equal(akg(ak.clip_ifelse)(T(X[0])).asnumpy(), [0.0, 0.0, 4.0])
    out = akg(ak.transpose2, out_shape=lambda s: [s[1], s[0]])(T(X))
    assert out.asnumpy().tolist() == [[-1.0, 1.5], [0.5, 3.0], [2.0, -2.0]]
    gate = akg(ak.gate)(T(X)).asnumpy()
    np.testing.assert_allclose(gate, [[1.0, 1.6487212181091309, 7.389056205749512],
                                      [4.481688976287842, 20.08553695678711, 4.0]], rtol=2e-7)
    info = (CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F16_None, DataType.F16_None)
            .target("CPU").get_op_info())
    half = akg(ak.gate, reg_info=info)(T(X.astype(np.float16)))
    assert half.dtype == ms.float16
    assert half.asnumpy().tolist() == [[1.0, 1.6484375, 7.390625], [4.48046875, 20.078125, 4.0]]


def test_no_automatic_gradient_for_ir_builder_kernels_as_in_mindspore():
    # MindSpore 2.10: "Illegal primitive Custom's bprop not defined"
    op = akg(ak.vadd)
    with pytest.raises(RuntimeError, match="op 'vadd' \\(ops.Custom, func_type='akg'\\) has no bprop"):
        ms.grad(lambda a: op(a, a).sum())(T(np.ones(3, np.float32)))
    twice = akg(ak.vadd, bprop=lambda a, b, out, dout: (dout, dout))
    assert ms.grad(lambda a: twice(a, a).sum())(T(np.ones(3, np.float32))).asnumpy().tolist() == [2.0, 2.0, 2.0]


def test_errors_while_building_the_program_name_the_op_and_kernel():
    with pytest.raises(RuntimeError, match="op 'three': akg ir_builder kernel 'wrong_input_count' raised IndexError "
                                           "while building its program: list index out of range"):
        akg(ak.wrong_input_count, name="three")(T(np.ones(2, np.float32)))
    with pytest.raises(RuntimeError, match="op 'lone': akg ir_builder kernel 'lone_else': else_scope can only "
                                           "follow an if_scope"):
        akg(ak.lone_else, name="lone")(T(np.ones(2, np.float32)))


def test_mindsporeslike_cell_with_a_dynamic_float16_input():
    # the shape of MindSpore's own ir_builder test: fusion_type, a dynamic F16_Default input, a constant
    # out_shape and out_dtype, the list built inside a Cell
    from mscustom import nn
    info = (CustomRegOp().fusion_type("OPAQUE").input(0, "x", "dynamic").output(0, "y")
            .dtype_format(DataType.F16_Default, DataType.F16_Default).target("CPU").get_op_info())
    assert info["fusion_type"] == "OPAQUE"

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.program = ops.Custom(ak.vadd, out_shape=(4, 5), out_dtype=ms.float16, func_type="akg",
                                      reg_info=info)

        def construct(self, x, y):
            return self.program([x, y])
    x = RNG.standard_normal((4, 5)).astype(np.float16)
    y = RNG.standard_normal((4, 5)).astype(np.float16)
    out = Net()(T(x), T(y))
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), (x.astype(np.float32) + y).astype(np.float16))
    with pytest.raises(TypeError, match="3 value must be str"):
        CustomRegOp().fusion_type(3)
