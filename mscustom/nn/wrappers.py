"""Training wrappers: ``WithLossCell`` (network + loss) and ``TrainOneStepCell`` (one optimizer step).

Both are built with ``auto_prefix=False``, so wrapping a network does not
rename its Parameters (``fc1.weight`` stays ``fc1.weight``), as in MindSpore.

Example::

    net_with_loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    train_step = nn.TrainOneStepCell(net_with_loss, nn.Adam(net.trainable_params(), 1e-2))
    for x, y in batches:
        loss = train_step(x, y)
"""

import numpy as np

from .. import ops
from ..autograd import value_and_grad

from .basic import Identity
from .cell import Cell
from .optim import Optimizer

__all__ = ["WithLossCell", "TrainOneStepCell"]


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: a network and its loss as one Cell.

    Example::

        nn.WithLossCell(net, nn.MSELoss())(x, y)      # a scalar loss Tensor
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        if not isinstance(backbone, Cell):
            raise TypeError(f"WithLossCell: backbone must be a Cell, got {type(backbone).__name__}")
        if not callable(loss_fn):
            raise TypeError(f"WithLossCell: loss_fn must be a Cell or callable, got {type(loss_fn).__name__}")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


class TrainOneStepCell(Cell):
    """One training step: the loss and its gradients for the optimizer's parameters, then an update.

    ``network`` returns a scalar loss (a ``WithLossCell``, say). Calling the
    cell runs ``network(*inputs)`` on the tape, differentiates it with
    respect to ``optimizer.parameters`` (the loss's sensitivity is ``sens``,
    so the gradients are scaled by it), applies the optimizer and returns the
    loss. The network is put in training mode (``set_train()``).

    Example::

        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
        loss = step(x, y)
    """

    def __init__(self, network, optimizer, sens=1.0):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"TrainOneStepCell: network must be a Cell, got {type(network).__name__}")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"TrainOneStepCell: optimizer must be an nn optimizer (SGD, Momentum, "
                            f"Adam, ...), got {type(optimizer).__name__}")
        if isinstance(sens, bool) or not isinstance(sens, (int, float, np.number)):
            raise TypeError(f"TrainOneStepCell: sens must be a number, got {type(sens).__name__}")
        self.network = network
        self.network.set_train()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = float(sens)
        self._value_and_grad = value_and_grad(network, None, weights=self.weights)
        reducer = _data_parallel_reducer(self.weights)      # MindSpore's attributes: Identity when alone
        self.reducer_flag = reducer is not None
        self.grad_reducer = reducer if reducer is not None else Identity()

    def construct(self, *inputs):
        if self.reducer_flag:                   # DATA_PARALLEL: all-reduce buckets during backward
            with self.grad_reducer.overlap():
                loss, grads = self._value_and_grad(*inputs)
            grads = self.grad_reducer(grads)
        else:
            loss, grads = self._value_and_grad(*inputs)
        if self.sens != 1.0:
            grads = tuple(ops.mul(g, self.sens) for g in grads)
        self.optimizer(grads)
        return loss


def _data_parallel_reducer(weights):
    """In DATA_PARALLEL (or HYBRID_PARALLEL) mode, as MindSpore's training cells do: a
    ``DistributedGradReducer`` over the world group with the context's ``gradients_mean``, after
    broadcasting rank 0's parameters when ``parameter_broadcast`` is set; None otherwise (the step
    then keeps an ``nn.Identity`` as MindSpore does, and never calls it)."""
    from .. import parallel_context as pctx
    if not pctx.data_parallel():
        return None
    from ..communication import get_group_size
    from .distributed import DistributedGradReducer, broadcast_parameters
    if get_group_size() > 1 and pctx.get_auto_parallel_context("parameter_broadcast"):
        broadcast_parameters(weights, 0)
    return DistributedGradReducer(weights)
