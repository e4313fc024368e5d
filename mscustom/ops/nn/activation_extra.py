"""More activations (``gelu``, ``silu``, ``relu6``, ``leaky_relu``, ``erf``) and ``dropout``.

``erf`` and ``dropout`` are ops of their own (``defop``); the activations are
compositions of differentiable ops, so their gradients follow.

``dropout`` draws a fresh mask on every call from the generator that
``ms.set_seed`` seeds; the mask (already scaled by ``1 / (1 - p)``) is its
second output and its gradient is ``dy * mask``.

Example::

    ops.gelu(x, approximate="tanh"); ops.dropout(x, p=0.1, training=True)
"""

import math

import numpy as np

from ..._core.dispatch import call
from .. import functional as F
from .._builtin import defop, float_only, functional, tensor_arg, unary

_ERF_UFUNC = np.frompyfunc(math.erf, 1, 1)


def _erf_compute(attrs, ins):
    x = ins[0]
    return _ERF_UFUNC(x).astype(x.dtype)


_ERF = unary("erf", _erf_compute, float_only("erf"),
             lambda ins, outs, g, a: [F.mul(g[0], F.mul(2.0 / math.sqrt(math.pi),
                                                        F.exp(F.neg(F.square(ins[0])))))],
             "the Gauss error function")


erf = functional(_ERF, "The Gauss error function, elementwise (float tensors).", arg_names=("input",))


def gelu(input_x, approximate="none"):
    """GELU: ``x * Phi(x)`` ("none", with erf) or its tanh approximation ("tanh").

    Example::

        ops.gelu(ms.Tensor([1.0]))      # 0.8413
    """
    x = tensor_arg(input_x, "gelu")
    if x._data.dtype.kind != "f":
        raise TypeError(f"op 'gelu': input must be float16, float32 or float64, got {x.dtype.name}")
    if approximate == "none":
        return F.mul(F.mul(x, 0.5), F.add(erf(F.mul(x, 1 / math.sqrt(2.0))), 1.0))
    if approximate == "tanh":
        inner = F.mul(F.add(x, F.mul(F.mul(F.square(x), x), 0.044715)), math.sqrt(2.0 / math.pi))
        return F.mul(F.mul(x, 0.5), F.add(F.tanh(inner), 1.0))
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def silu(input):  # noqa: A002
    """SiLU (swish): ``x * sigmoid(x)``."""
    x = tensor_arg(input, "silu")
    return F.mul(x, F.sigmoid(x))


def relu6(x):
    """``min(max(x, 0), 6)``."""
    x = tensor_arg(x, "relu6")
    from ..math.elementwise import minimum_x
    return minimum_x(F.relu(x), 6)      # gradient 0 at 0 and 1 at 6, as in MindSpore


def leaky_relu(input, alpha=0.2):  # noqa: A002
    """``x`` where ``x > 0``, else ``alpha * x``."""
    x = tensor_arg(input, "leaky_relu")
    return F.where(F.greater(x, 0), x, F.mul(x, alpha))


# ================================================================== dropout
def _dropout_compute(attrs, ins):
    from ...nn.init import rng          # late: mscustom.nn imports mscustom.ops
    x = ins[0]
    keep = 1.0 - attrs["p"]
    mask = (rng().random(x.shape) < keep).astype(x.dtype)
    mask *= x.dtype.type(1.0 / keep)
    return [x * mask, mask]


_DROPOUT = defop("dropout", 1, _dropout_compute, lambda a, s: (s, [list(s[0]), list(s[0])]),
                 lambda a, d: (d, [d[0], d[0]]) if d[0].name.startswith("float") else _bad_dropout(d),
                 lambda ins, outs, g, a: [F.mul(g[0], outs[1])], num_outputs=2,
                 doc="zero elements with probability p, scale the rest by 1/(1-p)", arg_names=("x",))
_DROPOUT.attrs["FRandom"] = True        # a fresh mask on every call: graph replays never fold or merge it


def _bad_dropout(dtypes):
    raise TypeError(f"op 'dropout': the input must be a float tensor, got {dtypes[0].name}")


def dropout(input, p=0.5, training=True, seed=None):  # noqa: A002
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``.

    Identity when ``training`` is False or ``p`` is 0. A fresh mask is drawn on
    every call (from the ``ms.set_seed`` generator; ``seed`` is accepted for
    MindSpore compatibility and ignored).
    """
    x = tensor_arg(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(f"dropout: p (the probability of dropping) must be in [0, 1), got {p!r}")
    if not training or p == 0:
        return x
    return call(_DROPOUT, (x,), {"p": float(p)})[0]


__all__ = ["erf", "gelu", "silu", "relu6", "leaky_relu", "dropout"]
