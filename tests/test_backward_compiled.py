"""The compiled backward walk (``_core/_fastwalk.c``) gives exactly the Python walk's results and errors.

Each case runs twice, once with the compiled walker and once with the Python
walk (``backward.WALKER[0] = None``), and the gradients must be bit-identical
(same values, same dtypes) and the errors the same (type, message, notes).
"""

import os
import threading

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom._core import backward as _bw
from mscustom._core import tape as _tape

HAVE_WALKER = _bw.WALKER[0] is not None


def _arrays(value):
    """Every Tensor in a (nested) result, as NumPy arrays (None kept)."""
    if value is None:
        return [None]
    if isinstance(value, ms.Tensor):
        return [value.asnumpy().copy()]
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(_arrays(v))
        return out
    return [value]


def _run(fn, compiled):
    saved = _bw.WALKER[0]
    if not compiled:
        _bw.WALKER[0] = None
    try:
        return fn()
    finally:
        _bw.WALKER[0] = saved


def _same(fn):
    """``fn()`` under both walks: the same arrays bit for bit; returns the compiled walk's arrays."""
    got = _arrays(_run(fn, True))
    want = _arrays(_run(fn, False))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None or not isinstance(w, np.ndarray):
            assert g == w
            continue
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()
    return got


def _same_error(fn):
    """``fn()`` raises under both walks: the same type, message and notes."""
    errors = []
    for compiled in (True, False):
        with pytest.raises(Exception) as info:
            _run(fn, compiled)
        errors.append(info.value)
    a, b = errors
    assert type(a) is type(b)
    assert str(a) == str(b)
    assert getattr(a, "__notes__", None) == getattr(b, "__notes__", None)
    return a


def _data(seed, shape, dtype=np.float32):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def test_the_walker_is_built_where_make_test_promises_it():
    if os.environ.get("MSCUSTOM_REQUIRE_FASTCALL") != "1":
        pytest.skip("only `make test` (MSCUSTOM_REQUIRE_FASTCALL=1) promises the extension is built")
    assert HAVE_WALKER


def test_fan_out_and_reused_tensors():
    x = _data(0, (3, 4))
    for dt in (np.float32, np.float64):
        xd = ms.Tensor(x.asnumpy().astype(dt))

        def f(t):
            y = t * 1.7
            z = y * y + ops.exp(y) * t - y / (t * t + 1.0)    # y used four times, t five
            return (z * t).sum() + (y.sum() * z).mean()
        got = _same(lambda: ms.grad(f)(xd))
        assert got[0].dtype == dt


def test_several_inputs_broadcast_and_an_unused_input():
    a, b, c = _data(1, (2, 3)), _data(2, (3,)), _data(3, (2, 3))
    got = _same(lambda: ms.grad(lambda x, y, z: ((x + y) * (x - y) * y).sum(), grad_position=(0, 1, 2))(a, b, c))
    assert not got[2].any()                 # no path to z: a zero gradient


def test_multiple_outputs_and_none_gradients():
    x = _data(4, (6,))

    def f(t):
        p, q, r = ops.split(t * t, 2)       # one op, three outputs; r gets no gradient
        v, i = ops.max(ops.reshape(t, (2, 3)), 1)      # the indices get none
        return (p * q).sum() + v.sum() + ops.cast(i, ms.float32).sum()
    _same(lambda: ms.grad(f)(x))
    # several roots, each with its sensitivity
    _same(lambda: ms.value_and_grad(lambda t: (t * 2.0, ops.sin(t) * t))(x))
    sens = (_data(5, (6,)), _data(6, (6,)))
    _same(lambda: ms.GradOperation(sens_param=True)(lambda t: (t * 3.0, t * t))(x, sens))


def test_integer_inputs_get_no_gradient():
    x = _data(7, (4,))
    k = ms.Tensor(np.array([1, 2, 3, 4], np.int32))
    _same(lambda: ms.grad(lambda t, n: (t * ops.cast(n, ms.float32) + t).sum(), grad_position=(0, 1))(x, k))


def test_custom_op_with_a_custom_bprop():
    sq = ops.Custom(lambda a: a * a, lambda s: s, lambda d: d, func_type="pyfunc",
                    bprop=lambda inp, out, dout: (2 * inp * dout,))
    x = _data(8, (5,))
    _same(lambda: ms.grad(lambda t: (sq(t * 1.5) * t).sum())(x))
    _same(lambda: ms.grad(lambda t: sq(sq(t)).sum())(x))


def test_higher_order_gradients():
    x = ms.Tensor(np.array([0.5, -1.5, 2.0, 0.25]))

    def f(t):
        return (t * t * t + ops.sin(t) * t).sum()
    _same(lambda: ms.grad(lambda t: ms.grad(f)(t).sum())(x))
    _same(lambda: ms.grad(lambda t: ms.grad(lambda u: ms.grad(f)(u).sum())(t).sum())(x))


def test_weights_and_parameters():
    net = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    x = _data(9, (5, 4))
    params = net.trainable_params()
    _same(lambda: ms.grad(lambda a: (net(a) * net(a)).sum(), grad_position=None, weights=params)(x))
    _same(lambda: ms.value_and_grad(lambda a: net(a).sum(), grad_position=0, weights=params)(x))


def test_thread_local_leaves_in_several_threads():
    w = ms.Parameter(np.arange(4, dtype=np.float32) / 3, name="w")
    xs = [_data(10 + i, (4,)) for i in range(4)]

    def one(x):
        return ms.grad(lambda a: (a * w * w + a).sum(), grad_position=(0,), weights=[w])(x)

    def threaded():
        results = [None] * len(xs)

        def work(i):
            results[i] = one(xs[i])
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results
    _same(threaded)


def test_make_leaf_targets_stay_on_the_tape():
    from mscustom.compat import mxnet as mx
    x = mx.nd.array([1.0, -2.0, 3.0])
    x.attach_grad()

    def run():
        with mx.autograd.record():
            y = x * x * 2.0 + x
        y.backward()
        return x.grad.copy()
    _same(run)
    _same(run)                              # the leaf is kept: a second pass works the same


def test_an_fgradient_error_is_the_same():
    def bad(inp, out, dout):
        raise ValueError("bprop exploded")
    c = ops.Custom(lambda a: a * 2, lambda s: s, lambda d: d, func_type="pyfunc", bprop=bad)
    x = _data(11, (3,))
    err = _same_error(lambda: ms.grad(lambda t: (c(t * 2.0) * t).sum())(x))
    assert "bprop exploded" in str(err)


def test_a_keyboard_interrupt_in_a_gradient_passes_through_without_a_note_on_both_walks():
    def interrupted(inp, out, dout):
        raise KeyboardInterrupt
    c = ops.Custom(lambda a: a * 2, lambda s: s, lambda d: d, func_type="pyfunc", bprop=interrupted)
    x = _data(13, (3,))
    for compiled in (True, False):
        with pytest.raises(KeyboardInterrupt) as info:
            _run(lambda: ms.grad(lambda t: (c(t * 2.0) * t).sum())(x), compiled)
        assert getattr(info.value, "__notes__", None) is None        # notes are for Exceptions only
    assert _tape.STATE.depth == 0


def test_a_wrong_gradient_count_is_the_same():
    c = ops.Custom(lambda a: a * 2, lambda s: s, lambda d: d, func_type="pyfunc",
                   bprop=lambda inp, out, dout: (dout, dout))
    x = _data(12, (3,))
    err = _same_error(lambda: ms.grad(lambda t: (c(t * 2.0) * t).sum())(x))
    assert "value(s)" in str(err) or "bprop" in str(err)


def test_a_wrong_gradient_shape_is_the_same():
    c = ops.Custom(lambda a: a * 2, lambda s: s, lambda d: d, func_type="pyfunc",
                   bprop=lambda inp, out, dout: (ms.Tensor(np.ones(7, np.float32)),))
    x = _data(13, (3,))
    _same_error(lambda: ms.grad(lambda t: (c(t * 2.0) * t).sum())(x))


class _NoGradOp:
    name = "no_grad_here"
    attrs = {}


class _CountOp:
    name = "two_for_one"
    attrs = {"FGradient": lambda ins, outs, g, a: [g[0], g[0]]}


def _taped_chain(op):
    """leaf -> op -> (x * 2).sum(): an op call recorded by hand (an op without FGradient)."""
    x = _data(14, (3,))
    leaf, node = _tape.new_leaf(x)
    st = _tape.STATE
    st.depth += 1
    try:
        mid = ms.Tensor._wrap(leaf._data * 3)
        _tape.record(op, (leaf,), (mid,), {})
        out = (mid * 2.0).sum()
    finally:
        st.depth -= 1
    seed = ms.Tensor._wrap(np.ones((), np.float32))
    return lambda: _bw.backward([(out, seed)], [node])


def test_an_op_without_gradient_and_a_miscounting_fgradient_are_the_same():
    err = _same_error(_taped_chain(_NoGradOp))
    assert type(err) is RuntimeError and "no_grad_here" in str(err)
    err = _same_error(_taped_chain(_CountOp))
    assert type(err) is ValueError and "returned 2 value(s), expected one per input (1)" in str(err)


def test_grad_ready_hook_still_sees_every_node():
    seen = []

    def factory(targets, order, needed, grads, node_of):
        return lambda node: seen.append(node)
    x = _data(15, (4,))
    _bw.GRAD_READY[0] = factory
    try:
        g = ms.grad(lambda t: (t * t * 2.0).sum())(x)
    finally:
        _bw.GRAD_READY[0] = None
    assert seen and seen[-1] is None        # the Python walk ran the hook, once more at the end
    np.testing.assert_array_equal(g.asnumpy(), 4.0 * x.asnumpy())


def test_roots_that_are_not_pairs_of_a_list_take_the_python_walk():
    x = _data(16, (3,))
    leaf, node = _tape.new_leaf(x)
    st = _tape.STATE
    st.depth += 1
    try:
        out = (leaf * leaf * 2.0).sum()
    finally:
        st.depth -= 1
    seed = ms.Tensor._wrap(np.ones((), np.float32))
    a = _bw.backward(((out, seed),), (node,))              # tuples, not lists
    b = _bw.backward([[out, seed]], [node])                 # a list pair
    np.testing.assert_array_equal(a[0].asnumpy(), b[0].asnumpy())
    np.testing.assert_array_equal(a[0].asnumpy(), 4.0 * x.asnumpy())


def test_a_recorded_builtin_call_is_the_node_tape_record_makes():
    x = _data(17, (2, 3))
    leaf, node = _tape.new_leaf(x)
    st = _tape.STATE
    st.depth += 1
    try:
        y = leaf * leaf
        y = leaf * leaf                     # warm: the compiled call path records this one
        z = ops.exp(x)                      # nothing on the tape: not recorded
    finally:
        st.depth -= 1
    n = y._node
    assert type(n) is _tape.Node and n.op is ops.mul.op and n.attrs == {}
    assert n.inputs == (leaf, leaf) and n.inputs[0] is leaf and n.outputs == (y,) and y._oidx == 0
    assert n.out_meta == [((2, 3), np.dtype(np.float32), "DefaultFormat")]
    assert z._node is None
    # a thread leaf (a shared Parameter) puts its calls on the tape too
    w = ms.Parameter(np.ones(3, np.float32), name="w")
    with _tape.thread_leaf([w]):
        st.depth += 1
        try:
            u = w * w
            u = w * w
        finally:
            st.depth -= 1
    assert u._node is not None and u._node.inputs == (w, w)


_SCRIPT = r"""
import numpy as np, mscustom as ms
from mscustom import nn, ops
rng = np.random.default_rng(0)
x = ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32))
w = ms.Parameter(rng.standard_normal((4,)).astype(np.float32), name="w")
f = lambda t: ((t * 1.7) * (t * 1.7) + ops.exp(t) * t * w).sum()
outs = [ms.grad(f)(x), ms.grad(lambda t: ms.grad(f)(t).sum())(x),
        ms.grad(f, grad_position=None, weights=[w])(x)[0],
        ms.value_and_grad(lambda t: (t * t, ops.sin(t) * w))(x)[1]]
print(" ".join(o.asnumpy().tobytes().hex() for o in outs))
"""


def test_the_python_tape_and_walk_give_the_same_bytes_in_a_fresh_process():
    import subprocess
    import sys
    got = []
    for flag in ("1", "0"):
        env = dict(os.environ, MSCUSTOM_FASTWALK=flag)
        res = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 0, res.stderr
        got.append(res.stdout.strip())
    assert got[0] and got[0] == got[1]
