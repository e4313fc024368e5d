"""The Numba convolution and pooling kernels, pinned to the NumPy reference kernels they replace."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom._core.registry import get_op
from mscustom.ops.nn import conv as C
from mscustom.ops.nn import pool as P
from mscustom.testing import check_grad

T = ms.Tensor
DTYPES = [np.float32, np.float64]


def _tol(dtype):
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


# stride, pad (top, bottom, left, right), dilation, groups
CONVS = [((1, 1), (0, 0, 0, 0), (1, 1), 1),
         ((2, 1), (1, 2, 0, 1), (1, 1), 1),
         ((1, 2), (2, 2, 2, 2), (2, 1), 2),
         ((3, 2), (0, 1, 1, 0), (2, 2), 4)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("stride,pad,dilation,groups", CONVS)
def test_conv_kernels_match_reference(dtype, stride, pad, dilation, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 11, 9)).astype(dtype)
    w = rng.standard_normal((8, 4 // groups, 3, 2)).astype(dtype)
    attrs = {"stride": stride, "pad": pad, "dilation": dilation, "groups": groups}
    y = C._conv2d_compute(attrs, (x, w))
    np.testing.assert_allclose(y, C._conv2d_ref(attrs, (x, w)), **_tol(dtype))
    assert y.dtype == dtype and y.flags.c_contiguous
    dy = rng.standard_normal(y.shape).astype(dtype)
    ai, af = dict(attrs, x_shape=x.shape), dict(attrs, w_shape=w.shape)
    dx = C._backprop_input_compute(ai, (dy, w))
    np.testing.assert_allclose(dx, C._backprop_input_ref(ai, (dy, w)), **_tol(dtype))
    dw = C._backprop_filter_compute(af, (x, dy))
    np.testing.assert_allclose(dw, C._backprop_filter_ref(af, (x, dy)), **_tol(dtype))
    # strided (non-contiguous) operands give the same values
    xt = np.ascontiguousarray(x.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(C._conv2d_compute(attrs, (xt, w)), y)


# the kernels work in chunks of samples whose columns fit _CHUNK_BYTES: one sample, an uneven split
# (chunks of 2 and 1 of 3 samples, 7 * 2 * 3 * 2 rows of 20 positions) and the whole batch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("chunk_samples", [1, 2, 3])
@pytest.mark.parametrize("stride,pad,dilation,groups", CONVS[1:3])
def test_conv_kernels_in_chunks_match_reference(monkeypatch, dtype, chunk_samples, stride, pad, dilation, groups):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 11, 9)).astype(dtype)
    w = rng.standard_normal((6, 4 // groups, 3, 2)).astype(dtype)
    attrs = {"stride": stride, "pad": pad, "dilation": dilation, "groups": groups}
    oh, ow = C.conv_output_hw(x.shape[2:], w.shape[2:], attrs)
    monkeypatch.setattr(C, "_CHUNK_BYTES", chunk_samples * 4 * 3 * 2 * oh * ow * x.itemsize)
    assert C._chunk(3, 4 * 3 * 2, oh * ow, x.itemsize) == chunk_samples
    y = C._conv2d_compute(attrs, (x, w))
    np.testing.assert_allclose(y, C._conv2d_ref(attrs, (x, w)), **_tol(dtype))
    dy = rng.standard_normal(y.shape).astype(dtype)
    ai, af = dict(attrs, x_shape=x.shape), dict(attrs, w_shape=w.shape)
    dx = np.full(x.shape, np.nan, dtype)                  # the graph replays' form: into a buffer
    assert C._backprop_input_compute(ai, (dy, w), dx) is dx
    np.testing.assert_allclose(dx, C._backprop_input_ref(ai, (dy, w)), **_tol(dtype))
    dw = C._backprop_filter_compute(af, (x, dy))
    np.testing.assert_allclose(dw, C._backprop_filter_ref(af, (x, dy)), **_tol(dtype))
    yb = np.full(y.shape, np.nan, dtype)
    C.conv2d_products_into(attrs, x, w, yb)
    np.testing.assert_array_equal(yb, y)



# stride 1 with oW == W: im2col copies each tap's row as the input plane shifted (one contiguous copy,
# then the out-of-range columns zeroed), col2im adds it back as one contiguous run; kernel, pad (top, bottom, left, right), dilation, input H x W
SHIFTED = [((3, 3), (1, 1, 1, 1), (1, 1), (7, 6)),
           ((3, 2), (0, 2, 1, 0), (1, 1), (5, 9)),
           ((3, 3), (2, 2, 3, 1), (2, 2), (6, 5)),
           ((5, 3), (4, 0, 1, 1), (1, 1), (3, 4)),      # taps whose rows all fall in the padding
           ((1, 1), (0, 0, 0, 0), (1, 1), (4, 4))]


def test_im2col_shifted_planes_match_reference():
    rng = np.random.default_rng(8)
    for dtype in DTYPES:
        for (kh, kw), pad, dil, (h, w) in SHIFTED:
            x = rng.standard_normal((2, 3, h, w)).astype(dtype)
            attrs = {"stride": (1, 1), "pad": pad, "dilation": dil, "groups": 1}
            oh, ow = C.conv_output_hw((h, w), (kh, kw), attrs)
            assert ow == w
            ref = C._columns(x, (1, 3, kh, kw), attrs, oh, ow)[0]                     # (C*kh*kw, N*oh*ow)
            args = C._loop_args(attrs, kh, kw, oh, ow) + (dtype(0),)
            cols = np.full((2, 3 * kh * kw, oh * ow), np.nan, dtype)
            C._cnn_loops.get("im2col")(x, cols, *args)
            np.testing.assert_array_equal(cols.transpose(1, 0, 2).reshape(ref.shape), ref)
            cols = np.full((3 * kh * kw, 2, oh * ow), np.nan, dtype)
            C._cnn_loops.get("im2col_batch")(x, cols, *args)
            np.testing.assert_array_equal(cols.reshape(ref.shape), ref)
            # col2im: one contiguous add per tap, bit for bit the reference's sums (-0.0 entries included)
            dcols = rng.standard_normal((2, 3 * kh * kw, oh * ow)).astype(dtype)
            dcols[:, ::2, ::3] = -0.0
            ref_dx = C._col2im(dcols.transpose(1, 0, 2).reshape(3 * kh * kw, -1), x.shape, (1, 3, kh, kw), attrs,
                               oh, ow)
            dx = np.full(x.shape, np.nan, dtype)
            C._cnn_loops.get("col2im")(dcols, dx, *args)
            np.testing.assert_array_equal(dx.view(f"i{dx.itemsize}"), ref_dx.view(f"i{dx.itemsize}"))
            wt = rng.standard_normal((4, 3, kh, kw)).astype(dtype)
            dy = rng.standard_normal((2, 4, oh, ow)).astype(dtype)
            ai = dict(attrs, x_shape=x.shape)
            np.testing.assert_allclose(C._backprop_input_compute(ai, (dy, wt)), C._backprop_input_ref(ai, (dy, wt)),
                                       **_tol(dtype))
            np.testing.assert_allclose(C._conv2d_compute(attrs, (x, wt)), C._conv2d_ref(attrs, (x, wt)), **_tol(dtype))
            af = dict(attrs, w_shape=wt.shape)
            np.testing.assert_allclose(C._backprop_filter_compute(af, (x, dy)), C._backprop_filter_ref(af, (x, dy)),
                                       **_tol(dtype))
    x = T(rng.standard_normal((2, 2, 5, 4)))
    k = T(rng.standard_normal((3, 2, 3, 3)) * 0.5)
    check_grad(lambda a, b: ops.conv2d(a, b, pad_mode="same") ** 2, x, k, rtol=1e-5, atol=1e-6)


def test_conv_filter_gradient_of_an_empty_batch_is_zero():
    x = np.ones((0, 2, 5, 5), np.float32)
    attrs = {"stride": (1, 1), "pad": (1, 1, 1, 1), "dilation": (1, 1), "groups": 1, "w_shape": (3, 2, 3, 3)}
    dw = C._backprop_filter_compute(attrs, (x, np.ones((0, 3, 5, 5), np.float32)))
    np.testing.assert_array_equal(dw, np.zeros((3, 2, 3, 3), np.float32))


def test_conv_gradients_check_grad_one_sample_per_chunk(monkeypatch):
    monkeypatch.setattr(C, "_CHUNK_BYTES", 1)
    rng = np.random.default_rng(6)
    x = T(rng.standard_normal((3, 2, 6, 5)))
    w = T(rng.standard_normal((4, 2, 3, 3)) * 0.5)
    check_grad(lambda a, k: ops.conv2d(a, k, stride=(1, 2), pad_mode="pad", padding=(1, 1, 0, 2)) ** 2, x, w,
               rtol=1e-5, atol=1e-6)


def test_conv_float16_uses_the_reference():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 6, 6)).astype(np.float16)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float16)
    attrs = {"stride": (1, 1), "pad": (1, 1, 1, 1), "dilation": (1, 1), "groups": 1}
    np.testing.assert_array_equal(C._conv2d_compute(attrs, (x, w)), C._conv2d_ref(attrs, (x, w)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_gradients_check_grad(dtype):
    rng = np.random.default_rng(2)
    x = T(rng.standard_normal((2, 4, 7, 6)).astype(dtype))
    w = T(rng.standard_normal((6, 2, 3, 2)).astype(dtype) * 0.5)
    b = T(rng.standard_normal(6).astype(dtype))
    check_grad(lambda a, k, c: ops.conv2d(a, k, c, stride=(2, 1), pad_mode="pad", padding=(1, 0, 2, 1),
                                          dilation=(1, 2), groups=2) ** 2, x, w, b, rtol=1e-2, atol=1e-2)


def test_conv_input_gradient_skipped_when_not_needed():
    rng = np.random.default_rng(3)
    x = T(rng.standard_normal((2, 3, 5, 5)).astype(np.float32))
    w = T(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    y = ops.conv2d(x, w)
    fgrad = get_op("conv2d").attrs["FGradient"]
    attrs = {"stride": (1, 1), "pad": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1}
    g = [ops.ones_like(y)]
    gx, gw = fgrad([x, w], [y], g, attrs, [False, True])
    assert gx is None and gw.shape == w.shape
    gx, gw = fgrad([x, w], [y], g, attrs, [True, False])
    assert gw is None and gx.shape == x.shape
    # through ms.grad: the weight's gradient alone equals the one computed with the input's
    only_w = ms.grad(lambda a, k: ops.conv2d(a, k).sum(), grad_position=1)(x, w)
    both = ms.grad(lambda a, k: ops.conv2d(a, k).sum(), grad_position=(0, 1))(x, w)
    np.testing.assert_array_equal(only_w.asnumpy(), both[1].asnumpy())


# kernel, stride, pad
POOLS = [((2, 2), (2, 2), (0, 0, 0, 0)),
         ((3, 3), (2, 2), (1, 1, 1, 1)),
         ((3, 2), (1, 2), (0, 1, 1, 0)),
         ((2, 3), (3, 1), (1, 0, 1, 1))]


def _pool_input(dtype, shape=(2, 3, 9, 8), seed=4):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    x[0, 0, 0, :3] = 1.5                # ties: the first maximum wins
    x[0, 1, 2, 2] = np.nan              # NaN propagates to the maxima of its windows
    x[1, 0, :, :] = -np.inf             # windows of -inf next to padding
    x[1, 1, 4, 4] = np.inf
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel,stride,pad", POOLS)
def test_max_pool_kernels_match_reference(dtype, kernel, stride, pad):
    attrs = {"kernel": kernel, "stride": stride, "pad": pad}
    x = _pool_input(dtype)
    y, idx = P._max_pool_compute(attrs, (x,))
    np.testing.assert_array_equal(y, P._max_pool_ref(attrs, (x,)))
    assert idx.dtype == np.int32 and y.dtype == dtype
    # the recorded positions are the reference's first-maximum taps
    _, taps, _, _, _ = P._argmax_taps(x, attrs)
    np.testing.assert_array_equal(idx, P._tap_positions(taps, x.shape, attrs))
    dy = np.random.default_rng(5).standard_normal(y.shape).astype(dtype)
    ga = dict(attrs, x_shape=x.shape)
    dx = P._max_pool_grad_compute(ga, (dy, idx))
    np.testing.assert_allclose(dx, P._max_pool_grad_ref(attrs, (x, dy)), **_tol(dtype))
    g = np.random.default_rng(6).standard_normal(x.shape).astype(dtype)
    np.testing.assert_array_equal(P._max_pool_gather_compute(attrs, (g, idx)),
                                  P._max_pool_gather_ref(attrs, (x, g)))


def test_max_pool_float16_matches_numba_path():
    attrs = {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1, 1, 1)}
    x = _pool_input(np.float32)
    y32, idx32 = P._max_pool_compute(attrs, (x,))
    y16, idx16 = P._max_pool_compute(attrs, (x.astype(np.float16),))
    np.testing.assert_array_equal(idx16, idx32)
    np.testing.assert_array_equal(y16, y32.astype(np.float16))
    dy = np.random.default_rng(7).standard_normal(y32.shape).astype(np.float16)
    ga = dict(attrs, x_shape=x.shape)
    np.testing.assert_allclose(P._max_pool_grad_compute(ga, (dy, idx16)),
                               P._max_pool_grad_compute(ga, (dy.astype(np.float32), idx32)), rtol=1e-2, atol=1e-2)
    g = np.random.default_rng(8).standard_normal(x.shape)
    np.testing.assert_array_equal(P._max_pool_gather_compute(attrs, (g.astype(np.float16), idx16)),
                                  P._max_pool_gather_compute(attrs, (g.astype(np.float32), idx32)).astype(np.float16))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel,stride,pad", POOLS)
@pytest.mark.parametrize("include,override", [(True, 0), (False, 0), (True, 5)])
def test_avg_pool_kernels_match_reference(dtype, kernel, stride, pad, include, override):
    attrs = {"kernel": kernel, "stride": stride, "pad": pad, "count_include_pad": include,
             "divisor_override": override}
    x = np.random.default_rng(9).standard_normal((2, 3, 9, 8)).astype(dtype)
    y = P._avg_pool_compute(attrs, (x,))
    np.testing.assert_allclose(y, P._avg_pool_ref(attrs, (x,)), **_tol(dtype))
    dy = np.random.default_rng(10).standard_normal(y.shape).astype(dtype)
    ga = dict(attrs, x_shape=x.shape)
    np.testing.assert_allclose(P._avg_pool_grad_compute(ga, (dy,)), P._avg_pool_grad_ref(ga, (dy,)), **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pool_gradients_check_grad(dtype):
    x = T(np.random.default_rng(11).permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6).astype(dtype) / 10)
    check_grad(lambda t: ops.max_pool2d(t, 3, 1, pad_mode="same") ** 2, x)      # overlapping windows
    check_grad(lambda t: ops.max_pool2d(t, (2, 3), (2, 1), pad_mode="pad", padding=1) ** 2, x)
    check_grad(lambda t: ops.avg_pool2d(t, 3, (1, 2), pad_mode="pad", padding=1, count_include_pad=False) ** 2, x)
    check_grad(lambda t: ops.avg_pool2d(t, 2, 1, divisor_override=3) ** 2, x)
    # second order: the gradient's gradient goes through the gather and back through the scatter
    check_grad(lambda t: ms.grad(lambda a: (ops.max_pool2d(a, 3, 1, pad_mode="same") ** 3).sum())(t), x)


def test_pool_ceil_mode_and_indices_run_on_the_loops_as_on_the_reference():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    for fn in (lambda t: ops.max_pool2d(t, 3, 2, ceil_mode=True),
               lambda t: ops.avg_pool2d(t, 3, 2, ceil_mode=True),
               lambda t: ops.max_pool2d(t, 2, 2, padding=1, return_indices=True)[0]):
        loops = fn(T(x)).asnumpy()                          # float32: the Numba loops
        ref = fn(T(x.astype(np.float16))).asnumpy()         # float16: the NumPy reference kernels
        np.testing.assert_allclose(loops, ref.astype(np.float32), rtol=2e-3, atol=2e-3)
    _, idx = ops.max_pool2d(T(x), 2, 2, padding=1, return_indices=True)
    _, ref_idx = ops.max_pool2d(T(x.astype(np.float16)), 2, 2, padding=1, return_indices=True)
    assert idx.dtype == ms.int64 and (idx.asnumpy() == ref_idx.asnumpy()).all()
    check_grad(lambda t: ops.max_pool2d(t, 3, 2, ceil_mode=True) ** 2, x.astype(np.float64)[:1, :1])
    check_grad(lambda t: ops.avg_pool2d(t, 3, 2, ceil_mode=True) ** 2, x.astype(np.float64)[:1, :1])


_X56 = [[0.1257, -0.1321, 0.6404, 0.1049, -0.5357, 0.3616], [1.304, 0.9471, -0.7037, -1.2654, -0.6233, 0.0413],
        [-2.325, -0.2188, -1.2459, -0.7323, -0.5443, -0.3163], [0.4116, 1.0425, -0.1285, 1.3665, -0.6652, 0.3515],
        [0.9035, 0.094, -0.7435, -0.9217, -0.4577, 0.2202]]


def test_dilated_max_pool2d_matches_mindspore():
    # MindSpore 2.10 (CPU): ops.max_pool2d with dilation runs; values and indices are its outputs
    x = T((np.arange(32) * 0.1).reshape(1, 2, 4, 4).astype(np.float32))
    np.testing.assert_allclose(ops.max_pool2d(x, 2, 1, 0, 2).asnumpy(),
                               [[[[1.0, 1.1], [1.4, 1.5]], [[2.6, 2.7], [3.0, 3.1]]]], rtol=1e-6)
    x2 = T(np.array([[_X56]], np.float32))
    v, i = ops.max_pool2d(x2, (2, 3), (1, 2), 1, (2, 1), return_indices=True)
    np.testing.assert_allclose(v.asnumpy(), [[[[1.304, 0.9471, 0.0413], [0.1257, 0.6404, 0.3616],
                                                [1.304, 1.3665, 1.3665], [0.9035, 0.094, 0.2202],
                                                [1.0425, 1.3665, 1.3665]]]], rtol=1e-6)
    assert i.dtype == ms.int64
    assert i.asnumpy().tolist() == [[[[6, 7, 11], [0, 2, 5], [6, 21, 21], [24, 25, 29], [19, 21, 21]]]]
    v = ops.max_pool2d(x2, 2, 2, 0, 2, ceil_mode=True)
    np.testing.assert_allclose(v.asnumpy(), [[[[0.6404, 0.6404, -0.5357], [0.9035, -0.4577, -0.4577]]]], rtol=1e-6)
    check_grad(lambda t: ops.max_pool2d(t, 2, 1, 1, 2) ** 2, T(np.array([[_X56]], np.float64)))


def test_max_pool_grad_ops_name_themselves_on_bad_input():
    x = T(np.zeros((1, 1, 4, 4), np.float32))
    y = T(np.zeros((1, 1, 2, 2), np.float32))
    attrs = {"kernel": (2, 2), "stride": (2, 2), "pad": (0, 0, 0, 0), "x_shape": (1, 1, 4, 4)}
    from mscustom._core.dispatch import call
    with pytest.raises(TypeError, match="op 'max_pool2d_grad': input 1 \\(the argmax positions\\) must be int32"):
        call(get_op("max_pool2d_grad"), (y, y), attrs)
    bad = T(np.zeros((1, 1, 3, 2), np.int32))
    with pytest.raises(ValueError, match="op 'max_pool2d_gather': the argmax positions must have shape"):
        call(get_op("max_pool2d_gather"), (x, bad), {k: v for k, v in attrs.items() if k != "x_shape"})

