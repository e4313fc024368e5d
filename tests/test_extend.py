"""The extension surface (mscustom.extend): one op defined in four steps behaves like a built-in."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import extend
from mscustom.testing import check_grad


def test_an_op_defined_through_extend_infers_runs_and_differentiates():
    cube = extend.def_op("test_cube", inputs=("x",), doc="x ** 3")
    extend.def_infer(cube, shape=lambda attrs, shapes: [shapes[0]], dtype=lambda attrs, dtypes: [dtypes[0]])
    extend.def_kernel(cube, lambda attrs, ins: ins[0] ** 3)
    extend.def_gradient(cube, lambda ins, outs, grads, attrs: [grads[0] * 3 * ins[0] * ins[0]])
    cube_fn = extend.def_function(cube, publish=False)
    x = ms.Tensor(np.array([1.0, -2.0, 0.5]))
    np.testing.assert_allclose(cube_fn(x).asnumpy(), x.asnumpy() ** 3)
    np.testing.assert_allclose(cube_fn([2.0]).asnumpy(), [8.0])
    check_grad(cube_fn, x)
    assert ms.ops.get_op("test_cube") is cube


def test_kernels_per_target_and_dtype_rows_are_selected():
    op = extend.def_op("test_rows", inputs=("x",), register=False)
    extend.def_kernel(op, lambda attrs, ins: ins[0] + 1, target="CPU", dtypes=[["float32", "float32"]])
    extend.def_kernel(op, lambda attrs, ins: ins[0] + 2, target="CPU", dtypes=[["float64", "float64"]])
    fn = extend.def_function(op, publish=False)
    assert fn(ms.Tensor(np.zeros(2, np.float32))).asnumpy()[0] == 1
    assert fn(ms.Tensor(np.zeros(2, np.float64))).asnumpy()[0] == 2
    with pytest.raises(TypeError, match="op 'test_rows' has no kernel on 'CPU' for inputs \\(int64"):
        fn(ms.Tensor(np.zeros(2, np.int64)))


def test_bad_definitions_are_refused_naming_the_op():
    op = extend.def_op("test_bad", register=False)
    with pytest.raises(ValueError, match="def_kernel of op 'test_bad': target must be one of"):
        extend.def_kernel(op, lambda attrs, ins: ins[0], target="TPU")
    with pytest.raises(TypeError, match="op 'test_bad': input 'x' must be a Tensor"):
        extend.def_function(op, publish=False)(object())


def test_builtin_functional_forms_are_generated_from_the_op_table():
    from mscustom import ops
    assert ops.add.op is ms.ops.get_op("add") and ops.exp.op is ms.ops.get_op("exp")
    with pytest.raises(TypeError, match="op 'exp': input must be a Tensor"):
        ops.exp("x")


def test_one_line_functional_forms_are_generated_with_mindspores_parameter_names():
    import inspect

    from mscustom import ops
    for name in ("relu", "sigmoid", "tanh", "zeros_like", "ones_like", "stop_gradient", "relu_grad", "erf"):
        fn = getattr(ops, name)
        assert fn.op is ms.ops.get_op(name), name          # made by extend.def_function from the op table
    assert str(inspect.signature(ops.erf)) == "(input)"
    assert str(inspect.signature(ops.relu_grad)) == "(dy, x)"
    x = ms.Tensor(np.array([-1.0, 0.5]))
    np.testing.assert_allclose(ops.erf(input=x).asnumpy(), [-0.8427007929, 0.5204998778], rtol=1e-9)
    np.testing.assert_allclose(ops.relu_grad(dy=ms.Tensor([2.0, 2.0]), x=x).asnumpy(), [0.0, 2.0])
    with pytest.raises(TypeError, match="op 'erf': input must be a Tensor"):
        ops.erf("x")


def test_def_function_arg_names_must_fit_the_inputs():
    op = extend.def_op("test_named", inputs=("a", "b"), register=False)
    extend.def_kernel(op, lambda attrs, ins: ins[0] - ins[1])
    fn = extend.def_function(op, publish=False, arg_names=("a", "b"))
    assert fn(b=ms.Tensor([1.0]), a=ms.Tensor([3.0])).asnumpy()[0] == 2.0
    for bad in (("a",), ("a", "a"), ("a", "not valid"), ("a", "convert")):
        with pytest.raises(ValueError, match="def_function of op 'test_named': arg_names must be 2 distinct"):
            extend.def_function(op, publish=False, arg_names=bad)
