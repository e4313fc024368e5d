"""BatchNorm in inference mode as one op: ``(x - mean) / sqrt(var + eps) * gamma + beta`` per channel.

``ops.batch_norm(training=False)`` (what ``nn.BatchNorm2d`` runs after
``set_train(False)``) computed this as seven composed ops. As one op it gives
the same bits (the same four NumPy operations in the same order, each rounded
to the dtype) and the same gradients (built from the ops the composed form's
autodiff would run: ``dx = g * gamma / s``, ``dgamma = sum(g * xhat)``,
``dbeta = sum(g)``; the running statistics get none, as ``stop_gradient``
gave them), and a graph replay can run it in the pass that writes a
convolution's output (``graph_mode/kernels.py``: ``conv2d`` followed by it is
one step; the direct convolution loops apply it as they copy their tiles out).

float32 and float64 inputs of one dtype take it; exports (MindIR, ONNX)
keep the composed ops, which their writers read.
"""

import numpy as np

from ... import extend as _extend
from ..._core.dispatch import call
from .. import functional as F

__all__ = ["batch_norm_infer", "takes", "compute_into", "channel_scale", "into"]

_NAME = "batch_norm_infer"


def takes(x, gamma, beta, mean, var):
    """Whether the op takes these arrays: float32/float64 of one dtype, (N, C, ...)."""
    d = x.dtype
    return d.kind == "f" and d.itemsize in (4, 8) and x.ndim >= 2 and \
        all(a.dtype == d for a in (gamma, beta, mean, var))


def _channel(a, ndim):
    return a.reshape((1, -1) + (1,) * (ndim - 2))


def channel_scale(var, eps):
    """``sqrt(var + eps)`` per channel, in ``var``'s dtype (as the composed ``sqrt(add(var, eps))``)."""
    return np.sqrt(np.add(var, var.dtype.type(eps)))


def compute_into(x, gamma, beta, mean, var, eps, out):
    """``out[...] = (x - mean) / sqrt(var + eps) * gamma + beta`` in NumPy's operations and order."""
    nd = x.ndim
    np.subtract(x, _channel(mean, nd), out=out)
    np.true_divide(out, _channel(channel_scale(var, eps), nd), out=out)
    np.multiply(out, _channel(gamma, nd), out=out)
    np.add(out, _channel(beta, nd), out=out)
    return out


def into(attrs, ins, outs):
    """The op's kernel: its output written into ``outs[0]`` (eager calls' and graph replays' buffers)."""
    out = outs[0]
    if out.flags.c_contiguous:
        compute_into(*ins, attrs["eps"], out)
    else:
        np.copyto(out, compute_into(*ins, attrs["eps"], np.empty(out.shape, out.dtype)))


def _into(attrs, ins, req, outs):
    into(attrs, ins, outs)


def _shape(attrs, shapes):
    x = shapes[0]
    if len(x) < 2:
        raise ValueError(f"op '{_NAME}': the input must be (N, C, ...), got shape {list(x)}")
    for what, s in zip(("gamma", "beta", "mean", "var"), shapes[1:]):
        if list(s) != [x[1]]:
            raise ValueError(f"op '{_NAME}': {what} must have shape [{x[1]}] (the channels), got {list(s)}")
    return [list(x)]


def _dtype(attrs, dtypes):
    d = dtypes[0]
    if d.name not in ("float32", "float64") or any(t != d for t in dtypes):
        raise TypeError(f"op '{_NAME}': every input must share one dtype, float32 or float64, got "
                        f"{[t.name for t in dtypes]}")
    return [d]


def _gradient(ins, outs, g, attrs):
    """The composed form's gradients, op for op: ``add`` passes ``g``; ``mul`` gives ``g * gamma`` and
    ``sum(g * xhat)``; ``div`` divides by ``s``; the reductions are ``sum_to``'s one ``reduce_sum``."""
    x, gamma, _, mean, var = ins
    nd = len(x.shape)
    shape = (1, x.shape[1]) + (1,) * (nd - 2)
    axes = (0,) + tuple(range(2, nd))
    s = F.sqrt(F.add(F.reshape(F.stop_gradient(var), shape), attrs["eps"]))
    dy = g[0]
    dx = F.div(F.mul(dy, F.reshape(gamma, shape)), s)
    xhat = F.div(F.sub(x, F.reshape(F.stop_gradient(mean), shape)), s)
    dgamma = F.reduce_sum(F.mul(dy, xhat), axes, False)
    dbeta = F.reduce_sum(dy, axes, False)
    return [dx, dgamma, dbeta, None, None]


_OP = _extend.def_op(_NAME, 5, 1, "BatchNorm with given statistics: (x - mean) / sqrt(var + eps) * gamma + beta",
                     frontend="builtin")
_extend.def_kernel(_OP, _into, "all", allocates=False, nnvm_key=True)
_extend.def_infer(_OP, shape=_shape, dtype=lambda a, d: _dtype(a, d))
_extend.def_gradient(_OP, _gradient)


def batch_norm_infer(x, gamma, beta, mean, var, eps):
    """BatchNorm's inference output as one op (``x`` (N, C, ...), float32/float64; see the module docstring)."""
    return call(_OP, (x, gamma, beta, mean, var), {"eps": float(eps)})
