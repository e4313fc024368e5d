"""Random draws for the ``ops.nn`` functions (masks, noise) from ``ms.set_seed``'s generator, as host
ops so graph-mode replays draw anew."""

import numpy as np

from ..._core import capture as _capture
from ...tensor import Tensor


def draw_uniform(shape, dtype=np.float32):
    """Uniform [0, 1) samples of ``shape``."""
    from ...nn.init import rng
    return _capture.host_op(lambda: (rng().random(shape).astype(dtype),), (), Tensor._wrap)[0]
