"""MobileNet (Howard et al. 2017) and MobileNet V2 (Sandler et al. 2018), as MXNet 1.9.1's model zoo builds them.

MobileNet: depthwise separable convolutions (a 3x3 convolution with one group
per channel, then a 1x1 convolution), each with BatchNorm and ReLU; widths
scaled by ``multiplier``. MobileNet V2: inverted residual bottlenecks
(1x1 expansion by ``t``, 3x3 depthwise, 1x1 linear projection; ReLU6), a
shortcut where shape allows, a 1x1 convolution classifier.
"""

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ._common import ReLU6, conv_bn_act, no_pretrained

__all__ = ["MobileNet", "MobileNetV2", "LinearBottleneck", "RELU6", "get_mobilenet", "get_mobilenet_v2",
           "mobilenet1_0", "mobilenet0_75", "mobilenet0_5", "mobilenet0_25", "mobilenet_v2_1_0",
           "mobilenet_v2_0_75", "mobilenet_v2_0_5", "mobilenet_v2_0_25"]

RELU6 = ReLU6


class LinearBottleneck(HybridBlock):
    """MobileNet V2's block: expand ``in_channels`` by ``t``, depthwise 3x3 (``stride``), project to ``channels``."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            wide = in_channels * t
            conv_bn_act(self.out, wide, act="relu6", scale=True)
            conv_bn_act(self.out, wide, 3, stride, 1, groups=wide, act="relu6", scale=True)
            conv_bn_act(self.out, channels, act=None, scale=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


# MobileNet: (depthwise channels, pointwise channels, stride) of the 13 separable convolutions
_V1_LAYERS = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2)] + \
    [(512, 512, 1)] * 5 + [(512, 1024, 2), (1024, 1024, 1)]
# MobileNet V2: (in channels, out channels, expansion t, stride) of the 17 bottlenecks
_V2_LAYERS = [(32, 16, 1, 1), (16, 24, 6, 2), (24, 24, 6, 1), (24, 32, 6, 2), (32, 32, 6, 1), (32, 32, 6, 1),
              (32, 64, 6, 2), (64, 64, 6, 1), (64, 64, 6, 1), (64, 64, 6, 1), (64, 96, 6, 1), (96, 96, 6, 1),
              (96, 96, 6, 1), (96, 160, 6, 2), (160, 160, 6, 1), (160, 160, 6, 1), (160, 320, 6, 1)]


class MobileNet(HybridBlock):
    """MobileNet with widths scaled by ``multiplier``."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        width = lambda c: int(c * multiplier)            # noqa: E731
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                conv_bn_act(self.features, width(32), 3, 2, 1, scale=True)
                for dw, pw, stride in _V1_LAYERS:
                    conv_bn_act(self.features, width(dw), 3, stride, 1, groups=width(dw), scale=True)
                    conv_bn_act(self.features, width(pw), scale=True)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet V2 with widths scaled by ``multiplier`` (the last 1x1 convolution keeps 1280 unless wider)."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        width = lambda c: int(c * multiplier)            # noqa: E731
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                conv_bn_act(self.features, width(32), 3, 2, 1, act="relu6", scale=True)
                for cin, cout, t, stride in _V2_LAYERS:
                    self.features.add(LinearBottleneck(in_channels=width(cin), channels=width(cout), t=t,
                                                       stride=stride))
                conv_bn_act(self.features, width(1280) if multiplier > 1.0 else 1280, act="relu6", scale=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    s = f"{multiplier:.2f}"
    return s[:-1] if s in ("1.00", "0.50") else s


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """MobileNet with width ``multiplier`` (1.0, 0.75, 0.5, 0.25 in the zoo)."""
    no_pretrained(f"mobilenet{_suffix(multiplier)}", pretrained)
    return MobileNet(multiplier, **kwargs)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """MobileNet V2 with width ``multiplier`` (1.0, 0.75, 0.5, 0.25 in the zoo)."""
    no_pretrained(f"mobilenetv2_{_suffix(multiplier)}", pretrained)
    return MobileNetV2(multiplier, **kwargs)


def _constructor(get, multiplier, name):
    def make(**kwargs):
        return get(multiplier, **kwargs)
    make.__name__ = name
    make.__doc__ = f"{'MobileNet V2' if get is get_mobilenet_v2 else 'MobileNet'} {multiplier} (``pretrained=False``)."
    return make


mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (
    _constructor(get_mobilenet, m, f"mobilenet{str(m).replace('.', '_')}") for m in (1.0, 0.75, 0.5, 0.25))
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    _constructor(get_mobilenet_v2, m, f"mobilenet_v2_{str(m).replace('.', '_')}") for m in (1.0, 0.75, 0.5, 0.25))
