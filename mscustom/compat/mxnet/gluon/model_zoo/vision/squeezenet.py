"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016), as MXNet 1.9.1's model zoo builds them.

Fire modules (a 1x1 "squeeze" convolution feeding 1x1 and 3x3 "expand"
convolutions whose outputs are concatenated), max pooling in MXNet's 'full'
convention (``ceil_mode=True``), and a 1x1 convolution classifier followed by
13x13 average pooling (so the input is 224x224).
"""

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ...contrib.nn import HybridConcurrent
from ._common import no_pretrained

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _conv_relu(channels, kernel, padding=0):
    seq = nn.HybridSequential(prefix="")
    seq.add(nn.Conv2D(channels, kernel, padding=padding), nn.Activation("relu"))
    return seq


def _fire(squeeze, expand1x1, expand3x3):
    fire = nn.HybridSequential(prefix="")
    fire.add(_conv_relu(squeeze, 1))
    expand = HybridConcurrent(axis=1, prefix="")
    expand.add(_conv_relu(expand1x1, 1), _conv_relu(expand3x3, 3, 1))
    fire.add(expand)
    return fire


# each stage: "pool" (3x3/2 'full' max pooling) or a fire module's (squeeze, expand) channels
_STAGES = {"1.0": ((96, 7), ["pool", (16, 64), (16, 64), (32, 128), "pool", (32, 128), (48, 192), (48, 192),
                               (64, 256), "pool", (64, 256)]),
           "1.1": ((64, 3), ["pool", (16, 64), (16, 64), "pool", (32, 128), (32, 128), "pool", (48, 192),
                             (48, 192), (64, 256), (64, 256)])}


class SqueezeNet(HybridBlock):
    """SqueezeNet ``version`` '1.0' or '1.1'."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in _STAGES:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1.0 or 1.1 expected")
        (stem_channels, stem_kernel), stages = _STAGES[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2), nn.Activation("relu"))
            for stage in stages:
                if stage == "pool":
                    self.features.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                else:
                    self.features.add(_fire(stage[0], stage[1], stage[1]))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"), nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """SqueezeNet ``version`` ('1.0' or '1.1')."""
    no_pretrained(f"squeezenet{version}", pretrained)
    return SqueezeNet(version, **kwargs)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0 (``pretrained=False``; ``classes``)."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1 (``pretrained=False``; ``classes``)."""
    return get_squeezenet("1.1", **kwargs)
