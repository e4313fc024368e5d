"""Graph mode: ``ms.jit`` and GRAPH_MODE record a call's kernels once and replay them.

Every test compares graph results with eager (PyNative) results of the same
program; the replay must be indistinguishable except for speed.
"""

import threading
import tracemalloc
import warnings

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.graph import MAX_SIGNATURES, GraphFallbackWarning


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _t(a):
    return ms.Tensor(np.asarray(a, np.float32))


def _rand(*shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# ------------------------------------------------------------------ functions
def test_jit_function_replays_with_the_eager_result():
    def f(x, y):
        return ops.relu(x * y + 1.0) - ops.exp(y) / 2

    jf = ms.jit(f)
    for seed in range(4):
        x, y = _rand(5, 3, seed=seed), _rand(5, 3, seed=seed + 10)
        np.testing.assert_allclose(jf(x, y).asnumpy(), f(x, y).asnumpy(), rtol=1e-6)
    assert jf.stats == {"recorded": 1, "replayed": 3, "eager": 0}


def test_outputs_of_earlier_replays_never_change():
    jf = ms.jit(lambda x: (x * 2, x + 1))
    first = jf(_t([1.0, 2.0]))
    second = jf(_t([5.0, 6.0]))
    np.testing.assert_array_equal(first[0].asnumpy(), [2.0, 4.0])
    np.testing.assert_array_equal(second[1].asnumpy(), [6.0, 7.0])
    assert isinstance(first, tuple) and jf.stats["replayed"] == 1


def test_a_new_signature_records_again_and_records_are_bounded():
    jf = ms.jit(lambda x, k: x * k)
    for n in range(1, MAX_SIGNATURES + 4):
        out = jf(ms.Tensor(np.ones(n, np.float32)), 3)
        np.testing.assert_array_equal(out.asnumpy(), np.full(n, 3.0, np.float32))
    out = jf(ms.Tensor(np.ones(2, np.float32)), 5)          # a Python scalar is part of the signature
    np.testing.assert_array_equal(out.asnumpy(), [5.0, 5.0])
    assert len(jf.records) == MAX_SIGNATURES


def test_nested_structures_and_constants_come_back():
    @ms.jit
    def f(pair, scale=2.0):
        a, b = pair
        return {"sum": a + b, "scaled": [a * scale], "note": "ok", "none": None}

    for v in (1.0, 4.0):
        out = f((_t([v]), _t([1.0])))
        np.testing.assert_array_equal(out["sum"].asnumpy(), [v + 1])
        np.testing.assert_array_equal(out["scaled"][0].asnumpy(), [2 * v])
        assert out["note"] == "ok" and out["none"] is None
    assert f.stats["replayed"] == 1


def test_dead_ops_are_dropped_and_values_share_buffers():
    @ms.jit
    def f(x):
        unused = ops.exp(x) * 3                # noqa: F841 - nobody reads it
        y = x * 2
        z = y + 1                              # y's buffer is free after this
        return ops.relu(z * z) - 1

    x = _rand(8, 8)
    f(x)
    np.testing.assert_allclose(f(x).asnumpy(), np.maximum((x.asnumpy() * 2 + 1) ** 2, 0) - 1, rtol=1e-6)
    (rec,) = next(iter(f.records.values()))
    facts = rec.describe()
    assert facts["dropped"] == 2
    assert facts["arena_bytes"] < 3 * 8 * 8 * 4          # three intermediates, at most two buffers


def _only_record(f):
    (variants,) = f.records.values()
    return variants[0]


def test_calls_on_constants_are_computed_once_with_eager_results():
    def f(x):
        h = ops.exp(-(x * x)) + 1.0
        return (ops.log(h) * 0.5).sum()

    vg = ms.value_and_grad(f)
    jf = ms.jit(vg)
    for seed in range(3):
        x = _rand(4, 5, seed=seed)
        (lg, gg), (le, ge) = jf(x), vg(x)
        np.testing.assert_array_equal(lg.asnumpy(), le.asnumpy())   # bit-identical, as every replay
        np.testing.assert_array_equal(gg.asnumpy(), ge.asnumpy())
    facts = _only_record(jf).describe()
    assert facts["folded"] >= 2            # the sum's all-ones gradient, broadcast and scaled by 0.5


def test_a_tensor_held_outside_is_read_afresh_and_never_folded():
    c = ms.Tensor(np.float32(2.0))

    @ms.jit
    def f(x):
        return x * (c + 1.0)

    x = _t([1.0, 2.0])
    f(x)
    np.testing.assert_array_equal(f(x).asnumpy(), [3.0, 6.0])
    c[...] = 5.0
    np.testing.assert_array_equal(f(x).asnumpy(), [6.0, 12.0])
    c.asnumpy()[...] = 9.0                  # changed in place through the array: seen too
    np.testing.assert_array_equal(f(x).asnumpy(), [10.0, 20.0])
    assert _only_record(f).describe()["folded"] == 0
    assert f.stats["replayed"] == 3


def test_random_ops_on_constants_draw_fresh_numbers_on_every_replay():
    @ms.jit
    def f(x):
        ones = ms.Tensor(np.ones(64, np.float32))        # made while recording: only the record holds it
        return x + ops.dropout(ones, p=0.5)

    x = _t(np.zeros(64))
    draws = [f(x).asnumpy().copy() for _ in range(4)]
    assert f.stats["replayed"] == 3
    assert not np.array_equal(draws[2], draws[3])
    for d in draws:
        assert set(np.unique(d)) <= {0.0, 2.0}


def test_a_repeated_call_reads_the_first_result_unless_an_update_came_between():
    @ms.jit
    def f(x):
        return (x * x) + (x * x)

    x = _rand(3, 4)
    f(x)
    out = f(x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy() * x.asnumpy() + x.asnumpy() * x.asnumpy())
    assert _only_record(f).describe()["merged"] == 1

    buf = ms.Parameter(_t([1.0, 2.0, 3.0]), name="buf")

    @ms.jit
    def g(x):
        a = buf * 2
        buf[0] = x.sum()                    # an in-place update between the two calls
        return a, buf * 2

    for v in (5.0, 7.0):
        a, b = g(_t([v, 0.0]))
        np.testing.assert_array_equal(b.asnumpy(), [2 * v, 4.0, 6.0])
        np.testing.assert_array_equal(a.asnumpy(), [2 * (v - 2.0) if v == 7.0 else 2.0, 4.0, 6.0])
    assert _only_record(g).describe()["merged"] == 0


# ------------------------------------------------------------------ training steps
def _mlp(seed=0):
    ms.set_seed(seed)
    net = nn.SequentialCell(nn.Dense(20, 16), nn.ReLU(), nn.Dense(16, 8), nn.ReLU(), nn.Dense(8, 4))
    return net


def _batches(n=5, seed=1):
    rng = np.random.default_rng(seed)
    return [(ms.Tensor(rng.standard_normal((6, 20)).astype(np.float32)),
             ms.Tensor(rng.integers(0, 4, 6).astype(np.int32))) for _ in range(n)]


def _train_one_step_losses(mode, momentum=0.0):
    ms.set_context(mode=mode)
    net = _mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.1, momentum=momentum)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    losses = [float(step(x, y).asnumpy()) for x, y in _batches()]
    return losses, [p.asnumpy().copy() for p in net.trainable_params()], step


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_train_one_step_cell_in_graph_mode_matches_eager(momentum):
    eager, eager_params, _ = _train_one_step_losses(ms.PYNATIVE_MODE, momentum)
    graph, graph_params, step = _train_one_step_losses(ms.GRAPH_MODE, momentum)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for a, b in zip(graph_params, eager_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert step._graph_fn.stats == {"recorded": 1, "replayed": 4, "eager": 0}


def _value_and_grad_losses(jit):
    net = _mlp()
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), 0.01)

    def forward(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward, None, opt.parameters, has_aux=True)

    def train_step(x, y):
        (loss, _), grads = grad_fn(x, y)
        opt(grads)
        return loss

    step = ms.jit(train_step) if jit else train_step
    losses = [float(step(x, y).asnumpy()) for x, y in _batches()]
    return losses, [p.asnumpy().copy() for p in net.trainable_params()], step


def test_value_and_grad_train_step_under_jit_matches_eager():
    eager, eager_params, _ = _value_and_grad_losses(False)
    graph, graph_params, step = _value_and_grad_losses(True)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for a, b in zip(graph_params, eager_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert step.stats["replayed"] == 4


def test_grad_operation_under_jit_gives_eager_gradients():
    net = _mlp()
    weights = ms.ParameterTuple(net.trainable_params())
    grad_op = ops.GradOperation(get_by_list=True)
    jitted = ms.jit(lambda x: grad_op(net, weights)(x))
    for x, _ in _batches(3):
        for g, e in zip(jitted(x), grad_op(net, weights)(x)):
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-7)
    assert jitted.stats["replayed"] == 2


def test_batchnorm_moving_statistics_update_on_every_replay():
    def run(mode):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Conv2d(1, 3, 3, has_bias=True), nn.BatchNorm2d(3), nn.ReLU())
        net.set_train()
        rng = np.random.default_rng(0)
        outs = [net(ms.Tensor(rng.standard_normal((4, 1, 6, 6)).astype(np.float32))).asnumpy().copy()
                for _ in range(4)]
        bn = net[1]
        return outs, bn.moving_mean.asnumpy().copy(), bn.moving_variance.asnumpy().copy()

    eager, graph = run(ms.PYNATIVE_MODE), run(ms.GRAPH_MODE)
    for a, b in zip(graph[0], eager[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(graph[1], eager[1], rtol=1e-6)
    np.testing.assert_allclose(graph[2], eager[2], rtol=1e-6)


def test_training_flag_is_part_of_the_signature():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(3)
    net = nn.SequentialCell(nn.Dense(8, 8), nn.Dropout(p=0.5))
    x = _rand(4, 8)
    net.set_train(False)
    infer = [net(x).asnumpy().copy() for _ in range(2)]
    np.testing.assert_array_equal(infer[0], infer[1])
    net.set_train(True)
    train = [net(x).asnumpy().copy() for _ in range(3)]
    assert not np.array_equal(train[1], train[2])            # fresh dropout masks on every replay
    net.set_train(False)
    np.testing.assert_array_equal(net(x).asnumpy(), infer[0])


def test_randomness_is_fresh_and_follows_the_seed_as_in_eager():
    def draws(fn):
        ms.set_seed(7)
        return [fn(_t([1.0, 2.0, 3.0])).asnumpy().copy() for _ in range(4)]

    def f(x):
        return ops.dropout(x, p=0.5) + ops.uniform((3,), 0.0, 1.0) + ops.standard_normal((3,))

    eager, graph = draws(f), draws(ms.jit(f))
    for a, b in zip(graph, eager):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert not np.allclose(graph[1], graph[2])


def test_warm_training_step_allocates_no_new_arrays():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
    step.set_train()
    batches = _batches(6)
    for x, y in batches[:2]:
        step(x, y)
    (rec,) = next(iter(step._graph_fn.records.values()))
    assert {st.op.name for st in rec.allocating_steps()} <= {"reshape"}       # reshape gives views
    domain = np.lib.tracemalloc_domain
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for x, y in batches[2:]:
            step(x, y)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    flt = [tracemalloc.DomainFilter(True, domain)]
    grown = [d for d in after.filter_traces(flt).compare_to(before.filter_traces(flt), "traceback")
             if d.count_diff > 0]
    # the only NumPy memory a warm step keeps is the 0-d loss it returns (4 steps -> at most 4 arrays)
    assert sum(d.count_diff for d in grown) <= 4
    assert sum(d.size_diff for d in grown) < 4 * 512


# ------------------------------------------------------------------ custom ops
def test_custom_pyfunc_with_bprop_replays_forward_and_backward():
    calls = []

    def square(x):
        calls.append(1)
        return x * x

    def bprop(x, out, dout):
        return (2 * x * dout,)

    sq = ops.Custom(square, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc", bprop=bprop)
    grad_fn = ms.grad(lambda x: sq(x).sum())
    jitted = ms.jit(grad_fn)
    for v in ([1.0, 2.0], [3.0, -1.0], [0.5, 4.0]):
        np.testing.assert_allclose(jitted(_t(v)).asnumpy(), 2 * np.array(v), rtol=1e-6)
    assert jitted.stats["replayed"] == 2
    assert len(calls) == 3                  # the pyfunc kernel itself runs in every replay


def test_custom_kernel_error_during_replay_names_the_op():
    def picky(x):
        if (x < 0).any():
            raise ValueError("negative input")
        return x

    op = ops.Custom(picky, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc")
    jf = ms.jit(lambda x: op(x) * 2)
    jf(_t([1.0]))
    with pytest.raises(RuntimeError, match="picky"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GraphFallbackWarning)
            jf(_t([-1.0]))


# ------------------------------------------------------------------ honest limits
def test_tensor_dependent_control_flow_becomes_a_guard():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1

    pos, neg = _t([1.0, 2.0]), _t([-3.0, 1.0])
    for _ in range(2):
        np.testing.assert_array_equal(f(pos).asnumpy(), [2.0, 4.0])
        np.testing.assert_array_equal(f(neg).asnumpy(), [-4.0, 0.0])
    assert f.stats["recorded"] == 2 and f.stats["replayed"] == 2


def test_int_and_float_of_a_tensor_are_guards_too():
    @ms.jit
    def f(x, n):
        return x * float(n.max()) + int(n.sum())

    x = _t([1.0, 2.0])
    for v in ([1.0, 2.0], [3.0, 1.0], [1.0, 2.0]):
        n = _t(v)
        np.testing.assert_allclose(f(x, n).asnumpy(), x.asnumpy() * max(v) + int(sum(v)))
    assert f.stats["replayed"] == 1


def test_reading_a_traced_array_falls_back_to_eager_with_one_warning_naming_the_line():
    @ms.jit
    def f(x):
        y = x * 2
        host = y.asnumpy()                          # the value escapes into Python
        return y + float(host.sum())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in (1.0, 2.0, 3.0):
            np.testing.assert_allclose(f(_t([v])).asnumpy(), [2 * v + 2 * v])
    fallbacks = [w for w in caught if issubclass(w.category, GraphFallbackWarning)]
    assert len(fallbacks) == 1
    assert fallbacks[0].filename == __file__ and "asnumpy" in str(fallbacks[0].message)
    assert f.stats["eager"] == 2


def test_a_guard_after_an_in_place_update_falls_back_to_eager():
    p = ms.Parameter(_t([0.0, 0.0]), name="p")

    @ms.jit
    def f(x):
        p[0] = x[0]                                 # an in-place effect
        if p.sum() > 1:                             # then a guard: cannot be replayed safely
            return x * 2
        return x

    with pytest.warns(GraphFallbackWarning, match="control flow"):
        out = f(_t([5.0, 1.0]))
    np.testing.assert_array_equal(out.asnumpy(), [10.0, 2.0])
    np.testing.assert_array_equal(f(_t([0.5, 1.0])).asnumpy(), [0.5, 1.0])


def test_python_side_effects_happen_while_recording_only():
    seen = []

    @ms.jit
    def f(x):
        seen.append("traced")
        return x + 1

    for _ in range(3):
        f(_t([1.0]))
    assert seen == ["traced"]


def test_setitem_inside_jit_is_repeated_on_every_replay():
    buf = ms.Parameter(_t([0.0, 0.0, 0.0]), name="buf")

    @ms.jit
    def f(x):
        buf[1] = x.sum()
        return buf * 1

    for v in (2.0, 7.0):
        np.testing.assert_array_equal(f(_t([v, 1.0])).asnumpy(), [0.0, v + 1.0, 0.0])


def test_set_data_between_calls_is_seen_by_the_replay():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(3, 2)
    x = _rand(2, 3)
    net(x)
    net.weight.set_data(ms.Tensor(np.ones((2, 3), np.float32)))
    net.bias.set_data(ms.Tensor(np.zeros(2, np.float32)))
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() @ np.ones((3, 2), np.float32), rtol=1e-6)


def test_jit_called_under_a_gradient_runs_eagerly_and_differentiates():
    jf = ms.jit(lambda x: (x * x).sum())
    g = ms.grad(jf)(_t([1.0, 3.0]))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 6.0])
    assert jf.stats["eager"] == 1


def test_jit_on_construct_and_on_a_function_nested_in_a_capture():
    ms.set_context(mode=ms.PYNATIVE_MODE)      # (in GRAPH_MODE the Cell call itself would be the capture)
    @ms.jit
    def inner(x):
        return x * 3

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_t([2.0]), name="w")

        @ms.jit
        def construct(self, x):
            return inner(x) * self.w

    net = Net()
    for v in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(net(_t([v])).asnumpy(), [6.0 * v])
    assert Net.construct.stats["replayed"] == 2
    assert inner.stats["eager"] == 1                   # inside the capture it just runs


def test_threads_replaying_one_function_get_their_own_results():
    jf = ms.jit(lambda x: ops.relu(x) * 2 + 1)
    jf(_t(np.zeros(64)))
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(200):
            a = rng.standard_normal(64).astype(np.float32)
            out = jf(ms.Tensor(a)).asnumpy()
            if not np.allclose(out, np.maximum(a, 0) * 2 + 1, rtol=1e-6):
                errors.append(seed)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_jit_accepts_mindsporess_signature_and_checks_it():
    f = ms.jit(lambda x: x + 1, capture_mode="bytecode", jit_level="O1", dynamic=1, fullgraph=True,
               backend="ms_backend", jit_config={"jit_level": "O0"}, input_signature=None)
    np.testing.assert_array_equal(f(_t([1.0])).asnumpy(), [2.0])
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(lambda x: x, capture_mode="magic")
    with pytest.raises(TypeError, match="jit"):
        ms.jit(42)


def test_grad_functions_called_in_graph_mode_are_captured():
    net = _mlp()
    weights = net.trainable_params()
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, weights)
    eager = [grad_fn(x) for x, _ in _batches(3)]
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = [grad_fn(x) for x, _ in _batches(3)]
    for (le, ge), (lg, gg) in zip(eager, graph):
        np.testing.assert_allclose(lg.asnumpy(), le.asnumpy(), rtol=1e-6)
        for a, b in zip(gg, ge):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)
    assert grad_fn.__wrapped__.__name__.startswith("value_and_grad")


def test_a_guard_that_fails_on_every_call_gives_up_with_a_warning():
    @ms.jit
    def f(x):
        return x * 2, x.sum().item()              # the Python number differs on every call

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in range(8):
            out, total = f(_t([float(v), 1.0]))
            assert total == v + 1.0
            np.testing.assert_array_equal(out.asnumpy(), [2.0 * v, 2.0])
    fallbacks = [w for w in caught if issubclass(w.category, GraphFallbackWarning)]
    assert len(fallbacks) == 1 and fallbacks[0].filename == __file__
    assert f.eager_reason is not None


def test_a_numpy_bprop_runs_as_a_host_op_in_every_replay():
    calls = []

    def bprop(x, out, dout):
        calls.append(1)
        return (2 * x.asnumpy() * dout.asnumpy(),)      # NumPy on the values, as PyNative code does

    sq = ops.Custom(lambda x: x * x, lambda s: s, lambda d: d, func_type="pyfunc", bprop=bprop)
    jitted = ms.jit(ms.grad(lambda x: (sq(x) * 3).sum()))
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphFallbackWarning)
        for v in ([1.0, 2.0], [3.0, -1.0], [0.5, 4.0]):
            np.testing.assert_allclose(jitted(_t(v)).asnumpy(), 6 * np.array(v), rtol=1e-6)
    assert jitted.stats == {"recorded": 1, "replayed": 2, "eager": 0}
    assert len(calls) == 3

def test_a_returned_value_and_a_later_step_with_the_same_number_keep_their_own_shapes():
    # slot 1 (x * x, returned: fresh memory of its own shape) and step 1 (the transpose) once
    # shared one name in the generated replay, so the product got the transpose's shape
    jf = ms.jit(lambda x: (x * x, ops.transpose(x, (1, 0))))
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphFallbackWarning)
        for seed in range(3):
            x = _rand(2, 3, seed=seed)
            y, z = jf(x)
            np.testing.assert_array_equal(y.asnumpy(), x.asnumpy() ** 2)
            np.testing.assert_array_equal(z.asnumpy(), x.asnumpy().T)
    assert jf.stats == {"recorded": 1, "replayed": 2, "eager": 0}


def test_a_tensor_built_from_a_traced_tensor_is_rebuilt_on_every_replay():
    @ms.jit
    def f(x):
        y = ms.Tensor(x * 2, dtype=ms.float64)        # a new Tensor from a traced value
        return y + 1

    for v in (1.0, 5.0, -2.0):
        out = f(_t([v]))
        assert out.dtype == ms.float64
        np.testing.assert_array_equal(out.asnumpy(), [2 * v + 1])
    assert f.stats["replayed"] == 2


def _ce_step_modes(step):
    rec = step.__dict__["_graph_fn"].records
    (variants,) = rec.values()
    return variants[0].describe()["modes"]


def test_loss_and_its_gradient_run_as_one_fused_kernel_with_eager_results():
    def build():
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 4))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
        return step.set_train(), net
    rng = np.random.default_rng(2)
    batches = [(ms.Tensor(rng.standard_normal((5, 6)).astype(np.float32)),
                ms.Tensor(rng.integers(0, 4, 5).astype(np.int32))) for _ in range(3)]
    eager, eager_net = build()
    want = [float(eager(x, y).asnumpy()) for x, y in batches]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph, graph_net = build()
        got = [float(graph(x, y).asnumpy()) for x, y in batches]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got == want
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert _ce_step_modes(graph).get("fused") == 1


def test_a_gradient_whose_scale_comes_from_the_loss_is_not_fused_and_stays_right():
    from mscustom.ops.nn.loss_fused import sparse_softmax_cross_entropy as sce
    y = ms.Tensor(np.array([0, 2, 1], np.int32))
    grad_fn = ms.grad(lambda z: sce(z, y) * sce(z, y))        # dloss = 2 * loss: made after the loss
    z = ms.Tensor(np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32))
    f = ms.jit(grad_fn)
    want = grad_fn(z).asnumpy()
    for _ in range(2):
        np.testing.assert_array_equal(f(z).asnumpy(), want)
    (variants,) = f.records.values()
    assert "fused" not in variants[0].describe()["modes"]


def test_optimizer_scales_only_dead_gradient_buffers_in_place():
    """Gradients nobody reads after the update are the optimizer's scratch; returned or reread ones are not."""
    def run(jit):
        ms.set_seed(5)
        net = nn.Dense(3, 2)
        opt = nn.SGD(net.trainable_params(), 0.5)
        loss_fn = nn.MSELoss()
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

        def step(x, y):
            loss, (gw, gb) = grad_fn(x, y)
            opt((gw, gb))
            return loss, gw, gb * 2.0       # gw is returned, gb is read again after the update
        f = ms.jit(step) if jit else step
        rng = np.random.default_rng(1)
        outs = []
        for _ in range(3):
            x = ms.Tensor(rng.standard_normal((4, 3)).astype(np.float32))
            y = ms.Tensor(rng.standard_normal((4, 2)).astype(np.float32))
            outs.append([t.asnumpy().copy() for t in f(x, y)])
        return outs, [p.asnumpy().copy() for p in net.trainable_params()], f
    eager, eager_params, _ = run(False)
    graph, graph_params, f = run(True)
    for a, b in zip(graph + [graph_params], eager + [eager_params]):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
    (variants,) = f.records.values()
    rec = variants[0]
    (j,) = [j for j, st in enumerate(rec.steps) if st.kind == "effect"]
    assert rec._scratch_flags(j, rec.steps[j]) == (False, False)
    assert f.stats["replayed"] == 2


def test_train_one_step_cell_gives_the_optimizer_every_gradient_as_scratch():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1)).set_train()
    for x, y in _batches(2):
        step(x, y)
    (rec,) = next(iter(step._graph_fn.records.values()))
    (j,) = [j for j, st in enumerate(rec.steps) if st.kind == "effect"]
    assert rec._scratch_flags(j, rec.steps[j]) == (True,) * len(net.trainable_params())
    assert f"scratch=X{j}" in rec.source


def test_dense_relu_and_bias_gradient_chains_keep_eager_results():
    """Dense+ReLU and relu's gradient+bias gradient run as chained kernels; values equal eager mode's."""
    def build():
        ms.set_seed(6)
        net = nn.SequentialCell(nn.Dense(12, 40), nn.ReLU(), nn.Dense(40, 24), nn.ReLU(), nn.Dense(24, 5))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
        return step.set_train(), net
    rng = np.random.default_rng(7)
    batches = [(ms.Tensor(rng.standard_normal((32, 12)).astype(np.float32)),
                ms.Tensor(rng.integers(0, 5, 32).astype(np.int32))) for _ in range(3)]
    eager, eager_net = build()
    want = [float(eager(x, y).asnumpy()) for x, y in batches]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph, graph_net = build()
        got = [float(graph(x, y).asnumpy()) for x, y in batches]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got == want
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert _ce_step_modes(graph).get("chain") == 4      # two Dense+ReLU, two relu_grad+bias gradient


def _mlp_step(hidden=256):
    ms.set_seed(8)
    net = nn.SequentialCell(nn.Dense(hidden, 128), nn.ReLU(), nn.Dense(128, 4))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.05))
    return step.set_train(), net


def test_large_weight_gradients_reach_sgd_as_products_and_train_like_eager():
    """A weight of 32768+ elements is updated from its gradient's matmul operands with one GEMM: the
    gradient array is never made; parameters stay within rounding of eager mode's."""
    from mscustom.nn.optim import _gemm_update
    if not _gemm_update.available():
        pytest.skip("NumPy's BLAS is not OpenBLAS with 64-bit CBLAS entry points")
    rng = np.random.default_rng(9)
    batches = [(ms.Tensor(rng.standard_normal((16, 256)).astype(np.float32)),
                ms.Tensor(rng.integers(0, 4, 16).astype(np.int32))) for _ in range(4)]
    eager, eager_net = _mlp_step()
    want = [float(eager(x, y).asnumpy()) for x, y in batches]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph, graph_net = _mlp_step()
        got = [float(graph(x, y).asnumpy()) for x, y in batches]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)
    modes = _ce_step_modes(graph)
    assert modes.get("product_updates") == 1            # the 128x256 weight; the 4x128 one is small


def test_without_the_blas_entry_points_gradients_stay_arrays(monkeypatch):
    from mscustom.nn.optim import _gemm_update
    monkeypatch.setitem(_gemm_update._STATE, "fns", None)
    rng = np.random.default_rng(9)
    x, y = (ms.Tensor(rng.standard_normal((16, 256)).astype(np.float32)),
            ms.Tensor(rng.integers(0, 4, 16).astype(np.int32)))
    eager, eager_net = _mlp_step()
    want = [float(eager(x, y).asnumpy()) for _ in range(2)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph, graph_net = _mlp_step()
        got = [float(graph(x, y).asnumpy()) for _ in range(2)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got == want
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert "product_updates" not in _ce_step_modes(graph)


def test_a_weight_gradient_that_is_returned_stays_an_array():
    """Product updates only take gradients nobody else reads: returned gradients are computed as arrays."""
    from mscustom.nn.optim import _gemm_update
    if not _gemm_update.available():
        pytest.skip("NumPy's BLAS is not OpenBLAS with 64-bit CBLAS entry points")
    ms.set_seed(10)
    net = nn.Dense(256, 128)
    opt = nn.SGD(net.trainable_params(), 0.05)
    loss_fn = nn.MSELoss()
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss, grads

    rng = np.random.default_rng(11)
    x = ms.Tensor(rng.standard_normal((8, 256)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((8, 128)).astype(np.float32))
    for _ in range(3):
        w = net.weight.asnumpy().copy()
        loss, grads = step(x, y)
        np.testing.assert_array_equal(net.weight.asnumpy(), w - grads[0].asnumpy() * np.float32(0.05))
    (variants,) = step.records.values()
    assert "product_updates" not in variants[0].describe()["modes"]
