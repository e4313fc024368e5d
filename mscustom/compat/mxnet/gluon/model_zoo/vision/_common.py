"""What every model constructor shares: refusing ``pretrained=True`` (nothing is downloaded here)."""

from ... import nn
from ...block import HybridBlock
from ....base import MXNetError

__all__ = ["no_pretrained", "conv_bn_act", "ReLU6"]


def no_pretrained(name, pretrained):
    """Raise a clear error for ``pretrained=True``: the weights would have to be downloaded."""
    if pretrained:
        raise MXNetError(f"model_zoo.vision.{name}: pretrained weights are not available here (nothing is downloaded). "
                         f"Build the model with pretrained=False and load MXNet's weight file with "
                         f"net.load_parameters('<file>.params') (MXNet's .params format is read as is).")


class ReLU6(HybridBlock):
    """``min(max(x, 0), 6)`` (MobileNet's activation)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def conv_bn_act(seq, channels, kernel=1, stride=1, pad=0, groups=1, act="relu", **bn):
    """Append a bias-free convolution, a BatchNorm and (unless ``act`` is None) 'relu' or 'relu6' to ``seq``."""
    seq.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False))
    seq.add(nn.BatchNorm(**bn))
    if act == "relu6":
        seq.add(ReLU6())
    elif act is not None:
        seq.add(nn.Activation(act))
    return seq
