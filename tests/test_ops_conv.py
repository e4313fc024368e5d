"""Convolution and pooling ops against direct NumPy loops, and their gradients by finite differences."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad

RNG = np.random.default_rng(7)


def T(a):
    return ms.Tensor(np.asarray(a))


def conv_ref(x, w, stride, pad, dil, groups):
    """Direct cross-correlation by loops over output positions (the oracle)."""
    t, b, le, r = pad
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (le, r)))
    n, _, hp, wp = xp.shape
    o, cg, kh, kw = w.shape
    oh = (hp - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wp - dil[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                r0, c0 = i * stride[0], j * stride[1]
                patch = xp[:, g * cg:(g + 1) * cg, r0:r0 + dil[0] * (kh - 1) + 1:dil[0],
                           c0:c0 + dil[1] * (kw - 1) + 1:dil[1]]
                y[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return y


@pytest.mark.parametrize("mode,padding,expect_pad", [
    ("valid", 0, (0, 0, 0, 0)),
    ("same", 0, None),
    ("pad", 1, (1, 1, 1, 1)),
    ("pad", (1, 0, 2, 1), (1, 0, 2, 1)),
])
def test_conv2d_matches_loops(mode, padding, expect_pad):
    x = RNG.normal(size=(2, 4, 7, 6))
    w = RNG.normal(size=(6, 2, 3, 2))
    y = ops.conv2d(T(x), T(w), stride=(2, 1), pad_mode=mode, padding=padding, dilation=(1, 2), groups=2)
    if expect_pad is None:      # MindSpore "same": out = ceil(in / stride), pad total // 2 before
        assert y.shape[2:] == (4, 6)
        # H: out 4, total = 3*2 + 3 - 7 = 2 -> (1, 1); W: out 6, total = 5 + 3 - 6 = 2 -> (1, 1)
        expect_pad = (1, 1, 1, 1)
    np.testing.assert_allclose(y.asnumpy(), conv_ref(x, w, (2, 1), expect_pad, (1, 2), 2), atol=1e-12)


def test_conv2d_same_pads_extra_after():
    # even kernel: total padding 1 goes after (MindSpore/TF "same")
    x = RNG.normal(size=(1, 1, 4, 4))
    w = RNG.normal(size=(1, 1, 2, 2))
    y = ops.conv2d(T(x), T(w), pad_mode="same")
    np.testing.assert_allclose(y.asnumpy(), conv_ref(x, w, (1, 1), (0, 1, 0, 1), (1, 1), 1), atol=1e-12)


def test_conv2d_bias_and_gradients():
    x, w, b = RNG.normal(size=(2, 3, 5, 5)), RNG.normal(size=(4, 3, 3, 3)), RNG.normal(size=4)
    y = ops.conv2d(T(x), T(w), T(b), pad_mode="pad", padding=1)
    np.testing.assert_allclose(y.asnumpy(), conv_ref(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)
                               + b[None, :, None, None], atol=1e-12)
    check_grad(lambda x, w, b: ops.conv2d(x, w, b, stride=2, pad_mode="same") ** 2, T(x), T(w), T(b))


def test_conv2d_grouped_dilated_gradients():
    x, w = RNG.normal(size=(2, 4, 7, 6)), RNG.normal(size=(6, 2, 3, 2))
    check_grad(lambda x, w: ops.conv2d(x, w, stride=(2, 1), pad_mode="pad", padding=(1, 0, 2, 1),
                                       dilation=(1, 2), groups=2) ** 2, T(x), T(w))


def test_conv2d_second_order():
    x, w = RNG.normal(size=(1, 2, 5, 5)), RNG.normal(size=(3, 2, 3, 3))
    inner = ms.grad(lambda a, b: (ops.conv2d(a, b, pad_mode="same") ** 2).sum(), grad_position=(0, 1))
    check_grad(lambda a, b: inner(a, b)[0], T(x), T(w))
    check_grad(lambda a, b: inner(a, b)[1], T(x), T(w))


def test_conv1d_matches_conv2d_and_grad():
    x, w = RNG.normal(size=(2, 3, 9)), RNG.normal(size=(4, 3, 3))
    y = ops.conv1d(T(x), T(w), stride=2, pad_mode="pad", padding=(1, 2))
    ref = conv_ref(x[:, :, None], w[:, :, None], (1, 2), (0, 0, 1, 2), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(y.asnumpy(), ref, atol=1e-12)
    check_grad(lambda x, w: ops.conv1d(x, w, pad_mode="same", stride=2) ** 2, T(x), T(w))


def transpose_ref(x, w, stride, out_hw, pad):
    """Transposed convolution by scattering every input element (the oracle)."""
    n, cin, h, wd = x.shape
    _, cout, kh, kw = w.shape
    t, _, le, _ = pad
    full = np.zeros((n, cout, (h - 1) * stride + kh + 4, (wd - 1) * stride + kw + 4))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += \
                np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    return full[:, :, t:t + out_hw[0], le:le + out_hw[1]]


@pytest.mark.parametrize("mode,shape,pad", [("same", (6, 6), (0, 1, 0, 1)), ("valid", (7, 7), (0, 0, 0, 0)),
                                            ("pad", (5, 5), (1, 1, 1, 1))])
def test_conv2d_transpose_sizes_values_and_grad(mode, shape, pad):
    x, w = RNG.normal(size=(2, 4, 3, 3)), RNG.normal(size=(4, 3, 3, 3))
    kw = {"padding": 1} if mode == "pad" else {}
    y = ops.conv2d_transpose(T(x), T(w), stride=2, pad_mode=mode, **kw)
    assert y.shape == (2, 3) + shape
    np.testing.assert_allclose(y.asnumpy(), transpose_ref(x, w, 2, shape, pad), atol=1e-12)
    check_grad(lambda x, w: ops.conv2d_transpose(x, w, stride=2, pad_mode=mode, **kw) ** 2, T(x), T(w))


def test_conv2d_transpose_output_padding():
    x, w = RNG.normal(size=(1, 2, 3, 3)), RNG.normal(size=(2, 2, 3, 3))
    y = ops.conv2d_transpose(T(x), T(w), stride=2, pad_mode="pad", padding=1, output_padding=1)
    assert y.shape == (1, 2, 6, 6)
    np.testing.assert_allclose(y.asnumpy(), transpose_ref(x, w, 2, (6, 6), (1, 1, 1, 1)), atol=1e-12)


def test_conv_errors_name_the_op():
    x = T(np.zeros((1, 3, 5, 5)))
    with pytest.raises(ValueError, match="op 'conv2d': the weight .* expects 2 input channels"):
        ops.conv2d(x, T(np.zeros((4, 2, 3, 3))))
    with pytest.raises(ValueError, match="conv2d: pad_mode must be 'same', 'valid' or 'pad'"):
        ops.conv2d(x, T(np.zeros((4, 3, 3, 3))), pad_mode="full")
    with pytest.raises(ValueError, match="padding must be 0 when pad_mode is 'same'"):
        ops.conv2d(x, T(np.zeros((4, 3, 3, 3))), pad_mode="same", padding=1)
    with pytest.raises(ValueError, match="does not fit the input"):
        ops.conv2d(x, T(np.zeros((4, 3, 7, 7))))
    with pytest.raises(TypeError, match="op 'conv2d': input 0 must be float"):
        ops.conv2d(T(np.zeros((1, 3, 5, 5), np.int32)), T(np.zeros((4, 3, 3, 3), np.int32)))


# ------------------------------------------------------------------ pooling
def windows(x, k, s):
    return np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::s, ::s]


def test_max_pool_values_grad_and_ties():
    x = RNG.normal(size=(2, 3, 7, 6))
    y = ops.max_pool2d(T(x), 3, 2)
    np.testing.assert_array_equal(y.asnumpy(), windows(x, 3, 2).max(axis=(-1, -2)))
    check_grad(lambda t: ops.max_pool2d(t, 3, 2, pad_mode="same") ** 2, T(x))
    check_grad(lambda t: ops.max_pool2d(t, 3, 2, pad_mode="pad", padding=1) ** 2, T(x))
    # ties: the whole gradient goes to the first maximum of the window
    g = ms.grad(lambda t: ops.max_pool2d(t, 2, 2).sum())(T(np.ones((1, 1, 2, 2))))
    np.testing.assert_array_equal(g.asnumpy(), [[[[1, 0], [0, 0]]]])


def test_max_pool_padding_never_wins():
    x = -np.ones((1, 1, 3, 3))
    y = ops.max_pool2d(T(x), 3, 1, pad_mode="same")
    np.testing.assert_array_equal(y.asnumpy(), x)


def test_avg_pool_values_and_grad():
    x = RNG.normal(size=(2, 3, 6, 6))
    np.testing.assert_allclose(ops.avg_pool2d(T(x), 2, 2).asnumpy(), windows(x, 2, 2).mean(axis=(-1, -2)))
    np.testing.assert_allclose(ops.avg_pool2d(T(x), 2, 2, divisor_override=2).asnumpy(),
                               windows(x, 2, 2).sum(axis=(-1, -2)) / 2)
    # MindSpore's functional defaults: kernel_size=1, stride=1 (the identity)
    np.testing.assert_array_equal(ops.avg_pool2d(T(x)).asnumpy(), x)
    # "same" divides by the count of real elements; "pad" counts the zeros unless told not to
    ones = T(np.ones((1, 1, 3, 3)))
    np.testing.assert_allclose(ops.avg_pool2d(ones, 3, 1, pad_mode="same").asnumpy(), np.ones((1, 1, 3, 3)))
    corner = ops.avg_pool2d(ones, 3, 1, pad_mode="pad", padding=1).asnumpy()[0, 0, 0, 0]
    assert corner == pytest.approx(4 / 9)
    assert ops.avg_pool2d(ones, 3, 1, pad_mode="pad", padding=1,
                          count_include_pad=False).asnumpy()[0, 0, 0, 0] == pytest.approx(1.0)
    check_grad(lambda t: ops.avg_pool2d(t, 3, 2, pad_mode="same") ** 2, T(x))
    check_grad(lambda t: ops.avg_pool2d(t, 3, 2, pad_mode="pad", padding=1, count_include_pad=False) ** 2, T(x))


def test_pool_second_order():
    x = RNG.normal(size=(1, 2, 4, 4))
    check_grad(lambda t: ms.grad(lambda a: (ops.max_pool2d(a, 2, 2) ** 3).sum())(t), T(x))
    check_grad(lambda t: ms.grad(lambda a: (ops.avg_pool2d(a, 2, 2) ** 3).sum())(t), T(x))


def test_adaptive_avg_pool_bins_and_grad():
    x = RNG.normal(size=(2, 3, 7, 6))
    y = ops.adaptive_avg_pool2d(T(x), (3, 4)).asnumpy()
    assert y.shape == (2, 3, 3, 4)
    # bin i of an axis of length L covers [floor(i*L/out), ceil((i+1)*L/out))
    np.testing.assert_allclose(y[:, :, 1, 2], x[:, :, 2:5, 3:5].mean(axis=(-1, -2)))
    np.testing.assert_allclose(ops.adaptive_avg_pool2d(T(x), 1).asnumpy()[..., 0, 0], x.mean(axis=(2, 3)))
    assert ops.adaptive_avg_pool2d(T(x), (None, 2)).shape == (2, 3, 7, 2)
    check_grad(lambda t: ops.adaptive_avg_pool2d(t, (3, 4)) ** 2, T(x))


def test_pool_errors():
    with pytest.raises(ValueError, match="max_pool2d: the input must be 4-D"):
        ops.max_pool2d(T(np.zeros((3, 4))), 2)
    with pytest.raises(ValueError, match="at most half of kernel_size"):
        ops.max_pool2d(T(np.zeros((1, 1, 4, 4))), 2, 1, pad_mode="pad", padding=2)
    with pytest.raises(ValueError, match="max_pool2d: dilation other than 1 is not supported, got 2"):
        ops.max_pool2d(T(np.zeros((1, 1, 4, 4))), 2, dilation=2, pad_mode="valid")   # nn.MaxPool2d's modes
    with pytest.raises(TypeError, match="op 'avg_pool2d': input 0 must be float"):
        ops.avg_pool2d(T(np.zeros((1, 1, 4, 4), np.int64)), 2)
