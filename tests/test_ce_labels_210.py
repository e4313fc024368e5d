"""nn.CrossEntropyLoss with int64 labels: a knowing difference from MindSpore 2.10 (docs/layers.md).

MindSpore 2.10: int32 labels give 0.2869848 for these logits; int64 (int8, int16, uint8, uint32)
labels raise TypeError "For 'CrossEntropyLoss', the 'labels' should be Int32, but got
'mindspore.int64'."; ops.cross_entropy with int64 labels gives 0.2869848.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], np.float32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int16, np.uint8])
def test_integer_labels_of_any_width_give_mindspores_int32_value(dtype):
    loss = nn.CrossEntropyLoss()(ms.Tensor(LOGITS), ms.Tensor(np.array([1, 2], dtype)))
    assert loss.item() == pytest.approx(0.2869848, rel=2e-6)   # float32 rounding

