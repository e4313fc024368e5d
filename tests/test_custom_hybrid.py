"""func_type="hybrid": MindSpore's hybrid DSL run as Python, compiled by Numba, with derived gradients."""

import inspect

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import kernel
from mscustom.ops.custom.hybrid import HybridSyntaxError
from mscustom.ops.custom.hybrid.shapes import output_meta
from mscustom.testing import check_grad

import hybrid_bad_kernels as bad
import hybrid_kernels as hk


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    return {
        "a": rng.standard_normal((3, 4)), "b": rng.standard_normal((3, 4)),
        "m": rng.standard_normal((3, 5)), "n": rng.standard_normal((5, 2)),
        "u": rng.standard_normal(3), "v": rng.standard_normal(4),
        "p": rng.uniform(0.5, 1.5, 5), "q": rng.uniform(0.5, 2.0, 5),
    }


def T(x):
    return ms.Tensor(x)


# ---------------------------------------------------------------- (a) direct execution
def test_direct_call_runs_as_python_without_importing_dsl_names(data):
    a, b = data["a"], data["b"]
    np.testing.assert_allclose(hk.add(a, b), a + b)
    np.testing.assert_allclose(hk.mul(a, b), a * b)           # grid index tuples
    m, n = data["m"], data["n"]
    np.testing.assert_allclose(hk.matmul(m, n), m @ n)
    assert "output_tensor" not in vars(hk)                      # the user's module is not patched


def test_documented_outer_product_example(data):
    a, b = data["m"], data["n"]
    expect = np.sin(2 * a[:, :, None] * b[None, :, :]).sum(axis=1)
    np.testing.assert_allclose(hk.outer_product(a, b), expect, rtol=1e-12)
    out = ops.Custom(hk.outer_product)(T(a), T(b))               # default func_type for @kernel: hybrid
    np.testing.assert_allclose(out.asnumpy(), expect, rtol=1e-12)


def test_direct_call_does_not_modify_the_callers_array():
    x = np.arange(4.0)
    res = hk.scale_in_place(x)
    np.testing.assert_array_equal(x, np.arange(4.0))
    np.testing.assert_array_equal(res, 3 * np.arange(4.0))


# ---------------------------------------------------------------- (b) inference
def test_output_inference_is_symbolic():
    # 10^6 x 10^6 float64 outputs would take 8 TB: the declarations are evaluated, nothing runs
    shapes, dtypes = output_meta(hk.matmul.info, [(10**6, 3), (3, 10**6)], ["float64", "float64"])
    assert shapes == [(10**6, 10**6)] and dtypes == ["float64"]
    shapes, dtypes = output_meta(hk.row_sum.info, [(7, 2)], ["float16"])
    assert shapes == [(7, 1)] and dtypes == ["float32"]           # a top-level scalar, a dtype string


def test_custom_infers_shapes_dtypes_and_output_count(data):
    op = ops.Custom(hk.row_sum, func_type="hybrid")
    out = op(T(data["a"].astype(np.float32)))
    assert out.shape == (3, 1) and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy()[:, 0], data["a"].sum(axis=1), rtol=1e-5)
    s, p = ops.Custom(hk.two_outputs)(T(data["p"]), T(data["q"]))
    np.testing.assert_allclose(s.asnumpy(), data["p"] + data["q"])
    np.testing.assert_allclose(p.asnumpy(), data["p"] * data["q"] * (data["p"] + data["q"]))


def test_mindspore_cast_example_with_and_without_infer():
    rng = np.random.default_rng(10)
    x = rng.normal(0, 1, [4, 4]).astype(np.float16)
    y = rng.normal(0, 1, [4, 4]).astype(np.float16)
    expect = hk.dtype_and_cast(x, y)
    for op in (ops.Custom(hk.dtype_and_cast, lambda x, _: x, lambda x, _: x, func_type="hybrid"),
               ops.Custom(hk.dtype_and_cast, func_type="hybrid"),
               ops.Custom(hk.dtype_and_cast, lambda x, _: x, lambda x, _: x, func_type="pyfunc")):
        out = op(T(x), T(y))
        assert out.dtype == ms.float16
        np.testing.assert_allclose(out.asnumpy(), expect, rtol=1e-3, atol=1e-3)


def test_given_out_shape_must_agree_with_the_declarations(data):
    op = ops.Custom(hk.add, out_shape=lambda a, b: [2, 2], out_dtype=lambda a, b: a, func_type="hybrid")
    with pytest.raises(ValueError, match=r"op 'add'.*out_shape.*\[2, 2\].*declares.*\[3, 4\]"):
        op(T(data["a"]), T(data["b"]))


# ---------------------------------------------------------------- (c) compiled kernels
def test_compiled_kernels_match_numpy(data):
    a, b, u, v = data["a"], data["b"], data["u"], data["v"]
    np.testing.assert_allclose(ops.Custom(hk.add)(T(a), T(b)).asnumpy(), a + b)
    np.testing.assert_allclose(ops.Custom(hk.mul)(T(a), T(b)).asnumpy(), a * b)
    np.testing.assert_allclose(ops.Custom(hk.outer)(T(u), T(v)).asnumpy(), np.outer(u, v))
    expect = np.sin(a) * np.exp(b * 0.5) + np.tanh(a * b) - np.sqrt(b * b + 1)
    np.testing.assert_allclose(ops.Custom(hk.sin_exp)(T(a), T(b)).asnumpy(), expect, rtol=1e-12)


def test_akg_accepts_an_undecorated_dsl_function_with_if():
    x = np.array([-1.0, 0.5, 2.0, 0.0])
    out = ops.Custom(hk.clip_relu, func_type="akg")(T(x))
    np.testing.assert_allclose(out.asnumpy(), np.clip(x, 0, 1))


def test_in_place_kernel_leaves_the_input_tensor_alone():
    x = T(np.arange(4.0))
    out = ops.Custom(hk.scale_in_place)(x)
    np.testing.assert_array_equal(out.asnumpy(), 3 * np.arange(4.0))
    np.testing.assert_array_equal(x.asnumpy(), np.arange(4.0))


def test_hybrid_kernel_inside_a_cell_and_usage_stats(data):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = ops.Custom(hk.matmul, func_type="hybrid")

        def construct(self, x, y):
            return self.op(x, y)

    net = Net()
    out = net(T(data["m"]), T(data["n"]))
    np.testing.assert_allclose(out.asnumpy(), data["m"] @ data["n"])
    assert [(s.kind, s.calls) for s in net.op.kernel_stats() if s.calls] == [("hybrid", 1)]


# ---------------------------------------------------------------- gradients without a bprop
@pytest.mark.parametrize("name", ["add", "mul", "sin_exp"])
def test_gradient_of_elementwise_kernels(data, name):
    op = ops.Custom(getattr(hk, name))
    check_grad(lambda x, y: op(x, y), T(data["a"]), T(data["b"]))


def test_gradient_of_outer_product_and_documented_example(data):
    op = ops.Custom(hk.outer)
    check_grad(lambda x, y: op(x, y), T(data["u"]), T(data["v"]))
    doc = ops.Custom(hk.outer_product)                             # a temporary written in the loop nest
    check_grad(lambda x, y: doc(x, y), T(data["m"]), T(data["n"]))


def test_gradient_of_matmul_reduction(data):
    op = ops.Custom(hk.matmul)
    gm, gn = check_grad(lambda x, y: op(x, y), T(data["m"]), T(data["n"]))
    np.testing.assert_allclose(gm, np.ones((3, 2)) @ data["n"].T)
    np.testing.assert_allclose(gn, data["m"].T @ np.ones((3, 2)))


def test_gradient_of_power_with_a_temporary_buffer(data):
    op = ops.Custom(hk.power_tmp)
    check_grad(lambda x, y: op(x, y), T(data["p"]), T(data["q"]))


def test_gradient_of_a_two_output_kernel(data):
    op = ops.Custom(hk.two_outputs)
    check_grad(lambda x, y: op(x, y), T(data["p"]), T(data["q"]))
    # a weighted sum of both outputs
    ga, gb = ms.grad(lambda x, y: (op(x, y)[0] * 2.0 + op(x, y)[1]).sum(), grad_position=(0, 1))(
        T(data["p"]), T(data["q"]))
    p, q = data["p"], data["q"]
    np.testing.assert_allclose(ga.asnumpy(), 2 + q * (p + q) + p * q)
    np.testing.assert_allclose(gb.asnumpy(), 2 + p * (p + q) + p * q)


def test_data_dependent_store_runs_forward():
    # its gradient (each element to its last writer) is tested in test_custom_hybrid_taped_grad.py
    op = ops.Custom(hk.scatter)
    x, idx = T(np.array([1.0, 2.0, 3.0])), T(np.array([2, 0, 1], np.int64))
    np.testing.assert_array_equal(op(x, idx).asnumpy(), [2.0, 3.0, 1.0])
    np.testing.assert_array_equal(ms.grad(lambda t: op(t, idx).sum())(x).asnumpy(), [1.0, 1.0, 1.0])


def test_user_bprop_wins_over_the_derived_one(data):
    op = ops.Custom(hk.add, bprop=lambda a, b, out, dout: (dout * 3.0, dout))
    ga = ms.grad(lambda x, y: op(x, y).sum())(T(data["a"]), T(data["b"]))
    np.testing.assert_allclose(ga.asnumpy(), 3.0)


# ---------------------------------------------------------------- static checks
def _line(func, offset):
    return inspect.getsourcelines(func)[1] + offset


@pytest.mark.parametrize("func, offset, cls, message", [
    (bad.uses_break, 4, TypeError, "keyword 'break' is not accepted"),
    (bad.uses_continue, 3, TypeError, "keyword 'continue' is not accepted"),
    (bad.uses_while, 2, TypeError, "keyword 'while' is not accepted"),
    (bad.bad_attribute, 2, HybridSyntaxError, "only the attributes 'shape' and 'dtype', not 'size'"),
    (bad.undeclared, 2, HybridSyntaxError, "undeclared name 'offset'"),
    (bad.returns_temp, 3, TypeError, "returns 't', which is neither an input nor a tensor declared with "
                                     "output_tensor"),
    (bad.forgets_output, 5, TypeError, r"declares output tensor\(s\) \['d'\].*does not return them"),
    (bad.calls_numpy, 2, HybridSyntaxError, "only DSL intrinsics can be called"),
])
def test_static_checks_name_file_and_line(func, offset, cls, message):
    where = rf"hybrid_bad_kernels.py:{_line(func, offset)}\)"
    with pytest.raises(cls, match=rf"hybrid kernel '{func.__name__}' \(.*{where}: .*{message}"):
        ops.Custom(func, func_type="hybrid")
    with pytest.raises(cls, match=where):
        kernel(func)(np.zeros(3))


def test_kernel_argument_checks():
    with pytest.raises(TypeError, match="compile_attrs must be a dict"):
        kernel(compile_attrs=[1])
    with pytest.raises(TypeError, match="expects a Python function"):
        kernel(len)
    with pytest.raises(TypeError, match="takes 2 input"):
        hk.add(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="func_type 'julia' is not supported here"):
        ops.Custom(hk.add, func_type="julia")
