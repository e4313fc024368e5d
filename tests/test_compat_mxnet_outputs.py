"""MXNet's output layers and gradient stops, against values taken from MXNet 1.9.1."""

import numpy as np
import pytest

from mscustom.compat import mxnet as mx

X = np.array([[0.5, -1.0, 2.0], [-0.3, 0.8, -2.5]], np.float32)
LAB = np.array([[1, 0, 1], [0, 1, 0]], np.float32)


def run(sym, args, out_grads=None):
    exe = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()},
                   args_grad={k: mx.nd.zeros(v.shape) for k, v in args.items()})
    out = exe.forward(is_train=True)
    exe.backward(out_grads)
    return out[0].asnumpy(), {k: exe.grad_dict[k].asnumpy() for k in args}


d, lab = mx.sym.Variable("data"), mx.sym.Variable("label")


def test_logistic_regression_output():
    out, g = run(mx.sym.LogisticRegressionOutput(d, lab, grad_scale=2.0), {"data": X, "label": LAB})
    np.testing.assert_allclose(out, [[0.62245935, 0.26894143, 0.880797], [0.4255575, 0.6899745, 0.07585818]],
                               rtol=1e-6)
    np.testing.assert_allclose(g["data"], [[-0.2516938, 0.17929429, -0.07946865],
                                           [0.283705, -0.20668368, 0.05057212]], rtol=1e-5)
    np.testing.assert_array_equal(g["label"], np.zeros((2, 3)))
    assert mx.sym.LogisticRegressionOutput(d, name="lro").list_arguments() == ["data", "lro_label"]
    assert mx.sym.LogisticRegressionOutput(d, lab, name="o").infer_shape(data=(2, 3)) == \
        ([(2, 3), (2, 3)], [(2, 3)], [])


def test_mae_regression_output():
    out, g = run(mx.sym.MAERegressionOutput(d, lab), {"data": X, "label": LAB * 0.7})
    np.testing.assert_array_equal(out, X)
    third = np.float32(1 / 3)
    np.testing.assert_allclose(g["data"], [[-third, -third, third], [-third, third, -third]], rtol=1e-6)
    _, g = run(mx.sym.MAERegressionOutput(d, lab), {"data": X, "label": X})      # a zero difference counts -1
    np.testing.assert_allclose(g["data"], np.full((2, 3), -third), rtol=1e-6)


def test_svm_output_l2_and_l1():
    sl = np.array([2, 0], np.float32)
    out, g = run(mx.sym.SVMOutput(d, lab), {"data": X, "label": sl})
    np.testing.assert_array_equal(out, X)
    np.testing.assert_allclose(g["data"], [[3.0, 0.0, 0.0], [-2.6, 3.6, 0.0]], rtol=1e-6)
    np.testing.assert_array_equal(g["label"], [0.0, 0.0])
    _, g = run(mx.sym.SVMOutput(d, lab, margin=0.5, regularization_coefficient=2.0, use_linear=True),
               {"data": X, "label": sl})
    np.testing.assert_array_equal(g["data"], [[2.0, 0.0, 0.0], [-2.0, 2.0, 0.0]])
    assert mx.sym.SVMOutput(d, name="svm").list_arguments() == ["data", "svm_label"]
    assert mx.sym.SVMOutput(d, lab, name="o").infer_shape(data=(2, 3)) == ([(2, 3), (2,)], [(2, 3)], [])


def test_svm_output_bad_label_shape_names_the_op():
    with pytest.raises(Exception, match=r"SVMOutput.*label must have shape \[2\]"):
        run(mx.sym.SVMOutput(d, lab), {"data": X, "label": np.array([2, 0, 1], np.float32)})


def test_make_loss_normalizations():
    _, g = run(mx.sym.MakeLoss(d * d, grad_scale=3.0), {"data": X})
    np.testing.assert_allclose(g["data"], [[3.0, -6.0, 12.0], [-1.8, 4.8, -15.0]], rtol=1e-6)
    _, g = run(mx.sym.MakeLoss(d * d, normalization="batch"), {"data": X})
    np.testing.assert_allclose(g["data"], X, rtol=1e-6)
    out, g = run(mx.sym.MakeLoss(d * d, normalization="valid", valid_thresh=0.5), {"data": X})
    np.testing.assert_allclose(out, X * X, rtol=1e-6)
    np.testing.assert_allclose(g["data"], X / 2, rtol=1e-6)
    with pytest.raises(ValueError, match="op 'MakeLoss': normalization must be one of"):
        mx.nd.MakeLoss(mx.nd.array(X), normalization="mean")


def test_block_grad():
    out, g = run(mx.sym.BlockGrad(d * d) + d, {"data": X}, [mx.nd.ones((2, 3))])
    np.testing.assert_allclose(out, X * X + X, rtol=1e-6)
    np.testing.assert_array_equal(g["data"], np.ones((2, 3)))
    assert mx.sym.stop_gradient is mx.sym.BlockGrad


def test_imperative_forms():
    x = mx.nd.array(X)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BlockGrad(x * x) + mx.nd.stop_gradient(x) * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), X, rtol=1e-6)
    with mx.autograd.record():
        y = mx.nd.MakeLoss(x * x, grad_scale=2)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [[2.0, -4.0, 8.0], [-1.2, 3.2, -10.0]], rtol=1e-6)
    with mx.autograd.record():
        y = mx.nd.LogisticRegressionOutput(x, mx.nd.array(LAB))
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [[-0.1258469, 0.08964714, -0.03973433],
                                                  [0.1418525, -0.10334184, 0.02528606]], rtol=1e-5)


def test_weighted_logistic_regression_trains():
    """MXNet's weighted logistic regression example: a custom op scales the positive class's gradient."""

    class WeightedLogistic(mx.operator.CustomOp):
        def __init__(self, pos_grad_scale, neg_grad_scale):
            self.pos, self.neg = float(pos_grad_scale), float(neg_grad_scale)

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], mx.nd.divide(1, 1 + mx.nd.exp(-in_data[0])))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            p, y = out_data[0].asnumpy(), in_data[1].asnumpy()
            self.assign(in_grad[0], req[0], (p - y) * (self.pos * y + self.neg * (1 - y)) / y.shape[1])

    @mx.operator.register("weighted_logistic")
    class WeightedLogisticProp(mx.operator.CustomOpProp):
        def __init__(self, pos_grad_scale, neg_grad_scale):
            super().__init__(need_top_grad=False)
            self.pos, self.neg = pos_grad_scale, neg_grad_scale

        def list_arguments(self):
            return ["data", "label"]

        def infer_shape(self, in_shape):
            return [in_shape[0], in_shape[0]], [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return WeightedLogistic(self.pos, self.neg)

    x = np.array([[0.5, -1.0, 2.0], [-0.3, 0.8, -2.5]], np.float32)
    sym = mx.sym.Custom(d, lab, op_type="weighted_logistic", pos_grad_scale=1.0, neg_grad_scale=1.0)
    _, g1 = run(sym, {"data": x, "label": LAB})
    _, g2 = run(mx.sym.LogisticRegressionOutput(d, lab), {"data": x, "label": LAB})
    np.testing.assert_allclose(g1["data"], g2["data"], rtol=1e-5)       # equal weights: the built-in layer
    sym = mx.sym.Custom(d, lab, op_type="weighted_logistic", pos_grad_scale=2.0, neg_grad_scale=0.5)
    _, g3 = run(sym, {"data": x, "label": LAB})
    np.testing.assert_allclose(g3["data"], g2["data"] * np.where(LAB == 1, 2.0, 0.5), rtol=1e-5)
