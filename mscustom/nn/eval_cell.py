"""``WithEvalCell``: a network and its loss for evaluation, returning ``(loss, outputs, label)``."""

from .cell import Cell

__all__ = ["WithEvalCell"]


class WithEvalCell(Cell):
    """``network(data)`` and ``loss_fn(outputs, label)``, both returned with the label (metric inputs).

    Example::

        loss, logits, label = nn.WithEvalCell(net, nn.MSELoss())(x, y)
    """

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"WithEvalCell: network must be a Cell, got {type(network).__name__}")
        if not callable(loss_fn):
            raise TypeError(f"WithEvalCell: loss_fn must be a Cell or callable, got {type(loss_fn).__name__}")
        self._network = network
        self._loss_fn = loss_fn

    def construct(self, data, label):
        outputs = self._network(data)
        return self._loss_fn(outputs, label), outputs, label
