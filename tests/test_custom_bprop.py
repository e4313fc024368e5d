"""Gradients through ops.Custom: bprop(*inputs, out, dout), its checks, and grad of grad."""

import re

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad


def same(*args):
    return args[0]


def square(x):
    return x * x


sq_grad = ops.Custom(lambda x, d: 2 * x * d, lambda x, d: x, lambda x, d: x, name="square_grad")
sq = ops.Custom(square, same, same, bprop=lambda x, out, dout: (sq_grad(x, dout),))


def test_issue_example():
    dx = ms.grad(lambda t: sq(t).sum())(ms.Tensor([1.0, 4.0, 9.0]))
    np.testing.assert_allclose(dx.asnumpy(), [2.0, 8.0, 18.0])


def test_matches_finite_differences(rng):
    mul = ops.Custom(lambda a, b: a * b, same, same,
                     bprop=lambda a, b, out, dout: (dout * b, dout * a))
    a = ms.Tensor(rng.standard_normal(4), ms.float64)
    b = ms.Tensor(rng.standard_normal(4), ms.float64)
    check_grad(lambda x, y: mul(x, y) * x, a, b)


def test_single_tensor_and_none_are_accepted():
    single = ops.Custom(square, same, same, bprop=lambda x, out, dout: dout * 2 * x)
    assert ms.grad(lambda t: single(t).sum())(ms.Tensor([3.0])).tolist() == [6.0]
    first_only = ops.Custom(lambda a, b: a + b, same, same, bprop=lambda a, b, out, dout: (dout, None))
    ga, gb = ms.grad(lambda a, b: first_only(a, b).sum(), grad_position=(0, 1))(
        ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0]))
    assert ga.tolist() == [1.0, 1.0] and gb.tolist() == [0.0, 0.0]


def test_numpy_gradients_are_wrapped():
    np_grad = ops.Custom(square, same, same, bprop=lambda x, out, dout: (2 * x.asnumpy() * dout.asnumpy(),))
    assert ms.grad(lambda t: np_grad(t).sum())(ms.Tensor([1.0, 2.0])).tolist() == [2.0, 4.0]


def test_several_outputs_get_tuples_of_out_and_dout():
    seen = {}

    def bprop(x, out, dout):
        seen["out"], seen["dout"] = out, dout
        return (dout[0] + 2 * dout[1],)

    two = ops.Custom(lambda x: (x + 1, 2 * x), ((2,), (2,)), (ms.float32, ms.float32), bprop=bprop)
    dx = ms.grad(lambda t: two(t)[0].sum() + 3 * two(t)[1].sum())(ms.Tensor([1.0, 2.0]))
    # two calls: d/dx of (x+1) is 1 and of 3*(2x) is 6; each call sees dout for both outputs
    assert dx.tolist() == [7.0, 7.0]
    assert isinstance(seen["out"], tuple) and len(seen["out"]) == 2
    assert isinstance(seen["dout"], tuple) and len(seen["dout"]) == 2


@pytest.mark.parametrize("bprop", [
    lambda a, x, out, dout: (dout * a,),                # one per tensor input
    lambda a, x, out, dout: (None, dout * a),           # one per call argument
], ids=["per_tensor", "per_argument"])
def test_scalar_arguments_accept_both_gradient_conventions(bprop):
    scale = ops.Custom(lambda a, x: a * x, lambda a, x: x, lambda a, x: x, bprop=bprop)
    dx = ms.grad(lambda t: scale(3.0, t).sum())(ms.Tensor([1.0, 2.0]))
    assert dx.tolist() == [3.0, 3.0]


def test_wrong_number_of_gradients_names_the_op():
    bad = ops.Custom(square, same, same, bprop=lambda x, out, dout: (dout, dout), name="two_grads")
    with pytest.raises(ValueError, match=r"op 'two_grads': bprop returned 2 gradient\(s\), expected 1, "
                                         r"one per tensor input"):
        ms.grad(lambda t: bad(t).sum())(ms.Tensor([1.0]))
    scaled = ops.Custom(lambda a, x: a * x, lambda a, x: x, lambda a, x: x, name="scaled",
                        bprop=lambda a, x, out, dout: (dout, dout, dout))
    with pytest.raises(ValueError, match=r"op 'scaled': bprop returned 3 gradient\(s\), expected 1, one per "
                                         r"tensor input \(or 2, one per call argument\)"):
        ms.grad(lambda t: scaled(2.0, t).sum())(ms.Tensor([1.0]))


def test_gradient_shape_is_checked_and_names_the_op():
    bad = ops.Custom(square, same, same, bprop=lambda x, out, dout: (dout.sum(),), name="bad_shape")
    with pytest.raises(ValueError, match=r"op 'bad_shape': bprop gradient for input 0 has shape \[\], but the "
                                         r"input has shape \[3\]"):
        ms.grad(lambda t: bad(t).sum())(ms.Tensor([1.0, 2.0, 3.0]))


def test_gradient_dtype_is_checked():
    wider = ops.Custom(square, same, same, bprop=lambda x, out, dout: (dout.astype(ms.float64) * 2,))
    g = ms.grad(lambda t: wider(t).sum())(ms.Tensor([1.0]))
    assert g.dtype == ms.float32 and g.tolist() == [2.0]
    ints = ops.Custom(square, same, same, bprop=lambda x, out, dout: (dout.astype(ms.int32),), name="int_grad")
    with pytest.raises(TypeError, match=r"op 'int_grad': bprop gradient for input 0 has dtype int32, but the "
                                        r"input is float32"):
        ms.grad(lambda t: ints(t).sum())(ms.Tensor([1.0]))
    other = ops.Custom(square, same, same, bprop=lambda x, out, dout: ("zero",), name="str_grad")
    with pytest.raises(TypeError, match=r"op 'str_grad': bprop gradient for input 0 must be a Tensor, an "
                                        r"array or None, got str"):
        ms.grad(lambda t: other(t).sum())(ms.Tensor([1.0]))


def test_bprop_with_the_wrong_parameter_count_fails_at_construction():
    with pytest.raises(TypeError, match=r"op 'square': bprop must take the call's 1 argument\(s\), then out and "
                                        r"dout, as bprop\(\*inputs, out, dout\); it takes 2 positional"):
        ops.Custom(square, same, same, bprop=lambda x, dout: (dout,))


def test_grad_without_bprop_names_the_op_and_the_fix():
    plain = ops.Custom(square, same, same, name="no_grad_square")
    with pytest.raises(RuntimeError, match=r"op 'no_grad_square' \(ops.Custom, func_type='pyfunc'\) has no "
                                           r"bprop, so it cannot be differentiated; pass bprop="):
        ms.grad(lambda t: plain(t).sum())(ms.Tensor([1.0]))
    # forward calls are unaffected, also while recording for other inputs
    assert plain(ms.Tensor([2.0])).tolist() == [4.0]


def _suggested_bprop(op, grad_fn, *args):
    """The bprop the op's no-bprop error suggests, as written in the message, evaluated."""
    with pytest.raises(RuntimeError, match="has no bprop") as info:
        grad_fn(op)(*args)
    msg = str(info.value)
    assert "*inputs" not in msg
    text = re.search(r"pass bprop=(lambda .*?) to ops.Custom", msg).group(1)
    return text, eval(text)  # noqa: S307 (the message's own suggestion, pasted)


def test_the_no_bprop_suggestion_runs_when_pasted():
    def scale(t):
        return t * 3.0

    grad_of = lambda op: ms.grad(lambda t: op(t).sum())          # noqa: E731
    x = ms.Tensor([1.0, 2.0])
    text, bprop = _suggested_bprop(ops.Custom(scale, same, same), grad_of, x)
    assert text == "lambda t, out, dout: (None,)"
    assert ms.grad(lambda t: ops.Custom(scale, same, same, bprop=bprop)(t).sum())(x).tolist() == [0.0, 0.0]
    # and once the None is replaced by the gradient, it is the gradient
    fixed = eval(text.replace("None", "dout * 3.0"))  # noqa: S307
    assert ms.grad(lambda t: ops.Custom(scale, same, same, bprop=fixed)(t).sum())(x).tolist() == [3.0, 3.0]


def test_the_no_bprop_suggestion_has_one_parameter_per_call_argument():
    def axpy(a, x, y):              # a scalar among the tensors
        return a * x + y

    op = ops.Custom(axpy, lambda a, x, y: x, lambda a, x, y: x)
    grad_of = lambda op: ms.grad(lambda u, v: op(2.0, u, v).sum(), grad_position=(0, 1))  # noqa: E731
    x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])
    text, bprop = _suggested_bprop(op, grad_of, x, y)
    assert text == "lambda a, x, y, out, dout: (None, None)"
    with_bprop = ops.Custom(axpy, lambda a, x, y: x, lambda a, x, y: x, bprop=bprop)
    gx, gy = grad_of(with_bprop)(x, y)
    assert gx.tolist() == [0.0, 0.0] and gy.tolist() == [0.0, 0.0]


def test_the_no_bprop_suggestion_invents_names_that_do_not_clash():
    def star(*args):                # no names to take; 'out' and 'dout' are bprop's own
        return args[0] + args[1]

    def clash(out, dout):
        return out * dout

    grad_of = lambda op: ms.grad(lambda u, v: op(u, v).sum(), grad_position=(0, 1))  # noqa: E731
    x, y = ms.Tensor([1.0]), ms.Tensor([2.0])
    for func, expected in ((star, "lambda x, y, out, dout: (None, None)"),
                           (clash, "lambda x, y, out, dout: (None, None)")):
        text, bprop = _suggested_bprop(ops.Custom(func, same, same), grad_of, x, y)
        assert text == expected
        gx, gy = grad_of(ops.Custom(func, same, same, bprop=bprop))(x, y)
        assert gx.tolist() == [0.0] and gy.tolist() == [0.0]


def test_grad_of_grad_through_custom_ops():
    # cube'(x) = 3x^2 and cube''(x) = 6x, every step a Custom op with its own bprop
    six_x_d = ops.Custom(lambda x, d: 6 * x * d, lambda x, d: x, lambda x, d: x, name="six_x_d",
                         bprop=lambda x, d, out, dout: (6 * d * dout, 6 * x * dout))
    three_x2_d = ops.Custom(lambda x, d: 3 * x * x * d, lambda x, d: x, lambda x, d: x, name="three_x2_d",
                            bprop=lambda x, d, out, dout: (six_x_d(x, d * dout), three_x2_dd(x, dout)))
    three_x2_dd = ops.Custom(lambda x, d: 3 * x * x * d, lambda x, d: x, lambda x, d: x, name="three_x2_dd")
    cube = ops.Custom(lambda x: x ** 3, same, same, name="cube",
                      bprop=lambda x, out, dout: (three_x2_d(x, dout),))
    x = ms.Tensor([1.0, 2.0, -3.0])
    d1 = ms.grad(lambda t: cube(t).sum())
    np.testing.assert_allclose(d1(x).asnumpy(), 3 * x.asnumpy() ** 2)
    d2 = ms.grad(lambda t: d1(t).sum())
    np.testing.assert_allclose(d2(x).asnumpy(), 6 * x.asnumpy())


def test_grad_of_grad_of_the_issue_square():
    d2 = ms.grad(lambda t: ms.grad(lambda u: sq(u).sum())(t).sum())
    # sq_grad has no bprop: its second derivative needs one, and the error says so
    with pytest.raises(RuntimeError, match=r"op 'square_grad' .* has no bprop"):
        d2(ms.Tensor([1.0, 2.0]))
