"""Micro-batch wrappers with MindSpore's names: ``MicroBatchInterleaved``, ``PipelineCell``,
``GradAccumulationCell`` (the network run on equal slices of the batch, outputs added) and
``VirtualDatasetCellTriple`` (a three-input network, unchanged).

In MindSpore they feed pipeline / semi-auto parallel training; in one process they compute the same
sum as MindSpore does standalone. The wrapped network is the child ``network`` (``_backbone`` for
VirtualDatasetCellTriple), as MindSpore names it, so parameter names match.

Example::

    loss = nn.PipelineCell(nn.WithLossCell(net, loss_fn), micro_size=4)(x, y)    # the sum of 4 micro-batch losses
"""

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["MicroBatchInterleaved", "PipelineCell", "GradAccumulationCell", "VirtualDatasetCellTriple"]


class _MicroBatches(Cell):
    _name = ""

    def __init__(self, network, parts):
        super().__init__()
        if not isinstance(network, Cell):
            raise TypeError(f"{self._name}: network must be a Cell, got {type(network).__name__}")
        if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
            raise ValueError(f"{self._name}: the number of micro-batches must be a positive int, got {parts!r}")
        self.network = network
        self._parts = parts

    def construct(self, *inputs):
        k = self._parts
        out = None
        for i in range(k):
            sliced = []
            for x in inputs:
                if isinstance(x, Tensor) and x.ndim > 0:
                    if x.shape[0] % k:
                        raise ValueError(f"{self._name}: axis 0 of an input ({x.shape[0]}) must be divisible by the "
                                         f"number of micro-batches ({k})")
                    m = x.shape[0] // k
                    x = x[i * m:(i + 1) * m]
                sliced.append(x)
            y = self.network(*sliced)
            out = y if out is None else ops.add(out, y)
        return out


class MicroBatchInterleaved(_MicroBatches):
    """``network`` on ``interleave_num`` equal slices of every input's axis 0; the outputs added."""
    _name = "MicroBatchInterleaved"

    def __init__(self, network, interleave_num=2):
        super().__init__(network, interleave_num)
        self.interleave_num = interleave_num


class PipelineCell(_MicroBatches):
    """``network`` on ``micro_size`` equal slices of every input's axis 0; the outputs added.

    ``stage_config`` / ``segment_config`` assign pipeline stages in MindSpore; one process has one stage.
    """
    _name = "PipelineCell"

    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        super().__init__(network, micro_size)
        self.micro_size, self.stage_config, self.segment_config = micro_size, stage_config, segment_config


class GradAccumulationCell(_MicroBatches):
    """``network`` on ``micro_size`` equal slices of every input's axis 0; the outputs (hence the gradients)
    added."""
    _name = "GradAccumulationCell"

    def __init__(self, network, micro_size):
        super().__init__(network, micro_size)
        self.micro_size = micro_size


class VirtualDatasetCellTriple(Cell):
    """``backbone(a, b, c)``: the dataset-sharding wrapper of a three-input network (unchanged in one process)."""

    def __init__(self, backbone):
        super().__init__()
        if not isinstance(backbone, Cell):
            raise TypeError(f"VirtualDatasetCellTriple: backbone must be a Cell, got {type(backbone).__name__}")
        self._backbone = backbone

    def construct(self, a, b, c):
        return self._backbone(a, b, c)
