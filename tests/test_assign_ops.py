"""In-place updates: ops.assign / assign_add / assign_sub, their primitives, Tensor.copy_ and assign_value."""

import warnings

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.graph import GraphFallbackWarning


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _param(values, dtype=np.float32, name="p"):
    return ms.Parameter(ms.Tensor(np.asarray(values, dtype)), name=name)


def test_assign_family_updates_in_place_and_returns_the_variable():
    v = _param([1], np.int32, "global_step")
    data = v._data
    out = ops.assign_add(v, ms.Tensor(np.ones([1], np.int32) * 100))      # MindSpore's documented example
    assert out is v and v._data is data
    np.testing.assert_array_equal(v.asnumpy(), [101])
    ops.assign_sub(v, 1)
    np.testing.assert_array_equal(v.asnumpy(), [100])
    ops.assign(v, ms.Tensor(np.array([7], np.int32)))
    np.testing.assert_array_equal(v.asnumpy(), [7])
    w = _param([[1.0, 2.0], [3.0, 4.0]])
    ops.assign(w, 0.5)                                  # a number fills the variable
    np.testing.assert_array_equal(w.asnumpy(), np.full((2, 2), 0.5, np.float32))
    ops.assign_add(w, ms.Tensor(np.ones((2, 2), np.float64)))     # the value takes the variable's dtype
    assert w.dtype == ms.float32
    np.testing.assert_array_equal(w.asnumpy(), np.full((2, 2), 1.5, np.float32))
    t = ms.Tensor(np.zeros(3, np.float32))              # plain tensors too
    ops.assign(t, ms.Tensor(np.arange(3, dtype=np.float32)))
    np.testing.assert_array_equal(t.asnumpy(), [0, 1, 2])


def test_primitives_are_the_functions():
    v = _param([1.0, 2.0])
    ops.AssignAdd()(v, ms.Tensor(np.array([1.0, 1.0], np.float32)))
    ops.AssignSub()(v, 0.5)
    np.testing.assert_array_equal(v.asnumpy(), [1.5, 2.5])
    assert ops.Assign()(v, ms.Tensor(np.array([9.0, 8.0], np.float32))) is v
    np.testing.assert_array_equal(v.asnumpy(), [9.0, 8.0])


def test_bad_operands_are_refused_naming_the_op():
    v = _param([1, 2], np.int32)
    with pytest.raises(TypeError, match="assign_add: variable must be a Parameter or a Tensor, got list"):
        ops.assign_add([1, 2], 1)
    with pytest.raises(TypeError, match="assign: value must be a Tensor or a number, got str"):
        ops.assign(v, "3")
    with pytest.raises(ValueError, match=r"assign_sub: value must have the variable's shape \(2,\), got shape \(3,\)"):
        ops.assign_sub(v, ms.Tensor(np.ones(3, np.int32)))
    with pytest.raises(RuntimeError, match="assign: a value of dtype float32 cannot be converted to the "
                                           "variable's dtype int32"):
        ops.assign(v, ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(RuntimeError, match="float64 cannot be converted"):
        ops.assign_add(v, 0.5)
    with pytest.raises(OverflowError, match="assign_add: the value 1099511627776 does not fit the variable's "
                                            "dtype int32"):
        ops.assign_add(v, 2 ** 40)
    np.testing.assert_array_equal(v.asnumpy(), [1, 2])  # nothing written


def test_assign_add_in_a_compiled_step_advances_on_every_replay():
    step = _param([0], np.int32, "step")
    ema = _param([0.0, 0.0])

    @ms.jit
    def f(x):
        ops.assign_add(step, 1)
        ops.assign(ema, ema * 0.5 + x * 0.5)
        return ema * 1

    x = ms.Tensor(np.array([2.0, 4.0], np.float32))
    outs = [f(x).asnumpy().copy() for _ in range(4)]
    assert f.stats["replayed"] == 3
    np.testing.assert_array_equal(step.asnumpy(), [4])
    np.testing.assert_allclose(outs[-1], [2.0 * (1 - 0.5 ** 4), 4.0 * (1 - 0.5 ** 4)], rtol=1e-6)
    np.testing.assert_allclose(ema.asnumpy(), outs[-1])


def test_a_cell_keeping_a_counter_updates_it_in_graph_mode_as_in_eager():
    class Counting(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)
            self.calls = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="calls", requires_grad=False)

        def construct(self, x):
            ops.assign_add(self.calls, 1.0)
            return self.dense(x)

    x = ms.Tensor(np.ones((2, 3), np.float32))
    counts = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = Counting()
        for _ in range(3):
            net(x)
        counts[mode] = float(net.calls.asnumpy()[0])
    assert counts == {ms.PYNATIVE_MODE: 3.0, ms.GRAPH_MODE: 3.0}


def test_copy_broadcasts_casts_and_is_repeated_in_graph_mode():
    t = ms.Tensor(np.zeros((2, 3), np.float32))
    assert t.copy_(ms.Tensor(np.arange(3, dtype=np.int64))) is t
    np.testing.assert_array_equal(t.asnumpy(), [[0, 1, 2], [0, 1, 2]])
    t.copy_(7)
    np.testing.assert_array_equal(t.asnumpy(), np.full((2, 3), 7.0))
    with pytest.raises(ValueError, match=r"Tensor.copy_: src of shape \(4,\) does not broadcast to this "
                                         r"tensor's shape \(2, 3\)"):
        t.copy_(ms.Tensor(np.ones(4, np.float32)))
    with pytest.raises(TypeError, match="Tensor.copy_: src must be a Tensor or numbers, got str"):
        t.copy_("7")
    buf = _param(np.zeros(3))

    @ms.jit
    def f(x):
        buf.copy_(x * 2)
        return buf + 1

    for v in (1.0, 2.0, 3.0):
        np.testing.assert_array_equal(f(ms.Tensor(np.full(3, v, np.float32))).asnumpy(), np.full(3, 2 * v + 1))
    assert f.stats["replayed"] == 2


def test_assign_value_takes_the_values_shape_and_dtype_as_in_mindspore():
    x = ms.Tensor([1, 2, 3, 4])
    y = ms.Tensor(np.array([[1, 2], [3, 4]]))
    assert x.assign_value(y) is x
    assert x.shape == (2, 2)
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="Tensor.assign_value: value must be a Tensor, got list"):
        x.assign_value([1, 2])


def test_assign_value_in_graph_mode_outside_intermediate_and_argument():
    held = ms.Tensor(np.zeros(2, np.float32))

    @ms.jit
    def outside(x):
        held.assign_value(x * 3)
        return held + 1

    for v in (1.0, 2.0):
        np.testing.assert_array_equal(outside(ms.Tensor(np.full(2, v, np.float32))).asnumpy(), np.full(2, 3 * v + 1))
        np.testing.assert_array_equal(held.asnumpy(), np.full(2, 3 * v))
    assert outside.stats["replayed"] == 1

    @ms.jit
    def inner(x):
        h = x * 1
        h.assign_value(x * 5)
        return h - 1

    for v in (1.0, 2.0):
        np.testing.assert_array_equal(inner(ms.Tensor(np.full(2, v, np.float32))).asnumpy(), np.full(2, 5 * v - 1))
    assert inner.stats["replayed"] == 1

    @ms.jit
    def on_argument(x):
        x.assign_value(x * 2)
        return x + 0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in (1.0, 2.0):
            arg = ms.Tensor(np.full(2, v, np.float32))
            np.testing.assert_array_equal(on_argument(arg).asnumpy(), np.full(2, 2 * v))
            np.testing.assert_array_equal(arg.asnumpy(), np.full(2, 2 * v))     # rebound, as in eager
    assert any(issubclass(w.category, GraphFallbackWarning) and "assign_value" in str(w.message) for w in caught)
