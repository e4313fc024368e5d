"""Behaviour checked call by call against real MindSpore 2.10 (CPU): the literals below are its results.

Result dtypes of reductions and index ops, axes given as NumPy integers or
Tensors, gradient tie-breaking, dtype names, integer powers and loss
broadcasting (bench/ms_conformance_dtypes.py runs the same cases on both).
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops

_X = np.array([[1, 0, 3], [4, 5, 2]])

# op -> {input dtype: result dtype(s)}, from MindSpore 2.10; "TypeError": MindSpore refuses the dtype
_DTYPES = {
    "ops.sum": (lambda x: ops.sum(x), {"int32": "int64", "int64": "int64", "float16": "float16",
                                       "float32": "float32", "bool": "int64", "uint8": "int64", "int8": "int64"}),
    "Tensor.sum": (lambda x: x.sum(), {"int32": "int64", "uint8": "int64", "bool": "int64", "float32": "float32"}),
    "ReduceSum": (lambda x: ops.ReduceSum()(x), {"int32": "int32", "int8": "int8", "float16": "float16",
                                                 "bool": "bool"}),
    "ops.mean": (lambda x: ops.mean(x, 1), {"int32": "int32", "int64": "int64", "uint8": "uint8",
                                            "float16": "float16", "float32": "float32"}),
    "Tensor.mean": (lambda x: x.mean(), {"int32": "int32", "int8": "int8"}),
    "ReduceMean": (lambda x: ops.ReduceMean()(x), {"int64": "int64"}),
    "ops.max(axis)": (lambda x: ops.max(x, 1), {"int32": ("int32", "int64"), "float32": ("float32", "int64"),
                                                "uint8": ("uint8", "int64"), "bool": "TypeError"}),
    "ops.min(axis)": (lambda x: ops.min(x, 1), {"int64": ("int64", "int64"), "float16": ("float16", "int64")}),
    "ops.max()": (lambda x: ops.max(x), {"int32": ("int32", "int64"), "float32": ("float32", "int64")}),
    "ops.argmax": (lambda x: ops.argmax(x, 1), {"int32": "int64", "float32": "int64", "bool": "int64"}),
    "ops.argmin": (lambda x: ops.argmin(x, 1), {"int32": "int32", "int64": "int32", "float32": "int32",
                                                "bool": "TypeError"}),
    "Tensor.argmax": (lambda x: x.argmax(), {"float32": "int64", "int8": "int64"}),
    "Tensor.argmin": (lambda x: x.argmin(), {"float32": "int32", "int64": "int32", "bool": "TypeError"}),
    "Argmax": (lambda x: ops.Argmax()(x), {"int64": "int32", "float32": "int32", "bool": "TypeError"}),
    "Argmin": (lambda x: ops.Argmin()(x), {"float16": "int32", "bool": "TypeError"}),
    "ops.amax": (lambda x: ops.amax(x, 1), {"int32": "int32", "uint8": "uint8", "bool": "TypeError"}),
    "ReduceMax": (lambda x: ops.ReduceMax()(x), {"int8": "int8", "bool": "TypeError"}),
}
_DTYPE_CASES = [(name, dt, want) for name, (_, table) in _DTYPES.items() for dt, want in table.items()]


@pytest.mark.parametrize("name,dt,want", _DTYPE_CASES, ids=[f"{n}-{d}" for n, d, _ in _DTYPE_CASES])
def test_result_dtypes_match_mindspore(name, dt, want):
    fn = _DTYPES[name][0]
    x = ms.Tensor(_X.astype(dt))
    if want == "TypeError":
        with pytest.raises(TypeError, match="must be a number type, got bool"):
            fn(x)
        return
    got = fn(x)
    got = tuple(t.dtype.name for t in got) if isinstance(got, tuple) else got.dtype.name
    assert got == want


def test_integer_mean_truncates_and_wraps_as_mindspore():
    x = ms.Tensor(np.array([[-1, 0, -3], [4, 5, 1]], np.int32))
    assert ops.mean(x, 1).asnumpy().tolist() == [-1, 3]
    assert ops.mean(ms.Tensor(np.array([-7, 0], np.int64))).item() == -3
    u = ms.Tensor(np.array([200, 255, 255], np.uint8))
    assert ops.mean(u).item() == 66                   # the uint8 sum wraps to 198 first
    assert ops.sum(u).item() == 710 and ops.ReduceSum()(u).item() == 198
    assert ops.max(x)[1].item() == 0 and ops.max(x)[1].dtype == ms.int64
    b = ms.Tensor(np.array([[False, False], [True, False]]))
    assert ops.ReduceSum(keep_dims=True)(b, 1).asnumpy().tolist() == [[False], [True]]   # any, kept bool
    assert ops.sum(b).item() == 1 and ops.sum(b).dtype == ms.int64


@pytest.mark.parametrize("fn,want", [
    (lambda x: ops.sum(x, np.int64(1)), [-4, 10]),
    (lambda x: ops.sum(x, ms.Tensor(1)), [-4, 10]),
    (lambda x: ops.sum(x, (np.int64(0), 1)), 6),
    (lambda x: ops.sum(x, ms.Tensor([0, 1])), 6),
    (lambda x: ops.mean(x, np.int32(1)), [-1, 3]),
    (lambda x: ops.mean(x, ms.Tensor(np.int64(0))), [1, 2, -1]),
    (lambda x: x.sum(np.int64(1)), [-4, 10]),
    (lambda x: x.mean(np.int64(1)), [-1, 3]),
    (lambda x: ops.amax(x, np.int64(1)), [0, 5]),
    (lambda x: ops.amin(x, ms.Tensor(1)), [-3, 1]),
    (lambda x: ops.argmax(x, np.int64(1)), [1, 1]),
    (lambda x: ops.argmin(x, np.int64(1)), [2, 2]),
    (lambda x: x.argmax(np.int64(1)), [1, 1]),
    (lambda x: ops.ReduceSum()(x, np.int64(1)), [-4, 10]),
    (lambda x: ops.ReduceMean()(x, ms.Tensor(1)), [-1, 3]),
    (lambda x: ops.ReduceMax()(x, np.int64(0)), [4, 5, 1]),
])
def test_numpy_integer_and_tensor_axes(fn, want):
    x = ms.Tensor(np.array([[-1, 0, -3], [4, 5, 1]], np.int32))
    assert fn(x).asnumpy().tolist() == want


def test_axis_types_mindspore_refuses():
    x = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
    with pytest.raises(TypeError, match="op 'max': axis must be an int or None, got int64 1"):
        ops.max(x, np.int64(1))                       # MindSpore: "'axis' must be int"
    with pytest.raises(TypeError, match="op 'min': axis must be an int or None, got Tensor"):
        ops.min(x, ms.Tensor(1))
    with pytest.raises(TypeError, match="op 'reduce_sum': axis must be an int or a tuple of ints, got 1.0"):
        ops.sum(x, 1.0)


# ---------------------------------------------------------------- tie-breaking (MindSpore's gradients)
_TIE = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], np.float32)
_FIRST = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
_SPLIT = [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]


@pytest.mark.parametrize("fn,want", [
    (lambda x: ops.max(x, 1)[0].sum(), _FIRST),
    (lambda x: ops.max(x, 1, keepdims=True)[0].sum(), _FIRST),
    (lambda x: ops.min(x, 1)[0].sum(), [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
    (lambda x: x.max(axis=1).sum(), _FIRST),
    (lambda x: ops.max(x)[0], [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    (lambda x: x.max(), [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]),
    (lambda x: ops.amax(x, 1).sum(), _SPLIT),
    (lambda x: ops.ReduceMax()(x, 1).sum(), _SPLIT),
])
def test_max_gradient_ties(fn, want):
    np.testing.assert_allclose(ms.grad(fn)(ms.Tensor(_TIE)).asnumpy(), want, rtol=1e-6)


def test_maximum_minimum_clamp_ties():
    a, b = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), ms.Tensor(np.array([1.0, 3.0, 2.0], np.float32))
    ga, gb = ms.grad(lambda a, b: ops.Maximum()(a, b).sum(), (0, 1))(a, b)
    assert ga.asnumpy().tolist() == [0.5, 0.0, 1.0] and gb.asnumpy().tolist() == [0.5, 1.0, 0.0]
    ga, gb = ms.grad(lambda a, b: ops.maximum(a, b).sum(), (0, 1))(a, ms.Tensor(np.float32(2.0)))
    assert ga.asnumpy().tolist() == [0.0, 0.5, 1.0] and gb.item() == 1.5
    x = ms.Tensor(np.array([0.0, 1.0, 3.0, 6.0], np.float32))
    assert ms.grad(lambda t: ops.clamp(t, 1.0, 3.0).sum())(x).asnumpy().tolist() == [0.0, 1.0, 1.0, 0.0]
    assert ms.grad(lambda t: ops.clip_by_value(t, 1.0, 3.0).sum())(x).asnumpy().tolist() == [0.0, 0.5, 0.5, 0.0]
    assert ms.grad(lambda t: ops.relu6(t).sum())(x).asnumpy().tolist() == [0.0, 1.0, 1.0, 1.0]


# ---------------------------------------------------------------- dtype names, integer powers, losses
@pytest.mark.parametrize("name,want", [
    ("float16", "Float16"), ("float32", "Float32"), ("float64", "Float64"), ("int8", "Int8"), ("int16", "Int16"),
    ("int32", "Int32"), ("int64", "Int64"), ("uint8", "UInt8"), ("uint16", "UInt16"), ("uint32", "UInt32"),
    ("uint64", "UInt64"), ("bool_", "Bool")])
def test_dtype_str_is_mindspores(name, want):
    d = getattr(ms, name)
    assert str(d) == want and str(ms.Tensor(np.zeros(1), d).dtype) == want
    assert repr(d) == f"mscustom.{name}"


@pytest.mark.parametrize("fn,dtype,want", [
    (lambda: 2 ** ms.Tensor(np.array([-2, -1, 0, 1, 2], np.int32)), "int32", [0, 0, 1, 2, 4]),
    (lambda: ms.Tensor(np.array([2, -1, 1, 3], np.int32)) ** -1, "int32", [0, -1, 1, 0]),
    (lambda: ms.Tensor(np.array([2, -1, -3, 1], np.int32)) ** -2, "int32", [0, 1, 0, 1]),
    (lambda: ms.Tensor(np.array([2, 3, -1, 1], np.int64)) ** ms.Tensor(np.array([-1, -2, -3, -5], np.int64)),
     "int64", [0, 0, -1, 1]),
    (lambda: ms.Tensor(np.array([0, 2], np.int32)) ** -1, "int32", [-2147483648, 0]),
    (lambda: 2.0 ** ms.Tensor(np.array([-2, -1, 0], np.int32)), "float32", [0.25, 0.5, 1.0]),
])
def test_integer_negative_powers(fn, dtype, want):
    r = fn()
    assert r.dtype.name == dtype and r.asnumpy().tolist() == want


def test_mse_and_l1_losses_broadcast():
    p = ms.Tensor(np.array([[1.0], [2.0], [3.0]], np.float32))
    t = ms.Tensor(np.array([1.0, 2.0, 4.0], np.float32))
    np.testing.assert_allclose(nn.MSELoss()(p, t).item(), 2.3333333, rtol=1e-6)
    assert nn.MSELoss(reduction="none")(p, t).shape == (3, 3)
    np.testing.assert_allclose(ms.grad(lambda p: nn.MSELoss()(p, t))(p).asnumpy(),
                               [[-0.8888889], [-0.22222222], [0.44444448]], rtol=1e-6)
    assert nn.MSELoss(reduction="sum")(t, ms.Tensor(np.float32(1.0))).item() == 10.0
    np.testing.assert_allclose(nn.L1Loss()(p, t).item(), 1.2222222, rtol=1e-6)
    with pytest.raises(ValueError, match=r"MSELoss: logits and labels must have shapes that broadcast together, "
                                         r"got \[3, 1\] and \[2, 2\]"):
        nn.MSELoss()(p, ms.Tensor(np.zeros((2, 2), np.float32)))


# ---------------------------------------------------------------- optimizers (parameters after 4 steps)
_GRADS = ([0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [-1.5, 0.7, 0.0], [0.2, 0.2, 0.2])


def _steps(make):
    p = ms.Parameter(ms.Tensor(np.array([1.0, -2.0, 0.5], np.float32)), name="w")
    opt = make([p])
    out = []
    for g in _GRADS:
        opt((ms.Tensor(np.array(g, np.float32)),))
        out.append(p.asnumpy().copy())
    return np.stack(out)


@pytest.mark.parametrize("make,want", [
    (lambda ps: nn.RMSProp(ps, learning_rate=0.1),                    # the mean square starts at ones
     [[0.9480125, -1.9, 0.3245884], [0.9370591, -1.931466, 0.3430469], [1.088958, -2.006639, 0.3430469],
      [1.067658, -2.029221, 0.3225805]]),
    (lambda ps: nn.RMSProp(ps, learning_rate=0.05, momentum=0.9, centered=True),
     [[0.973971, -1.949748, 0.4109129], [0.9450583, -1.920286, 0.3400661], [0.9953829, -1.931361, 0.2763039],
      [1.029995, -1.952629, 0.2085627]]),
    (lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9, dampening=0.5),   # first step undamped
     [[0.95, -1.9, 0.3], [0.9, -1.825, 0.13], [0.9299999, -1.7925, -0.02299997], [0.947, -1.77325, -0.1707]]),
    (lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.5, dampening=0.2, weight_decay=0.1),
     [[0.94, -1.88, 0.295], [0.89448, -1.82896, 0.20614], [0.9845642, -1.844808, 0.1600609],
      [1.00573, -1.853974, 0.1197408]]),
    (lambda ps: nn.Momentum(ps, 0.1, 0.9),
     [[0.95, -1.9, 0.3], [0.895, -1.84, 0.14], [0.9955, -1.856, -0.003999963], [1.06595, -1.8904, -0.1535999]]),
])
def test_optimizer_steps_match_mindspore(make, want):
    np.testing.assert_allclose(_steps(make), want, rtol=2e-6, atol=1e-7)


def test_momentum_nesterov_follows_the_documented_formula():
    # MindSpore's CPU kernel ignores use_nesterov (it gives the plain Momentum numbers above); mscustom
    # applies MindSpore's documented rule p -= lr * (g + momentum * v), as its GPU/Ascend kernels do
    got = _steps(lambda ps: nn.Momentum(ps, 0.1, 0.9, use_nesterov=True))
    np.testing.assert_allclose(got[0], [1.0 - 0.1 * 0.95, -2.0 + 0.1 * 1.9, 0.5 - 0.1 * 3.8], rtol=1e-6)


def test_get_lr_returns_float32_tensors():
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=[0.1, 0.05, 0.01])
    lr = opt.get_lr()
    assert isinstance(lr, ms.Tensor) and lr.dtype == ms.float32 and lr.shape == ()
    assert opt.get_lr().item() == pytest.approx(0.1)                # no side effect, as in MindSpore
    opt((ms.Tensor(np.ones(2, np.float32)),))
    assert opt.get_lr().item() == pytest.approx(0.05)
    q = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="q")
    grouped = nn.SGD([{"params": [p], "lr": 0.0}, {"params": [q]}], learning_rate=0.1)
    assert [t.item() for t in grouped.get_lr()] == pytest.approx([0.0, 0.1])
    assert grouped.get_lr_parameter(q).dtype == ms.float32


# ---------------------------------------------------------------- x[index] = value inside a gradient
def _x6():
    return ms.Tensor(np.arange(1, 7, dtype=np.float32).reshape(3, 2))


def _overwrite_row(x):
    y = x * 1.0
    y[0] = 0.0
    return (y * x).sum()


def _value_into_row(x, v):
    y = x * 1.0
    y[1] = v
    return (y * y).sum()


def test_setitem_cuts_the_gradient_of_overwritten_entries():
    assert ms.grad(_overwrite_row)(_x6()).asnumpy().tolist() == [[0, 0], [6, 8], [10, 12]]
    gx, gv = ms.grad(_value_into_row, grad_position=(0, 1))(_x6(), ms.Tensor(np.array([5.0, 7.0], np.float32)))
    assert gx.asnumpy().tolist() == [[2, 4], [0, 0], [10, 12]] and gv.asnumpy().tolist() == [10, 14]


def test_setitem_index_kinds_and_broadcast_value():
    def sliced(x, v):
        y = x * 1.0
        y[1:, 0] = v
        return (y * y).sum()
    gx, gv = ms.grad(sliced, grad_position=(0, 1))(_x6(), ms.Tensor(np.float32(3.0)))
    assert gx.asnumpy().tolist() == [[2, 4], [0, 8], [0, 12]] and gv.item() == 12

    def masked(x):
        y = x * 1.0
        y[x > 3] = 0.0
        return (y * x).sum()
    assert ms.grad(masked)(_x6()).asnumpy().tolist() == [[2, 4], [6, 0], [0, 0]]

    def into_constant(x):
        y = ops.zeros((3, 2), ms.float32)
        y[1] = x[0] * 2.0
        return (y * y).sum()
    assert ms.grad(into_constant)(_x6()).asnumpy().tolist() == [[8, 16], [0, 0], [0, 0]]


def test_setitem_keeps_earlier_results_and_the_producers_values():
    def earlier(x):
        y = x * 1.0
        z = y * 2.0                     # read before the write: its gradient reaches row 0
        y[0] = 0.0
        return z.sum() + (y * x).sum()
    assert ms.grad(earlier)(_x6()).asnumpy().tolist() == [[2, 2], [8, 10], [12, 14]]

    def after_exp(x):
        y = ops.exp(x)
        y[0] = 0.0
        return y.sum()
    np.testing.assert_allclose(ms.grad(after_exp)(_x6()).asnumpy(),
                               [[0, 0], [20.085537, 54.59815], [148.41316, 403.4288]], rtol=1e-5)
    w = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))

    def after_softmax(x):
        y = ops.softmax(x, axis=1)
        y[0, 0] = 0.0                   # softmax's gradient still reads its own output
        return (y * w).sum()
    np.testing.assert_allclose(ms.grad(after_softmax)(_x6()).asnumpy(),
                               [[-0.19661176, 0.19661179], [-0.19661175, 0.19661184], [-0.19661169, 0.196612]],
                               rtol=1e-5)
    y = _x6()
    y[0] = 9.0                          # outside a gradient: a plain in-place write
    assert y.asnumpy().tolist() == [[9, 9], [3, 4], [5, 6]]


def test_setitem_gradient_in_graph_mode():
    def f(x, v):
        y = x * 1.0
        y[1] = v
        return (y * x).sum()
    v = ms.Tensor(np.array([5.0, 7.0], np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        g = ms.jit(ms.grad(f, grad_position=(0, 1)))
        for scale in (1.0, 2.0, 3.0):           # a record, then replays
            gx, gv = g(_x6() * scale, v)
            x = np.arange(1, 7, dtype=np.float32).reshape(3, 2) * scale
            want = 2 * x
            want[1] = v.asnumpy()
            np.testing.assert_allclose(gx.asnumpy(), want)
            np.testing.assert_allclose(gv.asnumpy(), x[1])
        assert g.stats["replayed"] == 2 and g.eager_reason is None
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_setitem_finds_earlier_readers_in_every_call_style():
    def style(write):
        def f(x):
            y = x * 1.0
            z = y * 2.0
            write(y)
            return z.sum() + (y * x).sum()
        return ms.grad(f)(_x6()).asnumpy().tolist()
    want = [[2, 2], [8, 10], [12, 14]]
    assert style(lambda y: y.__setitem__(0, 0.0)) == want
    assert style(lambda y: ms.Tensor.__setitem__(y, 0, 0.0)) == want
    held = []

    def in_a_list(y):
        held.append(y)
        held[0][0] = 0.0
    assert style(in_a_list) == want


def test_setitem_into_a_parameter_is_an_in_place_write():
    # MindSpore 2.10: a Parameter is written in place off the graph; its gradient is taken at the new value
    x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    w = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")

    def f(x):
        w[0] = x[0] * 2.0
        return (w * x).sum()
    gx, (gw,) = ms.grad(f, 0, [w])(x)
    assert gx.asnumpy().tolist() == [[2, 4], [1, 1]] and gw.asnumpy().tolist() == [[1, 2], [3, 4]]
    assert w.asnumpy().tolist() == [[2, 4], [1, 1]]
