"""Gamma-family special functions with MindSpore 2.10's names: ``lgamma``, ``digamma``, ``polygamma``,
``mvlgamma``, ``igamma`` (the regularized lower incomplete gamma function) and ``erfinv``.

Each is an op on SciPy's special functions (imported on first use) with its derivative built from the
family itself (``lgamma' = digamma``, ``digamma' = polygamma(1)`` ...), so gradients differentiate
again. ``igamma`` differentiates in ``other`` (x) only. Integer inputs compute in float32.
"""

import math

import numpy as np

from ..._core import capture as _capture
from ..._core.dispatch import call
from ..._core.registry import register_function
from ... import dtype as _dt
from ...tensor import Tensor
from .. import functional as F
from .._builtin import broadcast_shape, defop, same_shape, tensor_arg


def _special():
    import scipy.special as sp           # late: SciPy loads only when a special function runs
    return sp


def _float_out(name):
    def infer(attrs, dtypes):
        for d in dtypes:
            if d.name == "bool" or d.np_dtype.kind not in "fiu":
                raise TypeError(f"op '{name}': input must be a float or integer tensor, got {d.name}")
        out = [d for d in dtypes if _dt.is_floating(d)]
        return dtypes, [out[0] if out else _dt.float32]
    return infer


def _float_only_in(name):
    def infer(attrs, dtypes):
        if not _dt.is_floating(dtypes[0]):
            raise TypeError(f"op '{name}': input must be a float tensor, got {dtypes[0].name}")
        return dtypes, [dtypes[0]]
    return infer


def _kernel(fn):
    def compute(attrs, ins):
        out_dtype = next((a.dtype for a in ins if a.dtype.kind == "f"), np.dtype(np.float32))
        with np.errstate(all="ignore"):
            r = fn(attrs, [a.astype(np.float64) for a in ins])
        return np.array(r, out_dtype, order="C")
    return compute


def _as_float(x):
    return x if x._data.dtype.kind == "f" else F.cast(x, _dt.float32)


_LGAMMA = defop("lgamma", 1, _kernel(lambda a, i: _special().gammaln(i[0])), same_shape, _float_out("lgamma"),
                lambda ins, outs, g, a: [F.mul(g[0], digamma(ins[0]))],
                doc="log|Gamma(x)|", arg_names=("input",))
_POLYGAMMA = defop("polygamma", 1, _kernel(lambda a, i: _special().polygamma(a["n"], i[0]) if a["n"]
                                           else _special().digamma(i[0])),
                   same_shape, _float_out("polygamma"),
                   lambda ins, outs, g, a: [F.mul(g[0], call(_POLYGAMMA, (ins[0],), {"n": a["n"] + 1}))],
                   doc="the n-th derivative of digamma", arg_names=("input",))


def lgamma(input):  # noqa: A002 - MindSpore's names
    """``log|Gamma(input)|`` elementwise (integers compute in float32)."""
    return call(_LGAMMA, (tensor_arg(input, "lgamma"),), {})


def digamma(input):  # noqa: A002
    """The logarithmic derivative of Gamma: ``Gamma'(x) / Gamma(x)``."""
    return call(_POLYGAMMA, (tensor_arg(input, "digamma"),), {"n": 0})


def polygamma(n, input):  # noqa: A002
    """The ``n``-th derivative of ``digamma`` (``n`` an int or a 0-d integer Tensor, >= 0)."""
    if isinstance(n, Tensor):
        if n._data.dtype.kind not in "iu" or n.size != 1:
            raise TypeError(f"op 'polygamma': n must be an int or a 1-element integer Tensor, got {n.dtype} "
                            f"{list(n.shape)}")
        n = int(_capture.read_values(n).reshape(-1)[0])
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"op 'polygamma': n must be a non-negative int, got {n!r}")
    return call(_POLYGAMMA, (tensor_arg(input, "polygamma"),), {"n": int(n)})


def mvlgamma(input, p):  # noqa: A002
    """The multivariate log-gamma of dimension ``p``: ``p(p-1)/4 log(pi) + sum_i lgamma(x - i/2)``; every
    element must exceed ``(p - 1) / 2``."""
    x = _as_float(tensor_arg(input, "mvlgamma"))
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise ValueError(f"op 'mvlgamma': p must be a positive int, got {p!r}")
    def above(a):                    # a capture check: every graph replay repeats it
        if np.any(a <= (p - 1) / 2):
            raise ValueError(f"op 'mvlgamma': all elements of input must be greater than (p - 1) / 2 = "
                             f"{(p - 1) / 2}")
    _capture.check(above, x)
    total = F.mul(F.ones_like(x), p * (p - 1) / 4 * math.log(math.pi))
    for i in range(p):
        total = F.add(total, lgamma(F.sub(x, i / 2)))
    return total


def _igamma_grad(ins, outs, g, a):
    av, x = ins
    # d/dx P(a, x) = exp(-x) x^(a-1) / Gamma(a)
    dens = F.exp(F.sub(F.sub(F.mul(F.sub(av, 1.0), F.log(x)), x), lgamma(av)))
    return [None, F.sum_to(F.mul(g[0], dens), tuple(x.shape))]


_IGAMMA = defop("igamma", 2, _kernel(lambda a, i: _special().gammainc(i[0], i[1])), broadcast_shape("igamma"),
                _float_out("igamma"), _igamma_grad,
                doc="the regularized lower incomplete gamma function P(a, x)", arg_names=("input", "other"))


def igamma(input, other):  # noqa: A002
    """The regularized lower incomplete gamma function ``P(input, other)`` (``input`` is a > 0)."""
    a, x = tensor_arg(input, "igamma"), tensor_arg(other, "igamma")
    if a._data.dtype.kind != "f" or x._data.dtype != a._data.dtype:
        raise TypeError(f"op 'igamma': input and other must be float tensors of one dtype, got {a.dtype} and "
                        f"{x.dtype}")
    return call(_IGAMMA, (a, x), {})


_ERFINV = defop("erfinv", 1, _kernel(lambda a, i: _special().erfinv(i[0])), same_shape, _float_only_in("erfinv"),
                lambda ins, outs, g, a: [F.mul(g[0], F.mul(F.exp(F.square(outs[0])), math.sqrt(math.pi) / 2))],
                doc="the inverse of erf on (-1, 1)", arg_names=("input",))


def erfinv(input):  # noqa: A002
    """The inverse error function: ``erf(erfinv(x)) = x`` on (-1, 1), +-inf at +-1, NaN outside."""
    return call(_ERFINV, (tensor_arg(input, "erfinv"),), {})


__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "igamma", "erfinv"]

for _name in __all__:
    register_function(_name, globals()[_name], method=_name != "polygamma")
del _name
