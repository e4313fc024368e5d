"""ops.Custom kernel selection with casts, as MindSpore 2.10 selects on CPU.

Every expected dtype and value below was taken from MindSpore 2.10.0 (CPU,
PyNative) running the same ``ops.Custom(..., func_type="pyfunc")`` call with
the same reg info: which dtype the kernel saw, the result's dtype and values,
or a TypeError ("Kernel select failed ... Unsupported data type").
"""

import warnings

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType as D

F32, F16, F64 = D.F32_Default, D.F16_Default, D.F64_Default
I32, I64, I16, I8, U32 = D.I32_Default, D.I64_Default, D.I16_Default, D.I8_Default, D.U32_Default


@pytest.fixture(autouse=True)
def cpu():
    ms.set_device("CPU")
    yield


def info(*rows, n_in=1):
    reg = CustomRegOp()
    for i in range(n_in):
        reg = reg.input(i, f"x{i}")
    reg = reg.output(0, "y")
    for row in rows:
        reg = reg.dtype_format(*row)
    return reg.target("CPU").get_op_info()


def doubling(rows, out_dtype=None, name="dbl"):
    seen = []

    def dbl(a):
        seen.append(a.dtype.name)
        return a * 2
    op = ops.Custom(dbl, out_shape=lambda s: s, out_dtype=out_dtype or (lambda d: d), func_type="pyfunc",
                    reg_info=info(*rows), name=name)
    return op, seen


def call_quiet(op, *xs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return op(*[ms.Tensor(x) for x in xs])


@pytest.mark.parametrize("src, rows, kernel, result", [
    (np.float64, [(F32, F32)], "float32", ms.float64),
    (np.float16, [(F32, F32)], "float32", ms.float16),
    (np.int64, [(I32, I32)], "int32", ms.int64),
    (np.int16, [(I32, I32)], "int32", ms.int16),
    (np.float64, [(F16, F16), (F32, F32)], "float32", ms.float64),
    (np.float64, [(F32, F32), (F16, F16)], "float32", ms.float64),
    (np.float16, [(F32, F32), (F64, F64)], "float32", ms.float16),
    (np.float16, [(F64, F64), (F32, F32)], "float32", ms.float16),
    (np.float64, [(F32, F32), (F64, F64)], "float64", ms.float64),      # an exact row needs no cast
    (np.float16, [(F16, F16), (F32, F32)], "float16", ms.float16),
])
def test_inputs_are_cast_where_mindspore_casts(src, rows, kernel, result):
    op, seen = doubling(rows)
    x = np.array([1, 2], src)
    out = call_quiet(op, x)
    assert seen == [kernel] and out.dtype == result
    assert out.asnumpy().tolist() == [2, 4]


@pytest.mark.parametrize("src, row", [
    (np.float32, F64), (np.float32, F16), (np.float64, F16), (np.float16, F64),
    (np.int32, F32), (np.int32, F64), (np.float32, I32), (np.int32, I64), (np.int32, I16),
    (np.bool_, I32), (np.uint8, I32), (np.int8, I32), (np.int8, I16), (np.uint16, I32),
    (np.uint64, I64), (np.uint64, U32),
])
def test_no_cast_path_keeps_the_type_error(src, row):
    op, seen = doubling([(row, row)], name="no_cast")
    with pytest.raises(TypeError, match=rf"op 'no_cast' has no kernel on 'CPU' for inputs "
                                        rf"\({np.dtype(src).name}/DefaultFormat\)"):
        op(ms.Tensor(np.array([1, 0], src)))
    assert seen == []


def test_float64_to_a_float32_row_computes_in_float32_and_returns_float64():
    op, seen = doubling([(F32, F32)], name="f32_only")
    out = call_quiet(op, np.array([1 / 3, 1 + 1e-10]))
    assert out.dtype == ms.float64
    assert out.asnumpy().tolist() == [0.6666666865348816, 2.0]        # MindSpore: [0.66666669 2.]


def test_int64_to_an_int32_row_wraps_as_mindspore_does():
    op, _ = doubling([(I32, I32)])
    out = call_quiet(op, np.array([2 ** 40 + 3, -5], np.int64))
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [6, -10]


def test_one_warning_per_op_and_signature_naming_the_cast():
    op, _ = doubling([(F32, F32)], name="f32_kernel")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            op(ms.Tensor(np.ones(2)))
        op(ms.Tensor(np.ones(3)))                   # another signature: warned again
        op(ms.Tensor(np.ones(2, np.float32)))       # exact row: no warning
    texts = [str(w.message) for w in caught]
    assert len(texts) == 2
    assert texts[0] == ("op 'f32_kernel': no reg-info row takes these dtypes as they are; as MindSpore does, "
                        "the kernel runs on its row with casts: input 0 float64 -> float32 (precision lost); "
                        "output 0 computed in float32 (the selected row's dtype), returned as float64 "
                        "(precision lost)")
    assert caught[0].filename == __file__           # the warning points at the call
    op16, _ = doubling([(F32, F32)], name="f16_in")
    with pytest.warns(UserWarning, match=r"op 'f16_in': .*input 0 float16 -> float32 \(no precision lost\)"):
        op16(ms.Tensor(np.ones(2, np.float16)))


def test_each_input_is_cast_on_its_own():
    seen = []

    def axpy(a, b):
        seen.append((a.dtype.name, b.dtype.name))
        return a * 2 + b
    op = ops.Custom(axpy, lambda a, b: a, lambda a, b: a, func_type="pyfunc",
                    reg_info=info((F32, F32, F32), n_in=2))
    out = call_quiet(op, np.array([1.5, 2.25]), np.array([1.5, 2.25], np.float32))
    assert seen == [("float32", "float32")] and out.dtype == ms.float64
    assert out.asnumpy().tolist() == [4.5, 6.75]
    with pytest.raises(TypeError, match="no kernel on 'CPU' for inputs \\(float64/DefaultFormat, int32"):
        op(ms.Tensor(np.ones(2)), ms.Tensor(np.ones(2, np.int32)))


@pytest.mark.parametrize("rows, kernel", [
    ([(F32, F32, F32), (F64, F32, F32)], ("float64", "float32")),      # MindSpore: the last castable row
    ([(F64, F32, F32), (F32, F32, F32)], ("float32", "float32")),
])
def test_among_castable_rows_the_last_is_chosen(rows, kernel):
    seen = []

    def add(a, b):
        seen.append((a.dtype.name, b.dtype.name))
        return (a + b).astype(np.float32)
    op = ops.Custom(add, lambda a, b: a, lambda a, b: a, func_type="pyfunc", reg_info=info(*rows, n_in=2))
    call_quiet(op, np.ones(2), np.ones(2))
    assert seen == [kernel]


# ---------------------------------------------------------------- out_dtype against the row's output dtype
def third(rows, out_dtype):
    """A jit kernel writing x / 3: the row's output dtype is what it stores, visible in the values."""
    def third_kernel(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] / 3
    return ops.Custom(third_kernel, lambda s: s, out_dtype, func_type="jit", reg_info=info(*rows))


X = np.array([1.0, 7.0], np.float32)


def test_the_first_row_whose_output_matches_out_dtype_is_chosen():
    # MindSpore picks the F32 -> F32 row here (its result is correct only on that row)
    op = third([(F32, I32), (F32, F32)], ms.float32)
    np.testing.assert_array_equal(call_quiet(op, X).asnumpy(), X / 3)


def test_without_a_matching_output_the_last_row_is_chosen_and_cast_to_out_dtype():
    # MindSpore picks the last row (F32 -> F64, F32 -> F32, F32 -> I64 with a float16 out_dtype: the I64 row,
    # whose bytes then reach the float16 output; here the values are converted instead)
    op = third([(F32, F64), (F32, F16), (F32, I32)], ms.float32)
    with pytest.warns(UserWarning, match=r"output 0 computed in int32 \(the selected row's dtype\), returned as "
                                         r"float32 \(precision lost\)"):
        out = op(ms.Tensor(X))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [0.0, 2.0]
    op = third([(F32, I32), (F32, F64)], ms.float32)
    out = call_quiet(op, X)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == (X.astype(np.float64) / 3).astype(np.float32).tolist()


# ---------------------------------------------------------------- jit kernels with float16 rows
def test_a_jit_float16_row_runs_in_float32_on_the_cpu():
    op = third([(F16, F16)], lambda d: d)
    x = np.array([1.0, 7.0, 100.0], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # a float16 row computed in float32 is not a lossy cast
        out = op(ms.Tensor(x))
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), (x.astype(np.float32) / 3).astype(np.float16))


# ---------------------------------------------------------------- kinds MindSpore compiles with AKG
def test_hybrid_kernels_get_no_cast_as_in_mindspore():
    import hybrid_kernels as hk
    # MindSpore 2.10: a hybrid kernel with an F32 row given float64 or float16 -> TypeError (Select CPU operator
    # ... Unsupported data type); only CPU kernels (pyfunc, aot) are cast
    op = ops.Custom(hk.row_sum, func_type="hybrid", reg_info=info((F32, F32)), name="row_sum32")
    assert op(ms.Tensor(np.ones((2, 3), np.float32))).asnumpy().tolist() == [[3.0], [3.0]]
    for dt in (np.float64, np.float16):
        with pytest.raises(TypeError, match=rf"op 'row_sum32' has no kernel on 'CPU' for inputs "
                                            rf"\({np.dtype(dt).name}/DefaultFormat\)"):
            op(ms.Tensor(np.ones((2, 3), dt)))


def test_no_casts_refuses_a_cast_before_and_after_the_plan_exists():
    from mscustom.ops.custom.select import no_casts
    op, seen = doubling([(F32, F32)], name="strict")
    with no_casts():
        with pytest.raises(TypeError, match="op 'strict': casts are refused inside no_casts\\(\\): .*float64 -> float32"):
            op(ms.Tensor(np.ones(2)))
    assert seen == []
    with pytest.warns(UserWarning, match="op 'strict'"):
        op(ms.Tensor(np.ones(2)))                   # first cast call outside: announced then
    with no_casts(), pytest.raises(TypeError, match="casts are refused"):
        op(ms.Tensor(np.ones(2)))                   # the cached plan refuses too


# ---------------------------------------------------------------- aot kernels are cast too
def test_aot_kernels_are_cast_as_mindspore_casts_them():
    # MindSpore 2.10, an aot kernel doubling float32 with an F32 row: float64 [1/3, 2] -> Float64
    # [0.6666666865348816, 4.0]; float16 -> Float16 [0.66650390625, 4.0]. Here: CustomSquare (float32 row).
    from pathlib import Path
    lib = Path(__file__).resolve().parents[1] / "aot_kernels/build/libkernels.so"
    if not lib.is_file():
        pytest.skip("aot_kernels/build/libkernels.so is not built (make kernels)")
    op = ops.Custom(f"{lib}:CustomSquare", lambda s: s, lambda d: d, func_type="aot", reg_info=info((F32, F32)))
    x = np.array([1 / 3, 2.0])
    out = call_quiet(op, x)
    assert out.dtype == ms.float64
    assert out.asnumpy().tolist() == (x.astype(np.float32) ** 2).astype(np.float64).tolist()
    half = call_quiet(op, x.astype(np.float16))
    assert half.dtype == ms.float16
    assert half.asnumpy().tolist() == (x.astype(np.float16).astype(np.float32) ** 2).astype(np.float16).tolist()
    with pytest.raises(TypeError, match="no kernel on 'CPU' for inputs \\(int32/DefaultFormat\\)"):
        op(ms.Tensor(np.array([1, 2], np.int32)))
