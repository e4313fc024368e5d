"""Elementwise fusion in graph replays: chains of elementwise calls run as one generated Numba kernel.

Every test compares the fused replay with the unfused replay (``MSCUSTOM_FUSE=off``)
and with eager execution. Chains without ops NumPy vectorises (exp, log, tanh,
sigmoid) must give the same bits; with them (``MSCUSTOM_FUSE_MATH=1``) they may
differ in the last bits of those functions. Kernels are few and small, and
Numba's disk cache keeps them between runs.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mscustom as ms
from mscustom import nn, ops
from mscustom._core import fusion, fusion_kernels

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _only_record(jf):
    (variants,) = jf.records.values()
    return variants[0]


def _arrays(result):
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in _arrays(r)]
    return [result.asnumpy()]


def _replayed(fn, args, monkeypatch, fuse, math="0"):
    """``fn(*args)`` replayed by a record made under ``MSCUSTOM_FUSE=fuse``: (arrays, record)."""
    monkeypatch.setenv("MSCUSTOM_FUSE", fuse)
    monkeypatch.setenv("MSCUSTOM_FUSE_MATH", math)
    jf = ms.jit(fn)
    jf(*args)                           # records
    out = _arrays(jf(*args))            # replays
    assert jf.stats["replayed"] == 1
    return out, _only_record(jf)


def _same(got, want, exact, dtype):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            tol = 2e-4 if dtype == np.float32 else 1e-10
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


# ------------------------------------------------------------------ random chains
_UNARY = {
    "neg": lambda a: -a,
    "square": ops.square,
    "relu": ops.relu,
    "erf": ops.erf,
    "sqrt1": lambda a: ops.sqrt(ops.abs(a) + 1.0),
    "pow3": lambda a: ops.pow(a, 3),
    "tanh": ops.tanh,
    "sigmoid": ops.sigmoid,
    "via64": lambda a: ops.cast(ops.cast(a, ms.float64) * 1.5, a.dtype),
}
_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div1": lambda a, b: a / (ops.abs(b) + 1.0),
    "max": ops.maximum,
    "where": lambda a, b: ops.where(a > b, a, b * 0.5),
}
_VECTORISED = {"tanh", "sigmoid"}       # NumPy's loops may differ from the C library's in the last bits


@st.composite
def _programs(draw):
    """A random chain over x (..., C), b (C,), m (..., 1) and a number:
    (ops, returned values, grad?, dtype, vectorised math fused?, shape)."""
    prog = []
    for k in range(draw(st.integers(2, 4))):
        src = draw(st.sampled_from([k, k, k - 1, 0] if k else [0]))    # 0: x, j: the value of op j
        if draw(st.booleans()):
            prog.append((draw(st.sampled_from(sorted(_UNARY))), src, None))
        else:
            other = draw(st.sampled_from(["b", "m", "number", "value"]))
            if other == "value":
                other = draw(st.integers(0, k))
            prog.append((draw(st.sampled_from(sorted(_BINARY))), src, other))
    returned = draw(st.lists(st.integers(1, len(prog) - 1), max_size=2, unique=True)) if len(prog) > 1 else []
    return prog, returned, draw(st.booleans()), draw(st.sampled_from([np.float32, np.float64])), \
        draw(st.booleans()), draw(st.sampled_from([(6, 5), (2, 3, 4)]))


def _program_fn(prog, returned):
    def run(x, b, m):
        vals = [x]
        for name, src, other in prog:
            a = vals[src]
            if other is None:
                vals.append(_UNARY[name](a))
                continue
            y = {"b": b, "m": m, "number": 0.75}.get(other) if not isinstance(other, int) else vals[other]
            vals.append(_BINARY[name](a, y))
        return tuple(vals[i] for i in returned) + (vals[-1],)
    return run


def _loss_of(fn):
    def loss(x, b, m):
        total = None
        for out in fn(x, b, m):
            s = out.sum()
            total = s if total is None else total + s
        return total
    return ms.value_and_grad(loss, grad_position=(0, 1, 2))


@settings(max_examples=6, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_programs())
def test_random_chains_fused_equal_unfused_and_eager(monkeypatch, case):
    prog, returned, with_grad, dtype, with_math, shape = case
    rng = np.random.default_rng(len(prog))
    x = ms.Tensor(rng.uniform(-2, 2, shape).astype(dtype))
    b = ms.Tensor(rng.uniform(-2, 2, shape[-1:]).astype(dtype))
    m = ms.Tensor(rng.uniform(-2, 2, shape[:-1] + (1,)).astype(dtype))
    fn = _program_fn(prog, returned)
    if with_grad:
        fn = _loss_of(fn)
    eager = _arrays(fn(x, b, m))
    unfused, _ = _replayed(fn, (x, b, m), monkeypatch, "off")
    fused, rec = _replayed(fn, (x, b, m), monkeypatch, "now", "1" if with_math else "0")
    assert rec.describe()["fusion"]["state"] in ("fused", "none")
    exact = not (with_math and any(name in _VECTORISED for name, _, _ in prog))
    _same(unfused, eager, True, dtype)                  # replays were always bit-identical to eager
    _same(fused, unfused, exact, dtype)
    _same(fused, eager, exact, dtype)


_SPECIAL = [-np.inf, np.inf, np.nan, -0.0, 0.0, 1e-40, -1e-40, 3.0, -2.5, 0.5, 1e30, -7e-3]


def _bits_equal(got, want):
    """Same values bit for bit (signed zeros, subnormals), NaN where NaN (its sign and payload may differ)."""
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        nan = np.isnan(w) if w.dtype.kind == "f" else np.zeros(w.shape, bool)
        np.testing.assert_array_equal(np.isnan(g) if g.dtype.kind == "f" else nan, nan)
        width = {1: np.uint8, 4: np.uint32, 8: np.uint64}[w.dtype.itemsize]
        np.testing.assert_array_equal(g.view(width)[~nan], w.view(width)[~nan])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_keep_their_bits(monkeypatch, dtype):
    def f(x, y):
        a = x + y
        b = a - y
        c = b * y
        d = c / x
        e = ops.maximum(d, x)
        g = ops.minimum(e, y)
        h = ops.relu(g)
        i = ops.where(h > x, h, -y)
        j = ops.pow(i, 2) + ops.pow(x, 3)
        k = ops.pow(j, 0.5) - ops.pow(y, -1)
        m = ops.cast(ops.cast(k, ms.float64) * 3.0, k.dtype)
        return a, b, c, d, e, g, h, i, j, k, m, ops.sign(m) * ops.abs(y) + ops.sqrt(x), ops.erf(k) - x

    grid = np.array(_SPECIAL, dtype)
    x, y = (ms.Tensor(v.ravel().copy()) for v in np.meshgrid(grid, grid))
    with np.errstate(all="ignore"):
        eager = _arrays(f(x, y))
        fused, rec = _replayed(f, (x, y), monkeypatch, "now")
        unfused, _ = _replayed(f, (x, y), monkeypatch, "off")
    assert rec.describe()["fusion"]["state"] == "fused" and rec.describe()["fusion"]["ops"] >= 20
    _bits_equal(unfused, eager)
    _bits_equal(fused, unfused)


# ------------------------------------------------------------------ what becomes one kernel
def test_a_chain_becomes_one_kernel_and_returned_intermediates_are_written(monkeypatch):
    def f(x, b):
        h = ops.relu(x * 2.0 + b)               # b (C,) broadcasts along the leading axis
        return ops.sqrt(h * h + 1.0) - x, h

    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((16, 8)).astype(np.float32))
    b = ms.Tensor(rng.standard_normal(8).astype(np.float32))
    fused, rec = _replayed(f, (x, b), monkeypatch, "now")
    facts = rec.describe()
    assert facts["modes"] == {"elementwise": 1}
    assert facts["fusion"] == {"state": "fused", "kernels": 1, "ops": 7}
    assert facts["arena_bytes"] == 0                   # nothing but the two returned values is stored
    unfused, plain = _replayed(f, (x, b), monkeypatch, "off")
    assert plain.describe()["fusion"]["state"] == "off" and "elementwise" not in plain.describe()["modes"]
    _same(fused, unfused, True, np.float32)
    _same(fused, _arrays(f(x, b)), True, np.float32)


def test_layer_norm_row_statistics_broadcast_along_trailing_axes(monkeypatch):
    def f(x, g, beta):
        mean = x.mean(axis=-1, keep_dims=True)          # (N, 1): broadcasts along the trailing axis
        c = x - mean
        var = (c * c).mean(axis=-1, keep_dims=True)
        return c / ops.sqrt(var + 1e-5) * g + beta

    rng = np.random.default_rng(1)
    args = [ms.Tensor(rng.standard_normal(s).astype(np.float64)) for s in ((4, 3, 8), (8,), (8,))]
    fused, rec = _replayed(f, args, monkeypatch, "now")
    unfused, _ = _replayed(f, args, monkeypatch, "off")
    _same(fused, unfused, True, np.float64)
    assert rec.describe()["fusion"]["kernels"] >= 2
    assert "reduce_mean" in [st.op.name for st in rec.steps if st.kind == "kernel"]


def test_broadcasts_over_middle_axes_and_float16_stay_unfused(monkeypatch):
    def f(x, c):
        return (x * c + 1.0) * 2.0              # c (1, 3, 1) over (2, 3, 4): neither leading nor trailing

    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    c = ms.Tensor(np.array([1.0, -2.0, 0.5], np.float32).reshape(1, 3, 1))
    fused, rec = _replayed(f, (x, c), monkeypatch, "now")
    np.testing.assert_array_equal(fused[0], (x.asnumpy() * c.asnumpy() + 1) * 2)
    assert rec.describe()["fusion"]["ops"] == 2         # the two calls after the product
    assert rec.steps[0].op.name == "mul"
    h = ms.Tensor(np.ones((2, 3), np.float16))
    half, rec16 = _replayed(lambda a: (a * 2.0 + 1.0) * a, (h,), monkeypatch, "now")
    assert rec16.describe()["fusion"]["state"] == "none"
    np.testing.assert_array_equal(half[0], np.full((2, 3), 3.0, np.float16))


def test_vectorised_transcendentals_end_chains_unless_asked(monkeypatch):
    def f(x):
        return ops.exp(x * 0.5 + 1.0) * 3.0 - 1.0

    x = ms.Tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    plain, rec = _replayed(f, (x,), monkeypatch, "now")
    assert rec.describe()["fusion"]["kernels"] == 2 and rec.describe()["fusion"]["ops"] == 4
    assert [st.op.name for st in rec.steps if st.kind == "kernel"][1] == "exp"
    _same(plain, _arrays(f(x)), True, np.float32)
    everything, rec_all = _replayed(f, (x,), monkeypatch, "now", math="1")
    assert rec_all.describe()["fusion"] == {"state": "fused", "kernels": 1, "ops": 5}
    _same(everything, plain, False, np.float32)


# ------------------------------------------------------------------ guards, shapes, layouts
def test_a_changed_shape_or_dtype_records_again(monkeypatch):
    monkeypatch.setenv("MSCUSTOM_FUSE", "now")
    bias = ms.Tensor(np.array([0.5, -1.0, 2.0], np.float32))

    @ms.jit
    def f(x):
        return ops.relu(x - bias) * 3.0 + x

    def want(x):
        return np.maximum(x - bias.asnumpy(), 0) * np.float32(3) + x

    for rows in (2, 5, 2):
        x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) - 4
        for _ in range(2):
            np.testing.assert_array_equal(f(ms.Tensor(x)).asnumpy(), want(x))
    x64 = np.linspace(-3, 3, 6).reshape(2, 3)                   # another dtype: recorded again
    for _ in range(2):
        np.testing.assert_array_equal(f(ms.Tensor(x64)).asnumpy(), want(x64))
    assert f.stats["recorded"] == 3 and len(f.records) == 3
    for variants in f.records.values():
        assert variants[0].describe()["fusion"]["state"] == "fused"
    bias.assign_value(ms.Tensor(np.array([[1.0, 1.0, 1.0]], np.float32)))      # another layout: stale
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(f(ms.Tensor(x)).asnumpy(), want(x))
    np.testing.assert_array_equal(f(ms.Tensor(x)).asnumpy(), want(x))
    assert f.stats.get("stale") == 1


def test_non_contiguous_and_repeated_arguments(monkeypatch):
    def f(x, y):
        return (x * y - y) * 0.5 + x

    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    for x, y in ((a.T, a.T.copy()), (a, a)):
        got, rec = _replayed(f, (ms.Tensor(x), ms.Tensor(y)), monkeypatch, "now")
        np.testing.assert_array_equal(got[0], (x * y - y) * 0.5 + x)
        assert rec.describe()["fusion"]["state"] == "fused"


def test_background_policy_switches_after_replays(monkeypatch):
    monkeypatch.setenv("MSCUSTOM_FUSE", "background")
    monkeypatch.setattr(fusion, "REPLAYS_BEFORE_FUSING", 3)
    monkeypatch.setattr(fusion_kernels, "_ENTRIES", {})    # as in a fresh process (Numba's disk cache stays)

    @ms.jit
    def f(x):
        return (x - 1.0) * (x + 2.0) / 4.0

    x = ms.Tensor(np.linspace(-3, 3, 10, dtype=np.float32))
    want = f(x).asnumpy()                               # records
    rec = _only_record(f)
    assert rec.describe()["fusion"]["state"] == "pending" and "elementwise" not in rec.describe()["modes"]
    for _ in range(3):
        np.testing.assert_array_equal(f(x).asnumpy(), want)
    fusion.wait(120)
    assert rec.describe()["fusion"]["state"] == "fused"
    assert rec.describe()["modes"] == {"elementwise": 1}
    for _ in range(2):
        np.testing.assert_array_equal(f(x).asnumpy(), want)
    assert f.stats == {"recorded": 1, "replayed": 5, "eager": 0}


def test_large_arrays_run_in_parallel_blocks(monkeypatch):
    monkeypatch.setattr(fusion, "PARALLEL_MIN", 64)
    monkeypatch.setattr(fusion, "CHUNK", 16)

    def f(x, b):
        return (x * 2.0 - b) * x, (x + 1.0) * 0.25

    rng = np.random.default_rng(3)
    x = ms.Tensor(rng.standard_normal((9, 11)).astype(np.float32))
    b = ms.Tensor(rng.standard_normal(11).astype(np.float32))
    fused, rec = _replayed(f, (x, b), monkeypatch, "now")
    assert all("_prange(" in s.fn.source for s in rec.steps if s.mode == "elementwise")
    _same(fused, _arrays(f(x, b)), True, np.float32)


# ------------------------------------------------------------------ a training step
def test_training_steps_with_gelu_and_layer_norm_equal_unfused(monkeypatch):
    def make(fuse):
        monkeypatch.setenv("MSCUSTOM_FUSE", fuse)
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(6, 16), nn.GELU(approximate=False), nn.LayerNorm((16,)),
                                nn.Dense(16, 3))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
        step.set_train()
        return step, net

    rng = np.random.default_rng(4)
    x = ms.Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 8).astype(np.int32))
    ms.set_context(mode=ms.GRAPH_MODE)
    runs = {}
    for fuse in ("off", "now"):
        step, net = make(fuse)
        losses = [float(step(x, y).asnumpy()) for _ in range(4)]
        runs[fuse] = (losses, [p.asnumpy().copy() for p in net.trainable_params()], step)
    assert runs["now"][0] == runs["off"][0]
    for a, b in zip(runs["now"][1], runs["off"][1]):
        np.testing.assert_array_equal(a, b)
    (variants,) = runs["now"][2].__dict__["_graph_fn"].records.values()
    facts = variants[0].describe()["fusion"]
    assert facts["state"] == "fused" and facts["ops"] >= 10           # GELU, LayerNorm and their gradients
