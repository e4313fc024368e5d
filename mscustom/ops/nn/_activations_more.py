"""Activations with MindSpore 2.10's functional names: ``celu``, ``glu``, ``hardshrink``,
``softshrink``/``soft_shrink``, ``hardsigmoid``, ``logsigmoid``, ``softsign``, ``softmin``,
``tanhshrink``, ``threshold``, ``prelu``, ``rrelu``, ``fast_gelu``, ``gumbel_softmax``.

Each is a composition of existing differentiable ops, so gradients come from theirs.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from ..math.elementwise_more import softplus
from .activation_extra import relu6
from ..array.creation import split, _rng
from ._common import const, float_tensor


def celu(x, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; ``alpha`` must not be 0."""
    x = float_tensor(x, "celu")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or alpha == 0:
        raise ValueError(f"op 'celu': alpha must be a non-zero float, got {alpha!r}")
    zero = const(0, x)
    neg = F.mul(F.sub(F.exp(F.div(F.minimum(x, zero), float(alpha))), 1.0), float(alpha))
    return F.add(F.maximum(x, zero), neg)


def _halves(x, axis, name):
    n = x.shape[axis]
    if n % 2:
        raise ValueError(f"op '{name}': the size of axis {axis} must be even, got {n} (shape {list(x.shape)})")
    return split(x, n // 2, axis)


def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the two halves of ``x`` along ``axis``."""
    x = float_tensor(x, "glu")
    a, b = _halves(x, axis, "glu")
    return F.mul(a, F.sigmoid(b))


def hardshrink(input, lambd=0.5):  # noqa: A002
    """``input`` where ``|input| > lambd``, else 0."""
    x = float_tensor(input, "hardshrink")
    return F.where(F.greater(F.abs(x), const(lambd, x)), x, F.zeros_like(x))


def softshrink(input, lambd=0.5):  # noqa: A002
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between (``lambd >= 0``)."""
    x = float_tensor(input, "softshrink")
    if lambd < 0:
        raise ValueError(f"op 'softshrink': lambd must be >= 0, got {lambd}")
    lam = const(lambd, x)
    shrunk = F.sub(x, F.mul(F.sign(x), lam))
    return F.where(F.greater(F.abs(x), lam), shrunk, F.zeros_like(x))


def soft_shrink(input, lambd=0.5):  # noqa: A002
    """``softshrink`` under its older name (also ``Tensor.soft_shrink``)."""
    return softshrink(input, lambd)


def hardsigmoid(input):  # noqa: A002
    """``relu6(x + 3) / 6``."""
    x = float_tensor(input, "hardsigmoid")
    return F.div(relu6(F.add(x, 3.0)), 6.0)


def logsigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, computed without overflow."""
    x = float_tensor(x, "logsigmoid")
    return F.neg(softplus(F.neg(x)))


def softsign(x):
    """``x / (1 + |x|)``."""
    x = float_tensor(x, "softsign")
    return F.div(x, F.add(F.abs(x), 1.0))


def softmin(x, axis=-1, *, dtype=None):
    """``softmax(-x, axis)``, optionally computed in ``dtype``."""
    x = float_tensor(x, "softmin")
    if dtype is not None:
        x = F.cast(x, dtype)
    return F.softmax(F.neg(x), axis)


def tanhshrink(input):  # noqa: A002
    """``x - tanh(x)``."""
    x = float_tensor(input, "tanhshrink")
    return F.sub(x, F.tanh(x))


def threshold(input, thr, value):  # noqa: A002
    """``input`` where it is greater than ``thr``, else ``value``."""
    x = float_tensor(input, "threshold")
    return F.where(F.greater(x, const(thr, x)), x, F.broadcast_to(const(value, x), x.shape))


def prelu(input, weight):  # noqa: A002
    """``max(0, x) + weight * min(0, x)``; ``weight`` has one element or one per channel (axis 1)."""
    x = float_tensor(input, "prelu")
    w = float_tensor(weight, "prelu", "weight")
    if w.ndim > 1:
        raise ValueError(f"op 'prelu': weight must be 0-D or 1-D, got shape {list(w.shape)}")
    channels = x.shape[1] if x.ndim >= 2 else 1
    if w.size not in (1, channels):
        raise ValueError(f"op 'prelu': weight must have 1 or {channels} elements (the channels of axis 1), "
                         f"got {w.size}")
    if x.ndim >= 2 and w.size > 1:
        w = F.reshape(w, (channels,) + (1,) * (x.ndim - 2))
    elif w.ndim:
        w = F.reshape(w, ())
    zero = const(0, x)
    return F.add(F.maximum(x, zero), F.mul(w, F.minimum(x, zero)))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    """Randomized leaky ReLU: negative elements times a slope drawn uniformly from ``[lower, upper]``."""
    x = float_tensor(input, "rrelu")
    if not lower <= upper:
        raise ValueError(f"op 'rrelu': lower must be <= upper, got {lower} and {upper}")
    shape, np_dtype = x.shape, x._data.dtype
    slope = _capture.host_op(lambda: (_rng().uniform(lower, upper, shape).astype(np_dtype),), (), Tensor._wrap)[0]
    return F.where(F.greater_equal(x, const(0, x)), x, F.mul(x, slope))


def fast_gelu(x):
    """``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``: GELU's sigmoid approximation."""
    x = float_tensor(x, "fast_gelu")
    ax = F.abs(x)
    return F.mul(F.div(x, F.add(F.exp(F.mul(ax, -1.702)), 1.0)), F.exp(F.mul(F.sub(x, ax), 0.851)))


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """``softmax((logits + g) / tau)`` with ``g`` Gumbel noise; ``hard``: the one-hot of its argmax in the
    forward pass, with the soft sample's gradient (straight-through)."""
    x = float_tensor(logits, "gumbel_softmax", "logits")
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or tau <= 0:
        raise ValueError(f"op 'gumbel_softmax': tau must be a positive float, got {tau!r}")
    if not isinstance(hard, bool):
        raise TypeError(f"op 'gumbel_softmax': hard must be a bool, got {hard!r}")
    shape, np_dtype = x.shape, x._data.dtype

    def noise():
        u = _rng().uniform(np.finfo(np.float32).tiny, 1.0, shape)
        return (-np.log(-np.log(u))).astype(np_dtype),
    g = _capture.host_op(noise, (), Tensor._wrap)[0]
    y = F.softmax(F.div(F.add(x, g), float(tau)), dim)
    if not hard:
        return y
    axis = dim % x.ndim

    def one_hot(soft):             # the argmax of this call's y: a host op, so a graph replay recomputes it
        idx = np.argmax(soft, axis=axis)
        return (np.arange(shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1))
                == np.expand_dims(idx, axis)).astype(np_dtype),
    onehot = _capture.host_op(one_hot, (y,), Tensor._wrap)[0]
    return F.add(F.sub(onehot, F.stop_gradient(y)), y)


__all__ = ["celu", "glu", "hardshrink", "softshrink", "soft_shrink", "hardsigmoid", "logsigmoid",
           "softsign", "softmin", "tanhshrink", "threshold", "prelu", "rrelu", "fast_gelu", "gumbel_softmax"]

for _name in __all__:
    register_function(_name, globals()[_name], method=_name in ("hardshrink", "soft_shrink"))
del _name
