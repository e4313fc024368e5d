"""``mx.gluon`` on mscustom: ``Block``, ``HybridBlock``, ``Parameter``, ``ParameterDict``, ``Trainer``,
``nn``, ``loss``, ``data``.

Gluon's imperative API over the same NDArrays, tape and graph mode as the rest
of the MXNet front end: ``loss.backward()`` inside ``mx.autograd.record()``
fills every Parameter's gradient, ``Trainer.step(batch_size)`` updates them,
``hybridize()`` replays the block's recorded kernel calls outside ``record()``.
``mx.nd.Custom`` / ``F.Custom`` run custom ops inside blocks.

Example::

    from mscustom.compat import mxnet as mx
    from mscustom.compat.mxnet import gluon, autograd

    net = gluon.nn.Dense(3)
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = loss_fn(net(mx.nd.ones((4, 2))), mx.nd.array([0, 1, 2, 1]))
    loss.backward()
    trainer.step(4)
"""

from . import data, loss, nn
from .block import Block, HybridBlock
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict
from .trainer import Trainer

__all__ = ["Block", "HybridBlock", "Parameter", "Constant", "ParameterDict", "DeferredInitializationError",
           "Trainer", "nn", "loss", "data"]
