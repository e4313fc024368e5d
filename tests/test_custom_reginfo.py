"""CustomRegOp, DataType, custom_info_register and parse_reg_info: MindSpore's shapes and the checks."""

import json

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType, custom_info_register
from mscustom.ops.custom import parse_reg_info
from mscustom.ops.custom.reginfo import AttrSpec, RegInfo, coerce_attr


def same(*args):
    return args[0]


def unary_info(dtype=DataType.F32_Default, target="CPU"):
    return (CustomRegOp().input(0, "x").output(0, "y")
            .dtype_format(dtype, dtype).target(target).get_op_info())


# ---------------------------------------------------------------- builder and constants
def test_get_op_info_has_mindspore_shape():
    info = (CustomRegOp("MyOp").input(0, "x").input(1, "y", "optional").output(0, "z")
            .attr("scale", "required", "float", value=2.0)
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("GPU").get_op_info())
    assert info == {
        "op_name": "MyOp",
        "inputs": [{"index": 0, "name": "x", "paramType": "required"},
                   {"index": 1, "name": "y", "paramType": "optional"}],
        "outputs": [{"index": 0, "name": "z", "paramType": "required"}],
        "attr": [{"name": "scale", "paramType": "required", "type": "float", "defaultValue": None,
                  "value": 2.0}],
        "fusion_type": "",                                  # MindSpore 2.10 has the key too (empty)
        "dtype_format": [(("float32", "DefaultFormat"),) * 3],
        "target": "GPU",
    }


def test_data_type_constants():
    assert DataType.F32_Default == ("float32", "DefaultFormat")
    assert DataType.F16_NCHW == ("float16", "NCHW")
    assert DataType.I64_NHWC == ("int64", "NHWC")
    assert DataType.BOOL_Default == ("bool", "DefaultFormat")
    assert DataType.None_None == ("", "")
    for prefix in ("F16", "F32", "F64", "I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "BOOL"):
        for fmt in ("Default", "NCHW", "NHWC"):
            dtype, layout = getattr(DataType, f"{prefix}_{fmt}")
            ms.dtype.dtype_from_any(dtype)          # every constant names a real dtype
            assert layout == ("DefaultFormat" if fmt == "Default" else fmt)


def test_builder_rejects_rows_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"CustomRegOp 'Custom': dtype_format takes one \(dtype, format\) "
                                         r"pair per input and output \(2\), got 1"):
        CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default)
    with pytest.raises(ValueError, match=r"each dtype_format entry must be a \(dtype, format\) tuple"):
        CustomRegOp().input(0, "x").output(0, "y").dtype_format("float32", DataType.F32_Default)


# ---------------------------------------------------------------- parsing
def test_parse_normalizes_to_reg_info():
    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
            .attr("k", "optional", "listInt", default_value=[1, 2])
            .dtype_format(DataType.F32_Default, DataType.None_None, DataType.F32_NHWC)
            .target("cpu").get_op_info())
    (parsed,) = parse_reg_info(info, op_name="t")
    assert parsed == RegInfo(target="CPU", inputs=["a", "b"], outputs=["y"],
                             attrs=[AttrSpec("k", "optional", "listInt", (1, 2))],
                             rows=[(("float32", "DefaultFormat"), (None, "DefaultFormat"), ("float32", "NHWC"))])


def test_parse_accepts_json_builders_lists_and_none():
    info = unary_info()
    from_json = parse_reg_info(json.dumps(info))
    from_builder = parse_reg_info(CustomRegOp().input(0, "x").output(0, "y")
                                  .dtype_format(DataType.F32_Default, DataType.F32_Default).target("CPU"))
    assert from_json == from_builder == parse_reg_info(info)
    both = parse_reg_info([info, unary_info(DataType.F64_Default, "GPU")])
    assert [p.target for p in both] == ["CPU", "GPU"]
    assert parse_reg_info(None) == []
    no_target = parse_reg_info(CustomRegOp().input(0, "x").output(0, "y").get_op_info())[0]
    assert no_target.target is None and no_target.rows == []


def test_inputs_follow_declaration_order_as_in_mindspore():
    # MindSpore takes inputs (and dtype_format columns) in declaration order, whatever the index says
    info = {"inputs": [{"index": 1, "name": "b"}, {"index": 0, "name": "a"}], "outputs": [{"index": 0, "name": "y"}]}
    assert parse_reg_info(info)[0].inputs == ["b", "a"]
    twice = {"inputs": [{"index": 0, "name": "a"}, {"index": 0, "name": "b"}]}
    assert parse_reg_info(twice)[0].inputs == ["a", "b"]
    bad = {"inputs": [{"index": -1, "name": "a"}]}
    with pytest.raises(ValueError, match=r"op 'Custom': reg_info: inputs\[0\] index must be a non-negative int, "
                                         r"got -1"):
        parse_reg_info(bad)


@pytest.mark.parametrize("mutate, message", [
    (lambda i: i["dtype_format"].append((DataType.F32_Default,)),
     r"op 'bad_op': reg_info: dtype_format row 1 has 1 entries, but the op has 1 input\(s\) \+ 1 output\(s\) = 2"),
    (lambda i: i.update(target="TPU"),
     r"op 'bad_op': reg_info: unknown target 'TPU'; expected one of \['CPU', 'GPU', 'Ascend'\]"),
    (lambda i: i.update(dtype_format=[(("float33", "DefaultFormat"), DataType.F32_Default)]),
     r"op 'bad_op': reg_info: dtype_format row 0: unknown dtype 'float33'"),
    (lambda i: i.update(dtype_format=[(("float32", "NC1HWC0"), DataType.F32_Default)]),
     r"op 'bad_op': reg_info: dtype_format row 0: unknown format 'NC1HWC0'; expected one of "
     r"\['DefaultFormat', 'NCHW', 'NHWC', 'ND'\]"),
    (lambda i: i.update(attr=[{"name": "k", "paramType": "required", "type": 3}]),
     r"op 'bad_op': reg_info: attr 'k' value_type must be a string such as 'float', 'listInt' or 'all', got 3"),
    (lambda i: i.update(attr=[{"name": "k", "paramType": "required", "type": "int", "value": "x"}]),
     r"op 'bad_op': reg_info: attr 'k' value 'x' is not a valid int"),
    (lambda i: i.update(attr=[{"name": "k", "paramType": "always", "type": "int"}]),
     r"op 'bad_op': reg_info: attr 'k' param_type must be 'required' or 'optional', got 'always'"),
    (lambda i: i["inputs"][0].update(paramType="sometimes"),
     r"op 'bad_op': reg_info: inputs\[0\] param_type must be one of \['required', 'optional', 'dynamic'\]"),
])
def test_malformed_reg_info_is_a_value_error_naming_the_op(mutate, message):
    info = unary_info()
    mutate(info)
    with pytest.raises(ValueError, match=message):
        ops.Custom(same, same, same, reg_info=info, name="bad_op")


def test_malformed_json_and_types():
    with pytest.raises(ValueError, match=r"op 'j': reg_info is a string but not valid JSON"):
        parse_reg_info("{not json", op_name="j")
    with pytest.raises(ValueError, match=r"op 'j': reg_info\[1\] must be a dict, a JSON string or a "
                                         r"CustomRegOp, got int"):
        parse_reg_info([unary_info(), 3], op_name="j")


def test_coerce_attr_values():
    assert coerce_attr("2", "int") == 2
    assert coerce_attr(2, "float") == 2.0 and type(coerce_attr(2, "float")) is float
    assert coerce_attr("true", "bool") is True
    assert coerce_attr([1, 2.0], "listFloat") == (1.0, 2.0)
    assert coerce_attr("[1, 2]", "listInt") == (1, 2)
    with pytest.raises(ValueError, match="not an integer"):
        coerce_attr(2.5, "int")
    with pytest.raises(TypeError, match="expected a number, got bool"):
        coerce_attr(True, "int")
    with pytest.raises(TypeError, match="expected a str"):
        coerce_attr(1, "str")


# ---------------------------------------------------------------- decorator and precedence
def test_custom_info_register_attaches_infos_and_custom_uses_them():
    @custom_info_register(unary_info(DataType.F32_Default, "CPU"), unary_info(DataType.F32_Default, "GPU"))
    def square(x):
        return x * x

    assert len(square.reg_info) == 2
    op = ops.Custom(square, same, same)
    assert [k.name for k in op.kernels] == ["pyfunc:square[CPU]", "pyfunc:square[GPU]"]
    assert op(ms.Tensor([3.0])).tolist() == [9.0]


def test_custom_info_register_checks_infos_where_written():
    bad = unary_info()
    bad["target"] = "FPGA"
    with pytest.raises(ValueError, match=r"op 'square': reg_info\[0\]: unknown target 'FPGA'"):
        @custom_info_register(bad, unary_info())
        def square(x):
            return x * x


def test_reg_info_given_to_custom_wins_over_the_decorator():
    @custom_info_register(unary_info(DataType.F64_Default))
    def double(x):
        return x * 2

    decorated = ops.Custom(double, same, same)
    with pytest.raises(TypeError, match="float64/DefaultFormat"):
        decorated(ms.Tensor([1.0], ms.float32))
    overridden = ops.Custom(double, same, same, reg_info=unary_info(DataType.F32_Default))
    assert overridden(ms.Tensor([1.0], ms.float32)).tolist() == [2.0]


# ---------------------------------------------------------------- attributes at call time
def attr_info():
    return (CustomRegOp().input(0, "x").output(0, "y")
            .attr("power", "required", "int")
            .attr("offsets", "optional", "listFloat", default_value=[0.0])
            .target("CPU").get_op_info())


def test_attribute_values_from_keywords_and_defaults():
    seen = []

    def powered(x, power, offsets):
        seen.append((power, offsets))
        return x ** power + sum(offsets)

    op = ops.Custom(powered, same, same, reg_info=attr_info())
    x = ms.Tensor([2.0])
    assert op(x, power=3).tolist() == [8.0]
    assert op(x, power=2, offsets=[1, 2]).tolist() == [7.0]
    assert seen == [(3, (0.0,)), (2, (1.0, 2.0))]


def test_missing_required_attribute_and_bad_values_name_the_op():
    op = ops.Custom(lambda x, power, offsets: x, same, same, reg_info=attr_info(), name="powered")
    x = ms.Tensor([2.0])
    with pytest.raises(TypeError, match=r"op 'powered': attribute 'power' is required and has no default; "
                                        r"pass power=\.\.\. when calling the op"):
        op(x)
    with pytest.raises(TypeError, match=r"op 'powered': attribute 'power' expects a value of type int, got 'two'"):
        op(x, power="two")
    with pytest.raises(TypeError, match=r"op 'powered' got unknown keyword argument\(s\) \['pwr'\]; its "
                                        r"attributes are \['power', 'offsets'\]"):
        op(x, pwr=2)


def test_attribute_declared_with_two_types_is_rejected():
    a = CustomRegOp().input(0, "x").output(0, "y").attr("k", "required", "int", value=1).target("CPU")
    b = CustomRegOp().input(0, "x").output(0, "y").attr("k", "required", "float", value=1).target("GPU")
    with pytest.raises(ValueError, match=r"op 'mixed': attribute 'k' is declared as 'int' and as 'float'"):
        ops.Custom(same, same, same, reg_info=[a, b], name="mixed")


def test_reg_info_input_count_is_checked_by_the_dispatcher():
    info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())
    op = ops.Custom(lambda *xs: xs[0] + xs[1], lambda *s: s[0], lambda *d: d[0], reg_info=info, name="add2")
    assert op(ms.Tensor([1.0]), ms.Tensor([2.0])).tolist() == [3.0]
    with pytest.raises(TypeError, match=r"op 'add2' takes 2 input( argument)?\(s\) \(a, b\), got 1"):
        op(ms.Tensor([1.0]))


def test_reg_info_output_count_must_agree_with_rules():
    info = unary_info()
    with pytest.raises(ValueError, match=r"op 'pair': out_shape/out_dtype give 2 output\(s\) but the reg info "
                                         r"declares \[1\]"):
        ops.Custom(same, ((1,), (1,)), (np.float32, np.float32), reg_info=info, name="pair")


def test_optional_inputs_leave_the_tensor_count_open():
    info = (CustomRegOp().input(0, "x").input(1, "bias", "optional").output(0, "y")
            .target("CPU").get_op_info())
    assert parse_reg_info(info)[0].fixed_inputs is False
    op = ops.Custom(lambda x, bias=None: x if bias is None else x + bias, lambda x, b=None: x,
                    lambda x, b=None: x, reg_info=info)
    assert op.op.num_inputs is None
    assert op(ms.Tensor([1.0])).tolist() == [1.0]
    assert op(ms.Tensor([1.0]), ms.Tensor([2.0])).tolist() == [3.0]


def test_reg_infos_disagreeing_on_outputs_are_rejected():
    one = CustomRegOp().input(0, "x").output(0, "y").target("CPU")
    two = CustomRegOp().input(0, "x").output(0, "y").output(1, "z").target("GPU")
    with pytest.raises(ValueError, match=r"op 'split': its reg infos declare different numbers of outputs "
                                         r"\[1, 2\]"):
        ops.Custom(same, reg_info=[one, two], name="split")
