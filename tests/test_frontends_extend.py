"""Every front end builds its OpDefs through ``mscustom.extend``: one extension surface.

Each front end's op records who defined it (``extend.frontend_of``), and a
spy on ``extend.def_op`` / ``def_kernel`` sees the front end call them.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import extend, ops
from mscustom.compat import minpy
from mscustom.compat import mxnet as mx


@pytest.fixture
def spy(monkeypatch):
    """Record the front end of every ``def_op`` call and the op of every ``def_kernel`` call."""
    seen = {"def_op": [], "def_kernel": []}
    def_op, def_kernel = extend.def_op, extend.def_kernel

    def spy_def_op(*args, **kwargs):
        op = def_op(*args, **kwargs)
        seen["def_op"].append((op.name, kwargs.get("frontend", "extend")))
        return op

    def spy_def_kernel(op, *args, **kwargs):
        seen["def_kernel"].append(op.name)
        return def_kernel(op, *args, **kwargs)

    monkeypatch.setattr(extend, "def_op", spy_def_op)
    monkeypatch.setattr(extend, "def_kernel", spy_def_kernel)
    return seen


class _Double(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 2)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 2)


class _DoubleProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Double()


def test_mxnet_custom_op_prop_builds_both_opdefs_through_extend(spy):
    mx.operator.register("frontends_double")(type("DoubleProp", (_DoubleProp,), {}))   # a fresh op type
    fwd, bwd = mx.operator.opdefs("frontends_double")
    assert extend.frontend_of(fwd) == "mxnet" and extend.frontend_of(bwd) == "mxnet"
    assert ("frontends_double", "mxnet") in spy["def_op"]
    assert ("_backward_frontends_double", "mxnet") in spy["def_op"]
    assert spy["def_kernel"].count("frontends_double") == 1 and spy["def_kernel"].count("_backward_frontends_double") == 1
    # the NNVM attribute names are filled as set_attr would, and the op works end to end
    assert {"FInferShape", "FInferType", "FCompute<cpu>", "FCompute<gpu>", "FGradient"} <= set(fwd.attrs)
    x = mx.nd.array(np.array([1.0, -2.0]))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="frontends_double")
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), [2.0, -4.0])
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 2.0])


def test_minpy_customop_and_def_grad_build_through_extend(spy):
    @minpy.primitive.customop("numpy")
    def frontends_cube(x):
        return x ** 3

    frontends_cube.def_grad(lambda ans, x: lambda g: g * 3 * x * x)
    assert extend.frontend_of(frontends_cube._op) == "minpy"
    assert extend.frontend_of(frontends_cube._grad_ops[0]) == "minpy"
    assert [n for n, f in spy["def_op"] if f == "minpy"] == ["frontends_cube", "frontends_cube_grad0"]
    assert spy["def_kernel"] == ["frontends_cube", "frontends_cube_grad0"]
    dx = minpy.core.grad(frontends_cube)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(dx.asnumpy(), [3.0, 12.0])


def test_nnvm_register_op_builds_through_extend(spy):
    op = (ops.register_op("frontends_nnvm_abs").set_num_inputs(1)
          .set_attr("FCompute<cpu>", lambda attrs, ins, req, outs: np.abs(ins[0], out=outs[0])))
    assert extend.frontend_of(op) == "nnvm"
    assert ("frontends_nnvm_abs", "nnvm") in spy["def_op"]
    assert ops.get_op("frontends_nnvm_abs") is op
    np.testing.assert_allclose(op(ms.Tensor([-1.0, 2.0])).asnumpy(), [1.0, 2.0])


def test_an_op_made_through_extend_directly_says_so():
    op = extend.def_op("frontends_plain", register=False)
    assert extend.frontend_of(op) == "extend"


def test_def_op_takes_a_count_of_inputs_and_refuses_a_bad_one():
    op = extend.def_op("frontends_count", inputs=3, register=False)
    assert op.num_inputs == 3 and op.input_names is None
    with pytest.raises(ValueError, match="def_op of op 'frontends_bad': inputs must be names, a non-negative int"):
        extend.def_op("frontends_bad", inputs=-1, register=False)


def test_def_kernel_with_nnvm_key_replaces_the_kernel_filed_there():
    op = extend.def_op("frontends_key", register=False)
    extend.def_kernel(op, lambda attrs, ins: ins[0] + 1, target="CPU", nnvm_key=True)
    extend.def_kernel(op, lambda attrs, ins: ins[0] + 2, target="CPU", nnvm_key=True)
    assert [k.key for k in op.kernels] == ["FComputeAlloc<cpu>"] and "FComputeAlloc<cpu>" in op.attrs
    assert op(ms.Tensor([1.0])).asnumpy()[0] == 3.0
    with pytest.raises(TypeError, match="def_kernel of op 'frontends_key': the kernel must be callable"):
        extend.def_kernel(op, "not a function")


def test_built_in_ops_are_built_through_extend():
    from mscustom import extend, ops
    for name in ("add", "matmul", "relu", "reduce_sum", "conv2d", "dropout"):
        op = ops.get_op(name)
        assert extend.frontend_of(op) == "builtin", name
        assert all(k.kind == "builtin" for k in op.kernels)
