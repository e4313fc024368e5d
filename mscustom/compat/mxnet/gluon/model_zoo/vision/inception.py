"""Inception V3 (Szegedy et al. 2015), as MXNet 1.9.1's model zoo builds it (input 299x299).

Every convolution is bias-free with a BatchNorm (epsilon 0.001) and ReLU.
The mixed blocks A-E run parallel branches (convolution chains, with 3x3
average or max pooling in front of some) whose outputs are concatenated;
factorised 1x7 / 7x1 and 1x3 / 3x1 kernels as in the paper. A branch is
written as its pooling (None, 'avg' or 'max') and (channels, kernel, stride,
padding) per convolution, None keeping the layer's default.
"""

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ...contrib.nn import HybridConcurrent
from ._common import no_pretrained

__all__ = ["Inception3", "inception_v3"]


def _basic_conv(channels, kernel_size, strides=None, padding=None):
    kw = {"channels": channels, "kernel_size": kernel_size}
    if strides is not None:
        kw["strides"] = strides
    if padding is not None:
        kw["padding"] = padding
    seq = nn.HybridSequential(prefix="")
    seq.add(nn.Conv2D(use_bias=False, **kw), nn.BatchNorm(epsilon=0.001), nn.Activation("relu"))
    return seq


def _branch(pool, *convs):
    seq = nn.HybridSequential(prefix="")
    if pool == "avg":
        seq.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        seq.add(nn.MaxPool2D(pool_size=3, strides=2))
    for conv in convs:
        seq.add(_basic_conv(*conv))
    return seq


def _mixed(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for b in branches:
            out.add(b() if callable(b) else _branch(*b))
    return out


def _block_a(pool_features, prefix):
    return _mixed(prefix, (None, (64, 1)), (None, (48, 1), (64, 5, None, 2)),
                  (None, (64, 1), (96, 3, None, 1), (96, 3, None, 1)), ("avg", (pool_features, 1)))


def _block_b(prefix):
    return _mixed(prefix, (None, (384, 3, 2)), (None, (64, 1), (96, 3, None, 1), (96, 3, 2)), ("max",))


def _block_c(c7, prefix):
    return _mixed(prefix, (None, (192, 1)),
                  (None, (c7, 1), (c7, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0))),
                  (None, (c7, 1), (c7, (7, 1), None, (3, 0)), (c7, (1, 7), None, (0, 3)),
                   (c7, (7, 1), None, (3, 0)), (192, (1, 7), None, (0, 3))),
                  ("avg", (192, 1)))


def _block_d(prefix):
    return _mixed(prefix, (None, (192, 1), (320, 3, 2)),
                  (None, (192, 1), (192, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0)), (192, 3, 2)),
                  ("max",))


def _split_3x3(head):
    """A branch ``head`` followed by 1x3 and 3x1 convolutions side by side (block E)."""
    def build():
        seq = nn.HybridSequential(prefix="")
        seq.add(_branch(None, *head))
        split = HybridConcurrent(axis=1, prefix="")
        split.add(_branch(None, (384, (1, 3), None, (0, 1))), _branch(None, (384, (3, 1), None, (1, 0))))
        seq.add(split)
        return seq
    return build


def _block_e(prefix):
    return _mixed(prefix, (None, (320, 1)), _split_3x3([(384, 1)]), _split_3x3([(448, 1), (384, 3, None, 1)]),
                  ("avg", (192, 1)))


class Inception3(HybridBlock):
    """Inception V3: the stem, mixed blocks A1-A3, B, C1-C4, D, E1-E2, 8x8 average pooling, dropout, ``Dense``."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_basic_conv(32, 3, 2), _basic_conv(32, 3), _basic_conv(64, 3, None, 1),
                              nn.MaxPool2D(pool_size=3, strides=2), _basic_conv(80, 1), _basic_conv(192, 3),
                              nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_block_a(32, "A1_"), _block_a(64, "A2_"), _block_a(64, "A3_"), _block_b("B_"))
            self.features.add(_block_c(128, "C1_"), _block_c(160, "C2_"), _block_c(160, "C3_"),
                              _block_c(192, "C4_"), _block_d("D_"), _block_e("E1_"), _block_e("E2_"))
            self.features.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=None, **kwargs):
    """Inception V3 (``pretrained=False``; ``classes``); its input is 299x299."""
    no_pretrained("inception_v3", pretrained)
    return Inception3(**kwargs)
