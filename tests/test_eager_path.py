"""The eager per-call path: Custom calls straight into the dispatcher, safe reuse of output buffers,
matmul without transpose copies, and extend.def_kernel's rows (what Custom builds its OpDef with)."""

import sys
import threading
import weakref

import numpy as np
import pytest

import mscustom as ms
from mscustom import extend, nn, ops
from mscustom._core import dispatch, fastcall


def square_kernel(x, out):
    for i in range(x.size):
        out[i] = x[i] * x[i]


@pytest.fixture(scope="module")
def jit_square():
    return ops.Custom(square_kernel, lambda s: s, lambda d: d, func_type="jit")


# ---------------------------------------------------------------- frames
def test_a_cached_custom_call_reaches_the_kernel_through_two_frames():
    """dispatch.call_owner -> the pyfunc runner -> the function (was three frames before it);
    with the compiled call path, op(x) calls the function from C: no frame between."""
    here = sys._getframe().f_code
    seen = []

    def double(x):
        f, n = sys._getframe(1), 0
        while f.f_code is not here:
            n += 1
            f = f.f_back
        seen.append(n)
        return x * 2

    op = ops.Custom(double, lambda s: s, lambda d: d, func_type="pyfunc")
    x = ms.Tensor(np.ones(3, np.float32))
    op(x)
    op(x)                                   # the plan is cached now (and armed for the compiled path)
    op(x)
    assert type(op).__call__ is dispatch.owner_method
    assert seen[-1] == (0 if fastcall.AVAILABLE else 2)
    dispatch.call_owner(op, x)              # the Python call path
    assert seen[-1] == 2
    np.testing.assert_array_equal(op(x).asnumpy(), [2, 2, 2])


def test_calls_the_fast_path_does_not_take_still_work():
    op = ops.Custom(lambda x, y: x + y, lambda a, b: a, lambda a, b: a, func_type="pyfunc")
    x = ms.Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(op(x, np.ones(2, np.float32)).asnumpy(), [2, 2])   # an array argument
    np.testing.assert_array_equal(op(x, ms.Parameter(x, name="p")).asnumpy(), [2, 2])  # a Parameter
    with pytest.raises(TypeError, match="op '<lambda>'"):
        op(x)                               # arity, named by the op
    with pytest.raises(TypeError, match="op '<lambda>'"):
        op(x, x, x)


# ---------------------------------------------------------------- output reuse
def test_an_output_nobody_holds_is_reused(jit_square):
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    jit_square(x)
    first = weakref.ref(jit_square(x).asnumpy())     # the result is dropped at once
    again = jit_square(x)
    assert again.asnumpy() is first()
    np.testing.assert_array_equal(again.asnumpy(), [0, 1, 4, 9])


@pytest.mark.parametrize("hold", ["tensor", "array", "view"])
def test_an_output_still_held_is_never_overwritten(jit_square, hold):
    x1 = ms.Tensor(np.arange(4, dtype=np.float32))
    x2 = ms.Tensor(np.full(4, 3, np.float32))
    y = jit_square(x1)
    kept = {"tensor": y, "array": y.asnumpy(), "view": y.asnumpy()[1:]}[hold]
    del y
    for _ in range(3):
        np.testing.assert_array_equal(jit_square(x2).asnumpy(), [9, 9, 9, 9])
    got = kept.asnumpy() if hold == "tensor" else kept
    np.testing.assert_array_equal(got, [0, 1, 4, 9][1:] if hold == "view" else [0, 1, 4, 9])


def test_outputs_on_the_tape_are_not_reused(jit_square):
    sq = ops.Custom(square_kernel, lambda s: s, lambda d: d, func_type="jit",
                    bprop=lambda x, out, dout: (2 * x * dout,))
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    # the first output is needed by nothing but the tape while the second call runs
    g = ms.grad(lambda t: (sq(t) * sq(t + 1.0)).sum())(x)
    a = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(g.asnumpy(), 2 * a * (a + 1) ** 2 + a ** 2 * 2 * (a + 1))


def test_threads_calling_one_op_never_share_an_output(jit_square):
    errors = []

    def work(k):
        x = ms.Tensor(np.full(4, k, np.float32))
        held = []
        for _ in range(300):
            y = jit_square(x)
            held.append(y)
            if len(held) > 3:
                held.pop(0)
            if not np.array_equal(y.asnumpy(), np.full(4, k * k, np.float32)):
                errors.append(k)
        for y in held:
            if not np.array_equal(y.asnumpy(), np.full(4, k * k, np.float32)):
                errors.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)             # switch threads as often as possible
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors


def test_usage_stats_still_count_each_call(jit_square):
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    jit_square(x)
    before = jit_square.kernel_stats()[0].calls
    for _ in range(5):
        jit_square(x)
    assert jit_square.kernel_stats()[0].calls == before + 5


# ---------------------------------------------------------------- matmul without transpose copies
def test_a_dense_training_step_dispatches_no_transpose(rng):
    from mscustom.ops.array.shape import _TRANSPOSE
    net = nn.SequentialCell([nn.Dense(5, 4, activation="relu"), nn.Dense(4, 3)])
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    x = ms.Tensor(rng.normal(size=(6, 5)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 6).astype(np.int32))
    calls = []
    fn = _TRANSPOSE.kernels[0].fn
    _TRANSPOSE.kernels[0].fn = lambda attrs, ins: calls.append(1) or fn(attrs, ins)
    _TRANSPOSE.plans.clear()
    try:
        loss, grads = step(x, y)
        opt(grads)
    finally:
        _TRANSPOSE.kernels[0].fn = fn
        _TRANSPOSE.plans.clear()
    assert calls == []
    # the weight gradient is x's, by hand: dW = dY^T @ X
    w2 = net[1].weight.asnumpy()
    assert grads[2].shape == w2.shape


# ---------------------------------------------------------------- extend.def_kernel rows
def test_def_kernel_takes_paired_rows_as_reg_infos_give_them():
    op = extend.def_op("eager_rows_demo", inputs=("x",), register=False)
    extend.def_kernel(op, lambda attrs, ins: ins[0] * 2, target="CPU",
                      rows=[(("float32", "DefaultFormat"), ("float32", "DefaultFormat"))])
    f = extend.def_function(op, publish=False)
    np.testing.assert_array_equal(f(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])
    with pytest.raises(TypeError, match="eager_rows_demo"):
        f(ms.Tensor(np.ones(2, np.float64)))
    with pytest.raises(ValueError, match="def_kernel of op 'eager_rows_demo': give rows or dtypes"):
        extend.def_kernel(op, lambda attrs, ins: ins[0], rows=[], dtypes=[["float32", "float32"]])


def test_large_outputs_come_from_the_pool_and_are_not_overwritten_while_held(jit_square):
    n = (1 << 20) // 4 + 16                       # just over the 1 MiB pool size, float32
    x = ms.Tensor(np.full(n, 2, np.float32))
    first = jit_square(x)
    second = jit_square(ms.Tensor(np.full(n, 3, np.float32)))
    assert first.asnumpy() is not second.asnumpy()
    assert first.asnumpy()[0] == 4 and second.asnumpy()[0] == 9
    kept = weakref.ref(first.asnumpy())
    del first
    third = jit_square(x)
    assert third.asnumpy() is kept()                # the freed buffer came back from the pool
    assert second.asnumpy()[-1] == 9
