"""Activation Cells beyond ``layers.py``'s: ``ReLU6``, ``LeakyReLU``, ``GELU``, ``SiLU``.

They are also reachable by name through ``nn.get_activation`` ("relu6",
"leakyrelu", "gelu", "silu").

Example::

    act = nn.GELU(approximate=False)       # exact, with erf
"""

import numpy as np

from .. import ops
from ..tensor import Parameter, Tensor
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


# ------------------------------------------------------------------ more of MindSpore's activations
# Each is built from differentiable ops. Where MindSpore's gradient at a kink differs from what
# the composition would give, the branch (``where``) is chosen so that it matches: HSwish is
# (2x + 3) / 6 on the closed [-3, 3], HSigmoid is 1/6 only inside the open (-3, 3), Hardtanh
# splits its gradient 0.5 / 0.5 at min_val and max_val, ELU uses alpha * exp(x) at 0.
def _float_input(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"{name}: the input must be a float tensor, got {x.dtype.name}")
    return x


def _softplus(x):
    """``log(1 + exp(x))`` without overflow: ``max(x, 0) + log(1 + exp(-|x|))``."""
    return ops.add(ops.where(ops.greater(x, 0), x, ops.zeros_like(x)),
                   ops.log(ops.add(ops.exp(ops.neg(ops.abs(x))), 1.0)))


class ELU(Cell):
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Example::

        nn.ELU()(ms.Tensor([-1.0, 2.0]))      # [-0.632, 2.0]
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"ELU: alpha must be a float, got {alpha!r}")
        self.alpha = float(alpha)

    def construct(self, x):
        x = _float_input(x, "ELU")
        return ops.where(ops.greater(x, 0), x, ops.mul(ops.sub(ops.exp(x), 1.0), self.alpha))

    def extend_repr(self):
        return f"alpha={self.alpha}"


class HSwish(Cell):
    """Hard swish: ``x * relu6(x + 3) / 6``."""

    def construct(self, x):
        x = _float_input(x, "HSwish")
        mid = ops.div(ops.mul(x, ops.add(x, 3.0)), 6.0)
        return ops.where(ops.less(x, -3.0), ops.zeros_like(x), ops.where(ops.greater(x, 3.0), x, mid))


class HSigmoid(Cell):
    """Hard sigmoid: ``relu6(x + 3) / 6``."""

    def construct(self, x):
        x = _float_input(x, "HSigmoid")
        mid = ops.add(ops.div(x, 6.0), 0.5)
        return ops.where(ops.less_equal(x, -3.0), ops.zeros_like(x),
                         ops.where(ops.greater_equal(x, 3.0), ops.ones_like(x), mid))


class Mish(Cell):
    """Mish: ``x * tanh(softplus(x))``."""

    def construct(self, x):
        x = _float_input(x, "Mish")
        return ops.mul(x, ops.tanh(_softplus(x)))


class Softsign(Cell):
    """``x / (1 + |x|)``."""

    def construct(self, x):
        x = _float_input(x, "Softsign")
        return ops.div(x, ops.add(ops.abs(x), 1.0))


class Tanhshrink(Cell):
    """``x - tanh(x)``."""

    def construct(self, x):
        x = _float_input(x, "Tanhshrink")
        return ops.sub(x, ops.tanh(x))


class Hardtanh(Cell):
    """``x`` clipped to ``[min_val, max_val]``; at either bound the gradient is halved, as in MindSpore.

    Example::

        nn.Hardtanh(-1.0, 1.0)(ms.Tensor([-2.0, 0.5, 3.0]))      # [-1.0, 0.5, 1.0]
    """

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        for what, v in (("min_val", min_val), ("max_val", max_val)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"Hardtanh: {what} must be a float, got {v!r}")
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val must be <= max_val, got {min_val} and {max_val}")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x):
        x = _float_input(x, "Hardtanh")
        lo, hi = self.min_val, self.max_val
        inner = ops.where(ops.less(x, lo), ops.zeros_like(x), ops.where(ops.greater(x, hi), ops.zeros_like(x), x))
        # constants outside, x inside, the mean of both at a bound: its gradient there is 0.5
        at_lo = ops.mul(ops.add(x, lo), 0.5)
        at_hi = ops.mul(ops.add(x, hi), 0.5)
        const = ops.add(ops.mul(ops.cast(ops.less(x, lo), x.dtype), lo), ops.mul(ops.cast(ops.greater(x, hi),
                                                                                           x.dtype), hi))
        body = ops.where(ops.equal(x, lo), at_lo, ops.where(ops.equal(x, hi), at_hi, inner))
        return ops.add(body, const)

    def extend_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


class PReLU(Cell):
    """``x`` where positive, else ``w * x``, with a learnable ``w`` per channel (axis 1).

    ``channel`` is 1 (one ``w`` for all) or the number of channels; ``w`` the
    initial value (a float or a Tensor of ``channel`` values). The parameter is
    the attribute ``w``, named as MindSpore names it in a checkpoint.

    Example::

        act = nn.PReLU(channel=3, w=0.25)         # act.w: Parameter of shape (3,)
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        if isinstance(w, (int, float)) and not isinstance(w, bool):
            value = np.full((channel,), w, np.float32)
        elif isinstance(w, (Tensor, np.ndarray, list, tuple)):
            value = np.asarray(w._data if isinstance(w, Tensor) else w, np.float32).reshape(-1)
            if value.shape != (channel,):
                raise ValueError(f"PReLU: w must have {channel} values (one per channel), got shape "
                                 f"{list(np.shape(w._data if isinstance(w, Tensor) else w))}")
        else:
            raise TypeError(f"PReLU: w must be a float or a Tensor, got {type(w).__name__}")
        self.channel = channel
        self.w = Parameter(Tensor(value), name="a")

    def construct(self, x):
        x = _float_input(x, "PReLU")
        if self.channel > 1 and (x.ndim < 2 or x.shape[1] != self.channel):
            raise ValueError(f"PReLU: the input's axis 1 must have {self.channel} channels, got shape "
                             f"{list(x.shape)}")
        w = self.w if x.ndim < 2 else ops.reshape(self.w, (-1,) + (1,) * (x.ndim - 2))
        return ops.where(ops.greater(x, 0), x, ops.mul(x, ops.cast(w, x.dtype)))

    def extend_repr(self):
        return f"channel={self.channel}"


_layers._ACTIVATIONS.update({"elu": ELU, "hswish": HSwish, "hsigmoid": HSigmoid, "mish": Mish, "prelu": PReLU,
                             "hardtanh": Hardtanh, "softsign": Softsign, "tanhshrink": Tanhshrink})
__all__ += ["ELU", "HSwish", "HSigmoid", "Mish", "PReLU", "Hardtanh", "Softsign", "Tanhshrink"]
