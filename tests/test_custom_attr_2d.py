"""Reg-info attributes of MindSpore's 2-D types ("listListInt", "listListFloat") and of type "all", through
pyfunc and a C++ aot kernel built from tests/data/aot_fidelity_kernels.cc."""

import shutil
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp
from mscustom.ops.custom.reginfo import coerce_attr, parse_reg_info

SRC = Path(__file__).resolve().parent / "data" / "aot_fidelity_kernels.cc"


def same(*args):
    return args[0]


def test_2d_values_are_coerced_row_by_row():
    assert coerce_attr([[1, 2], [3]], "listListInt") == ((1, 2), (3,))
    assert coerce_attr("[[1, 2.5], []]", "listListFloat") == ((1.0, 2.5), ())
    with pytest.raises(TypeError, match="expected a number, got bool"):
        coerce_attr([[True]], "listListFloat")
    with pytest.raises(TypeError, match="expected a list of lists, got a list of int"):
        coerce_attr([1, 2], "listListInt")
    with pytest.raises(ValueError, match="1.5 is not an integer"):
        coerce_attr([[1.5]], "listListInt")


def test_list_defaults_may_be_written_comma_separated_as_mindspore_documents():
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("axes", "optional", "listInt", default_value="1,2,3")
            .attr("names", "optional", "listStr", default_value="a,b").get_op_info())
    specs = parse_reg_info(info, op_name="defaults")[0].attrs
    assert [s.default_value for s in specs] == [(1, 2, 3), ("a", "b")]


def test_pyfunc_gets_2d_attributes_as_lists_of_lists():
    seen = {}

    def record(x, grid, table, anything):
        seen.update(grid=grid, table=table, anything=anything)
        return x

    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("grid", "required", "listListInt")
            .attr("table", "required", "listListFloat", value=[[1, 2], [3]])
            .attr("anything", "required", "all", value={"k": [1, 2]}).get_op_info())
    op = ops.Custom(record, same, same, func_type="pyfunc", reg_info=info)
    op(ms.Tensor([1.0]), [[4, 5], [6]])
    assert seen["grid"] == [[4, 5], [6]] and type(seen["grid"]) is list and type(seen["grid"][0]) is list
    assert seen["table"] == [[1.0, 2.0], [3.0]] and isinstance(seen["table"][0][0], float)
    assert seen["anything"] == {"k": [1, 2]}                 # "all": passed exactly as given, never coerced
    with pytest.raises(TypeError, match=r"op 'record': attribute 'grid' expects a value of type listListInt, "
                                        r"got \[1, 2\]"):
        op(ms.Tensor([1.0]), [1, 2])


@pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None, reason="needs a C++ compiler")
def test_cpp_aot_kernel_reads_2d_attributes(tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("grid", "required", "listListInt")
            .attr("table", "required", "listListFloat", value=[[0.5], [2, 4]]).target("CPU").get_op_info())
    op = ops.Custom(f"{SRC}:CustomGridTable", same, same, func_type="aot", reg_info=info)
    x = np.zeros(8, np.float32)
    out = op(ms.Tensor(x), [[1, 2], [3]]).asnumpy()
    # grid row 0 weighted 1, row 1 weighted 2; table rows likewise; ints given for listListFloat arrive as floats
    np.testing.assert_allclose(out, [1, 2, 6, 0.5, 4, 8, 0, 0])
    out = op(ms.Tensor(x), grid=[[7]]).asnumpy()
    np.testing.assert_allclose(out, [7, 0.5, 4, 8, 0, 0, 0, 0])


def test_a_c_kernel_cannot_take_a_2d_attribute_and_says_where_it_can(tmp_path):
    lib = Path(__file__).resolve().parents[1] / "aot_kernels" / "build" / "libkernels.so"
    if not lib.is_file():
        pytest.skip("aot_kernels/build/libkernels.so was not built (make kernels)")
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("grid", "required", "listListInt", value=[[1, 2], [3]]).target("CPU").get_op_info())
    probe = ops.Custom(f"{lib}:CustomAttrProbe", out_shape=(10,), out_dtype=ms.float64, func_type="aot",
                       reg_info=info, name="probe2d")
    with pytest.raises(TypeError, match=r"op 'probe2d': attribute 'grid' is a 2-D list, which the C attribute "
                                        r"struct \(MsAttrs, mscustom_aot.h\) cannot carry; read it from a C\+\+ "
                                        r"kernel built against custom_aot_extra.h"):
        probe(ms.Tensor(np.ones(10)))
