"""OcclusionSensitivity: sensitivity maps are MindSpore 2.10's for the same model, image and label (a margin given
as a list, one per axis, fails inside MindSpore 2.10; mscustom applies it per axis)."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

W = np.array([[0.1, 0.8, 0.1, 0.1, 0.3, -0.2], [1, 1, 1, 1, -0.5, 0.2]], np.float32)
X = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, -0.6]], np.float32)


class _Net2(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(12, 3, weight_init=ms.Tensor(np.cos(np.arange(36)).reshape(3, 12).astype(np.float32)),
                          bias_init="zeros")

    def construct(self, x):
        return self.d(x.reshape(x.shape[0], -1))


@pytest.mark.parametrize("kwargs,expected", [
    ({}, [0.3, 0.6, 1.0, 0.65, 0.33, 0.03]),
    ({"margin": 1}, [0.0999999, 0.3, 0.5, 0.7, 0.15, -0.37]),
    ({"pad_val": 1.0, "margin": 1, "n_batch": 2}, [-0.9000001, -1.6999998, -1.5, -1.3000002, -0.35, -0.0700001]),
    ({"b_box": [1, 3]}, [0.6, 1.0, 0.65]),
])
def test_occlusion_1d(kwargs, expected):
    net = nn.Dense(6, 2, weight_init=ms.Tensor(W), bias_init=ms.Tensor(np.array([0.3, 0.6], np.float32)))
    m = nn.OcclusionSensitivity(**kwargs)
    m.update(net, ms.Tensor(X), np.array(1))
    np.testing.assert_allclose(m.eval(), expected, atol=1e-6)


def test_occlusion_2d():
    x = ms.Tensor(np.sin(np.arange(12)).reshape(1, 3, 4).astype(np.float32))
    m = nn.OcclusionSensitivity(margin=1)
    m.update(_Net2(), x, np.array(2))
    np.testing.assert_allclose(m.eval(), [[5e-07, 0.8340688, 1.4223108, 0.5470161],
                                          [0.7285032, 2.279902, 2.0965409, 1.1048889],
                                          [1.5538487, 2.2657075, 1.1303992, 1.9231973]], atol=2e-6)
    m = nn.OcclusionSensitivity(margin=[1, 2], b_box=[0, 1, 1, -1])
    m.update(_Net2(), x, 2)
    np.testing.assert_allclose(m.eval(), [[1.4223108, 1.3810844, 1.3810844], [2.8250437, 3.3847904, 2.6562879]],
                               atol=2e-6)
    with pytest.raises(RuntimeError, match="OcclusionSensitivity"):
        m.update(_Net2(), ms.Tensor(np.ones((2, 3, 4), np.float32)), 2)
