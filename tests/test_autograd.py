"""ms.grad / ms.value_and_grad / ops.GradOperation with MindSpore semantics, and the gradient checker."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad, numeric_grad


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


X = T([1.0, 4.0, 9.0])
Y = T([2.0, 3.0, 4.0])


def values(t):
    return t.asnumpy().tolist()


# ---------------------------------------------------------------- ms.grad
def test_non_scalar_output_uses_an_all_ones_sensitivity():
    # MindSpore: d(x*x)/dx with sens = ones -> 2x
    assert values(ms.grad(lambda x: x * x)(X)) == [2.0, 8.0, 18.0]


def test_several_outputs_each_get_an_all_ones_sensitivity():
    g = ms.grad(lambda x: (x * 2.0, x * x))(X)
    assert values(g) == [4.0, 10.0, 20.0]


def test_grad_position_int_tuple_and_negative():
    f = lambda x, y: (x * y * y).sum()                    # noqa: E731
    assert values(ms.grad(f)(X, Y)) == [4.0, 9.0, 16.0]
    assert values(ms.grad(f, grad_position=1)(X, Y)) == [4.0, 24.0, 72.0]
    assert values(ms.grad(f, grad_position=-1)(X, Y)) == [4.0, 24.0, 72.0]
    gx, gy = ms.grad(f, grad_position=(0, 1))(X, Y)
    assert values(gx) == [4.0, 9.0, 16.0] and values(gy) == [4.0, 24.0, 72.0]
    (only,) = ms.grad(f, grad_position=(1,))(X, Y)
    assert values(only) == [4.0, 24.0, 72.0]


def test_weights_with_and_without_grad_position():
    w = ms.Parameter(T([1.0, 2.0, 3.0]), name="w")
    f = lambda x: (x * w * w).sum()                       # noqa: E731
    gx, (gw,) = ms.grad(f, grad_position=0, weights=[w])(X)
    assert values(gx) == [1.0, 4.0, 9.0] and values(gw) == [2.0, 16.0, 54.0]
    (gw,) = ms.grad(f, grad_position=None, weights=ms.ParameterTuple([w]))(X)
    assert values(gw) == [2.0, 16.0, 54.0]
    (gx, gy), (gw,) = ms.grad(lambda x, y: (x * y * w).sum(), grad_position=(0, 1), weights=[w])(X, Y)
    assert values(gx) == [2.0, 6.0, 12.0] and values(gy) == [1.0, 8.0, 27.0]
    assert values(gw) == [2.0, 12.0, 36.0]


def test_unused_weight_and_unused_input_get_zeros():
    w = ms.Parameter(T([1.0, 2.0]), name="unused")
    gx, (gw,) = ms.grad(lambda x, y: (x * 3.0).sum(), grad_position=0, weights=[w])(X, Y)
    assert values(gx) == [3.0, 3.0, 3.0] and values(gw) == [0.0, 0.0]
    assert values(ms.grad(lambda x, y: (x * 3.0).sum(), grad_position=1)(X, Y)) == [0.0, 0.0, 0.0]


def test_has_aux_returns_gradients_and_the_aux_outputs():
    def f(x, y):
        return (x * y).sum(), x + 1.0, y

    grads, aux = ms.grad(f, has_aux=True)(X, Y)
    assert values(grads) == [2.0, 3.0, 4.0]
    assert isinstance(aux, tuple) and len(aux) == 2
    assert values(aux[0]) == [2.0, 5.0, 10.0] and values(aux[1]) == values(Y)
    # the aux outputs do not contribute to the gradient
    grads, _ = ms.grad(lambda x: ((x * 2.0).sum(), x * x), has_aux=True)(X)
    assert values(grads) == [2.0, 2.0, 2.0]


def test_value_and_grad():
    value, g = ms.value_and_grad(lambda x: (x * x).sum())(X)
    assert value.item() == 98.0 and values(g) == [2.0, 8.0, 18.0]
    (loss, aux), g = ms.value_and_grad(lambda x, y: ((x * y).sum(), x - y), has_aux=True)(X, Y)
    assert loss.item() == 50.0 and values(aux) == [-1.0, 1.0, 5.0] and values(g) == [2.0, 3.0, 4.0]
    w = ms.Parameter(T([1.0, 1.0, 1.0]), name="w")
    loss, (gw,) = ms.value_and_grad(lambda x: (x * w).sum(), grad_position=None, weights=[w])(X)
    assert loss.item() == 14.0 and values(gw) == values(X)


def test_results_are_off_the_tape_after_grad():
    value, g = ms.value_and_grad(lambda x: (x * x).sum())(X)
    assert value._node is None and g._node is None and X._node is None


def test_gradient_accumulates_over_repeated_uses():
    g = ms.grad(lambda x: (x * x * x + x + ops.exp(x) * 0.0 + x * 2.0).sum())(T([1.0, 2.0]))
    assert values(g) == [6.0, 15.0]


def test_integer_inputs_get_zero_gradients_of_their_dtype():
    gx, gi = ms.grad(lambda x, i: (x * i).sum(), grad_position=(0, 1))(X, ms.Tensor([1, 2, 3]))
    assert values(gx) == [1.0, 2.0, 3.0]
    assert gi.dtype == ms.int64 and values(gi) == [0, 0, 0]


def test_grad_of_grad_and_third_derivative():
    f = lambda x: (x ** 3).sum()                          # noqa: E731
    d1 = ms.grad(f)
    d2 = ms.grad(lambda x: d1(x).sum())
    d3 = ms.grad(lambda x: d2(x).sum())
    x = T([1.0, -2.0])
    assert values(d2(x)) == [6.0, -12.0]
    assert values(d3(x)) == [6.0, 6.0]


def test_grad_of_grad_with_two_inputs():
    # f = x^2 y; df/dx = 2xy; d/dy (df/dx) = 2x
    inner = ms.grad(lambda x, y: (x * x * y).sum())
    cross = ms.grad(lambda x, y: inner(x, y).sum(), grad_position=1)(T([3.0]), T([5.0]))
    assert values(cross) == [6.0]


# ---------------------------------------------------------------- GradOperation
def test_grad_operation_first_input_all_inputs_and_weights():
    w = ms.Parameter(T([1.0, 2.0, 3.0]), name="w")

    def net(x, y):
        return x * y * w

    assert values(ops.GradOperation()(net)(X, Y)) == [2.0, 6.0, 12.0]
    gx, gy = ops.GradOperation(get_all=True)(net)(X, Y)
    assert values(gx) == [2.0, 6.0, 12.0] and values(gy) == [1.0, 8.0, 27.0]
    (gw,) = ops.GradOperation(get_by_list=True)(net, [w])(X, Y)
    assert values(gw) == [2.0, 12.0, 36.0]
    (gx, gy), (gw,) = ops.GradOperation(get_all=True, get_by_list=True)(net, ms.ParameterTuple([w]))(X, Y)
    assert values(gy) == [1.0, 8.0, 27.0] and values(gw) == [2.0, 12.0, 36.0]


def test_grad_operation_sens_param():
    sens = T([1.0, 0.0, 2.0])
    g = ops.GradOperation(sens_param=True)(lambda x: x * x)(X, sens)
    assert values(g) == [2.0, 0.0, 36.0]
    gx, gy = ops.GradOperation(get_all=True, sens_param=True)(lambda x, y: x * y)(X, Y, sens)
    assert values(gx) == [2.0, 0.0, 8.0] and values(gy) == [1.0, 0.0, 18.0]
    with pytest.raises(ValueError, match=r"sensitivity shape \[2\] does not match output shape \[3\]"):
        ops.GradOperation(sens_param=True)(lambda x: x * x)(X, T([1.0, 1.0]))


# ---------------------------------------------------------------- errors
def test_grad_errors():
    with pytest.raises(ValueError, match="grad of 'f': grad_position 2 is out of range for a call with 2 "
                                         r"positional argument\(s\)"):
        def f(x, y):
            return x * y
        ms.grad(f, grad_position=2)(X, Y)
    with pytest.raises(ValueError, match="grad_position and weights cannot both be None"):
        ms.grad(lambda x: x, grad_position=None)
    with pytest.raises(TypeError, match=r"weights\[0\] must be a Parameter, got Tensor"):
        ms.grad(lambda x: x, weights=[X])
    with pytest.raises(TypeError, match="weights must be a Parameter or a list/tuple of Parameters, got str"):
        ms.grad(lambda x: x, weights="w")
    with pytest.raises(TypeError, match="the function must return a Tensor to be differentiated, got float"):
        ms.grad(lambda x: 3.0)(X)
    with pytest.raises(TypeError, match="argument 1 must be a Tensor to be differentiated, got float"):
        ms.grad(lambda x, y: x * y, grad_position=1)(X, 2.0)
    with pytest.raises(TypeError, match="grad_position must be an int, a non-empty tuple of ints or None"):
        ms.grad(lambda x: x, grad_position=[0])(X)
    with pytest.raises(TypeError, match="with has_aux=True: the function must return a tuple"):
        ms.grad(lambda x: x.sum(), has_aux=True)(X)
    with pytest.raises(ValueError, match=r"GradOperation\(get_by_list=True\) of .* needs weights"):
        ops.GradOperation(get_by_list=True)(lambda x: x)


def test_op_without_gradient_is_a_clear_error():
    op = ms.ops.register_op("test_no_grad_op", num_inputs=1)
    op.set_attr("FComputeAlloc<cpu>", lambda attrs, ins: ins[0] * 2)
    with pytest.raises(RuntimeError, match="op 'test_no_grad_op' has no gradient: register an FGradient"):
        ms.grad(lambda x: op(x).sum())(X)


# ---------------------------------------------------------------- the gradient checker
def _square_op(name, factor):
    """A user op computing x*x whose FGradient is factor * x * g (correct for factor 2)."""
    op = ms.ops.register_op(name, num_inputs=1)
    op.set_attr("FComputeAlloc<cpu>", lambda attrs, ins: ins[0] * ins[0])
    op.set_attr("FInferShape", lambda attrs, shapes: (shapes, [shapes[0]]))
    op.set_attr("FInferType", lambda attrs, dtypes: (dtypes, [dtypes[0]]))
    op.set_attr("FGradient", lambda ins, outs, g, attrs: [ops.mul(g[0], ops.mul(ins[0], factor))])
    return op


def test_check_grad_passes_on_correct_gradients_and_returns_them():
    good = _square_op("test_square_good", 2.0)
    (g,) = check_grad(lambda x: good(x), T([[1.0, -2.0], [0.5, 3.0]]))
    np.testing.assert_allclose(g, [[2.0, -4.0], [1.0, 6.0]])
    gx, gy = check_grad(lambda x, y: (ops.sigmoid(x) * y, ops.matmul(x, y)), T([0.3, -0.7]), T([1.5, 2.0]))
    assert gx.shape == (2,) and gy.shape == (2,)


def test_check_grad_fails_with_a_readable_message_on_a_wrong_gradient():
    bad = _square_op("test_square_bad", 3.0)
    with pytest.raises(AssertionError) as info:
        check_grad(lambda x, y: bad(x) * y, T([1.0, -2.0, 0.5]), T([1.0, 1.0, 1.0]))
    text = str(info.value)
    assert "check_grad of '<lambda>': analytic and numeric gradients differ" in text
    assert "input 0 (shape [3], float32): 3 of 3 element(s) differ, max abs diff 2" in text
    assert "at (0,): analytic 3, numeric 2" in text
    assert "at (1,): analytic -6, numeric -4" in text
    assert "input 1" not in text                     # the other input's gradient is right


def test_check_grad_respects_grad_position_and_integer_inputs():
    bad = _square_op("test_square_bad_pos", 3.0)
    check_grad(lambda x, y: bad(x) * y, T([1.0, 2.0]), T([3.0, 4.0]), grad_position=1)
    check_grad(lambda x, i: x * i, T([1.0, 2.0]), ms.Tensor([3, 4]))   # the int input is skipped
    with pytest.raises(ValueError, match="check_grad of '<lambda>': no floating-point Tensor input"):
        check_grad(lambda i: i * 2, ms.Tensor([1, 2]))


def test_check_grad_falls_back_to_the_input_dtype_when_float64_is_rejected():
    op = ms.ops.register_op("test_f32_only", num_inputs=1)
    op.set_attr("FComputeAlloc<cpu>", lambda attrs, ins: np.sin(ins[0]))

    def float32_only(attrs, dtypes):
        if dtypes[0] != ms.float32:
            raise TypeError(f"op 'test_f32_only': float32 only, got {dtypes[0].name}")
        return dtypes, [dtypes[0]]

    op.set_attr("FInferType", float32_only)
    op.set_attr("FGradient", lambda ins, outs, g, attrs: [ops.mul(g[0], ms.Tensor(np.cos(ins[0].asnumpy())))])
    check_grad(lambda x: op(x), T([0.1, 0.7, -1.2]))
    # a wrong gradient is still caught, and the message says which precision the numeric side used
    op.set_attr("FGradient", lambda ins, outs, g, attrs: [g[0]])
    with pytest.raises(AssertionError, match="numeric side in the inputs' dtypes"):
        check_grad(lambda x: op(x), T([0.1, 0.7, -1.2]))


def test_numeric_grad_is_central_differences_of_the_sum():
    (g,) = numeric_grad(lambda x: x * x, T([3.0, -1.0], np.float64))
    np.testing.assert_allclose(g, [6.0, -2.0], rtol=1e-8)
    g32, g64 = numeric_grad(lambda a, b: ops.matmul(a, b), T([[1.0, 2.0]]), T([[3.0], [4.0]], np.float64))
    np.testing.assert_allclose(g32, [[3.0, 4.0]], rtol=1e-3)
    np.testing.assert_allclose(g64, [[1.0], [2.0]], rtol=1e-8)
    (g,) = numeric_grad(lambda x: x * x, T([3.0], np.float64), eps=0.5)     # exact for a quadratic
    np.testing.assert_allclose(g, [6.0])
