"""Loss-scaled training: ``TrainOneStepWithLossScaleCell`` and the scale-update Cells
``DynamicLossScaleUpdateCell`` / ``FixedLossScaleUpdateCell`` (what ``ms.amp`` loss scale managers'
``get_update_cell()`` give).

A step computes the loss, back-propagates ``scale`` as the loss's sensitivity, divides the gradients
by ``scale`` and checks them: with a non-finite gradient (an overflow) the optimizer step is
skipped; the update Cell, if any, then adjusts the scale (the Parameter ``scale_sense``).

Example::

    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 12, scale_factor=2, scale_window=1000)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss_fn), opt, scale_sense=update)
    loss, overflow, scale = step(x, y)
"""

import numpy as np

from .. import ops
from ..autograd import _check_weights, _run
from ..tensor import Parameter, Tensor
from .basic import Identity
from .cell import Cell
from .optim import Optimizer
from .wrappers import _data_parallel_reducer

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]


def _scalar_value(v, what, who):
    if isinstance(v, Tensor):
        if v._data.size != 1:
            raise ValueError(f"{who}: {what} must be a scalar, got shape {list(v.shape)}")
        v = v._data.item()
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{who}: {what} must be a number, got {type(v).__name__}")
    return float(v)


def _flag(overflow):
    return bool(np.asarray(overflow._data if isinstance(overflow, Tensor) else overflow).any())


class DynamicLossScaleUpdateCell(Cell):
    """Halve-and-grow loss scale: ``construct(loss_scale, overflow)`` updates the Parameter ``loss_scale``.

    On overflow the scale becomes ``max(scale / scale_factor, 1)``; after ``scale_window`` steps without
    one (counted by the Parameters ``cur_iter``, from 1, and ``last_overflow_iter``) it is multiplied by
    ``scale_factor``. Returns ``overflow``.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.loss_scale_value = _scalar_value(loss_scale_value, "loss_scale_value", "DynamicLossScaleUpdateCell")
        self.scale_factor = _scalar_value(scale_factor, "scale_factor", "DynamicLossScaleUpdateCell")
        if isinstance(scale_window, bool) or not isinstance(scale_window, (int, np.integer)) or scale_window <= 0:
            raise ValueError(f"DynamicLossScaleUpdateCell: scale_window must be a positive int, got {scale_window!r}")
        self.scale_window = int(scale_window)
        self.cur_iter = Parameter(Tensor(np.array(1, np.int32)), name="cur_iter", requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(np.array(0, np.int32)), name="last_overflow_iter",
                                            requires_grad=False)

    def get_loss_scale(self):
        """The initial loss scale."""
        return self.loss_scale_value

    def __call__(self, *args, **kwargs):
        # Python-side state and control flow (the overflow decision, the counters): always eager, also in
        # GRAPH_MODE, so that every call updates them
        return self.construct(*args, **kwargs)

    def construct(self, loss_scale, overflow):
        if not isinstance(loss_scale, Parameter):
            raise TypeError(f"DynamicLossScaleUpdateCell: loss_scale must be a Parameter, got "
                            f"{type(loss_scale).__name__}")
        over = _flag(overflow)
        cur, last = int(self.cur_iter._data), int(self.last_overflow_iter._data)
        scale = float(np.asarray(loss_scale._data).reshape(-1)[0])
        if over:
            scale = max(scale / self.scale_factor, 1.0)
        grow = self.scale_window <= cur - last
        if over or grow:
            self.last_overflow_iter._data[...] = cur
        if grow and not over:
            scale *= self.scale_factor
        loss_scale._data[...] = scale
        self.cur_iter._data[...] = cur + 1
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A constant loss scale: ``construct(loss_scale, overflow)`` changes nothing and returns ``overflow``."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = _scalar_value(loss_scale_value, "loss_scale_value", "FixedLossScaleUpdateCell")

    def get_loss_scale(self):
        """The loss scale."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(Cell):
    """One loss-scaled training step; calling it returns ``(loss, overflow, scale)``.

    ``scale_sense``: a float32 Tensor of shape () or (1,) (a fixed scale, changeable with
    ``set_sense_scale``) or an update Cell (``DynamicLossScaleUpdateCell``,
    ``FixedLossScaleUpdateCell``), whose ``get_loss_scale()`` starts the Parameter ``scale_sense``.
    ``overflow`` is a bool Tensor, True when a gradient is inf or NaN (the update is then skipped);
    ``scale`` is the scale this step used.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"TrainOneStepWithLossScaleCell: network must be a Cell, got {type(network).__name__}")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"TrainOneStepWithLossScaleCell: optimizer must be an nn optimizer, got "
                            f"{type(optimizer).__name__}")
        self.network = network
        self.network.set_train()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            if not hasattr(scale_sense, "get_loss_scale"):
                raise TypeError("TrainOneStepWithLossScaleCell: an update Cell for scale_sense must have "
                                "get_loss_scale()")
            self.loss_scaling_manager = scale_sense
            value = np.array(scale_sense.get_loss_scale(), np.float32)
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"TrainOneStepWithLossScaleCell: scale_sense must have shape () or (1,), got "
                                 f"{list(scale_sense.shape)}")
            value = np.array(scale_sense._data, np.float32)
        else:
            raise TypeError(f"TrainOneStepWithLossScaleCell: scale_sense must be a Cell or a Tensor, got "
                            f"{type(scale_sense).__name__}")
        self.scale_sense = Parameter(Tensor(value), name="scale_sense", requires_grad=False)
        self._weights = _check_weights(network, tuple(self.weights))
        reducer = _data_parallel_reducer(self.weights)
        self.reducer_flag = reducer is not None
        self.grad_reducer = reducer if reducer is not None else Identity()

    def __call__(self, *args, **kwargs):
        # Python-side state and control flow (the overflow decision, the counters): always eager, also in
        # GRAPH_MODE, so that every call updates them
        return self.construct(*args, **kwargs)

    def set_sense_scale(self, sens):
        """Replace the loss scale with ``sens`` (a float32 Tensor of the same shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"TrainOneStepWithLossScaleCell.set_sense_scale: sens must be a Tensor, got "
                            f"{type(sens).__name__}")
        self.scale_sense.set_data(Tensor(np.asarray(sens._data, np.float32).reshape(self.scale_sense.shape)))

    def construct(self, *inputs):
        scale = Tensor(np.array(self.scale_sense._data, copy=True))
        s = float(np.asarray(scale._data).reshape(-1)[0])
        net = self.network

        def forward(*args):                     # the scale is the loss's sensitivity
            loss = net(*args)
            return ops.mul(loss, ops.cast(Tensor(np.asarray(s, np.float32)), loss.dtype)), loss
        out, _, grads = _run(forward, inputs, (), self._weights, True)
        loss = out[1] if isinstance(out, (tuple, list)) else out
        grads = tuple(ops.div(g, ops.cast(scale.reshape(()) if scale.ndim else scale, g.dtype)) for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        overflow = not all(np.isfinite(g._data).all() for g in grads)
        cond = Tensor(np.array(overflow))
        if self.loss_scaling_manager is not None:
            self.loss_scaling_manager(self.scale_sense, cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scale
