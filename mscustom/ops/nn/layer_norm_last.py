"""Layer normalization over the last axis as one op forward and one op backward.

``layer_norm_last(x, gamma, beta, eps)``: ``(x - mean) / sqrt(var + eps) * gamma + beta``
over the last axis of ``x`` (``gamma``/``beta`` of that axis' size, one float dtype). It is
what ``nn.LayerNorm((C,))`` computes with MindSpore's default axes; the Transformer layers
(``nn/transformer.py``) call it for their ``norm1``/``norm2``/``norm3`` when those are such plain
LayerNorms. Composed of ops, the same normalization costs nine op calls forward and about twenty
backward, each a pass over ``x``; here it is one sweep per row each way (``norm_loops.py``, float32
and float64; NumPy's two-pass form below for other dtypes), with the row statistics kept
as two small outputs (``mean``, ``1 / sqrt(var + eps)``) and the normalized values recomputed
for the backward:

    dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),   g = dy * gamma
    dgamma = sum(dy * xhat),   dbeta = sum(dy)

``nn.LayerNorm`` itself stays composed of ops (second derivatives, ONNX export and graph-mode
fusion read those); the backward op here has no gradient of its own, as the attention op's,
so second derivatives through the Transformer layers raise naming it.

Example::

    y = layer_norm_last(x, gamma, beta, 1e-5)
"""

import numpy as np

from ... import dtype as _dt
from ... import extend as _extend
from ..._core.dispatch import call
from .. import _loop_loader
from . import norm_loops as _norm_loops
from .attention import _scratch

__all__ = ["layer_norm_last"]

_NAME = "layer_norm_last"
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _rows(x):
    return x.reshape(-1, x.shape[-1])


def _loops_take(*arrays):
    """Whether the row loops (``norm_loops.py``) take these operands: float32/float64 of one dtype,
    C-contiguous (the outputs the dispatcher hands are), with rows to normalize."""
    return arrays[0].size > 0 and _loop_loader.fits(arrays, _FLOATS)


def _forward_into(attrs, ins, req, outs):
    x, gamma, beta = ins
    y, mean, rstd = outs
    c = x.shape[-1]
    if _loops_take(x, gamma, beta, y, mean, rstd):
        _norm_loops.forward(_rows(x), gamma, beta, attrs["eps"], _rows(y), mean.reshape(-1), rstd.reshape(-1))
        return
    np.mean(x, axis=-1, keepdims=True, out=mean)
    np.subtract(x, mean, out=y)                                             # y holds x - mean for now
    np.divide(np.einsum("...i,...i->...", y, y)[..., None], c, out=rstd)  # the (biased) variance
    rstd += rstd.dtype.type(attrs["eps"])
    np.sqrt(rstd, out=rstd)
    np.reciprocal(rstd, out=rstd)
    y *= rstd
    y *= gamma
    y += beta


def _backward_into(attrs, ins, req, outs):
    x, gamma, mean, rstd, dy = ins
    dx, dgamma, dbeta = outs
    c = x.shape[-1]
    if _loops_take(x, gamma, mean, rstd, dy, dx, dgamma, dbeta):
        _norm_loops.backward(_rows(x), gamma, mean.reshape(-1), rstd.reshape(-1), _rows(dy), _rows(dx), dgamma, dbeta)
        return
    xhat = _scratch("ln_xhat", x.shape, x.dtype)
    np.subtract(x, mean, out=xhat)
    xhat *= rstd
    rows_dy, rows_xhat = _rows(dy), _rows(xhat)
    np.sum(rows_dy, axis=0, out=dbeta)
    np.einsum("ni,ni->i", rows_dy, rows_xhat, out=dgamma)
    np.multiply(dy, gamma, out=dx)                                          # dx holds g = dy * gamma
    proj = np.einsum("...i,...i->...", dx, xhat)[..., None]
    proj /= c
    centre = np.mean(dx, axis=-1, keepdims=True)
    xhat *= proj
    dx -= centre
    dx -= xhat
    dx *= rstd


def _check(shapes, n_extra):
    x = shapes[0]
    if len(x) < 1 or x[-1] == 0:
        raise ValueError(f"op '{_NAME}': the input must have a non-empty last axis, got shape {list(x)}")
    for what, s in zip(("gamma", "beta")[:n_extra], shapes[1:1 + n_extra]):
        if list(s) != [x[-1]]:
            raise ValueError(f"op '{_NAME}': {what} must have shape [{x[-1]}] (the last axis), got {list(s)}")


def _forward_shape(attrs, shapes):
    _check(shapes, 2)
    stats = list(shapes[0][:-1]) + [1]
    return [list(shapes[0]), stats, stats]


def _backward_shape(attrs, shapes):
    _check(shapes, 1)
    return [list(shapes[0]), [shapes[0][-1]], [shapes[0][-1]]]


def _same_float(dtypes, n):
    d = dtypes[0]
    if not _dt.is_floating(d) or any(t != d for t in dtypes[:n]):
        raise TypeError(f"op '{_NAME}': the input, gamma and beta must share one float dtype, got "
                        f"{[t.name for t in dtypes[:n]]}")
    return [d, d, d]


def _gradient(ins, outs, g, attrs):
    dx, dgamma, dbeta = call(_BACKWARD, (ins[0], ins[1], outs[1], outs[2], g[0]), attrs)
    return [dx, dgamma, dbeta]


def _defop(name, n_in, n_out, kernel, shape, dtype, doc):
    op = _extend.def_op(name, n_in, n_out, doc, frontend="builtin")
    _extend.def_kernel(op, kernel, "all", allocates=False, nnvm_key=True)
    _extend.def_infer(op, shape=shape, dtype=dtype)
    return op


_FORWARD = _defop(_NAME, 3, 3, _forward_into, _forward_shape, lambda a, d: _same_float(d, 3),
                  "layer normalization over the last axis; outputs (y, mean, 1 / sqrt(var + eps))")
_extend.def_gradient(_FORWARD, _gradient)
_BACKWARD = _defop(_NAME + "_grad", 5, 3, _backward_into, _backward_shape,
                   lambda a, d: _same_float([d[0], d[1], d[4]], 3),
                   "the gradient of layer_norm_last: (dx, dgamma, dbeta)")


def layer_norm_last(x, gamma, beta, eps):
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis of ``x`` (one op)."""
    return call(_FORWARD, (x, gamma, beta), {"eps": float(eps)})[0]
