"""mx.util's NumPy-semantics switches, Cast, and the array constructors in the profiler (MXNet 1.9.1's behaviour)."""

import json

import numpy as np
import pytest

from mscustom.compat import mxnet as mx


def test_use_np_scopes_functions_classes_and_properties():
    assert mx.use_np is mx.util.use_np
    assert (mx.is_np_shape(), mx.is_np_array()) == (False, False)

    @mx.use_np
    def f():
        return mx.is_np_shape(), mx.is_np_array()

    @mx.use_np
    class A:
        def m(self):
            return mx.is_np_array()

        @property
        def p(self):
            return mx.is_np_shape()

        @staticmethod
        def s():
            return mx.is_np_array()

    assert f() == (True, True) and (A().m(), A().p, A.s()) == (True, True, True)
    assert (mx.is_np_shape(), mx.is_np_array()) == (False, False)
    assert mx.set_np_shape(True) is False and mx.is_np_shape() and mx.set_np_shape(False) is True
    with mx.np_array(True):
        assert mx.is_np_array()
    assert not mx.is_np_array()
    mx.util.set_np()
    assert (mx.is_np_shape(), mx.is_np_array()) == (True, True)
    mx.util.reset_np()
    assert (mx.is_np_shape(), mx.is_np_array()) == (False, False)
    with pytest.raises(ValueError, match="NumPy Shape semantics is required in using NumPy array semantics."):
        mx.util.set_np(shape=False, array=True)
    with pytest.raises(TypeError, match="use_np_array can only decorate classes and callable objects"):
        mx.util.use_np(3)


def test_cast_symbol_and_ndarray():
    x = mx.sym.Variable("x")
    y = mx.sym.cast(x, dtype="float64") * 2
    assert y.infer_type(x=np.float32)[1] == [np.float64]
    exe = y.bind(mx.cpu(), {"x": mx.nd.array([1.5, 2.0])}, args_grad={"x": mx.nd.zeros((2,))})
    out = exe.forward(is_train=True)[0]
    assert out.dtype == np.float64 and out.asnumpy().tolist() == [3.0, 4.0]
    exe.backward(mx.nd.ones((2,), dtype="float64"))
    assert exe.grad_dict["x"].dtype == np.float32 and exe.grad_dict["x"].asnumpy().tolist() == [2.0, 2.0]
    assert mx.sym.load_json(y.tojson()).infer_type(x=np.float32)[1] == [np.float64]
    a = mx.nd.array([1.7, -2.2])
    a.attach_grad()
    with mx.autograd.record():
        b = mx.nd.cast(a, "int32")
    assert b.dtype == np.int32 and b.asnumpy().tolist() == [1, -2]          # MXNet truncates toward zero
    with pytest.raises(TypeError, match="sym.Cast: dtype=... is required"):
        mx.sym.Cast(x)


def test_constructors_inside_a_custom_op_are_profiled_under_mxnets_names(tmp_path):
    class Make(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            mx.nd.zeros((2,))
            mx.nd.ones((2,))
            mx.nd.full((2,), 3.0)
            mx.nd.arange(3)
            self.assign(out_data[0], req[0], in_data[0])

    @mx.operator.register("prof_make")
    class MakeProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Make()

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=str(tmp_path / "p.json"))
    mx.profiler.set_state("run")
    try:
        mx.profiler.dumps(reset=True)
        mx.nd.Custom(mx.nd.ones((2,)), op_type="prof_make").wait_to_read()
        mx.nd.zeros((1,))
        stats = json.loads(mx.profiler.dumps(format="json"))
    finally:
        mx.profiler.set_state("stop")
        mx.profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")
    custom = stats["Time"]["Custom Operator"]
    assert {"prof_make::pure_python", "prof_make::_zeros", "prof_make::_ones", "prof_make::_full",
            "prof_make::_arange"} <= set(custom)
    assert set(custom["prof_make::_zeros"]) == {"Count", "Total", "Min", "Max", "Avg"}
    assert stats["Time"]["operator"]["_zeros"]["Count"] == 1
