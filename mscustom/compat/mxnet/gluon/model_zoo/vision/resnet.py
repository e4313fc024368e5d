"""ResNet V1 and V2 (He et al. 2015 / 2016), as MXNet 1.9.1's model zoo builds them.

V1 adds the shortcut after the last BatchNorm and applies ReLU to the sum; V2
normalises and activates before each convolution ("pre-activation") and its
downsampling shortcut is one bias-free 1x1 convolution. 18 and 34 layers use
basic blocks (two 3x3 convolutions), 50, 101 and 152 bottleneck blocks
(1x1, 3x3, 1x1). ``thumbnail=True`` replaces the 7x7 stem and its max pooling
by one 3x3 convolution (for small images such as CIFAR's).

Example::

    net = resnet18_v1(classes=10, thumbnail=True)
    net.initialize()
    net(mx.nd.zeros((1, 3, 32, 32))).shape       # (1, 10)
"""

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ._common import no_pretrained

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1", "BottleneckV2", "get_resnet",
           "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1", "resnet18_v2",
           "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False, in_channels=in_channels)


def _shortcut(channels, stride, in_channels, with_bn):
    """The projection shortcut of a block that changes shape: a 1x1 convolution (then a BatchNorm in V1)."""
    proj = nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False, in_channels=in_channels)
    if not with_bn:
        return proj
    seq = nn.HybridSequential(prefix="")
    seq.add(proj, nn.BatchNorm())
    return seq


class _V1Block(HybridBlock):
    """V1 residual block: ``relu(body(x) + shortcut(x))``; subclasses fill ``body``."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self._build(self.body, channels, stride, in_channels)
        self.downsample = _shortcut(channels, stride, in_channels, True) if downsample else None

    def hybrid_forward(self, F, x):
        shortcut = self.downsample(x) if self.downsample is not None else x
        return F.Activation(self.body(x) + shortcut, act_type="relu")


class BasicBlockV1(_V1Block):
    """Two 3x3 convolutions with BatchNorm (ResNet-18/34 V1)."""

    def _build(self, body, channels, stride, in_channels):
        body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(), nn.Activation("relu"),
                 _conv3x3(channels, 1, channels), nn.BatchNorm())


class BottleneckV1(_V1Block):
    """1x1 (stride), 3x3, 1x1 convolutions with BatchNorm, a quarter of the channels inside (ResNet-50+ V1)."""

    def _build(self, body, channels, stride, in_channels):
        inner = channels // 4
        body.add(nn.Conv2D(inner, kernel_size=1, strides=stride), nn.BatchNorm(), nn.Activation("relu"),
                 _conv3x3(inner, 1, inner), nn.BatchNorm(), nn.Activation("relu"),
                 nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())


class _V2Block(HybridBlock):
    """V2 (pre-activation) residual block: BatchNorm + ReLU before every convolution, the sum left as is."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._convs = []
        for i, conv in enumerate(self._convolutions(channels, stride, in_channels), 1):
            setattr(self, f"bn{i}", nn.BatchNorm())
            setattr(self, f"conv{i}", conv)
            self._convs.append(i)
        self.downsample = _shortcut(channels, stride, in_channels, False) if downsample else None

    def hybrid_forward(self, F, x):
        shortcut = x
        for i in self._convs:
            x = F.Activation(getattr(self, f"bn{i}")(x), act_type="relu")
            if i == 1 and self.downsample is not None:
                shortcut = self.downsample(x)
            x = getattr(self, f"conv{i}")(x)
        return x + shortcut


class BasicBlockV2(_V2Block):
    """Two pre-activated 3x3 convolutions (ResNet-18/34 V2)."""

    def _convolutions(self, channels, stride, in_channels):
        return [_conv3x3(channels, stride, in_channels), _conv3x3(channels, 1, channels)]


class BottleneckV2(_V2Block):
    """Pre-activated 1x1, 3x3 (stride), 1x1 convolutions (ResNet-50+ V2)."""

    def _convolutions(self, channels, stride, in_channels):
        inner = channels // 4
        return [nn.Conv2D(inner, kernel_size=1, strides=1, use_bias=False), _conv3x3(inner, stride, inner),
                nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)]


def _stage(block, count, channels, stride, index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels, prefix=""))
        for _ in range(count - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _stem(features, channels, thumbnail):
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                     nn.MaxPool2D(3, 2, 1))


class ResNetV1(HybridBlock):
    """ResNet V1: stem, four stages of ``block`` (``layers`` blocks each), global average pooling, ``Dense``."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError(f"ResNetV1: channels needs one entry more than layers, got {layers} and {channels}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            _stem(self.features, channels[0], thumbnail)
            for i, count in enumerate(layers):
                self.features.add(_stage(block, count, channels[i + 1], 1 if i == 0 else 2, i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet V2: input BatchNorm, stem, four pre-activation stages, BatchNorm + ReLU, pooling, ``Dense``."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError(f"ResNetV2: channels needs one entry more than layers, got {layers} and {channels}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _stem(self.features, channels[0], thumbnail)
            for i, count in enumerate(layers):
                self.features.add(_stage(block, count, channels[i + 1], 1 if i == 0 else 2, i + 1, channels[i]))
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


_SPEC = {18: ("basic", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
         34: ("basic", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
         50: ("bottleneck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
         101: ("bottleneck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
         152: ("bottleneck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_NETS = {1: ResNetV1, 2: ResNetV2}
_BLOCKS = {(1, "basic"): BasicBlockV1, (1, "bottleneck"): BottleneckV1,
           (2, "basic"): BasicBlockV2, (2, "bottleneck"): BottleneckV2}


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101 or 152) layers."""
    if num_layers not in _SPEC:
        raise ValueError(f"Invalid number of layers: {num_layers}. Options are {sorted(_SPEC)}")
    if version not in _NETS:
        raise ValueError(f"Invalid resnet version: {version}. Options are 1 and 2.")
    no_pretrained(f"resnet{num_layers}_v{version}", pretrained)
    kind, layers, channels = _SPEC[num_layers]
    return _NETS[version](_BLOCKS[version, kind], layers, channels, **kwargs)


def _constructor(version, num_layers):
    def make(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = f"resnet{num_layers}_v{version}"
    make.__doc__ = f"ResNet-{num_layers} V{version} (``pretrained=False``; ``classes``, ``thumbnail``)."
    return make


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (_constructor(1, n) for n in (18, 34, 50, 101,
                                                                                                   152))
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (_constructor(2, n) for n in (18, 34, 50, 101,
                                                                                                   152))
