"""MXNet's Convolution / Pooling on the core's kernels, Gluon's convolution and pooling blocks and the vision
model zoo, against MXNet 1.9.1.

Every expected figure below was computed by MXNet 1.9.1 on the same inputs (deterministic patterns, no random
numbers): a layer's output and input/weight gradients as weighted sums, each model's Parameter names and shapes
(as a digest of the list, the model's own prefix left out) and small networks' outputs and gradients.
"""

import hashlib
import json

import numpy as np
import pytest

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet.gluon import nn
from mscustom.compat.mxnet.gluon.model_zoo import vision


def pattern(shape, k, m, positive=False):
    """A deterministic array: ``(i * k % m - m // 2) / m`` (``(i * k % m + 1) / m`` when positive)."""
    n = int(np.prod(shape))
    v = (np.arange(n) * k % m).astype(np.float64)
    v = (v + 1) / m if positive else (v - m // 2) / m
    return v.reshape(shape).astype(np.float32)


def data(shape, k=7, m=13):
    n = int(np.prod(shape))
    return ((np.arange(n) * k % m) - m // 2).reshape(shape).astype(np.float32) / 4


# ---------------------------------------------------------------- Convolution / Pooling (mx.nd, taped)
# name: (op, input shapes, attributes, MXNet 1.9.1's output shape, sum(out * pattern), sum(grad_i * pattern)...)
CNN_CASES = {
    "conv2d_bias_pad_stride": ("Convolution", [(2, 3, 7, 6), (4, 3, 3, 3), (4,)], dict(kernel=(3, 3), num_filter=4, pad=(1, 2), stride=(2, 1)),
        (2, 4, 4, 8), -11.875, [-93.9844, 107.0156, 1.125]),
    "conv2d_dilate_group": ("Convolution", [(2, 4, 8, 8), (6, 2, 3, 2), (6,)], dict(kernel=(3, 2), num_filter=6, dilate=(2, 1), num_group=2, pad=(1, 1)),
        (2, 6, 6, 9), -55.625, [29.7344, 56.5, 2.9375]),
    "conv2d_depthwise_nobias": ("Convolution", [(1, 3, 6, 6), (3, 1, 3, 3)], dict(kernel=(3, 3), num_filter=3, num_group=3, pad=(1, 1), stride=(2, 2), no_bias=True),
        (1, 3, 3, 3), -4.6094, [12.9219, -9.7188]),
    "conv1d": ("Convolution", [(2, 3, 9), (5, 3, 3), (5,)], dict(kernel=(3,), num_filter=5, stride=(2,), pad=(1,), dilate=(2,)),
        (2, 5, 4), -4.0156, [-55.375, 34.6719, 4.5625]),
    "pool_max_valid": ("Pooling", [(2, 2, 7, 7)], dict(kernel=(3, 3), stride=(2, 2), pool_type='max'),
        (2, 2, 3, 3), -6.375, [-1.75]),
    "pool_max_full_pad": ("Pooling", [(2, 2, 8, 8)], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='max', pooling_convention='full'),
        (2, 2, 5, 5), -13.875, [3.0625]),
    "pool_avg_full": ("Pooling", [(2, 2, 8, 7)], dict(kernel=(3, 3), stride=(2, 2), pool_type='avg', pooling_convention='full'),
        (2, 2, 4, 3), 1.7708, [-1.5243]),
    "pool_avg_pad_full": ("Pooling", [(2, 2, 8, 8)], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg', pooling_convention='full'),
        (2, 2, 5, 5), -3.8819, [1.4028]),
    "pool_avg_pad_nocount": ("Pooling", [(2, 2, 7, 7)], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg', count_include_pad=False),
        (2, 2, 4, 4), 0.8837, [0.7795]),
    "pool_sum_pad": ("Pooling", [(1, 2, 6, 6)], dict(kernel=(2, 3), stride=(2, 2), pad=(1, 1), pool_type='sum'),
        (1, 2, 4, 3), 5.1875, [14.375]),
    "pool_global_avg": ("Pooling", [(2, 3, 5, 4)], dict(kernel=(1, 1), pool_type='avg', global_pool=True),
        (2, 3, 1, 1), 0.1656, [-0.1187]),
    "pool_global_max": ("Pooling", [(2, 3, 5, 4)], dict(kernel=(1, 1), pool_type='max', global_pool=True),
        (2, 3, 1, 1), -1.125, [1.75]),
    "pool_default_stride": ("Pooling", [(1, 1, 5, 5)], dict(kernel=(2, 2), pool_type='max'),
        (1, 1, 4, 4), -0.3125, [-2.6875]),
    "pool1d_max": ("Pooling", [(2, 3, 9)], dict(kernel=(3,), stride=(2,), pad=(1,), pool_type='max'),
        (2, 3, 5), 2.25, [6.625]),
    "pool1d_avg_full": ("Pooling", [(2, 3, 8)], dict(kernel=(3,), stride=(2,), pool_type='avg', pooling_convention='full'),
        (2, 3, 4), 6.7083, [3.2708]),
}



def _run(op, shapes, kw):
    arrs = [mx.nd.array(data(s, 7 + i, 13 + 2 * i)) for i, s in enumerate(shapes)]
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd, op)(*arrs, **kw)
    y.backward(mx.nd.array(data(y.shape, 5, 11)))
    out = y.asnumpy()
    return out, [a.grad.asnumpy() for a in arrs]


@pytest.mark.parametrize("name", sorted(CNN_CASES))
def test_convolution_and_pooling_match_mxnet(name):
    op, shapes, kw, shape, out_sum, grad_sums = CNN_CASES[name]
    out, grads = _run(op, shapes, kw)
    assert out.shape == shape
    assert float((out * data(out.shape, 3, 17)).sum()) == pytest.approx(out_sum, abs=2e-4)
    for g, want in zip(grads, grad_sums):
        assert float((g * data(g.shape, 3, 17)).sum()) == pytest.approx(want, abs=2e-4)


def test_full_average_pooling_gradient_is_the_forwards():
    """'full' average pooling with padding: MXNet 1.9.1's forward divides an edge window by the elements it covers
    (padding included, the rows 'full' adds not); its CPU backward divides by the whole kernel area (1/9 everywhere
    here). This gradient is the forward's own: the edge windows' inputs get 1/6."""
    x = mx.nd.array(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", pooling_convention="full")
    y.backward(mx.nd.ones(y.shape))
    np.testing.assert_allclose(y.asnumpy()[0, 0], [[1.111, 2.667, 1.667], [5.667, 10.0, 5.5], [4.167, 7.0, 3.75]],
                               atol=1e-3)                                    # MXNet 1.9.1's forward
    # the gradient of sum(y): each input's share of every window it lies in (finite differences of the forward)
    base = x.asnumpy().astype(np.float64)
    fd = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        bumped = base.copy()
        bumped[idx] += 0.5
        fd[idx] = (mx.nd.Pooling(mx.nd.array(bumped), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                 pooling_convention="full").asnumpy().sum() - y.asnumpy().sum()) / 0.5
    np.testing.assert_allclose(x.grad.asnumpy(), fd, rtol=1e-4)
    assert not np.allclose(x.grad.asnumpy(), 1 / 9)                      # MXNet 1.9.1's backward


def test_symbol_layers_bind_and_infer_like_the_nd_ops():
    data_ = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data_, kernel=(3, 3), num_filter=6, num_group=2, dilate=(2, 2), pad=(2, 2), name="c")
    pool = mx.sym.Pooling(conv, kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full", name="p")
    arg_shapes, out_shapes, _ = pool.infer_shape(data=(2, 4, 9, 9))
    assert dict(zip(pool.list_arguments(), arg_shapes)) == {"data": (2, 4, 9, 9), "c_weight": (6, 2, 3, 3),
                                                             "c_bias": (6,)}
    assert out_shapes == [(2, 6, 4, 4)]                                        # MXNet 1.9.1's shapes
    x, w, b = data((2, 4, 9, 9)), data((6, 2, 3, 3), 5, 11), data((6,), 3, 7)
    exe = pool.bind(mx.cpu(), {"data": mx.nd.array(x), "c_weight": mx.nd.array(w), "c_bias": mx.nd.array(b)})
    got = exe.forward()[0].asnumpy()
    want = mx.nd.Pooling(mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), kernel=(3, 3),
                                           num_filter=6, num_group=2, dilate=(2, 2), pad=(2, 2)),
                         kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full").asnumpy()
    np.testing.assert_array_equal(got, want)
    again = mx.sym.load_json(pool.tojson()).bind(mx.cpu(), {"data": mx.nd.array(x), "c_weight": mx.nd.array(w),
                                                            "c_bias": mx.nd.array(b)}).forward()[0].asnumpy()
    np.testing.assert_array_equal(again, want)


def test_bad_layer_arguments_name_the_op():
    x = mx.nd.ones((1, 2, 5, 5))
    with pytest.raises(ValueError, match="op 'Pooling': pooling_convention must be one of"):
        mx.nd.Pooling(x, kernel=(2, 2), pooling_convention="same")
    with pytest.raises(ValueError, match="op 'Pooling': pad"):
        mx.nd.Pooling(x, kernel=(2, 2), pad=(2, 2))
    with pytest.raises(ValueError, match="op 'Convolution': num_group"):
        mx.nd.Convolution(x, mx.nd.ones((3, 1, 1, 1)), kernel=(1, 1), num_filter=3, num_group=2, no_bias=True)
    with pytest.raises(ValueError, match="op 'Convolution': only 1-D and 2-D kernels"):
        mx.nd.Convolution(x, mx.nd.ones((3, 2, 1, 1, 1)), kernel=(1, 1, 1), num_filter=3, no_bias=True)


def test_gluon_conv_and_pool_blocks():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, groups=2, dilation=1, activation="relu"),
                nn.Conv2D(4, 3, padding=2, dilation=2, groups=4, use_bias=False),
                nn.MaxPool2D(3, 2, ceil_mode=True), nn.AvgPool2D(2, 1, padding=1, count_include_pad=False),
                nn.GlobalAvgPool2D())
    net.initialize()
    y = net(mx.nd.ones((1, 2, 7, 7)))
    assert y.shape == (1, 4, 1, 1)
    assert [(k, v.shape) for k, v in net.collect_params().items()] == [
        ("hybridsequential0_conv0_weight", (4, 1, 3, 3)), ("hybridsequential0_conv0_bias", (4,)),
        ("hybridsequential0_conv1_weight", (4, 1, 3, 3))]                      # MXNet 1.9.1's names and shapes
    assert repr(net[1]) == "Conv2D(1 -> 4, kernel_size=(3, 3), stride=(1, 1), padding=(2, 2), dilation=(2, 2), " \
                           "groups=4, bias=False)"
    assert repr(net[2]) == "MaxPool2D(size=(3, 3), stride=(2, 2), padding=(0, 0), ceil_mode=True, " \
                           "global_pool=False, pool_type=max, layout=NCHW)"
    assert repr(net[4]) == "GlobalAvgPool2D(size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=True, " \
                           "global_pool=True, pool_type=avg, layout=NCHW)"
    one_d = nn.Conv1D(3, 2, strides=2, in_channels=2)
    one_d.initialize()
    assert one_d(mx.nd.ones((1, 2, 7))).shape == (1, 3, 3)
    assert nn.MaxPool1D(2)(mx.nd.ones((1, 2, 7))).shape == (1, 2, 3)
    assert nn.GlobalMaxPool1D()(mx.nd.ones((1, 2, 7))).shape == (1, 2, 1)


# ---------------------------------------------------------------- the model zoo
# name: (number of Parameters, digest of [[name without the model's prefix, shape], ...]) in MXNet 1.9.1,
# before the first forward (deferred input sizes are 0)
ZOO = {"resnet18_v1": [
102,
"96ca2d414ef37a8c"
],
"resnet34_v1": [
182,
"ce8e250c5081e7b5"
],
"resnet50_v1": [
299,
"830bd17b567069d5"
],
"resnet101_v1": [
588,
"b21d03624e598e87"
],
"resnet152_v1": [
877,
"01662d015f518a0f"
],
"resnet18_v2": [
98,
"01eb3bcc4c789e49"
],
"resnet34_v2": [
178,
"4b6435970a1a42c9"
],
"resnet50_v2": [
259,
"5b6bd15e98e6fb19"
],
"resnet101_v2": [
514,
"121f4206aef32427"
],
"resnet152_v2": [
769,
"d2e1b4e45d03bb2c"
],
"vgg11": [
22,
"7f7ecc2e22f4d18e"
],
"vgg13": [
26,
"98e616516a103338"
],
"vgg16": [
32,
"4ffdd65f74dfef84"
],
"vgg19": [
38,
"ebda84fc65f35d8d"
],
"vgg11_bn": [
54,
"80b2c5c7e58e3651"
],
"vgg13_bn": [
66,
"c1a80574cfbdb110"
],
"vgg16_bn": [
84,
"4f9d799d85bcf2c7"
],
"vgg19_bn": [
102,
"0a65dc71cfe71232"
],
"alexnet": [
16,
"8caa75552a9ab61d"
],
"densenet121": [
606,
"a44afd7ce0f714a1"
],
"densenet161": [
806,
"5d064f94aace86a6"
],
"densenet169": [
846,
"c03ab2a17e95edf1"
],
"densenet201": [
1006,
"0f0349a513232e03"
],
"squeezenet1.0": [
52,
"9e83031eb02cf6de"
],
"squeezenet1.1": [
52,
"0f800301467baeaa"
],
"inceptionv3": [
472,
"729abd208022fe60"
],
"mobilenet1.0": [
137,
"7af44ae9a3e26da5"
],
"mobilenet0.75": [
137,
"5fa997addabba0ae"
],
"mobilenet0.5": [
137,
"fa778412c8d6d498"
],
"mobilenet0.25": [
137,
"7ebaf942d06eacbd"
],
"mobilenetv2_1.0": [
266,
"562294a46b4d3fc1"
],
"mobilenetv2_0.75": [
266,
"6bdb894a7a56586f"
],
"mobilenetv2_0.5": [
266,
"8d70c0702f2baaab"
],
"mobilenetv2_0.25": [
266,
"8e2510ab0cacc1ac"
]}


def _digest(net):
    items = [[k[len(net.prefix):], list(v.shape)] for k, v in net.collect_params().items()]
    return len(items), hashlib.sha1(json.dumps(items).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(ZOO))
def test_model_zoo_architectures_have_mxnets_parameters(name):
    assert _digest(vision.get_model(name)) == tuple(ZOO[name])


def test_get_model_and_pretrained():
    assert vision.get_model("ResNet18_V1", classes=7).output.weight.shape == (7, 512)
    with pytest.raises(ValueError, match="Model nope is not supported. Available options are\n\talexnet"):
        vision.get_model("nope")
    with pytest.raises(mx.MXNetError, match="pretrained weights are not available here"):
        vision.get_model("mobilenet0.25", pretrained=True)
    with pytest.raises(mx.MXNetError, match="load_parameters"):
        vision.resnet18_v1(pretrained=True)
    net = vision.resnet18_v1()
    assert sorted(net._collect_params_with_prefix())[:3] == ["features.0.weight", "features.1.beta",
                                                               "features.1.gamma"]       # MXNet's file keys


def _fill(net, x):
    net.initialize()
    net(x)
    for i, (name, p) in enumerate(net.collect_params().items()):
        scale = 1.0 / np.sqrt(max(1, int(np.prod(p.shape[1:])))) if name.endswith("weight") else 0.1
        val = pattern(p.shape, 7 + i % 5, 13 + 2 * (i % 7), positive=name.endswith(("running_var", "gamma")))
        p.set_data(mx.nd.array(val * scale * 2 if name.endswith("weight") else val))


# name: (builder, input shape, MXNet 1.9.1's output shape, first outputs, sum(out * pattern)
#        [, training forward's sum(out * pattern), sum(first conv weight's gradient * pattern)])
NETS = {
    "resnet_v1_basic": (lambda: vision.ResNetV1(vision.BasicBlockV1, [1, 1, 1, 1], [8, 8, 16, 32, 64], classes=10,
                                                thumbnail=True), (2, 3, 16, 16)),
    "resnet_v1_bottleneck": (lambda: vision.ResNetV1(vision.BottleneckV1, [2, 1, 1, 1], [8, 16, 32, 64, 128],
                                                     classes=5), (1, 3, 32, 32)),
    "resnet_v2_basic": (lambda: vision.ResNetV2(vision.BasicBlockV2, [1, 1, 1, 1], [8, 8, 16, 32, 64], classes=10,
                                                thumbnail=True), (2, 3, 16, 16)),
    "resnet_v2_bottleneck": (lambda: vision.ResNetV2(vision.BottleneckV2, [1, 2, 1, 1], [8, 16, 32, 64, 128],
                                                     classes=5), (1, 3, 32, 32)),
    "mobilenet0.25": (lambda: vision.get_model("mobilenet0.25", classes=10), (1, 3, 32, 32)),
    "mobilenetv2_0.25": (lambda: vision.get_model("mobilenetv2_0.25", classes=10), (1, 3, 32, 32)),
    "densenet_small": (lambda: vision.DenseNet(8, 4, [2, 2], classes=5), (1, 3, 56, 56)),
}
MXNET = {"resnet_v1_basic": {"shape": [2, 10], "first": [-0.68426, 0.05781, -0.06939, 0.37531], "sum": 0.45247, "train_sum": 0.4423, "grad": -0.38115}, "resnet_v1_bottleneck": {"shape": [1, 5], "first": [-1.07461, -0.33255, -0.06781, -0.00452], "sum": 0.54006, "train_sum": 0.52422, "grad": 0.0}, "resnet_v2_basic": {"shape": [2, 10], "first": [-0.34918, 0.22103, 0.41138, -0.04249], "sum": 0.06228, "train_sum": -0.07058, "grad": -0.97134}, "resnet_v2_bottleneck": {"shape": [1, 5], "first": [-0.76892, 0.03998, -0.54024, 0.17907], "sum": 0.61792, "train_sum": 0.43737, "grad": 0.0}, "mobilenet0.25": {"shape": [1, 10], "first": [-0.42, -0.06129, 0.34107, -0.14979], "sum": 0.381}, "mobilenetv2_0.25": {"shape": [1, 10], "first": [0.01836, -0.03431, 0.02646, -0.01636], "sum": -0.00138}, "densenet_small": {"shape": [1, 5], "first": [-0.40902, -0.21737, -0.00291, 0.41994], "sum": 0.51912}}


@pytest.mark.parametrize("name", sorted(NETS))
def test_model_outputs_match_mxnet(name):
    make, shape = NETS[name]
    want = MXNET[name]
    net = make()
    x = mx.nd.array(pattern(shape, 5, 17))
    _fill(net, x)
    y = net(x).asnumpy()
    assert list(y.shape) == want["shape"]
    np.testing.assert_allclose(y.ravel()[:4], want["first"], atol=2e-5)
    assert float((y * pattern(y.shape, 3, 11)).sum()) == pytest.approx(want["sum"], abs=5e-5)
    if "grad" in want:
        with mx.autograd.record():
            y = net(x)
            loss = (y * mx.nd.array(pattern(y.shape, 3, 11))).sum()
        loss.backward()
        assert float(loss.asscalar()) == pytest.approx(want["train_sum"], abs=5e-5)
        w = [p for k, p in net.collect_params().items() if k.endswith("conv0_weight")][0]
        g = w.grad().asnumpy()
        assert float((g * pattern(g.shape, 5, 7)).sum()) == pytest.approx(want["grad"], abs=5e-5)
    if name == "mobilenetv2_0.25":
        net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), y, rtol=1e-6, atol=1e-7)
