"""MXNet semantics of the front end: copying asnumpy, Custom's name/out, backward req, deferred errors, stypes."""

import numpy as np
import pytest

from mscustom.compat import mxnet as mx


# ------------------------------------------------------------------ MXNet's classic softmax loss layer
class _Softmax(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
        y /= y.sum(axis=1).reshape((x.shape[0], 1))
        self.assign(out_data[0], req[0], mx.nd.array(y))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().ravel().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(label.shape[0]), label] -= 1.0           # in-place edit of asnumpy(): must be a copy
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("sem_softmax")
class _SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Softmax()


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_asnumpy_is_a_copy_so_the_softmax_backward_leaves_the_forward_output_alone():
    x_np = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], np.float32)
    label = mx.nd.array([1, 2])
    x = mx.nd.array(x_np)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, label, op_type="sem_softmax")
    before = y.asnumpy()
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), before)                     # not corrupted by the backward
    np.testing.assert_allclose(y.asnumpy(), _softmax(x_np), rtol=1e-6)
    expected = _softmax(x_np)
    expected[[0, 1], [1, 2]] -= 1.0
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-5, atol=1e-7)
    a = y.asnumpy()
    a[:] = 7.0
    assert not np.any(y.asnumpy() == 7.0)


def test_custom_name_is_the_op_name_and_out_receives_the_result():
    x = mx.nd.array([[1.0, 2.0]])
    out = mx.nd.zeros((1, 2))
    r = mx.nd.Custom(x, mx.nd.array([0]), op_type="sem_softmax", name="my_softmax", out=out)
    assert r is out
    np.testing.assert_allclose(out.asnumpy(), _softmax(np.array([[1.0, 2.0]])), rtol=1e-6)
    with pytest.raises(TypeError, match=r"op 'sem_softmax': out= must be 1 NDArray"):
        mx.nd.Custom(x, mx.nd.array([0]), op_type="sem_softmax", out=[out, out])


# ------------------------------------------------------------------ req values given to backward
class _Recorder(mx.operator.CustomOp):
    seen = []

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0].asnumpy() * in_data[1].asnumpy())

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _Recorder.seen.append(list(req))
        g = out_grad[0].asnumpy()
        self.assign(in_grad[0], req[0], g * in_data[1].asnumpy())
        self.assign(in_grad[1], req[1], g * in_data[0].asnumpy())


@mx.operator.register("sem_mul")
class _MulProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["a", "b"]

    def create_operator(self, ctx, shapes, dtypes):
        return _Recorder()


def test_backward_req_is_null_for_inputs_without_gradient_and_add_for_grad_req_add():
    a, b = mx.nd.array([2.0, 3.0]), mx.nd.array([5.0, 7.0])
    a.attach_grad()                                      # b needs no gradient
    _Recorder.seen.clear()
    with mx.autograd.record():
        y = mx.nd.Custom(a, b, op_type="sem_mul")
    y.backward()
    assert _Recorder.seen == [["write", "null"]]
    np.testing.assert_allclose(a.grad.asnumpy(), [5.0, 7.0])

    a.attach_grad(grad_req="add")
    b.attach_grad()
    _Recorder.seen.clear()
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.Custom(a, b, op_type="sem_mul")
        y.backward()
    assert _Recorder.seen == [["add", "write"]] * 2
    np.testing.assert_allclose(a.grad.asnumpy(), [10.0, 14.0])          # accumulated over two passes
    np.testing.assert_allclose(b.grad.asnumpy(), [2.0, 3.0])            # overwritten


# ------------------------------------------------------------------ deferred errors
class _Fails(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        out_data[0][:] = 123.0                          # half-written before failing
        raise ValueError("the kernel found a NaN")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise ValueError("backward went wrong")


@mx.operator.register("sem_fails")
class _FailsProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Fails()


def test_forward_error_surfaces_as_mxneterror_at_wait_to_read_and_out_is_not_half_written():
    out = mx.nd.array([1.0, 2.0])
    y = mx.nd.Custom(mx.nd.array([0.0, 0.0]), op_type="sem_fails", out=out)      # returns at once
    assert y is out and y.shape == (2,)
    with pytest.raises(mx.base.MXNetError, match=r"op 'sem_fails': _Fails.forward raised ValueError: "
                                                 r"the kernel found a NaN") as info:
        out.wait_to_read()
    assert isinstance(info.value.__cause__, ValueError)
    np.testing.assert_array_equal(out.asnumpy(), [1.0, 2.0])          # reported once, old data intact
    mx.nd.waitall()                                                    # nothing pending any more


def test_forward_error_surfaces_at_waitall_and_using_the_result_raises_too():
    y = mx.nd.Custom(mx.nd.array([0.0]), op_type="sem_fails")
    z = mx.nd.Custom(mx.nd.array([0.0]), op_type="sem_fails")
    with pytest.raises(mx.MXNetError, match="the kernel found a NaN"):
        y + 1.0
    with pytest.raises(mx.MXNetError, match="the kernel found a NaN"):
        mx.nd.waitall()
    z.asnumpy()                                                        # cleared by waitall


def test_backward_error_surfaces_at_the_gradient_and_leaves_it_untouched():
    @mx.operator.register("sem_fails_back")
    class Prop(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            class Op(mx.operator.CustomOp):
                def forward(self, is_train, req, in_data, out_data, aux):
                    self.assign(out_data[0], req[0], in_data[0])

                def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
                    raise ValueError("backward went wrong")
            return Op()

    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    x.grad[:] = 5.0
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sem_fails_back")
    y.backward()
    with pytest.raises(mx.MXNetError, match="backward went wrong"):
        x.grad.asnumpy()
    np.testing.assert_array_equal(x.grad.asnumpy(), [5.0, 5.0])


def test_errors_found_before_running_are_raised_at_once():
    with pytest.raises(ValueError, match="no custom op registered"):
        mx.nd.Custom(mx.nd.array([1.0]), op_type="sem_nope")


# ------------------------------------------------------------------ storage types
def test_storage_types_are_named_and_unknown_ones_refused():
    x = mx.nd.array([1.0, 2.0])
    assert x.stype == "default"
    assert x.tostype("default").stype == "default"
    assert x.tostype("row_sparse").stype == "row_sparse"          # sparse storage: tests/test_compat_mxnet_sparse.py
    with pytest.raises(ValueError, match="To convert to a CSR, the NDArray should be 2 Dimensional"):
        x.tostype("csr")
    with pytest.raises(ValueError, match="NDArray.tostype: unknown storage type 'dense'"):
        x.tostype("dense")

    @mx.operator.register("sem_sparse")
    class Prop(mx.operator.CustomOpProp):
        def infer_storage_type(self, in_stype):
            return in_stype, ["compressed"], []

        def create_operator(self, ctx, shapes, dtypes):
            return _Fails()

    with pytest.raises(ValueError, match=r"op 'sem_sparse': infer_storage_type: unknown storage type 'compressed'"):
        mx.nd.Custom(x, op_type="sem_sparse")
    assert mx.operator.CustomOpProp().infer_storage_type(["default"]) == (["default"], ["default"], [])


# ------------------------------------------------------------------ everyday names
def test_nd_math_matches_numpy_and_is_differentiable():
    a_np = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b_np = np.array([[0.5, -1.0], [2.0, 1.0]], np.float32)
    a, b = mx.nd.array(a_np), mx.nd.array(b_np)
    checks = [(mx.nd.exp(a), np.exp(a_np)), (mx.nd.log(a), np.log(a_np)), (mx.nd.divide(a, b), a_np / b_np),
              (mx.nd.dot(a, b), a_np @ b_np), (mx.nd.dot(a, b, transpose_a=True), a_np.T @ b_np),
              (mx.nd.sum(a, axis=1), a_np.sum(1)), (mx.nd.relu(b), np.maximum(b_np, 0)),
              (mx.nd.sigmoid(b), 1 / (1 + np.exp(-b_np))), (mx.nd.broadcast_add(a, mx.nd.array([1.0, 2.0])),
                                                             a_np + [1.0, 2.0]),
              (mx.nd.broadcast_mul(a, mx.nd.array([[2.0], [3.0]])), a_np * [[2.0], [3.0]]),
              (mx.nd.zeros_like(a), np.zeros_like(a_np)), (mx.nd.ones_like(a), np.ones_like(a_np)),
              (mx.nd.linalg.gemm2(a, b, transpose_b=True), a_np @ b_np.T),
              (mx.nd.linalg.gemm(a, b, a, alpha=2.0, beta=0.5), 2 * a_np @ b_np + 0.5 * a_np),
              (mx.nd.clip(b, -0.5, 1.5), np.clip(b_np, -0.5, 1.5)), (mx.nd.softmax(a), _softmax(a_np))]
    for got, want in checks:
        assert isinstance(got, mx.nd.NDArray)
        mx.test_utils.assert_almost_equal(got, want.astype(np.float32), rtol=1e-5, atol=1e-6)
    assert mx.nd.zeros((2, 3)).dtype is np.float32 and mx.nd.ones((2,), dtype="float64").dtype is np.float64
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sum(mx.nd.exp(a) * b)
    y.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), np.exp(a_np) * b_np, rtol=1e-5)


def test_contexts_copies_and_test_utils():
    x = mx.nd.array([1.0, 2.0], ctx=mx.cpu())
    assert x.context == mx.cpu(0) and str(x.context) == "cpu(0)"
    g = x.copyto(mx.gpu(0))
    assert g.context == mx.gpu(0) and g.context.device_type == "gpu" and mx.gpu().target == "GPU"
    assert x.as_in_context(mx.cpu()) is x
    y = mx.nd.zeros((2,))
    x.copyto(y)
    np.testing.assert_array_equal(y.asnumpy(), [1.0, 2.0])
    with mx.gpu(0):
        assert mx.current_context() == mx.gpu(0)
    assert mx.current_context() == mx.cpu()
    assert mx.test_utils.default_context() == mx.cpu()
    mx.test_utils.set_default_context(mx.gpu(0))
    assert mx.test_utils.default_device() == mx.gpu(0)
    mx.test_utils.set_default_context(mx.cpu())
    assert mx.test_utils.almost_equal(np.array([1.0]), np.array([1.0 + 1e-7]))
    assert not mx.test_utils.almost_equal(np.array([1.0]), np.array([1.1]))
    with pytest.raises(AssertionError, match=r"error .* exceeds tolerance at \(1,\)"):
        mx.test_utils.assert_almost_equal(np.array([1.0, 2.0]), np.array([1.0, 2.5]), names=("got", "want"))
    mx.random.seed(3)
    r1 = mx.nd.random.uniform(0, 1, shape=(3,)).asnumpy()
    mx.random.seed(3)
    np.testing.assert_array_equal(mx.nd.random.uniform(0, 1, shape=(3,)).asnumpy(), r1)
    x.wait_to_read()
    assert x.shape == (2,) and x.dtype is np.float32 and (x + 1).asnumpy().tolist() == [2.0, 3.0]


def test_device_scope_switches_the_target_and_imports_nothing_per_step(monkeypatch):
    import builtins

    import mscustom as ms
    from mscustom.compat.mxnet.context import device_scope

    assert ms.get_context("device_target") == "CPU"
    with device_scope(mx.gpu(0)):
        assert ms.get_context("device_target") == "GPU"
    assert ms.get_context("device_target") == "CPU"
    imports = []
    real_import = builtins.__import__

    def counting_import(*args, **kwargs):
        imports.append(args[0])
        return real_import(*args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", counting_import)
    with device_scope(mx.cpu()):                    # executors enter one of these per forward and backward
        pass
    monkeypatch.undo()
    assert imports == []
