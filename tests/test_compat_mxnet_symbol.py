"""mx.sym graphs on the operator core: listing, inference, binding, forward/backward against NumPy and finite differences."""

import json

import numpy as np
import pytest

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet.test_utils import check_numeric_gradient


def _mlp():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=4)
    act = mx.sym.Activation(data=fc1, name="act", act_type="tanh")
    fc2 = mx.sym.FullyConnected(data=act, name="fc2", num_hidden=3)
    return mx.sym.SoftmaxOutput(data=fc2, name="softmax")


def test_listing_and_inference_follow_mxnet_naming():
    net = _mlp()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    assert net.list_auxiliary_states() == []
    arg, out, aux = net.infer_shape(data=(5, 6))
    assert arg == [(5, 6), (4, 6), (4,), (3, 4), (3,), (5,)] and out == [(5, 3)] and aux == []
    assert net.infer_shape() == (None, None, None)
    arg_t, out_t, _ = net.infer_type(data=np.float64)
    assert arg_t[0] is np.float64 and out_t == [np.float64]
    g = mx.sym.Group([net, mx.sym.Variable("extra")])
    assert g.list_outputs() == ["softmax_output", "extra"]
    nb = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, no_bias=True, name="nb")
    assert nb.list_arguments() == ["data", "nb_weight"]


def test_executor_forward_backward_matches_numpy():
    rng = np.random.default_rng(0)
    net = _mlp()
    exe = net.simple_bind(mx.cpu(), data=(5, 6), type_dict={"data": np.float64})
    vals = {k: rng.normal(size=a.shape) for k, a in exe.arg_dict.items()}
    vals["softmax_label"] = np.array([0, 2, 1, 1, 0], np.float64)
    for k, v in vals.items():
        exe.arg_dict[k][:] = v
    out = exe.forward(is_train=True)[0].asnumpy()
    h = np.tanh(vals["data"] @ vals["fc1_weight"].T + vals["fc1_bias"])
    z = h @ vals["fc2_weight"].T + vals["fc2_bias"]
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(out, p, rtol=1e-10)
    exe.backward()
    dz = p.copy()
    dz[np.arange(5), [0, 2, 1, 1, 0]] -= 1.0                   # SoftmaxOutput: p - onehot, normalization 'null'
    np.testing.assert_allclose(exe.grad_dict["fc2_weight"].asnumpy(), dz.T @ h, rtol=1e-10)
    np.testing.assert_allclose(exe.grad_dict["fc2_bias"].asnumpy(), dz.sum(0), rtol=1e-10)
    dh = dz @ vals["fc2_weight"] * (1 - h ** 2)
    np.testing.assert_allclose(exe.grad_dict["fc1_weight"].asnumpy(), dh.T @ vals["data"], rtol=1e-10)
    assert set(exe.output_dict) == {"softmax_output"}


@pytest.mark.parametrize("build, shapes", [
    (lambda x: mx.sym.FullyConnected(x, num_hidden=3, name="fc"), {"x": (2, 4)}),
    (lambda x: mx.sym.Activation(x, act_type="sigmoid") * 2.0 + mx.sym.exp(x), {"x": (2, 3)}),
    (lambda x: mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, stride=(2, 1), pad=(1, 1), name="c"),
     {"x": (2, 2, 5, 4)}),
    (lambda x: mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max"), {"x": (1, 2, 4, 4)}),
    (lambda x: mx.sym.Pooling(x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg"), {"x": (1, 1, 4, 3)}),
    (lambda x: mx.sym.Flatten(mx.sym.Convolution(x, kernel=(2, 2), num_filter=3, name="c2")), {"x": (2, 1, 3, 3)}),
])
def test_layers_have_the_gradients_of_finite_differences(build, shapes):
    sym = build(mx.sym.Variable("x"))
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    rng = np.random.default_rng(1)
    # distinct values so max pooling has no ties
    location = [rng.permutation(int(np.prod(s))).reshape(s) / 7.0 + rng.normal(0, 0.01, s) for s in arg_shapes]
    check_numeric_gradient(sym, location, numeric_eps=1e-4, rtol=1e-4, atol=1e-6)


def test_convolution_and_pooling_match_direct_loops():
    rng = np.random.default_rng(2)
    x, w, b = rng.normal(size=(2, 3, 5, 5)), rng.normal(size=(4, 3, 3, 3)), rng.normal(size=4)
    net = mx.sym.Pooling(mx.sym.Convolution(mx.sym.Variable("data"), kernel=(3, 3), num_filter=4, pad=(1, 1),
                                            name="conv"), kernel=(2, 2), stride=(2, 2), pool_type="max")
    exe = net.bind(mx.cpu(), {"data": mx.nd.array(x, dtype=np.float64), "conv_weight": mx.nd.array(w, dtype=np.float64),
                              "conv_bias": mx.nd.array(b, dtype=np.float64)})
    out = exe.forward()[0].asnumpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((2, 4, 5, 5))
    for i in range(5):
        for j in range(5):
            conv[:, :, i, j] = np.tensordot(xp[:, :, i:i + 3, j:j + 3], w, axes=([1, 2, 3], [1, 2, 3])) + b
    pooled = conv[:, :, :4, :4].reshape(2, 4, 2, 2, 2, 2).max(axis=(3, 5))
    np.testing.assert_allclose(out, pooled, rtol=1e-10)


def test_linear_regression_output_gradient_and_grad_req_add():
    x = mx.sym.Variable("x")
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(x, num_hidden=2, name="fc"), name="lro")
    assert net.list_arguments() == ["x", "fc_weight", "fc_bias", "lro_label"]
    rng = np.random.default_rng(3)
    args = {"x": rng.normal(size=(4, 3)), "fc_weight": rng.normal(size=(2, 3)), "fc_bias": rng.normal(size=2),
            "lro_label": rng.normal(size=(4, 2))}
    grads = {k: mx.nd.zeros(v.shape, dtype=np.float64) for k, v in args.items()}
    exe = net.bind(mx.cpu(), {k: mx.nd.array(v, dtype=np.float64) for k, v in args.items()}, args_grad=grads,
                   grad_req={"x": "null", "fc_weight": "add", "fc_bias": "write", "lro_label": "null"})
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward()
    pred = args["x"] @ args["fc_weight"].T + args["fc_bias"]
    dpred = (pred - args["lro_label"]) / 2                       # grad_scale / num_output, num_output = 2
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), 2 * dpred.T @ args["x"], rtol=1e-10)
    np.testing.assert_allclose(exe.grad_dict["fc_bias"].asnumpy(), dpred.sum(0), rtol=1e-10)
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), 0.0)        # grad_req "null": left alone
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), pred, rtol=1e-10)


class _Sq(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0].asnumpy() ** 2)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0].asnumpy() * out_grad[0].asnumpy())


@mx.operator.register("sym_square")
class _SqProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Sq()


def test_custom_op_in_a_symbol_and_json_round_trip(tmp_path):
    x = mx.sym.Variable("x")
    net = mx.sym.sum(mx.sym.Custom(x, op_type="sym_square", name="sq") * 3.0)
    check_numeric_gradient(net, [np.array([[1.0, -2.0], [0.5, 3.0]])], numeric_eps=1e-4, rtol=1e-4)
    path = tmp_path / "net-symbol.json"
    net.save(str(path))
    graph = json.loads(path.read_text())
    assert {n["op"] for n in graph["nodes"]} >= {"null", "Custom", "_MulScalar", "sum"}
    again = mx.sym.load(str(path))
    assert again.list_arguments() == net.list_arguments() and again.list_outputs() == net.list_outputs()
    exe = again.bind(mx.cpu(), {"x": mx.nd.array([[1.0, 2.0]])})
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), 15.0)


def test_errors_name_what_is_missing_or_wrong():
    net = _mlp()
    with pytest.raises(mx.MXNetError, match=r"simple_bind: cannot infer the shapes of \['data'"):
        net.simple_bind(mx.cpu())
    exe = net.simple_bind(mx.cpu(), data=(2, 6))
    with pytest.raises(mx.MXNetError, match=r"Executor.backward: call forward\(is_train=True\) first"):
        exe.backward()
    with pytest.raises(ValueError, match=r"Executor.forward: 'data' has shape \(2, 6\), got \(3, 6\)"):
        exe.forward(data=np.zeros((3, 6)))
    with pytest.raises(mx.MXNetError, match=r"Error in operator activation\d+ \(Activation\): .*act_type must be one of"):
        mx.sym.Activation(mx.sym.Variable("d"), act_type="swish").bind(mx.cpu(), {"d": mx.nd.ones((1,))}).forward()
    fc = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4, name="fc1")
    with pytest.raises(mx.MXNetError, match=r"'fc1_weight' is given shape \(4, 5\), but 'fc1' \(FullyConnected\) "
                                            r"needs \(4, 6\)"):
        fc.infer_shape(data=(2, 6), fc1_weight=(4, 5))


class _Count(mx.operator.CustomOp):
    """Identity that counts training forwards in its auxiliary state."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])
        if is_train:
            aux[0][:] = aux[0].asnumpy() + 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("sym_count")
class _CountProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["calls"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [[1]]

    def create_operator(self, ctx, shapes, dtypes):
        return _Count()


def test_custom_op_auxiliary_state_in_a_symbol():
    net = mx.sym.Custom(mx.sym.Variable("x"), op_type="sym_count", name="cnt")
    assert net.list_arguments() == ["x"] and net.list_auxiliary_states() == ["cnt_calls"]
    assert net.infer_shape(x=(2, 3)) == ([(2, 3)], [(2, 3)], [(1,)])
    exe = net.simple_bind(mx.cpu(), x=(2, 3))
    exe.forward(is_train=True, x=np.ones((2, 3)))
    exe.backward(mx.nd.ones((2, 3)))
    exe.forward(is_train=False)
    exe.forward(is_train=True)
    np.testing.assert_array_equal(exe.aux_dict["cnt_calls"].asnumpy(), [2.0])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.ones((2, 3)))


def test_fully_connected_reads_the_weight_through_matmul_transpose_b(monkeypatch):
    import mscustom.ops

    def no_transpose(*args, **kwargs):
        raise AssertionError("FullyConnected must not build W.T with a transpose")
    monkeypatch.setattr(mscustom.ops, "transpose", no_transpose)
    rng = np.random.default_rng(4)
    x, w, b, dy = rng.normal(size=(3, 2, 2)), rng.normal(size=(5, 4)), rng.normal(size=5), rng.normal(size=(3, 5))
    net = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=5, name="fc")
    grads = {k: mx.nd.zeros(v.shape, dtype=np.float64) for k, v in (("x", x), ("fc_weight", w), ("fc_bias", b))}
    exe = net.bind(mx.cpu(), {"x": mx.nd.array(x, dtype=np.float64), "fc_weight": mx.nd.array(w, dtype=np.float64),
                              "fc_bias": mx.nd.array(b, dtype=np.float64)}, args_grad=grads)
    out = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(out, x.reshape(3, 4) @ w.T + b, rtol=1e-12)
    exe.backward(mx.nd.array(dy, dtype=np.float64))
    np.testing.assert_allclose(grads["x"].asnumpy(), (dy @ w).reshape(3, 2, 2), rtol=1e-12)
    np.testing.assert_allclose(grads["fc_weight"].asnumpy(), dy.T @ x.reshape(3, 4), rtol=1e-12)
    np.testing.assert_allclose(grads["fc_bias"].asnumpy(), dy.sum(0), rtol=1e-12)
