"""MicroBatchInterleaved, PipelineCell, GradAccumulationCell, VirtualDatasetCellTriple: outputs, gradients and
parameter names are MindSpore 2.10's (standalone, CPU) for the same calls."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

X = np.arange(8).reshape(4, 2).astype(np.float32)
Y = np.arange(4).reshape(4, 1).astype(np.float32)


def _net():
    return nn.Dense(2, 1, weight_init="ones", bias_init="zeros")


@pytest.mark.parametrize("cls", [nn.MicroBatchInterleaved, nn.PipelineCell, nn.GradAccumulationCell])
def test_micro_batches(cls):
    cell = cls(_net(), 2)
    np.testing.assert_allclose(cell(ms.Tensor(X)).asnumpy(), [[10.0], [18.0]])
    assert [n for n, _ in cell.parameters_and_names()] == ["network.weight", "network.bias"]
    g = ms.grad(lambda t: cell(t).sum())(ms.Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), np.ones((4, 2)))


def test_micro_batch_losses_and_errors():
    net = _net()
    np.testing.assert_allclose(float(nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss()), 2)(ms.Tensor(X), ms.Tensor(Y))
                                     .asnumpy()), 83.0)
    np.testing.assert_allclose(float(nn.MicroBatchInterleaved(nn.WithLossCell(net, nn.MSELoss()), 4)(
        ms.Tensor(X), ms.Tensor(Y)).asnumpy()), 166.0)
    with pytest.raises(ValueError, match="MicroBatchInterleaved"):
        nn.MicroBatchInterleaved(net, 4)(ms.Tensor(np.ones((6, 2), np.float32)))


def test_virtual_dataset_cell_triple():
    class N3(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = _net()

        def construct(self, a, b, c):
            return self.d(a) * b + c

    v = nn.VirtualDatasetCellTriple(N3())
    assert [n for n, _ in v.parameters_and_names()] == ["_backbone.d.weight", "_backbone.d.bias"]
    out = v(ms.Tensor(np.ones((2, 2), np.float32)), ms.Tensor(np.full((2, 1), 2.0, np.float32)),
            ms.Tensor(np.ones((2, 1), np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[5.0], [5.0]])
