"""MindSpore's primitive classes: constructed with attributes, called on tensors, differentiable."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad

RNG = np.random.default_rng(7)


def _t(*shape):
    return ms.Tensor(RNG.standard_normal(shape))


@pytest.mark.parametrize("name,fn", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
                                     ("RealDiv", np.divide), ("Maximum", np.maximum),
                                     ("Minimum", np.minimum)])
def test_binary_primitives_match_numpy_and_differentiate(name, fn):
    x, y = _t(3, 4), _t(3, 4)
    prim = getattr(ops, name)()
    np.testing.assert_allclose(prim(x, y).asnumpy(), fn(x.asnumpy(), y.asnumpy()))
    check_grad(lambda a, b: prim(a, b), x, y)


@pytest.mark.parametrize("name,fn", [("Exp", np.exp), ("Tanh", np.tanh), ("Square", np.square),
                                     ("Neg", np.negative), ("Sigmoid", lambda v: 1 / (1 + np.exp(-v)))])
def test_unary_primitives(name, fn):
    x = _t(2, 5)
    prim = getattr(ops, name)()
    np.testing.assert_allclose(prim(x).asnumpy(), fn(x.asnumpy()), rtol=1e-12)
    check_grad(lambda a: prim(a), x)


def test_matmul_attributes_transpose_and_gradient():
    x, w = _t(2, 3), _t(4, 3)
    prim = ops.MatMul(transpose_b=True)
    assert prim.transpose_b is True and prim.attrs["transpose_a"] is False
    np.testing.assert_allclose(prim(x, w).asnumpy(), x.asnumpy() @ w.asnumpy().T)
    check_grad(lambda a, b: prim(a, b), x, w)
    np.testing.assert_allclose(ops.MatMul(True, False)(w, _t(4, 2)).shape, (3, 2))


def test_pow_with_a_python_scalar_exponent_differentiates():
    x = ms.Tensor(np.array([1.0, -2.0, 3.0]))
    np.testing.assert_allclose(ms.grad(lambda a: ops.ReduceSum()(ops.Pow()(a, 3)))(x).asnumpy(),
                               3 * x.asnumpy() ** 2)


def test_reductions_take_axis_at_call_and_keep_dims_at_construction():
    x = _t(2, 3, 4)
    assert ops.ReduceSum(keep_dims=True)(x, 1).shape == (2, 1, 4)
    assert ops.ReduceMean()(x, (0, 2)).shape == (3,)
    np.testing.assert_allclose(ops.ReduceMax()(x).asnumpy(), x.asnumpy().max())
    check_grad(lambda a: ops.ReduceMean(keep_dims=False)(a, 1), x)


def test_shape_and_array_primitives():
    x = _t(2, 3)
    assert ops.Shape()(x) == (2, 3)
    assert ops.Reshape()(x, (3, 2)).shape == (3, 2)
    assert ops.Transpose()(x, (1, 0)).shape == (3, 2)
    assert ops.ExpandDims()(x, 0).shape == (1, 2, 3)
    assert ops.Squeeze(0)(ops.ExpandDims()(x, 0)).shape == (2, 3)
    assert ops.Concat(axis=1)((x, x)).shape == (2, 6)
    assert ops.Cast()(x, ms.float32).dtype == ms.float32
    assert ops.Argmax(output_type=ms.int64)(x).dtype == ms.int64
    np.testing.assert_array_equal(ops.Argmax()(x).asnumpy(), np.argmax(x.asnumpy(), -1))
    cond = ms.Tensor(np.array([[True, False, True], [False, True, False]]))
    np.testing.assert_allclose(ops.Select()(cond, x, ops.ZerosLike()(x)).asnumpy(),
                               np.where(cond.asnumpy(), x.asnumpy(), 0))
    onehot = ops.OneHot()(ms.Tensor(np.array([0, 2], np.int32)), 3, ms.Tensor(1.0), ms.Tensor(0.0))
    np.testing.assert_allclose(onehot.asnumpy(), np.eye(3)[[0, 2]])


def test_softmax_cross_entropy_primitives():
    logits = _t(4, 5)
    labels = np.array([1, 0, 4, 2], np.int32)
    dense = np.eye(5)[labels]
    log_p = logits.asnumpy() - np.log(np.exp(logits.asnumpy()).sum(-1, keepdims=True))
    loss, dlogits = ops.SoftmaxCrossEntropyWithLogits()(logits, ms.Tensor(dense))
    np.testing.assert_allclose(loss.asnumpy(), -(dense * log_p).sum(-1), rtol=1e-10)
    np.testing.assert_allclose(dlogits.asnumpy(), np.exp(log_p) - dense, rtol=1e-10)
    sparse = ops.SparseSoftmaxCrossEntropyWithLogits()
    np.testing.assert_allclose(sparse(logits, ms.Tensor(labels)).asnumpy(), -(dense * log_p).sum(-1).mean())
    check_grad(lambda a: sparse(a, ms.Tensor(labels)), logits)
    grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, ms.Tensor(labels))
    np.testing.assert_allclose(grad.asnumpy(), (np.exp(log_p) - dense) / 4, rtol=1e-10)


def test_constructor_errors_name_the_primitive():
    with pytest.raises(TypeError, match="primitive 'MatMul' got unknown constructor argument"):
        ops.MatMul(transpose=True)
    with pytest.raises(TypeError, match="primitive 'Add' takes 0 constructor argument"):
        ops.Add(1)


def test_user_subclasses_with_prim_attr_register():
    class Scale(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, factor=2.0):
            self.init_prim_io_names(inputs=["x"], outputs=["y"])

        def infer_shape(self, x_shape):
            return x_shape

        def __call__(self, x):
            return x * self.factor

    prim = Scale(factor=3.0)
    assert prim.attrs["factor"] == 3.0 and prim.name == "Scale"
    assert prim.input_names == ["x"] and prim.infer_shape([2, 3]) == [2, 3]
    np.testing.assert_allclose(prim(ms.Tensor([1.0, 2.0])).asnumpy(), [3.0, 6.0])
    prim.add_prim_attr("factor", 4.0)
    assert prim.factor == 4.0

    class Bare(ops.Primitive):
        pass

    with pytest.raises(RuntimeError, match="primitive 'Bare' has no implementation here"):
        Bare()(ms.Tensor([1.0]))


def test_grad_aliases_and_jit_run_the_function():
    assert ops.grad is ms.grad and ops.value_and_grad is ms.value_and_grad

    @ms.jit
    def f(x):
        return ops.Mul()(x, x)

    @ms.jit(capture_mode="ast", jit_level="O0")
    def g(x):
        return f(x) + 1

    x = ms.Tensor([1.0, 3.0])
    np.testing.assert_allclose(g(x).asnumpy(), [2.0, 10.0])
    np.testing.assert_allclose(ms.grad(lambda t: g(t).sum())(x).asnumpy(), [2.0, 6.0])
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(capture_mode="graph")
