"""SampledSoftmaxLoss with given sampled values: losses and gradients (with respect to the weights) are MindSpore
2.10 (CPU)'s for the same calls."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn
from nn_names_cases import run_case

CASES = [
    ('SampledSoftmaxLoss', 'nn.SampledSoftmaxLoss(3, 7, sampled_values=(ms.Tensor(np.array([4, 0, 6], np.int32)), ms.Tensor(np.array([[0.3], [0.5]], np.float32)), ms.Tensor(np.array([0.2, 0.4, 0.1], np.float32))))', ['np.cos(np.arange(7*3) * 0.5).reshape(7, 3).astype(np.float32)', 'np.sin(np.arange(7) * 0.3).astype(np.float32)', 'np.array([[1], [2]], np.int32)', 'np.sin(np.arange(2*3) * 0.8).reshape(2, 3).astype(np.float32)'], [[3.8411796, 2.7288804]], ['float32'], [[0.023667073, 0.081061624, 0.089285284], [0, -0.7019558, -0.9781146], [-0.34112561, 0.029480387, 0.38220397], [0, 0, 0], [0.098981753, 0.55251616, 0.67090172], [0, 0, 0], [0.21847677, 0.038897626, -0.1642763]]),
    ('SampledSoftmaxLoss_mean', "nn.SampledSoftmaxLoss(3, 7, sampled_values=(ms.Tensor(np.array([4, 0, 6], np.int32)), ms.Tensor(np.array([[0.3], [0.5]], np.float32)), ms.Tensor(np.array([0.2, 0.4, 0.1], np.float32))), reduction='mean')", ['np.cos(np.arange(7*3) * 0.5).reshape(7, 3).astype(np.float32)', 'np.sin(np.arange(7) * 0.3).astype(np.float32)', 'np.array([[1], [2]], np.int32)', 'np.sin(np.arange(2*3) * 0.8).reshape(2, 3).astype(np.float32)'], [[3.8411796, 2.7288804]], ['float32'], [[0.023667073, 0.081061624, 0.089285284], [0, -0.7019558, -0.9781146], [-0.34112561, 0.029480387, 0.38220397], [0, 0, 0], [0.098981753, 0.55251616, 0.67090172], [0, 0, 0], [0.21847677, 0.038897626, -0.1642763]]),
    ('SampledSoftmaxLoss_true2', 'nn.SampledSoftmaxLoss(2, 7, num_true=2, sampled_values=(ms.Tensor(np.array([4, 5], np.int32)), ms.Tensor(np.array([[0.3, 0.2], [0.5, 0.6]], np.float32)), ms.Tensor(np.array([0.2, 0.4], np.float32))))', ['np.cos(np.arange(7*3) * 0.5).reshape(7, 3).astype(np.float32)', 'np.sin(np.arange(7) * 0.3).astype(np.float32)', 'np.array([[1, 3], [2, 0]], np.int32)', 'np.sin(np.arange(2*3) * 0.8).reshape(2, 3).astype(np.float32)'], [[2.6070039, 2.5266504]], ['float32'], [[-0.15874135, 0.013718572, 0.17785698], [0, -0.34629488, -0.48253193], [-0.14663026, 0.01267192, 0.16428748], [0, -0.13261931, -0.18479352], [0.14890391, 0.43827927, 0.46180031], [0.15646772, 0.014244416, -0.13661936], [0, 0, 0]]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_sampled_softmax(case):
    run_case(case, rtol=2e-5, atol=2e-6)


def test_sampled_softmax_random_sampling():
    ms.set_seed(1)
    loss_fn = nn.SampledSoftmaxLoss(3, 7)
    w = ms.Tensor(np.cos(np.arange(21) * 0.5).reshape(7, 3).astype(np.float32))
    b = ms.Tensor(np.zeros(7, np.float32))
    out = loss_fn(w, b, ms.Tensor(np.array([[1], [2]], np.int32)), ms.Tensor(np.ones((2, 3), np.float32)))
    assert out.shape == (2,) and np.isfinite(out.asnumpy()).all() and (out.asnumpy() > 0).all()
    with pytest.raises(ValueError, match="SampledSoftmaxLoss"):
        nn.SampledSoftmaxLoss(8, 7)
