"""The gradient of a single op call takes backward's one-node path with the general path's results."""

import contextlib
import gc
import weakref

import numpy as np
import pytest

import mscustom as ms
from mscustom import extend, ops
from mscustom._core import backward as _bw
from mscustom._core.dispatch import call as _call


def _core_call(op, a):
    return _call(op, (a,), {})


@contextlib.contextmanager
def _python_walk():
    """The Python walk inside the block (``backward.WALKER[0]`` None), the compiled one after."""
    saved = _bw.WALKER[0]
    _bw.WALKER[0] = None
    try:
        yield
    finally:
        _bw.WALKER[0] = saved


@pytest.fixture
def one_node_calls(monkeypatch):
    """Counts the backward passes that took the one-node path (of the Python walk: the compiled walk,
    when built, serves one op call too, faster)."""
    calls = []
    real = _bw._backward_one

    def spy(*args):
        calls.append(args[0].op.name)
        return real(*args)
    monkeypatch.setattr(_bw, "_backward_one", spy)
    with _python_walk():
        yield calls


def _x():
    return ms.Tensor(np.array([0.5, -1.5, 2.0, 3.0], np.float32))


def test_one_builtin_op_and_a_repeated_input(one_node_calls):
    x = _x()
    g = ms.grad(lambda a: a * a)(x)                     # the same leaf twice: gradients summed
    np.testing.assert_array_equal(g.asnumpy(), 2 * x.asnumpy())
    assert one_node_calls == ["mul"]


def test_two_targets_and_an_input_off_the_tape(one_node_calls):
    x, y, c = _x(), ms.Tensor(np.float32([1, 2, 3, 4])), ms.Tensor(np.float32([2, 2, 2, 2]))
    three = ops.Custom(lambda a, b, k: a * b * k, lambda s, t, u: s, lambda d, e, f: d, func_type="pyfunc",
                       bprop=lambda a, b, k, out, dout: (dout * b * k, dout * a * k, dout * a * b))
    gx, gy = ms.grad(lambda a, b: three(a, b, c), grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), y.asnumpy() * c.asnumpy())
    np.testing.assert_array_equal(gy.asnumpy(), x.asnumpy() * c.asnumpy())
    assert len(one_node_calls) == 1


def test_target_the_op_does_not_reach_gets_zeros(one_node_calls):
    x, y = _x(), _x()
    gy = ms.grad(lambda a, b: ops.exp(a), grad_position=1)(x, y)
    np.testing.assert_array_equal(gy.asnumpy(), np.zeros(4, np.float32))


def test_gradient_is_conformed_to_its_input(one_node_calls):
    # a 0-d float64 gradient is spread to the input's shape and cast to its dtype
    op = extend.def_op("test_one_node_conform", register=False)
    extend.def_infer(op, shape=lambda attrs, shapes: [shapes[0]], dtype=lambda attrs, dtypes: [dtypes[0]])
    extend.def_kernel(op, lambda attrs, ins: ins[0] * 3)
    extend.def_gradient(op, lambda ins, outs, grads, attrs: [ms.Tensor(np.float64(3.0))])
    g = ms.grad(lambda a: _core_call(op, a))(_x())
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), np.full(4, 3.0, np.float32))
    assert one_node_calls == ["test_one_node_conform"]


def test_custom_bprop_float64_gradient_is_cast(one_node_calls):
    sq = ops.Custom(lambda a: a * a, lambda s: s, lambda d: d, func_type="pyfunc",
                    bprop=lambda a, out, dout: (ms.Tensor(2 * a.asnumpy().astype(np.float64)),))
    g = ms.grad(sq)(_x())
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), 2 * _x().asnumpy())
    assert len(one_node_calls) == 1


def test_several_outputs_one_root_gets_zeros_for_the_others(one_node_calls):
    seen = []

    def bprop(a, out, dout):
        seen.append([d.asnumpy().copy() for d in dout])
        return (dout[0] + dout[1],)
    two = ops.Custom(lambda a: (a * 2, a * 3), lambda s: (s, s), lambda d: (d, d), func_type="pyfunc",
                     bprop=bprop)
    g = ms.grad(lambda a: two(a)[1])(_x())
    np.testing.assert_array_equal(g.asnumpy(), np.ones(4, np.float32))
    np.testing.assert_array_equal(seen[0][0], np.zeros(4, np.float32))
    np.testing.assert_array_equal(seen[0][1], np.ones(4, np.float32))
    assert len(one_node_calls) == 1


def test_integer_input_gets_no_gradient_from_the_op(one_node_calls):
    x = _x()
    i = ms.Tensor(np.array([1, 2, 3, 4], np.int32))
    gx, gi = ms.grad(lambda a, b: a * b, grad_position=(0, 1))(x, i)
    np.testing.assert_array_equal(gx.asnumpy(), np.float32([1, 2, 3, 4]))
    assert gi.dtype == ms.int32 and not gi.asnumpy().any()
    assert one_node_calls == ["mul"]


def test_one_op_graph_is_freed_without_the_cycle_collector(one_node_calls):
    kept = []
    two = ops.Custom(lambda a: (np.exp(a), a * 3), lambda s: (s, s), lambda d: (d, d), func_type="pyfunc",
                     bprop=lambda a, out, dout: (dout[0] * out[0] + dout[1] * 3,))

    def f(a):
        out, other = two(a)             # the output not returned still points at the node
        kept.append(weakref.ref(out._node))
        return out

    gc.disable()
    try:
        g = ms.grad(f)(_x())
        assert kept[0]() is None
    finally:
        gc.enable()
    np.testing.assert_allclose(g.asnumpy(), np.exp(_x().asnumpy()), rtol=1e-6)
    assert len(one_node_calls) == 1


def test_grad_of_grad_through_one_op_per_level():
    x = _x()
    inner = ms.grad(lambda a: a * a * a)
    g2 = ms.grad(lambda a: inner(a))(x)
    np.testing.assert_allclose(g2.asnumpy(), 6 * x.asnumpy(), rtol=1e-6)


def test_longer_graphs_still_take_the_general_path(one_node_calls):
    g = ms.grad(lambda a: ops.exp(a * 2))(_x())
    np.testing.assert_allclose(g.asnumpy(), 2 * np.exp(2 * _x().asnumpy()), rtol=1e-6)
    assert one_node_calls == []


def test_inner_grad_of_an_outer_weight_links_to_the_outer_tape():
    # the inner leaf over a thread-leaf Parameter links to the outer graph (new_leaf), w untouched
    w = ms.Parameter(ms.Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")
    inner = ms.grad(lambda a: a * a * a)
    (gw,) = ms.grad(lambda: ops.reduce_sum(inner(w)), grad_position=None, weights=[w])()
    np.testing.assert_allclose(gw.asnumpy(), 6 * w.asnumpy(), rtol=1e-6)
    assert w._node is None


def test_position_other_than_the_first_among_several_arguments():
    x, y = _x(), ms.Tensor(np.float32([1, 2, 3, 4]))
    gy = ms.grad(lambda a, b, k: a * b * k, grad_position=1)(x, y, 2.0)
    np.testing.assert_array_equal(gy.asnumpy(), 2 * x.asnumpy())


def _one_op_cases():
    c = ms.Tensor(np.float32([2, 2, 2, 2]))
    three = ops.Custom(lambda a, b, k: a * b * k, lambda s, t, u: s, lambda d, e, f: d, func_type="pyfunc",
                       bprop=lambda a, b, k, out, dout: (dout * b * k, dout * a * k, dout * a * b))
    two = ops.Custom(lambda a: (a * 2, a * 3), lambda s: (s, s), lambda d: (d, d), func_type="pyfunc",
                     bprop=lambda a, out, dout: (dout[0] + dout[1],))
    i = ms.Tensor(np.array([1, 2, 3, 4], np.int32))
    y = ms.Tensor(np.float32([1, 2, 3, 4]))
    return [
        lambda: [ms.grad(lambda a: a * a)(_x())],
        lambda: list(ms.grad(lambda a, b: three(a, b, c), grad_position=(0, 1))(_x(), y)),
        lambda: [ms.grad(lambda a, b: ops.exp(a), grad_position=1)(_x(), y)],
        lambda: [ms.grad(lambda a: two(a)[1])(_x())],
        lambda: list(ms.grad(lambda a, b: a * b, grad_position=(0, 1))(_x(), i)),
    ]


@pytest.mark.skipif(_bw.WALKER[0] is None, reason="the compiled walk is not built")
def test_compiled_walk_gives_the_one_node_paths_results():
    compiled = [[g.asnumpy() for g in case()] for case in _one_op_cases()]
    with _python_walk():
        python = [[g.asnumpy() for g in case()] for case in _one_op_cases()]
    for got, want in zip(compiled, python):
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(_bw.WALKER[0] is None, reason="the compiled walk is not built")
def test_compiled_walk_frees_a_one_op_graph_without_the_cycle_collector():
    kept = []
    two = ops.Custom(lambda a: (np.exp(a), a * 3), lambda s: (s, s), lambda d: (d, d), func_type="pyfunc",
                     bprop=lambda a, out, dout: (dout[0] * out[0] + dout[1] * 3,))

    def f(a):
        out, other = two(a)
        kept.append(weakref.ref(out._node))
        return out

    gc.disable()
    try:
        ms.grad(f)(_x())
        assert kept[0]() is None
    finally:
        gc.enable()
