"""BatchNorm's training mode as one op forward and one op backward (float32, float64).

``batch_norm_train(x, gamma, beta, eps)`` over ``x`` (N, C, ...): outputs
``y = (x - mean) / sqrt(var + eps) * gamma + beta`` and the batch's per-channel
``mean`` and biased ``var`` (C,), which ``ops.batch_norm`` feeds to the moving
statistics' update. Composed of ops, the same normalization is about nine op
calls forward and twenty backward, each a pass over ``x``; here each direction
is one Numba call (``cnn_loops.py``) that sweeps one channel at a time while its
values are in cache:

    dx = gamma * rstd * (dy - mean(dy) - xhat * mean(dy * xhat)),   rstd = 1 / sqrt(var + eps)
    dgamma = sum(dy * xhat),   dbeta = sum(dy)

The sums run in float64, so values match the composed ops' to float rounding.
The backward op has no gradient of its own (as ``layer_norm_last``'s): second
derivatives through a training BatchNorm raise naming it. Inference mode and
other dtypes stay composed of ops (``norm.py``), as does every exported graph
(an export refuses the training step's in-place statistics update anyway).

Example::

    y, mean, var = call(_FORWARD, (x, gamma, beta), {"eps": 1e-5})
"""

import numpy as np

from ... import extend as _extend
from ..._core.dispatch import call
from . import _batch_threads
from . import activation as _activation
from . import cnn_loops as _cnn_loops

__all__ = ["batch_norm_train", "takes", "forward_into"]

_NAME = "batch_norm_train"


def takes(x, gamma, beta):
    """Whether the fused op takes these arrays: float32/float64 of one dtype, (N, C, ...) with C > 0."""
    d = x.dtype
    return d in _cnn_loops.FLOATS and gamma.dtype == d and beta.dtype == d and x.ndim >= 2 and x.size > 0


def _ncp(a):
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


_MIN_SPLIT_BYTES = 1 << 18     # smaller inputs run on the calling thread: a pool hand-off costs more


def _run_channels(x, name, args):
    """The loop ``name`` over every channel of ``x``: ``loop(*args, 0, C)``, or with the thread budget's
    threads when ``x`` is large enough to gain from it, its driver over one range of channels per
    thread (``cnn_loops``'s ``*_chunks``: each channel's values do not depend on the split)."""
    c = x.shape[1]
    workers = _batch_threads.numba_workers(c) if x.nbytes >= _MIN_SPLIT_BYTES else 1
    if workers > 1:
        _cnn_loops.get(name + "_chunks")(*args, workers)
    else:
        _cnn_loops.get(name)(*args, 0, c)


def forward_into(attrs, ins, outs):
    """The training forward into ``outs = (y, mean, var)``; with a fourth output ``a`` (graph replays
    chain a ReLU reading ``y`` to this op: ``FFuseConsumer`` in ``_core/replay.py``) also ``a =
    relu(y)``, written in the normalizing pass (``y`` is kept: relu's gradient reads it)."""
    x, gamma, beta = ins
    y, mean, var = outs[:3]
    a = outs[3] if len(outs) > 3 else None
    yc = y if y.flags.c_contiguous else np.empty(y.shape, y.dtype)
    args = [_ncp(x), np.ascontiguousarray(gamma), np.ascontiguousarray(beta), x.dtype.type(attrs["eps"]),
            yc.reshape(y.shape[0], y.shape[1], -1)]
    name = "bn_forward"
    if a is not None and a.flags.c_contiguous and yc is y:
        args.append(a.reshape(a.shape[0], a.shape[1], -1))
        name, a = "bn_forward_relu", None           # written by the loop
    args += [mean, var]
    _run_channels(x, name, args)
    if yc is not y:
        np.copyto(y, yc)
    if a is not None:
        np.maximum(y, _activation.relu_zero(a.shape, a.dtype), out=a)      # as relu's own kernel


def _forward_into(attrs, ins, req, outs):
    forward_into(attrs, ins, outs)


def _backward_into(attrs, ins, req, outs):
    x, gamma, mean, var, dy = ins
    dx, dgamma, dbeta = outs
    d = x.dtype.type
    dxc = dx if dx.flags.c_contiguous else np.empty(dx.shape, dx.dtype)
    args = (_ncp(x), np.ascontiguousarray(gamma), np.ascontiguousarray(mean), np.ascontiguousarray(var),
            _ncp(dy), d(attrs["eps"]), dxc.reshape(dx.shape[0], dx.shape[1], -1), dgamma, dbeta)
    _run_channels(x, "bn_backward", args)
    if dxc is not dx:
        np.copyto(dx, dxc)


def _check(shapes, names):
    x = shapes[0]
    if len(x) < 2:
        raise ValueError(f"op '{_NAME}': the input must be (N, C, ...), got shape {list(x)}")
    for what, s in zip(names, shapes[1:]):
        if list(s) != [x[1]]:
            raise ValueError(f"op '{_NAME}': {what} must have shape [{x[1]}] (the channels), got {list(s)}")


def _forward_shape(attrs, shapes):
    _check(shapes, ("gamma", "beta"))
    return [list(shapes[0]), [shapes[0][1]], [shapes[0][1]]]


def _backward_shape(attrs, shapes):
    _check(shapes[:4], ("gamma", "mean", "var"))
    if list(shapes[4]) != list(shapes[0]):
        raise ValueError(f"op '{_NAME}_grad': the output gradient must have the input's shape {list(shapes[0])}, "
                         f"got {list(shapes[4])}")
    return [list(shapes[0]), [shapes[0][1]], [shapes[0][1]]]


def _same_float(name, dtypes):
    d = dtypes[0]
    if d.name not in ("float32", "float64") or any(t != d for t in dtypes):
        raise TypeError(f"op '{name}': every input must share one dtype, float32 or float64, got "
                        f"{[t.name for t in dtypes]}")
    return [d, d, d]


def _gradient(ins, outs, g, attrs):
    return list(call(_BACKWARD, (ins[0], ins[1], outs[1], outs[2], g[0]), attrs))


def _defop(name, n_in, kernel, shape, doc):
    op = _extend.def_op(name, n_in, 3, doc, frontend="builtin")
    _extend.def_kernel(op, kernel, "all", allocates=False, nnvm_key=True)
    _extend.def_infer(op, shape=shape, dtype=lambda a, d: _same_float(name, d))
    return op


_FORWARD = _defop(_NAME, 3, _forward_into, _forward_shape,
                  "BatchNorm in training mode over (N, C, ...); outputs (y, batch mean, biased batch variance)")
_extend.def_gradient(_FORWARD, _gradient)
_BACKWARD = _defop(_NAME + "_grad", 5, _backward_into, _backward_shape,
                   "the gradient of batch_norm_train: (dx, dgamma, dbeta)")


def batch_norm_train(x, gamma, beta, eps):
    """``(y, mean, var)``: BatchNorm's training forward as one op (``x`` (N, C, ...), float32/float64)."""
    return call(_FORWARD, (x, gamma, beta), {"eps": float(eps)})
