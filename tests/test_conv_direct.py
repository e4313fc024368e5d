"""Stride-1 float32 convolutions by the register-tiled direct loops (``ops/nn/conv_direct.py``).

Pinned to the float64 NumPy reference kernels (``conv._conv2d_ref`` and the backprops) over random
shapes, paddings, dilations and kernel sizes, and to the im2col path through the public ops; the
forward and input gradient give the same bits on every thread budget; the loops stand aside where
they do not apply (strides, groups, float64, wide layers, pads beyond the kernel, another Numba).
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mscustom as ms
from mscustom import _numba_private, ops
from mscustom.ops.nn import conv, conv_direct

pytestmark = pytest.mark.skipif(not _numba_private.supported(), reason="the direct loops need Numba's 0.68 series")


def _attrs(x_shape, w_shape, pads, dil=(1, 1), stride=(1, 1), groups=1):
    return {"stride": stride, "dilation": dil, "pad": pads, "groups": groups,
            "x_shape": x_shape, "w_shape": w_shape}


def _refs(x, w, dy, attrs):
    """Forward, input gradient and filter gradient by the float64 reference kernels."""
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    return (conv._conv2d_ref(attrs, (x64, w64)), conv._backprop_input_ref(attrs, (dy64, w64)),
            conv._backprop_filter_ref(attrs, (x64, dy64)))


def _close(got, want, terms):
    """float32 sums of ``terms`` products of standard normals against float64: a few ulp of the sum's size."""
    tol = 4e-7 * terms ** 0.5 * 8
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 6), o=st.integers(1, 9), h=st.integers(1, 11), w=st.integers(1, 13),
       kh=st.integers(1, 5), kw=st.integers(1, 5), dh=st.integers(1, 2), dw=st.integers(1, 2),
       sh=st.integers(1, 3), sw=st.integers(1, 3),
       pads=st.lists(st.integers(0, 4), min_size=4, max_size=4), seed=st.integers(0, 2**16))
def test_direct_loops_match_the_reference(n, c, o, h, w, kh, kw, dh, dw, sh, sw, pads, seed):
    pads = tuple(min(p, (k - 1) * d) for p, k, d in zip(pads, (kh, kh, kw, kw), (dh, dh, dw, dw)))
    oh = (h + pads[0] + pads[1] - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pads[2] + pads[3] - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1 or kh * kw == 1:
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c, kh, kw)).astype(np.float32)
    dy = rng.standard_normal((n, o, oh, ow)).astype(np.float32)
    attrs = _attrs(x.shape, wt.shape, pads, (dh, dw), (sh, sw))
    y_ref, dx_ref, dw_ref = _refs(x, wt, dy, attrs)
    y = np.full(y_ref.shape, np.nan, np.float32)
    conv_direct.forward(x, wt, y, attrs)
    _close(y, y_ref, c * kh * kw)
    _close(conv_direct.backprop_filter(x, dy, wt.shape, attrs), dw_ref, n * oh * ow)
    if (sh, sw) != (1, 1):
        assert conv_direct.input_pads(attrs, wt.shape) is None      # a strided input gradient: im2col
        return
    assert conv_direct.input_pads(attrs, wt.shape) is not None
    dx = np.full(x.shape, np.nan, np.float32)
    conv_direct.backprop_input(dy, wt, dx, attrs)
    _close(dx, dx_ref, o * kh * kw)


@pytest.mark.parametrize("stride", [1, 2])
def test_resnet_layers_take_the_direct_loops_and_agree_with_im2col(monkeypatch, stride):
    """The public ops on a 16-channel 3x3 layer: the direct loops run (spied; a strided layer's input
    gradient by im2col), and the values equal the im2col path's within float32 rounding."""
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((3, 16, 24, 24)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))

    def loss(x, w):
        return (ops.conv2d(x, w, stride=stride, pad_mode="pad", padding=1) ** 2).sum()

    def run():
        y = ops.conv2d(x, w, stride=stride, pad_mode="pad", padding=1).asnumpy()
        gx, gw = ms.grad(loss, (0, 1))(x, w)
        return y, gx.asnumpy(), gw.asnumpy()

    calls = []
    for name in ("forward", "backprop_input", "backprop_filter"):
        real = getattr(conv_direct, name)
        monkeypatch.setattr(conv_direct, name, lambda *a, _real=real, _name=name, **kw: calls.append(_name) or _real(*a, **kw))
    direct = run()
    want = ["backprop_filter", "backprop_input", "forward"] if stride == 1 else ["backprop_filter", "forward"]
    assert sorted(set(calls)) == want
    monkeypatch.setitem(conv_direct._STATE, "on", False)
    calls.clear()
    im2col = run()
    assert calls == []
    for got, want in zip(direct, im2col):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-4 * np.abs(want).max() ** 0.5)


@pytest.mark.parametrize("attrs_change, w_shape, dtype, positions", [
    ({"groups": 2}, (8, 2, 3, 3), np.float32, 256),
    ({}, (8, 4, 1, 1), np.float32, 256),
    ({}, (8, 4, 3, 3), np.float64, 256),
    ({}, (8, 40, 3, 3), np.float32, 256),           # 360 channel-taps per sum: im2col + BLAS
    ({}, (8, 4, 3, 3), np.float32, 64),             # an 8x8 plane
])
def test_the_direct_loops_stand_aside(attrs_change, w_shape, dtype, positions):
    x = np.zeros((1, w_shape[1] * (2 if attrs_change.get("groups") else 1), 6, 6), dtype)
    attrs = {**_attrs(x.shape, w_shape, (1, 1, 1, 1)), **attrs_change}
    assert not conv_direct.applies(x, np.zeros(w_shape, dtype), attrs, w_shape, w_shape[1], positions)


def test_the_direct_loops_take_a_narrow_3x3_layer():
    """The control of the cases above: float32, one group, 3x3, 36 channel-taps, a 16x16 plane."""
    w_shape = (8, 4, 3, 3)
    x = np.zeros((1, 4, 16, 16), np.float32)
    assert conv_direct.applies(x, np.zeros(w_shape, np.float32), _attrs(x.shape, w_shape, (1, 1, 1, 1)),
                               w_shape, 4, 256)


def test_pads_beyond_the_kernel_take_im2col_for_the_input_gradient():
    """A pad of 3 on a 3x3 kernel: the input gradient is no forward convolution of the padded output
    gradient; conv2d still gives the reference's values through the im2col path."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    attrs = _attrs(x.shape, w.shape, (3, 3, 3, 3))
    assert conv_direct.input_pads(attrs, w.shape) is None
    dy = rng.standard_normal((2, 4, 9, 9)).astype(np.float32)
    y_ref, dx_ref, dw_ref = _refs(x, w, dy, attrs)
    _close(conv._conv2d_compute(attrs, (x, w)), y_ref, 27)
    _close(conv._backprop_input_compute(attrs, (dy, w)), dx_ref, 36)
    _close(conv._backprop_filter_compute(attrs, (x, dy)), dw_ref, 162)


def test_forward_and_input_gradient_bits_do_not_depend_on_the_budget(monkeypatch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 5, 9, 9)).astype(np.float32)
    w = rng.standard_normal((6, 5, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((7, 6, 9, 9)).astype(np.float32)
    attrs = _attrs(x.shape, w.shape, (1, 1, 1, 1))
    monkeypatch.setattr(conv_direct, "MIN_SPLIT_BYTES", 0)      # split on Numba's threads from budget 2
    results = []
    try:
        for threads in (1, 2, 3):
            ms.set_context(runtime_num_threads=threads)
            y = np.empty((7, 6, 9, 9), np.float32)
            dx = np.empty_like(x)
            conv_direct.forward(x, w, y, attrs)
            conv_direct.backprop_input(dy, w, dx, attrs)
            dw = conv_direct.backprop_filter(x, dy, w.shape, attrs)
            results.append((y, dx, dw))
    finally:
        ms.set_context(runtime_num_threads=0)
    for y, dx, dw in results[1:]:
        assert np.array_equal(y, results[0][0]) and np.array_equal(dx, results[0][1])
        np.testing.assert_allclose(dw, results[0][2], rtol=1e-5, atol=1e-4)


def test_split_layers_take_the_direct_loops_up_to_the_split_bounds(monkeypatch):
    """A 64-channel 3x3 layer on 8x8 planes (576 channel-taps per sum, 64 positions): im2col on one
    thread; the direct loops where the budget splits the batch, with im2col's values within float32
    rounding; the filter gradient's chunk sums are added in a fixed order (the same bits every run)."""
    rng = np.random.default_rng(5)
    x = ms.Tensor(rng.standard_normal((8, 64, 8, 8)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((64, 64, 3, 3)).astype(np.float32) * 0.05)
    attrs = _attrs((8, 64, 8, 8), (64, 64, 3, 3), (1, 1, 1, 1))
    monkeypatch.setattr(conv_direct, "MIN_SPLIT_BYTES", 0)

    def loss(x, w):
        return (ops.conv2d(x, w, pad_mode="pad", padding=1) ** 2).sum()

    def run():
        y = ops.conv2d(x, w, pad_mode="pad", padding=1).asnumpy()
        gx, gw = ms.grad(loss, (0, 1))(x, w)
        return y, gx.asnumpy(), gw.asnumpy()

    calls = []
    real = conv_direct._forward
    monkeypatch.setattr(conv_direct, "_forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    try:
        ms.set_context(runtime_num_threads=1)
        assert not conv_direct.applies(x.asnumpy(), w.asnumpy(), attrs, (64, 64, 3, 3), 64, 64)
        one = run()
        assert calls == []
        ms.set_context(runtime_num_threads=2)
        assert conv_direct.applies(x.asnumpy(), w.asnumpy(), attrs, (64, 64, 3, 3), 64, 64)
        two, again = run(), run()
        assert calls                            # forward and input gradient by the direct loops
    finally:
        ms.set_context(runtime_num_threads=0)
    for got, want in zip(two, one):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())
    for got, want in zip(again, two):
        np.testing.assert_array_equal(got, want)
    y_ref = conv._conv2d_ref(attrs, (x.asnumpy().astype(np.float64), w.asnumpy().astype(np.float64)))
    _close(two[0], y_ref, 576)


def test_empty_batches_and_channels():
    attrs = _attrs((0, 3, 5, 5), (4, 3, 3, 3), (1, 1, 1, 1))
    y = np.empty((0, 4, 5, 5), np.float32)
    conv_direct.forward(np.zeros((0, 3, 5, 5), np.float32), np.ones((4, 3, 3, 3), np.float32), y, attrs)
    dw = conv_direct.backprop_filter(np.zeros((0, 3, 5, 5), np.float32), np.zeros((0, 4, 5, 5), np.float32),
                                     (4, 3, 3, 3), attrs)
    assert dw.shape == (4, 3, 3, 3) and not dw.any()


def test_another_numba_series_keeps_im2col(monkeypatch):
    monkeypatch.setattr(_numba_private, "_answer", [False])
    monkeypatch.setitem(conv_direct._STATE, "on", None)
    w_shape = (4, 3, 3, 3)
    attrs = _attrs((1, 3, 5, 5), w_shape, (1, 1, 1, 1))
    assert conv_direct.applies(np.zeros((1, 3, 5, 5), np.float32), np.zeros(w_shape, np.float32),
                               attrs, w_shape, 3, 256) is False
    monkeypatch.setattr(_numba_private, "_answer", [True])
    monkeypatch.setitem(conv_direct._STATE, "on", None)
    assert conv_direct.applies(np.zeros((1, 3, 5, 5), np.float32), np.zeros(w_shape, np.float32),
                               attrs, w_shape, 3, 256) is True
    monkeypatch.setitem(conv_direct._STATE, "on", None)     # read again with the real answer afterwards


def test_simd_lanes():
    """``_numba_private.simd``: loads, stores, splat, fma (one rounding) and add on eight float32 lanes."""
    import numba
    from mscustom._numba_private import simd

    @numba.njit
    def kernel(a, b, out, s):
        va, vb = simd.vload(a, 1), simd.vload(b, 0)
        simd.vstore(out, 0, simd.vfma(va, vb, simd.vsplat(s)))
        simd.vstore(out, 8, simd.vadd(va, simd.vzero()))

    a = np.arange(9, dtype=np.float32) * np.float32(1.1)
    b = np.linspace(-2, 3, 8).astype(np.float32)
    out = np.empty(16, np.float32)
    kernel(a, b, out, np.float32(0.25))
    want = (a[1:].astype(np.float64) * b + 0.25).astype(np.float32)     # exact product, one rounding
    assert np.array_equal(out[:8], want)
    assert np.array_equal(out[8:], a[1:])


@pytest.mark.parametrize("where", ["input", "filter"])
def test_non_finite_values_give_the_reference_non_finite_pattern(where):
    """An inf in the input (filter gradient) or the filter (input gradient): the direct loops would
    multiply it by the zero of a dropped position or of the padding (NaN); conv.py then takes im2col,
    and every gradient has the float64 reference's NaN and inf pattern and finite values."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 12, 12)).astype(np.float32)
    w = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((2, 8, 12, 12)).astype(np.float32)
    if where == "input":
        x[0, 1, 4, 0] = np.inf                  # the first column: dropped positions of the row above read it
    else:
        w[3, 2, 0, 2] = np.inf
    attrs = _attrs(x.shape, w.shape, (1, 1, 1, 1))
    assert conv_direct.applies(x, w, attrs, w.shape, 4, 144)
    _, dx_ref, dw_ref = _refs(x, w, dy, attrs)
    with np.errstate(invalid="ignore", over="ignore"):
        dx = conv._backprop_input_compute(attrs, (dy, w))
        dw = conv._backprop_filter_compute(attrs, (x, dy))
    for got, want in ((dx, dx_ref), (dw, dw_ref)):
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(np.isinf(got), np.isinf(want))
        fin = np.isfinite(want)
        np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5, atol=1e-4)


def test_bias_and_relu_are_added_as_the_loops_write_the_output():
    """``conv2d_bias`` (eager and into a replay's buffer) and the replay's conv+bias+ReLU chain: the
    direct loops add the bias and write the ReLU in their copy pass, the bits of the products plus
    ``y += b`` and ``maximum(y, 0)`` (NaN kept, -0.0 to 0.0)."""
    from mscustom.ops.graph_mode import kernels as graph_kernels
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 13, 11)).astype(np.float32)
    x[1, 2, 5, 5] = np.nan
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    b[2] = -0.0
    attrs = _attrs(x.shape, w.shape, (1, 1, 1, 1))
    plain = conv._conv2d_compute(attrs, (x, w))
    want = plain + b.reshape(-1, 1, 1)
    assert np.array_equal(conv._conv2d_bias_compute(attrs, (x, w, b)), want, equal_nan=True)
    y, a = np.empty_like(want), np.empty_like(want)
    conv.conv2d_bias_into(attrs, (x, w, b), (y,))
    assert np.array_equal(y, want, equal_nan=True)
    y[...] = 7
    graph_kernels._conv2d_bias_relu_into(attrs, (x, w, b), (y, a))
    assert np.array_equal(y, want, equal_nan=True)
    relu = np.maximum(want, np.float32(0))
    assert np.array_equal(a, relu, equal_nan=True)
    assert not np.signbit(a[~np.isnan(a)]).any()
