"""MindSpore's own rules for ops.Custom: output structure, placeholders, scalars, attributes, reg info."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType
from mscustom.ops.custom import parse_reg_info
from mscustom.ops.custom.reginfo import coerce_attr

X = np.array([1.0, 2.0, 3.0], np.float32)


# ---------------------------------------------------------------- output structure
def test_one_shape_one_dtype_gives_a_single_tensor():
    op = ops.Custom(lambda a: a * 2, out_shape=[3], out_dtype=ms.float32)
    assert isinstance(op(ms.Tensor(X)), ms.Tensor)


def test_a_one_tuple_stays_a_one_tuple():
    const = ops.Custom(lambda a: a * 2, out_shape=((3,),), out_dtype=(ms.float32,))
    res = const(ms.Tensor(X))
    assert type(res) is tuple and len(res) == 1
    np.testing.assert_allclose(res[0].asnumpy(), 2 * X)
    fn = ops.Custom(lambda a: (a * 2,), out_shape=lambda s: (s,), out_dtype=lambda d: (d,))
    res = fn(ms.Tensor(X))
    assert type(res) is tuple and len(res) == 1
    np.testing.assert_allclose(res[0].asnumpy(), 2 * X)


def test_a_list_stays_a_list_and_a_tuple_a_tuple():
    lst = ops.Custom(lambda a: [a, -a], out_shape=[[3], [3]], out_dtype=[ms.float32, ms.float32])
    res = lst(ms.Tensor(X))
    assert type(res) is list and len(res) == 2
    np.testing.assert_allclose(res[1].asnumpy(), -X)
    tup = ops.Custom(lambda a: (a, -a, a * a), out_shape=lambda s: (s, s, s), out_dtype=lambda d: (d, d, d))
    res = tup(ms.Tensor(X))
    assert type(res) is tuple and len(res) == 3
    np.testing.assert_allclose(res[2].asnumpy(), X * X)


def test_no_outputs_gives_the_int32_placeholder_and_the_function_returns_none():
    seen = []
    op = ops.Custom(lambda a: seen.append(float(a.sum())), out_dtype=(), name="sink")
    res = op(ms.Tensor(X))
    assert seen == [6.0]
    assert res.shape == (1,) and res.dtype == ms.int32
    bad = ops.Custom(lambda a: a, out_dtype=(), name="sink2")
    with pytest.raises(TypeError, match=r"op 'sink2': pyfunc '<lambda>' has no outputs \(out_dtype=\(\)\), so it "
                                        r"must return None, got ndarray"):
        bad(ms.Tensor(X))


def test_out_dtype_with_an_empty_out_shape_is_one_scalar_output():
    total = ops.Custom(lambda a: a.sum(), out_shape=(), out_dtype=ms.float32)
    res = total(ms.Tensor(X))
    assert res.shape == () and res.item() == 6.0
    assert ops.Custom(lambda a: a.sum(), out_shape=[], out_dtype=ms.float32)(ms.Tensor(X)).shape == ()


def test_zero_d_tensors_reach_a_pyfunc_as_python_scalars():
    seen = []

    def scale(a, s):
        seen.append(type(s))
        return a * s
    op = ops.Custom(scale, out_shape=lambda a, s: a, out_dtype=lambda a, s: a)
    np.testing.assert_allclose(op(ms.Tensor(X), ms.Tensor(2.0)).asnumpy(), 2 * X)
    assert seen == [float]


# ---------------------------------------------------------------- attributes
def test_attrs_without_value_bind_positionally_after_the_tensor_inputs():
    info = (CustomRegOp().input(0, "x").input(1, "y").output(0, "z")
            .attr("alpha", "required", "float").attr("beta", "optional", "float", default_value=0.0)
            .target("CPU").get_op_info())
    seen = []

    def axpy(x, y, alpha, beta):
        seen.append((alpha, beta))
        return x + alpha * y + beta
    op = ops.Custom(axpy, out_shape=lambda x, y, *a: x, out_dtype=lambda x, y, *a: x, reg_info=info)
    x, y = ms.Tensor(X), ms.Tensor(2 * X)
    np.testing.assert_allclose(op(x, y, 0.5).asnumpy(), 2 * X, rtol=1e-6)
    np.testing.assert_allclose(op(x, y, 0.5, 1.0).asnumpy(), 2 * X + 1, rtol=1e-6)
    np.testing.assert_allclose(op(x, y, alpha=1).asnumpy(), 3 * X, rtol=1e-6)
    assert seen == [(0.5, 0.0), (0.5, 1.0), (1.0, 0.0)]
    with pytest.raises(TypeError, match=r"op 'axpy' takes 2 to 4 input argument\(s\) \(x, y, alpha, beta\), got 5; "
                                        r"the count comes from the parameters of pyfunc function 'axpy'"):
        op(x, y, 0.5, 1.0, 2.0)
    with pytest.raises(TypeError, match=r"op 'axpy' got two values for attribute 'alpha'"):
        op(x, y, 0.5, alpha=1.0)


def test_positional_attrs_reach_the_rules_and_the_bprop():
    info = CustomRegOp().input(0, "x").output(0, "y").attr("k", "required", "float").get_op_info()
    got = []

    def bprop(x, k, out, dout):
        got.append(k)
        return (dout * k,)
    op = ops.Custom(lambda x, k: x * k, out_shape=lambda s, k: s, out_dtype=lambda d, k: d, bprop=bprop,
                    reg_info=info)
    g = ms.grad(lambda t: op(t, 3.0).sum())(ms.Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), [3.0, 3.0, 3.0])
    assert got == [3.0]


def test_value_given_in_the_reg_info_is_fixed_and_not_bound_positionally():
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("scale", "required", "float", value=2.0)
            .attr("shift", "required", "float").get_op_info())
    op = ops.Custom(lambda x, scale, shift: x * scale + shift, lambda s, *a: s, lambda d, *a: d, reg_info=info)
    np.testing.assert_allclose(op(ms.Tensor(X), 1.0).asnumpy(), 2 * X + 1)     # 1.0 binds to shift


def test_value_type_all_is_never_coerced_and_any_value_type_string_is_accepted():
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("anything", "required", "all")
            .attr("shape_like", "required", "listBool", value=[True, False]).get_op_info())
    seen = []

    def probe(x, anything, shape_like):
        seen.append((anything, shape_like))
        return x
    op = ops.Custom(probe, lambda s, *a: s, lambda d, *a: d, reg_info=info)
    op(ms.Tensor(X), "7")
    op(ms.Tensor(X), 7)
    assert seen == [("7", (True, False)), (7, (True, False))]
    assert coerce_attr([1, "x"], "all") == [1, "x"]


def test_a_reg_info_with_attrs_only_is_valid():
    info = CustomRegOp().attr("k", "required", "int").get_op_info()
    op = ops.Custom(lambda x, k: x + k, lambda s, *a: s, lambda d, *a: d, reg_info=info)
    np.testing.assert_allclose(op(ms.Tensor(X), 5).asnumpy(), X + 5)
    assert parse_reg_info(info)[0].rows == []


# ---------------------------------------------------------------- reg info
def test_empty_format_datatypes_exist_and_mean_any_format():
    for prefix in ("BOOL", "I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "F16", "F32", "F64"):
        dtype, fmt = getattr(DataType, f"{prefix}_None")
        assert fmt == "" and dtype
    assert DataType.None_None == ("", "")
    info = (CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_None, DataType.F32_None)
            .target("CPU").get_op_info())
    assert parse_reg_info(info)[0].rows == [(("float32", "DefaultFormat"), ("float32", "DefaultFormat"))]
    op = ops.Custom(lambda a: -a, lambda s: s, lambda d: d, reg_info=info)
    np.testing.assert_allclose(op(ms.Tensor(X)).asnumpy(), -X)
    with pytest.raises(TypeError, match="no kernel on 'CPU' for inputs \\(int32"):
        op(ms.Tensor(X.astype(np.int32)))


def test_dtype_format_columns_follow_declaration_order():
    # declared b (index 1) first: the first column is b's
    info = (CustomRegOp().input(1, "b").input(0, "a").output(0, "y")
            .dtype_format(DataType.I32_Default, DataType.F32_Default, DataType.F32_Default).get_op_info())
    op = ops.Custom(lambda b, a: a * b, lambda b, a: a, lambda b, a: a, reg_info=info)
    res = op(ms.Tensor(np.array([2, 3, 4], np.int32)), ms.Tensor(X))
    np.testing.assert_allclose(res.asnumpy(), X * [2, 3, 4])


# ---------------------------------------------------------------- dynamic shapes
def test_rules_accept_unknown_dimensions_only_where_inputs_are_unknown():
    op = ops.Custom(lambda a: a, out_shape=lambda s: s, out_dtype=lambda d: d, name="dyn")
    infer = op.op.attrs["FInferShape"]
    assert infer({}, [[-1, 3]])[1] == [[-1, 3]]
    assert infer({}, [[-2]])[1] == [[-2]]
    bad = ops.Custom(lambda a: a, out_shape=lambda s: [-1], out_dtype=lambda d: d, name="dyn2")
    with pytest.raises(TypeError, match=r"op 'dyn2': out_shape must give a shape .* when every input shape "
                                        r"is known \(\[\[3\]\]\), got \[-1\]"):
        bad(ms.Tensor(X))


def test_positional_attrs_reach_an_aot_kernel_through_extra():
    from pathlib import Path
    lib = Path(__file__).resolve().parents[1] / "aot_kernels/build/libkernels.so"
    if not lib.is_file():
        pytest.skip("aot_kernels/build/libkernels.so is not built (run make kernels)")
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("scale", "required", "float")
            .attr("bias", "optional", "float", default_value=0.0).get_op_info())
    op = ops.Custom(f"{lib}:CustomScale", lambda s, *a: s, lambda d, *a: d, func_type="aot", reg_info=info)
    np.testing.assert_allclose(op(ms.Tensor(X), 3.0, -0.5).asnumpy(), 3 * X - 0.5, rtol=1e-6)
    np.testing.assert_allclose(op(ms.Tensor(X), 2.0).asnumpy(), 2 * X, rtol=1e-6)
