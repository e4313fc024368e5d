"""MXNet 1.x on mscustom: ``from mscustom.compat import mxnet as mx``.

``mx.nd`` (NDArray, math, ``Custom``, ``save``/``load``), ``mx.operator``
(``CustomOp``, ``CustomOpProp``, ``register``), ``mx.autograd``, ``mx.sym`` /
``mx.symbol`` (graphs, ``simple_bind``/``bind``, ``Executor``), ``mx.mod.Module``,
``mx.io.NDArrayIter``, ``mx.metric``, ``mx.callback``, ``mx.init``,
``mx.optimizer``, ``mx.model`` checkpoints, ``mx.test_utils``, ``mx.random``,
``mx.base.MXNetError`` and contexts (``mx.cpu()``, ``mx.gpu()``). Every op
runs on mscustom's operator core and is differentiated by its one tape.
Sparse storage: ``mx.nd.sparse`` (scipy.sparse); profiling: ``mx.profiler``;
``mx.gluon`` (Blocks, layers, losses, Trainer, DataLoader).
Not here: kvstore beyond one process, several devices.

Example::

    from mscustom.compat import mxnet as mx
    x = mx.nd.array([0.0, 1.0]); x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid")      # registered with @mx.operator.register
    y.backward()
"""

from . import base
from . import context
from . import autograd
from . import random
from . import ndarray
from . import operator
from . import symbol
from . import executor
from . import initializer
from . import optimizer
from . import io
from . import metric
from . import model
from . import callback
from . import module
from . import test_utils
from . import profiler
from . import gluon
from . import util
from .base import MXNetError
from .context import Context, cpu, gpu, current_context, num_gpus
from ._ndarray import NDArray
from .util import (use_np, use_np_shape, use_np_array, np_shape, np_array, is_np_shape, is_np_array,
                   set_np_shape)

nd = ndarray
sym = symbol
mod = module
init = initializer
optim = optimizer
device = context

__all__ = ["base", "context", "autograd", "random", "ndarray", "nd", "operator", "symbol", "sym", "executor",
           "initializer", "init", "optimizer", "io", "metric", "model", "callback", "module", "mod",
           "test_utils", "profiler", "MXNetError", "Context", "cpu", "gpu", "current_context", "num_gpus", "NDArray",
           "gluon", "util", "use_np", "use_np_shape", "use_np_array", "np_shape", "np_array", "is_np_shape",
           "is_np_array", "set_np_shape"]
