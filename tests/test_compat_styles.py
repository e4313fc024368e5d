"""The custom-op styles users bring: MXNet CustomOp/CustomOpProp, minpy customop, NNVM register_op.

Every style builds OpDefs of the one operator core, so the same sigmoid gives
the same values and gradients in all of them (checked at the end).
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.compat import mxnet as mx
from mscustom.compat.minpy import customop, grad, grad_and_loss
from mscustom.testing import check_grad, numeric_grad


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ================================================================== MXNet style: ops
class Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        self.assign(out_data[0], req[0], mx.nd.array(1.0 / (1.0 + np.exp(-x))))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0].asnumpy()
        dy = out_grad[0].asnumpy()
        self.assign(in_grad[0], req[0], mx.nd.array(dy * (1.0 - y) * y))


@mx.operator.register("sigmoid")
class SigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def infer_type(self, in_type):
        return in_type, [in_type[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return Sigmoid()


class Softmax(mx.operator.CustomOp):
    """A loss layer: outputs probabilities; backward is probs - onehot(label), ignoring out_grad."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        e = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], e / e.sum(axis=1, keepdims=True))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(int)
        y = out_data[0].asnumpy().copy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], y)


@mx.operator.register("softmax")
class SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return Softmax()


class Dense(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x, w, b = (a.asnumpy() for a in in_data)
        self.assign(out_data[0], req[0], x @ w.T + b)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, w, _ = (a.asnumpy() for a in in_data)
        dy = out_grad[0].asnumpy()
        self.assign(in_grad[0], req[0], dy @ w)
        self.assign(in_grad[1], req[1], dy.T @ x)
        self.assign(in_grad[2], req[2], dy.sum(axis=0))


@mx.operator.register("dense")
class DenseProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["data", "weight", "bias"]

    def infer_shape(self, in_shape):
        (n, _), (units, _), _ = in_shape
        return in_shape, [[n, units]], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return list(out_grad) + list(in_data)          # the output itself is not needed

    def create_operator(self, ctx, shapes, dtypes):
        return Dense()


class Center(mx.operator.CustomOp):
    """out = x - mean(x, 0); in training, the running mean (an auxiliary state) is updated in place."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        mean = x.mean(axis=0)
        if is_train:
            aux[0][:] = 0.9 * aux[0].asnumpy() + 0.1 * mean
        self.assign(out_data[0], req[0], x - mean)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        dy = out_grad[0].asnumpy()
        self.assign(in_grad[0], req[0], dy - dy.mean(axis=0))


@mx.operator.register("center")
class CenterProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["running_mean"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [[in_shape[0][1]]]

    def create_operator(self, ctx, shapes, dtypes):
        return Center()


class Scale(mx.operator.CustomOp):
    def __init__(self, factor):
        self.factor = factor

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0].asnumpy() * self.factor)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0].asnumpy() * self.factor)


@mx.operator.register("scale")
class ScaleProp(mx.operator.CustomOpProp):
    def __init__(self, factor="1.0"):
        super().__init__()
        assert isinstance(factor, str), "MXNet passes keyword arguments as strings"
        self.factor = float(factor)

    def create_operator(self, ctx, shapes, dtypes):
        return Scale(self.factor)


def _mx_numeric(fn, *arrays):
    """Central differences of sum(fn(*arrays)) where fn maps NumPy float64 arrays to an array."""
    return numeric_grad(lambda *ts: ms.Tensor(fn(*[t.asnumpy() for t in ts])),
                        *[ms.Tensor(a) for a in arrays])


# ================================================================== MXNet style: tests
def test_mxnet_sigmoid_example_from_the_issue():
    x = mx.nd.array([0.0, 1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid")
    y.backward()
    s = _sigmoid(np.array([0.0, 1.0, 2.0]))
    assert isinstance(y, mx.NDArray) and y.dtype is np.float32 and y.shape == (3,)
    np.testing.assert_allclose(y.asnumpy(), s, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), s * (1 - s), rtol=1e-5)
    (num,) = _mx_numeric(lambda a: _sigmoid(a), np.array([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-4)


def test_mxnet_softmax_loss_ignores_the_top_gradient():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((4, 3))
    label = np.array([0, 2, 1, 1], dtype=np.float64)
    x = mx.nd.array(data, dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        probs = mx.nd.Custom(x, mx.nd.array(label), op_type="softmax")
    probs.backward(out_grad=mx.nd.array(np.full((4, 3), 123.0)))   # ignored: need_top_grad=False

    def cross_entropy(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        return -np.log(p[np.arange(4), label.astype(int)])

    (num,) = _mx_numeric(cross_entropy, data)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(probs.asnumpy().sum(axis=1), 1.0, rtol=1e-12)
    # the backward op does not even take the top gradient: only the declared in_data and out_data
    fwd, bwd = mx.operator.opdefs("softmax")
    assert bwd.input_names == ["in_data[0] ('data')", "in_data[1] ('label')", "out_data[0] ('output')"]
    assert bwd.num_inputs == 3 and bwd.num_outputs == 2
    assert {"FInferShape", "FInferType", "FCompute<cpu>", "FGradient"} <= set(fwd.attrs)


class ReadsTopGrad(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("reads_top_grad")
class ReadsTopGradProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def create_operator(self, ctx, shapes, dtypes):
        return ReadsTopGrad()


def test_mxnet_loss_layer_that_reads_out_grad_is_told_to_declare_it():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="reads_top_grad")
    y.backward()                         # errors inside an op surface at the next synchronisation point
    with pytest.raises(mx.MXNetError, match=r"op 'reads_top_grad': backward read out_grad\[0\] \(the gradient of "
                                            r"output 'output'\), which declare_backward_dependency did not list"):
        x.grad.asnumpy()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0.0, 0.0])      # reported once; nothing was written


def test_mxnet_dense_with_weight_and_bias_arguments():
    rng = np.random.default_rng(1)
    xs, ws, bs = rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), rng.standard_normal(4)
    head = rng.standard_normal((5, 4))
    x, w, b = (mx.nd.array(a, dtype=np.float64) for a in (xs, ws, bs))
    for a in (x, w, b):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, w, b, op_type="dense")
    assert y.shape == (5, 4) and y.dtype is np.float64
    np.testing.assert_allclose(y.asnumpy(), xs @ ws.T + bs, rtol=1e-12)
    y.backward(out_grad=mx.nd.array(head, dtype=np.float64))
    nums = _mx_numeric(lambda p, q, r: (p @ q.T + r) * head, xs, ws, bs)
    for got, num in zip((x.grad, w.grad, b.grad), nums):
        np.testing.assert_allclose(got.asnumpy(), num, rtol=1e-7, atol=1e-9)
    # declare_backward_dependency left out_data out, so the backward op does not take it
    _, bwd = mx.operator.opdefs("dense")
    assert bwd.input_names == ["out_grad[0] (the gradient of output 'output')", "in_data[0] ('data')",
                               "in_data[1] ('weight')", "in_data[2] ('bias')"]


def test_mxnet_auxiliary_state_is_updated_in_training_only():
    data = np.arange(6.0).reshape(3, 2)
    running = mx.nd.zeros((2,), dtype=np.float64)
    x = mx.nd.array(data, dtype=np.float64)
    x.attach_grad()
    out = mx.nd.Custom(x, running, op_type="center")                  # not training: aux untouched
    np.testing.assert_allclose(out.asnumpy(), data - data.mean(0))
    np.testing.assert_array_equal(running.asnumpy(), [0.0, 0.0])
    for step in (1, 2):
        with mx.autograd.record():
            assert mx.autograd.is_training()
            out = mx.nd.Custom(x, running, op_type="center")
        np.testing.assert_allclose(running.asnumpy(), (1 - 0.9 ** step) * data.mean(0), rtol=1e-12)
    head = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])
    out.backward(out_grad=mx.nd.array(head))
    (num,) = _mx_numeric(lambda a: (a - a.mean(0)) * head, data)
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-7, atol=1e-8)
    _, bwd = mx.operator.opdefs("center")
    assert bwd.input_names[-1] == "running_mean" and bwd.num_outputs == 1      # no gradient for aux
    # the Prop's inference covers the auxiliary state too: its shape and dtype are checked
    with pytest.raises(ValueError, match=r"op 'center': auxiliary state 'running_mean' has shape \[3\], "
                                         r"infer_shape expects \[2\]"):
        mx.nd.Custom(x, mx.nd.zeros((3,), dtype=np.float64), op_type="center")
    with pytest.raises(ValueError, match=r"op 'center': auxiliary state 'running_mean' has dtype float32, "
                                         r"infer_type expects float64"):
        mx.nd.Custom(x, mx.nd.zeros((2,)), op_type="center")


def test_mxnet_gradients_from_several_ops_accumulate():
    x = mx.nd.array([0.5, -1.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid") + mx.nd.Custom(x, op_type="scale", factor=3)
    y.backward()
    s = _sigmoid(np.array([0.5, -1.0]))
    np.testing.assert_allclose(x.grad.asnumpy(), s * (1 - s) + 3.0, rtol=1e-5)

    z = mx.nd.array([1.0, 2.0])
    z.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            out = mx.nd.Custom(z, op_type="scale", factor=2.5)
        out.backward()
    np.testing.assert_allclose(z.grad.asnumpy(), [5.0, 5.0])


def test_mxnet_keyword_arguments_reach_the_prop_as_strings():
    y = mx.nd.Custom(mx.nd.array([1.0, 2.0]), op_type="scale", factor=0.5)
    np.testing.assert_allclose(y.asnumpy(), [0.5, 1.0])
    mx.nd.waitall()


def test_mxnet_record_pause_and_flags():
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    x = mx.nd.array([1.0])
    x.attach_grad()
    with mx.autograd.record():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with mx.autograd.pause():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
            untaped = mx.nd.Custom(x, op_type="sigmoid")
        taped = x * x
    assert not mx.autograd.is_recording()
    with pytest.raises(ValueError, match="not computed inside mx.autograd.record"):
        untaped.backward()
    taped.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0])


class TwoOut(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        self.assign(out_data[0], req[0], x + 1)
        out_data[1][:] = x * 2                                       # slice assignment also counts

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0].asnumpy() + 2 * out_grad[1].asnumpy())


@mx.operator.register("two_out")
class TwoOutProp(mx.operator.CustomOpProp):
    def list_outputs(self):
        return ["plus_one", "twice"]

    def create_operator(self, ctx, shapes, dtypes):
        return TwoOut()


def test_mxnet_op_with_two_outputs_returns_a_list():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        a, b = mx.nd.Custom(x, op_type="two_out")
        total = a * 3.0 + b
    np.testing.assert_allclose(a.asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(b.asnumpy(), [2.0, 4.0])
    total.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [5.0, 5.0])


def test_mxnet_nd_array_defaults_to_float32():
    assert mx.nd.array([1, 2]).dtype is np.float32
    assert mx.nd.array(np.ones(2)).dtype is np.float32                     # as mx.nd.array does
    assert mx.nd.array(np.ones(2), dtype=np.float64).dtype is np.float64
    assert mx.nd.array(mx.nd.array(np.ones(2), dtype=np.float64)).dtype is np.float64


class Remembers(mx.operator.CustomOp):
    """Keeps the forward's input on self for its backward, as MXNet code often does."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.saved = in_data[0].asnumpy().copy()
        self.assign(out_data[0], req[0], self.saved ** 2)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * self.saved * out_grad[0].asnumpy())


@mx.operator.register("remembers")
class RemembersProp(mx.operator.CustomOpProp):
    created = []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return out_grad                                           # the rest is kept on the operator

    def create_operator(self, ctx, shapes, dtypes):
        RemembersProp.created.append((ctx, shapes, dtypes))
        return Remembers()


def test_mxnet_one_operator_per_signature_serves_forward_and_backward():
    RemembersProp.created.clear()
    for data in ([1.0, 2.0], [3.0, -1.0], [0.5, 4.0]):
        x = mx.nd.array(data)
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(x, op_type="remembers")
        y.backward()
        np.testing.assert_allclose(x.grad.asnumpy(), 2 * np.array(data))
    assert RemembersProp.created == [(mx.cpu(0), [[2]], [np.float32])]     # ctx is a Context, as in MXNet
    mx.nd.Custom(mx.nd.array([[1.0]]), op_type="remembers")                   # a new signature
    assert len(RemembersProp.created) == 2 and RemembersProp.created[1][1] == [[1, 1]]


# ================================================================== MXNet style: bad input
def _register(name, forward=None, infer_shape=None, arguments=("data",), backward=None):
    class Op(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            forward(self, req, in_data, out_data)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            backward(self, req, out_grad, in_grad)

    class Prop(mx.operator.CustomOpProp):
        def list_arguments(self):
            return list(arguments)

        def create_operator(self, ctx, shapes, dtypes):
            return Op()

    if infer_shape is not None:
        Prop.infer_shape = lambda self, in_shape: infer_shape(in_shape)
    mx.operator.register(name)(Prop)


def test_mxnet_unknown_op_type_names_close_matches():
    with pytest.raises(ValueError, match=r"no custom op registered with op_type='sigmod'; did you mean 'sigmoid'"):
        mx.nd.Custom(mx.nd.array([1.0]), op_type="sigmod")
    with pytest.raises(TypeError, match="op_type=... is required"):
        mx.nd.Custom(mx.nd.array([1.0]))


def test_mxnet_forward_of_the_wrong_shape_is_caught():
    _register("bad_shape", forward=lambda self, req, i, o: self.assign(o[0], req[0], np.zeros(5)))
    y = mx.nd.Custom(mx.nd.array([1.0, 2.0, 3.0]), op_type="bad_shape")
    with pytest.raises(mx.MXNetError, match=r"op 'bad_shape': assigned an array of shape \[5\] to output 'output', "
                                            r"whose inferred shape is \[3\]"):
        y.asnumpy()


def test_mxnet_slice_assignment_of_the_wrong_shape_is_caught():
    def forward(self, req, i, o):
        o[0][:] = np.zeros(4)
    _register("bad_slice", forward=forward)
    y = mx.nd.Custom(mx.nd.array([1.0, 2.0]), op_type="bad_slice")
    with pytest.raises(mx.MXNetError, match=r"op 'bad_slice': could not write into output 'output', whose inferred "
                                            r"shape is \[2\]"):
        y.wait_to_read()


def test_mxnet_errors_raised_inside_forward_name_the_op():
    def forward(self, req, i, o):
        raise KeyError("missing")
    _register("raises", forward=forward)
    y = mx.nd.Custom(mx.nd.array([1.0]), op_type="raises")       # returns; the error waits for a sync point
    with pytest.raises(mx.MXNetError, match=r"op 'raises': Op.forward raised KeyError: 'missing'") as info:
        mx.nd.waitall()
    assert isinstance(info.value.__cause__, KeyError)
    y.wait_to_read()                                              # reported once, by waitall


def test_mxnet_forward_that_never_assigns_is_caught():
    _register("lazy", forward=lambda self, req, i, o: None)
    y = mx.nd.Custom(mx.nd.array([1.0]), op_type="lazy")
    with pytest.raises(mx.MXNetError, match=r"op 'lazy': forward\(\) did not write output\(s\) \['output'\]"):
        y.asnumpy()


def test_mxnet_assign_with_an_unknown_req():
    _register("bad_req", forward=lambda self, req, i, o: self.assign(o[0], "overwrite", i[0]))
    y = mx.nd.Custom(mx.nd.array([1.0]), op_type="bad_req")
    with pytest.raises(mx.MXNetError, match=r"op 'bad_req': assign got req 'overwrite'; expected one of "
                                            r"\['write', 'inplace', 'add', 'null'\]"):
        y.asnumpy()


@pytest.mark.parametrize("req, expected", [("write", [3.0]), ("inplace", [3.0]), ("add", [4.0]), ("null", [1.0])])
def test_mxnet_assign_reqs(req, expected):
    op = mx.operator.CustomOp()
    dst = mx.nd.array([1.0])
    op.assign(dst, req, mx.nd.array([3.0]))
    np.testing.assert_allclose(dst.asnumpy(), expected)


def test_mxnet_infer_shape_with_the_wrong_number_of_lists():
    _register("one_list", forward=lambda self, req, i, o: self.assign(o[0], req[0], i[0]),
              infer_shape=lambda in_shape: (in_shape,))
    with pytest.raises(ValueError, match=r"op 'one_list': CustomOpProp.infer_shape must return "
                                         r"\(in_shapes, out_shapes\) or \(in_shapes, out_shapes, aux_shapes\), "
                                         r"got 1 list\(s\)"):
        mx.nd.Custom(mx.nd.array([1.0]), op_type="one_list")


def test_mxnet_infer_shape_that_disagrees_with_an_input():
    _register("wants_two", forward=lambda self, req, i, o: self.assign(o[0], req[0], i[0]),
              infer_shape=lambda in_shape: ([[2]], [[2]], []))
    with pytest.raises(ValueError, match=r"op 'wants_two': argument 'data' has shape \[3\], infer_shape "
                                         r"expects \[2\]"):
        mx.nd.Custom(mx.nd.array([1.0, 2.0, 3.0]), op_type="wants_two")


def test_mxnet_declare_backward_dependency_with_an_unknown_id():
    class Prop(mx.operator.CustomOpProp):
        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return [0, 7]

    mx.operator.register("bad_deps")(Prop)
    with pytest.raises(ValueError, match=r"op 'bad_deps': declare_backward_dependency must return ids it was "
                                         r"given \(out_grad \[0\], in_data \[1\], out_data \[2\]\), got \[0, 7\]"):
        mx.nd.Custom(mx.nd.array([1.0]), op_type="bad_deps")


def test_mxnet_argument_count_must_match_the_inputs():
    with pytest.raises(TypeError, match=r"op 'dense': list_arguments\(\) names 3 argument\(s\) "
                                        r"\['data', 'weight', 'bias'\], so it takes 3 input\(s\); got 2"):
        mx.nd.Custom(mx.nd.array([[1.0]]), mx.nd.array([[1.0]]), op_type="dense")


def test_mxnet_backward_of_the_wrong_shape_is_caught():
    _register("bad_grad", forward=lambda self, req, i, o: self.assign(o[0], req[0], i[0]),
              backward=lambda self, req, og, ig: self.assign(ig[0], req[0], np.ones(4)))
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="bad_grad")
    y.backward()
    with pytest.raises(mx.MXNetError, match=r"op 'bad_grad': assigned an array of shape \[4\] to the gradient "
                                            r"of 'data', whose inferred shape is \[2\]"):
        x.grad.wait_to_read()


# ================================================================== minpy style
@customop("numpy")
def my_softmax(x, y):
    """Mean cross entropy of softmax(x) against integer labels y."""
    probs = np.exp(x - x.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return -np.sum(np.log(probs[np.arange(len(y)), y])) / len(y)


def my_softmax_grad(ans, x, y):
    def grad(g):
        probs = np.exp(x - x.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        probs[np.arange(len(y)), y] -= 1
        return g * probs / len(y)
    return grad


my_softmax.def_grad(my_softmax_grad)


def test_minpy_softmax_example_from_the_issue():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((5, 3)), np.array([0, 2, 1, 1, 0])
    assert my_softmax.__name__ == "my_softmax" and "cross entropy" in my_softmax.__doc__
    dx = grad(my_softmax)(x, y)
    (num,) = numeric_grad(lambda t: my_softmax(t, y), ms.Tensor(x))
    np.testing.assert_allclose(dx.asnumpy(), num, rtol=1e-5, atol=1e-8)
    dx2, loss = grad_and_loss(my_softmax)(x, y)
    np.testing.assert_allclose(dx2.asnumpy(), dx.asnumpy())
    np.testing.assert_allclose(float(loss), my_softmax._fn(x, y))
    # composes with mscustom ops: the chain rule runs through the core's tape
    d_scaled = grad(lambda a, b: my_softmax(a * 2.0, b))(x, y)
    np.testing.assert_allclose(d_scaled.asnumpy(), 2 * grad(my_softmax)(2 * x, y).asnumpy(), rtol=1e-6)


@customop("numpy")
def weighted_product(a, b, scale):
    return a * b * scale


weighted_product.def_grad(lambda ans, a, b, scale: lambda g: g * b * scale, argnum=0)
weighted_product.def_grad(lambda ans, a, b, scale: lambda g: g * a * scale, argnum=1)


def test_minpy_several_def_grads_and_scalar_arguments():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    da, db = grad(weighted_product, argnum=[0, 1])(a, b, 2.0)
    np.testing.assert_allclose(da.asnumpy(), b * 2.0)
    np.testing.assert_allclose(db.asnumpy(), a * 2.0)
    (dt,) = grad(weighted_product, argnum=[0])(ms.Tensor(a), ms.Tensor(b), 2.0)     # Tensors too
    np.testing.assert_allclose(dt.asnumpy(), b * 2.0)
    check_grad(lambda p, q: weighted_product(p, q, 2.0), ms.Tensor(a), ms.Tensor(b))


def test_minpy_gradient_for_an_argument_without_def_grad():
    with pytest.raises(RuntimeError, match=r"op 'weighted_product': no gradient for argument 2 \('scale'\); "
                                           r"register one with weighted_product.def_grad\(fn, argnum=2\)"):
        grad(weighted_product, argnum=2)(np.ones(2), np.ones(2), np.array(2.0))


def test_minpy_def_grad_beyond_the_arguments():
    with pytest.raises(ValueError, match=r"op 'my_softmax': def_grad argnum=2 is beyond its 2 argument\(s\) "
                                         r"\(x, y\)"):
        my_softmax.def_grad(my_softmax_grad, argnum=2)
    with pytest.raises(ValueError, match="customop: the array kind must be one of"):
        customop("torch")


def test_minpy_mxnet_kind_gets_framework_tensors():
    seen = []

    @customop("mxnet")
    def cube(x):
        seen.append(type(x))
        return x * x * x

    cube.def_grad(lambda ans, x: lambda g: g * 3 * x * x)
    d = grad(cube)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(d.asnumpy(), [3.0, 12.0])
    assert seen and all(t is ms.Tensor for t in seen)


def test_minpy_errors_inside_the_function_name_the_op():
    @customop("numpy")
    def broken(x):
        raise KeyError("nope")

    with pytest.raises(RuntimeError, match="op 'broken': the function raised KeyError") as info:
        broken(np.ones(2))
    assert isinstance(info.value.__cause__, KeyError)


# ================================================================== NNVM style
def _register_my_abs():
    op = (ops.register_op("my_abs")
          .describe("Elementwise |x|; the output may reuse the input's memory.")
          .set_num_inputs(1)
          .add_argument("data", "Tensor", "input")
          .set_attr("FInferShape", lambda attrs, shapes: (shapes, [shapes[0]]))
          .set_attr("FInferType", lambda attrs, types: (types, [types[0]]))
          .set_attr("FCompute<cpu>", lambda attrs, ins, req, outs: np.abs(ins[0], out=outs[0]))
          .set_attr("FGradient", lambda inputs, outputs, ograds, attrs: [ograds[0] * ops.sign(inputs[0])])
          .set_attr("FInplaceOption", lambda attrs: [(0, 0)]))
    return op


def test_nnvm_style_abs():
    op = _register_my_abs()
    assert ops.get_op("my_abs") is op
    x = ms.Tensor(np.array([-2.0, 0.5, 3.0]))
    np.testing.assert_allclose(op(x).asnumpy(), [2.0, 0.5, 3.0])
    assert op.get_attr("FInplaceOption")({}) == [(0, 0)]
    (g,) = check_grad(op, x)
    np.testing.assert_allclose(g, [-1.0, 1.0, 1.0])
    with pytest.raises(TypeError, match=r"op 'my_abs' takes 1 input\(s\) \(data\), got 2"):
        op(x, x)


# ================================================================== one operator, every style
def _sigmoid_custom():
    grad_op = ops.Custom(lambda y, d: d * y * (1 - y), lambda y, d: y, lambda y, d: y)
    return ops.Custom(_sigmoid, lambda x: x, lambda x: x, bprop=lambda x, out, dout: (grad_op(out, dout),))


def _sigmoid_nnvm():
    return (ops.register_op("nnvm_sigmoid").set_num_inputs(1)
            .set_attr("FComputeAlloc<cpu>", lambda attrs, ins: _sigmoid(ins[0]))
            .set_attr("FGradient", lambda inputs, outputs, ograds, attrs:
                      [ograds[0] * outputs[0] * (1.0 - outputs[0])]))


@customop("numpy")
def minpy_sigmoid(x):
    return _sigmoid(x)


minpy_sigmoid.def_grad(lambda ans, x: lambda g: g * ans * (1 - ans))


def test_minpy_op_used_twice_with_mscustom_ops_around_it():
    x = np.array([-0.7, 0.2, 1.5])
    fn = lambda a: minpy_sigmoid(a) * minpy_sigmoid(a * 2.0) + a           # noqa: E731
    check_grad(fn, ms.Tensor(x), rtol=1e-6, atol=1e-9)
    (dx, dy), loss = grad_and_loss(lambda a, b: (minpy_sigmoid(a) * b).sum(), argnum=[0, 1])(x, x)
    s = _sigmoid(x)
    np.testing.assert_allclose(dx.asnumpy(), s * (1 - s) * x, rtol=1e-12)
    np.testing.assert_allclose(dy.asnumpy(), s, rtol=1e-12)
    np.testing.assert_allclose(float(loss), (s * x).sum(), rtol=1e-12)


def test_softmax_cross_entropy_agrees_between_mxnet_and_minpy():
    rng = np.random.default_rng(3)
    data, label = rng.standard_normal((6, 4)), np.array([3, 0, 1, 1, 2, 0])
    x = mx.nd.array(data, dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        probs = mx.nd.Custom(x, mx.nd.array(label), op_type="softmax")
    probs.backward()
    # the MXNet loss layer gives the gradient of the summed loss, minpy's my_softmax the mean's
    np.testing.assert_allclose(x.grad.asnumpy(), len(label) * grad(my_softmax)(data, label).asnumpy(), rtol=1e-12)


def test_the_same_sigmoid_in_every_style():
    data = np.array([-1.5, 0.0, 2.0])
    expected_y, expected_g = _sigmoid(data), _sigmoid(data) * (1 - _sigmoid(data))
    custom, nnvm = _sigmoid_custom(), _sigmoid_nnvm()
    for fn in (custom, nnvm, minpy_sigmoid):
        t = ms.Tensor(data)
        np.testing.assert_allclose(fn(t).asnumpy(), expected_y, rtol=1e-12)
        np.testing.assert_allclose(ms.grad(lambda v: fn(v).sum())(t).asnumpy(), expected_g, rtol=1e-12)
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid")
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), expected_g, rtol=1e-5)      # float32 in MXNet
    # an MXNet-registered op is a core op: ms.grad differentiates it too
    # (its forward builds mx.nd.array(...), float32 as in MXNet, so float64 data loses digits there)
    g = ms.grad(lambda t: mx.nd.Custom(t, op_type="sigmoid").sum())(ms.Tensor(data))
    assert g.dtype == ms.float64
    np.testing.assert_allclose(g.asnumpy(), expected_g, rtol=1e-6)
