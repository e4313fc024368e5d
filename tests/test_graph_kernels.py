"""The kernels graph-mode replays use write exactly what the eager kernels return."""

import numpy as np
import pytest

import mscustom as ms  # noqa: F401 - registers the built-in ops
from mscustom import dtype as mstype
from mscustom.ops import get_op

RNG = np.random.default_rng(0)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = [
    ("relu", [_f(4, 5)], {}),
    ("relu_grad", [_f(4, 5), _f(4, 5)], {}),
    ("reduce_sum", [_f(3, 4, 5)], {"axis": (0, 2), "keep_dims": False}),
    ("reduce_sum", [_f(3, 4)], {"axis": None, "keep_dims": True}),
    ("reduce_sum", [RNG.integers(0, 2, (3, 4)).astype(bool)], {"axis": (1,), "keep_dims": False}),
    ("reduce_mean", [_f(3, 4, 5)], {"axis": (1,), "keep_dims": True}),
    ("reduce_mean", [_f(0, 3)], {"axis": (0,), "keep_dims": False}),
    ("reduce_mean", [RNG.integers(0, 9, (3, 4)).astype(np.int32)], {"axis": None, "keep_dims": False}),
    ("cast", [_f(3, 4)], {"dtype": mstype.float16}),
    ("cast", [_f(3, 4) * 10], {"dtype": mstype.int32}),
    ("broadcast_to", [_f(1, 4)], {"shape": (3, 4)}),
    ("log_softmax", [_f(6, 10) * 5], {"axis": -1}),
    ("log_softmax", [_f(6, 10)], {"axis": 0}),
    ("softmax", [_f(6, 10) * 5], {"axis": 1}),
    ("one_hot", [RNG.integers(-1, 5, (7,)).astype(np.int32)],
     {"depth": 5, "on": 1.0, "off": 0.0, "axis": -1, "dtype": mstype.float32}),
    ("one_hot", [RNG.integers(0, 5, (2, 3)).astype(np.int64)],
     {"depth": 5, "on": 2.5, "off": -1.0, "axis": -1, "dtype": mstype.float32}),
    ("matmul", [_f(3, 4), _f(4, 2)], {}),
    ("one_hot", [RNG.integers(0, 5, (4,)).astype(np.int32)],
     {"depth": 5, "on": 1.0, "off": 0.0, "axis": 0, "dtype": mstype.float32}),
    ("sparse_softmax_cross_entropy", [_f(6, 5) * 4, RNG.integers(0, 5, (6,)).astype(np.int32)],
     {"reduction": "none", "ignore_index": None}),
    ("sparse_softmax_cross_entropy", [_f(2, 3, 5), RNG.integers(0, 5, (2, 3)).astype(np.int64)],
     {"reduction": "mean", "ignore_index": None}),
    ("sparse_softmax_cross_entropy", [_f(6, 5), np.array([0, 1, -100, 4, 2, -100], np.int32)],
     {"reduction": "sum", "ignore_index": -100}),
    ("sparse_softmax_cross_entropy_grad", [_f(6, 5), RNG.integers(0, 5, (6,)).astype(np.int32), _f(6)],
     {"reduction": "none", "ignore_index": None}),
    ("sparse_softmax_cross_entropy_grad", [_f(6, 5), np.array([0, 1, -100, 4, 2, -100], np.int32),
                                           np.asarray(1.5, np.float32)],
     {"reduction": "mean", "ignore_index": -100}),
    ("dense", [_f(4, 3), _f(5, 3), _f(5)], {}),
    ("dense", [_f(2, 4, 3), _f(5, 3), _f()], {}),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")        # the mean of an empty slice
@pytest.mark.parametrize("name,ins,attrs", CASES, ids=[c[0] for c in CASES])
def test_write_into_kernel_equals_the_eager_kernel(name, ins, attrs):
    op = get_op(name)
    expected = np.asarray(op.attrs["FComputeAlloc<cpu>"](attrs, ins))
    out = np.full(expected.shape, 123, expected.dtype)      # garbage the kernel must overwrite
    op.attrs["FComputeInto"](attrs, ins, [out])
    np.testing.assert_array_equal(out, expected)


UFUNC_CASES = [
    ("add", [_f(3, 4), _f(4)]), ("sub", [_f(3, 4), _f(3, 1)]), ("mul", [_f(2, 3), _f(2, 3)]),
    ("div", [_f(3), _f(3)]), ("neg", [_f(5)]), ("square", [_f(5)]), ("exp", [_f(5)]),
    ("log", [np.abs(_f(5)) + 0.1]), ("sqrt", [np.abs(_f(5))]), ("matmul", [_f(3, 4), _f(4, 2)]),
    ("maximum", [_f(4), _f(4)]), ("minimum", [_f(4), _f(4)]), ("tanh", [_f(4)]),
    ("accumulate", [_f(4), _f(4)]), ("greater", [_f(4), _f(4)]), ("equal", [_f(4), _f(4)]),
]


@pytest.mark.parametrize("name,ins", UFUNC_CASES, ids=[c[0] for c in UFUNC_CASES])
def test_ufunc_attribute_is_the_eager_kernel(name, ins):
    op = get_op(name)
    expected = np.asarray(op.attrs["FComputeAlloc<cpu>"]({}, ins))
    out = np.empty(expected.shape, expected.dtype)
    op.attrs["FUfunc"](*ins, out=out)
    np.testing.assert_array_equal(out, expected)


def test_transpose_view_has_the_eager_values():
    x = _f(3, 4, 5)
    op = get_op("transpose")
    for perm in (None, (2, 0, 1)):
        view = op.attrs["FView"]({"perm": perm}, [x])
        assert np.shares_memory(view, x)
        np.testing.assert_array_equal(view, op.attrs["FComputeAlloc<cpu>"]({"perm": perm}, [x]))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("ignore_index", [None, 2])
@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 4), (0, 3), (64, 10), (3, 1)])
def test_fused_loss_and_gradient_equal_the_two_eager_kernels(reduction, ignore_index, shape):
    loss_op, grad_op = get_op("sparse_softmax_cross_entropy"), get_op("sparse_softmax_cross_entropy_grad")
    partner, n_shared, fused = loss_op.attrs["FFuseInto"]
    assert (partner, n_shared) == ("sparse_softmax_cross_entropy_grad", 2)
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    x = _f(*shape) * 4
    y = RNG.integers(0, shape[-1], shape[:-1]).astype(np.int32)
    d = np.asarray(RNG.standard_normal(y.shape if reduction == "none" else ()), np.float32)
    loss = np.asarray(loss_op.attrs["FComputeAlloc<cpu>"](attrs, [x, y]))
    grad = grad_op.attrs["FComputeAlloc<cpu>"](attrs, [x, y, d])
    outs = [np.full(loss.shape, 123, np.float32), np.full(x.shape, 123, np.float32)]
    with np.errstate(all="ignore"):
        fused(attrs, [x, y, d], outs)
    np.testing.assert_array_equal(outs[0], loss)
    np.testing.assert_array_equal(outs[1], grad)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_loss_row_loops_match_numpy_on_special_values(dtype, monkeypatch):
    """The Numba row loops (2-d logits, mean/sum; the fused kernel, and the loss and the gradient alone as
    eager calls make them once Numba is loaded) against the NumPy kernels: NaN, inf, huge and tied logits."""
    from mscustom.ops.nn import loss_fused as _loss_fused
    rng = np.random.default_rng(12)
    x = (rng.standard_normal((40, 7)) * 30).astype(dtype)
    x[0, 3], x[1, :] = np.nan, 5.0
    x[2, 0], x[3, 2], x[4, :] = np.inf, -np.inf, -1e30
    y = rng.integers(0, 7, 40).astype(np.int64)
    _loss_fused._row_loops()
    for reduction in ("mean", "sum"):
        attrs = {"reduction": reduction, "ignore_index": None}
        d = np.asarray(1.7, dtype)
        loss, grad = np.empty((), dtype), np.empty(x.shape, dtype)
        _loss_fused.loss_and_grad_into(attrs, (x, y, d), loss, grad)
        assert _loss_fused._rows_fit(attrs, x, y)
        row_loss = _loss_fused.loss_into(attrs, (x, y))
        row_grad = _loss_fused.grad_into(attrs, (x, y, d), np.empty(x.shape, dtype))
        with monkeypatch.context() as m:
            m.setattr(_loss_fused, "_rows_fit", lambda *a: False)         # the NumPy kernels
            want_loss = _loss_fused.loss_into(attrs, (x, y))
            want_grad = _loss_fused.grad_into(attrs, (x, y, d), np.empty(x.shape, dtype))
        for got in (loss, row_loss):
            np.testing.assert_array_equal(got, want_loss)
            assert got.dtype == want_loss.dtype and got.shape == want_loss.shape
        for got in (grad, row_grad):
            np.testing.assert_array_equal(got, want_grad)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want_grad))
    with pytest.raises(ValueError, match="op 'sparse_softmax_cross_entropy': label 7 is out of range for 7"):
        _loss_fused.loss_and_grad_into(attrs, (x, np.full(40, 7, np.int64), d), loss, grad)


def _same_values(got, want):
    """Equal values, signed zeros included; NaN where NaN (the sign of a NaN is not part of a value)."""
    np.testing.assert_array_equal(got, want)
    keep = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[keep]), np.signbit(want[keep]))


def _specials(shape, dtype, rng):
    """Random values with NaN, infinities, signed zeros and a column of -0.0 mixed in."""
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[:: 7] = -0.0
    flat[3:: 11] = 0.0
    flat[5:: 13] = np.nan
    flat[6:: 17] = np.inf
    flat[8:: 19] = -np.inf
    a[:, 1] = -0.0
    return a


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 10), (33, 40), (1, 600)])
def test_dense_relu_and_relu_grad_sum_chains_are_bit_identical_to_the_separate_kernels(dtype, shape):
    """The chained kernels (Numba loops) write exactly what the two separate into kernels write."""
    from mscustom.ops import _loop_loader
    _loop_loader.load()                                 # loaded in the background otherwise
    rng = np.random.default_rng(21)
    dense, relu, relu_grad, reduce_sum = (get_op(n) for n in ("dense", "relu", "relu_grad", "reduce_sum"))
    n, m = shape
    x, w = rng.standard_normal((n, 16)).astype(dtype), rng.standard_normal((m, 16)).astype(dtype)
    b = _specials((1, m), dtype, rng).reshape(-1)
    accept, chain = dense.attrs["FFuseConsumer"]["relu"]
    h = np.full(shape, 123, dtype)
    dense.attrs["FComputeInto"]({}, [x, w, b], [h])
    a = np.full(shape, 123, dtype)
    relu.attrs["FComputeInto"]({}, [h], [a])
    outs = [np.full(shape, 7, dtype), np.full(shape, 7, dtype)]
    chain({}, [x, w, b], outs)
    for got, want in zip(outs, (h, a)):
        _same_values(got, want)

    dy, hx = _specials(shape, dtype, rng), _specials(shape, dtype, rng)
    sum_attrs = {"axis": (0,), "keep_dims": False}
    accept, chain = relu_grad.attrs["FFuseConsumer"]["reduce_sum"]
    assert accept({}, sum_attrs, dy) and not accept({}, {"axis": (1,), "keep_dims": False}, dy)
    assert not accept({}, {"axis": (0,), "keep_dims": True}, dy)
    g = np.full(shape, 123, dtype)
    relu_grad.attrs["FComputeInto"]({}, [dy, hx], [g])
    db = np.full(m, 123, dtype)
    reduce_sum.attrs["FComputeInto"](sum_attrs, [g], [db])
    outs = [np.full(shape, 7, dtype), np.full(m, 7, dtype)]
    chain({}, [dy, hx], outs)
    for got, want in zip(outs, (g, db)):
        _same_values(got, want)
    from mscustom.ops.graph_mode import loops as graph_loops
    assert graph_loops._LOOPS, "the Numba loops were not used"


@pytest.mark.parametrize("case", ["float16", "3-d", "small", "strided"])
def test_chained_kernels_fall_back_to_numpy_where_the_loops_do_not_fit(case):
    rng = np.random.default_rng(22)
    dt = np.float16 if case == "float16" else np.float32
    lead = (2, 40) if case == "3-d" else (4,) if case == "small" else (40,)
    x = rng.standard_normal(lead + (8,)).astype(dt)
    w, b = rng.standard_normal((30, 8)).astype(dt), rng.standard_normal(30).astype(dt)
    dense, relu_grad = get_op("dense"), get_op("relu_grad")
    h = np.asarray(dense.attrs["FComputeAlloc<cpu>"]({}, [x, w, b]))
    outs = [np.empty_like(h), np.empty_like(h)]
    dense.attrs["FFuseConsumer"]["relu"][1]({}, [x, w, b], outs)
    np.testing.assert_array_equal(outs[0], h)
    np.testing.assert_array_equal(outs[1], np.maximum(h, 0))
    if h.ndim != 2:
        return
    dy = rng.standard_normal(h.shape).astype(dt)
    if case == "strided":
        dy = np.repeat(dy, 2, axis=1)[:, ::2]
    g = dy * (h > 0)
    outs = [np.empty_like(h), np.empty(h.shape[1], dt)]
    relu_grad.attrs["FFuseConsumer"]["reduce_sum"][1]({}, [dy, h], outs)
    np.testing.assert_array_equal(outs[0], g)
    np.testing.assert_array_equal(outs[1], np.add.reduce(g, 0))


# ------------------------------------------------------------------ call lists (as_calls)
def _run_calls(calls, ins, outs):
    """Run an ``as_calls`` list the way a replay does (``_core/calls.py``), NumPy warnings as errors."""
    from mscustom._core.calls import Ref

    def resolve(a):
        if isinstance(a, Ref):
            arr = (ins if a.side == "in" else outs)[a.index]
            return arr.T if a.transposed else arr
        return a

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)      # e.g. a positional ufunc output
        for call, args, *kwargs in calls:
            call(*[resolve(a) for a in args], **{k: resolve(v) for k, v in (kwargs[0] if kwargs else {}).items()})


CALL_CASES = [c for c in CASES if getattr(get_op(c[0]).attrs["FComputeInto"], "as_calls", None) is not None] + [
    ("matmul", [_f(4, 3), _f(4, 2)], {"transpose_a": True, "transpose_b": False}),
    ("matmul", [_f(3, 4), _f(2, 4)], {"transpose_a": False, "transpose_b": True}),
    ("reduce_sum", [RNG.integers(0, 9, (3, 4)).astype(np.int8)], {"axis": (0,), "keep_dims": False}),
    ("relu", [RNG.integers(-5, 5, (3, 4)).astype(np.int32)], {}),
]


@pytest.mark.parametrize("name,ins,attrs", CALL_CASES, ids=[c[0] for c in CALL_CASES])
def test_call_lists_write_what_the_eager_kernel_returns(name, ins, attrs):
    op = get_op(name)
    expected = np.asarray(op.attrs["FComputeAlloc<cpu>"](attrs, ins))
    out = np.full(expected.shape, 123, expected.dtype)
    calls = op.attrs["FComputeInto"].as_calls(attrs, ins, [out])
    if calls is None:           # kept as the kernel's own call: it is tested above
        assert name == "dense" and ins[0].ndim == 3
        return
    _run_calls(calls, ins, [out])
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == expected.dtype


def test_call_lists_cover_the_common_graph_kernels():
    for name in ("relu", "relu_grad", "reduce_sum", "cast", "broadcast_to", "matmul", "dense"):
        assert getattr(get_op(name).attrs["FComputeInto"], "as_calls", None) is not None, name
    # N-D operands of a transposed matmul keep the kernel's own swapaxes call
    assert get_op("matmul").attrs["FComputeInto"].as_calls(
        {"transpose_a": True}, [_f(2, 4, 3), _f(2, 4, 2)], [np.empty((2, 3, 2), np.float32)]) is None


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(4, 10), (64, 10)])
def test_chain_call_lists_match_the_chained_kernels_where_they_apply(dtype, shape):
    """Small or non-float chains are spelled as NumPy calls; where the Numba loops may run, they are not."""
    rng = np.random.default_rng(23)
    dense, relu_grad = get_op("dense"), get_op("relu_grad")
    n, m = shape
    x, w = rng.standard_normal((n, 16)).astype(dtype), rng.standard_normal((m, 16)).astype(dtype)
    b = _specials((1, m), dtype, rng).reshape(-1)
    dy, hx = _specials(shape, dtype, rng), _specials(shape, dtype, rng)
    loops_may_run = n * m >= 512 and dtype != np.float16
    for (fn_ins, out_shapes, chain) in (([x, w, b], (shape, shape), dense.attrs["FFuseConsumer"]["relu"][1]),
                                        ([dy, hx], (shape, (m,)), relu_grad.attrs["FFuseConsumer"]["reduce_sum"][1])):
        want = [np.full(s, 7, dtype) for s in out_shapes]
        chain({}, fn_ins, want)
        got = [np.full(s, 9, dtype) for s in out_shapes]
        calls = chain.as_calls({}, fn_ins, got)
        assert (calls is None) == loops_may_run
        if calls is not None:
            _run_calls(calls, fn_ins, got)
            for g, w_ in zip(got, want):
                _same_values(g, w_)


# ------------------------------------------------------------------ eager kernels sharing the loops
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(64, 40), (3, 5), (2, 30, 20)])
def test_eager_relu_relu_grad_and_dense_give_numpys_values_on_every_path(dtype, shape):
    """relu against a cached array of zeros, relu_grad and dense's bias add as Numba loops: NumPy's values."""
    from mscustom.ops.graph_mode import loops as graph_loops
    graph_loops.get()                                  # the loops are loaded: eager kernels take them
    assert graph_loops.ready()
    rng = np.random.default_rng(24)
    relu, relu_grad, dense = (get_op(n).attrs["FComputeAlloc<cpu>"] for n in ("relu", "relu_grad", "dense"))
    x, dy = _specials(shape, dtype, rng), _specials(shape, dtype, rng)
    for _ in range(2):                                  # the second call reuses the cached zeros
        _same_values(relu({}, [x]), np.maximum(x, 0))
        _same_values(relu_grad({}, [dy, x]), np.multiply(dy, x > 0))
    w = rng.standard_normal((shape[-1], 7)).astype(dtype)
    b = _specials((1, shape[-1]), dtype, rng).reshape(-1)
    x2 = rng.standard_normal(shape[:-1] + (7,)).astype(dtype)
    want = np.matmul(x2, w.T)
    want += b
    _same_values(dense({}, [x2, w, b]), want)
    strided = dy[..., ::2]                              # not contiguous: NumPy's own calls
    _same_values(relu_grad({}, [strided, x[..., ::2]]), np.multiply(strided, x[..., ::2] > 0))


def test_relu_zeros_are_read_only_kept_few_and_only_for_large_float_arrays():
    from mscustom.ops.nn import activation as _activation
    assert _activation.relu_zero((4, 4), np.dtype(np.float32)) == 0
    assert _activation.relu_zero((64, 64), np.dtype(np.int32)) == 0
    z = _activation.relu_zero((64, 64), np.dtype(np.float32))
    assert z.shape == (64, 64) and not z.flags.writeable and not z.any()
    assert _activation.relu_zero((64, 64), np.dtype(np.float32)) is z
    for n in range(20):
        _activation.relu_zero((64, 100 + n), np.dtype(np.float64))
    assert len(_activation._ZEROS) <= _activation._ZEROS_KEPT
