"""Activation Cells beyond ``layers.py``'s: ``ReLU6``, ``LeakyReLU``, ``GELU``, ``SiLU``.

They are also reachable by name through ``nn.get_activation`` ("relu6",
"leakyrelu", "gelu", "silu").

Example::

    act = nn.GELU(approximate=False)       # exact, with erf
"""

from .. import ops
from . import layers as _layers
from .cell import Cell

__all__ = ["ReLU6", "LeakyReLU", "GELU", "SiLU"]


class ReLU6(Cell):
    """``min(max(x, 0), 6)`` elementwise."""

    def construct(self, x):
        return ops.relu6(x)


class LeakyReLU(Cell):
    """``x`` where positive, else ``alpha * x`` (MindSpore's default alpha is 0.2)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"LeakyReLU: alpha must be a number, got {alpha!r}")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class GELU(Cell):
    """GELU; ``approximate=True`` (MindSpore's default) uses the tanh form, False the exact erf form."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = bool(approximate)

    def construct(self, x):
        return ops.gelu(x, "tanh" if self.approximate else "none")

    def extend_repr(self):
        return f"approximate={self.approximate}"


class SiLU(Cell):
    """SiLU (swish): ``x * sigmoid(x)``."""

    def construct(self, x):
        return ops.silu(x)


_layers._ACTIVATIONS.update({"relu6": ReLU6, "leakyrelu": LeakyReLU, "gelu": GELU, "silu": SiLU})
