"""``gluon.model_zoo.vision``: MXNet 1.9.1's image classification models, built untrained.

``get_model(name, **kwargs)`` or the constructors: ResNet V1/V2 (18, 34, 50,
101, 152 layers), VGG 11/13/16/19 with and without BatchNorm, AlexNet,
DenseNet 121/161/169/201, SqueezeNet 1.0/1.1, Inception V3, MobileNet
(1.0, 0.75, 0.5, 0.25) and MobileNet V2 (the same widths). Each builds MXNet's
architecture with its Parameter names and shapes (``classes=`` sets the
output size); the weights take the initializer given to ``initialize``.
``pretrained=True`` raises ``MXNetError``: nothing is downloaded here (MXNet's
``.params`` files load with ``net.load_parameters(path)``).

Example::

    net = get_model("resnet18_v1", classes=10)
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 3, 64, 64))).shape          # (1, 10)
"""

from . import densenet, inception, mobilenet, resnet, squeezenet, vgg
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403

__all__ = ["get_model"] + resnet.__all__ + vgg.__all__ + densenet.__all__ + squeezenet.__all__ + \
    inception.__all__ + mobilenet.__all__

_MODELS = dict(
    {f"resnet{n}_v{v}": getattr(resnet, f"resnet{n}_v{v}") for v in (1, 2) for n in (18, 34, 50, 101, 152)},
    **{f"vgg{n}{bn}": getattr(vgg, f"vgg{n}{bn}") for n in (11, 13, 16, 19) for bn in ("", "_bn")},
    **{f"densenet{n}": getattr(densenet, f"densenet{n}") for n in (121, 161, 169, 201)},
    **{f"mobilenet{m}": getattr(mobilenet, f"mobilenet{m.replace('.', '_')}") for m in ("1.0", "0.75", "0.5", "0.25")},
    **{f"mobilenetv2_{m}": getattr(mobilenet, f"mobilenet_v2_{m.replace('.', '_')}")
       for m in ("1.0", "0.75", "0.5", "0.25")},
    alexnet=vgg.alexnet, inceptionv3=inception.inception_v3, **{"squeezenet1.0": squeezenet.squeezenet1_0,
                                                                 "squeezenet1.1": squeezenet.squeezenet1_1})


def get_model(name, **kwargs):
    """The model called ``name`` (e.g. 'resnet18_v1', 'vgg16_bn', 'mobilenetv2_1.0'); keywords go to its constructor."""
    key = name.lower()
    if key not in _MODELS:
        raise ValueError("Model %s is not supported. Available options are\n\t%s" % (
            name, "\n\t".join(sorted(_MODELS))))
    return _MODELS[key](**kwargs)
