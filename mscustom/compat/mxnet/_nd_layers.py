"""MXNet's layer operators for NDArrays: ``mx.nd.FullyConnected``, ``Activation``, ``Convolution``,
``Pooling``, ``Dropout``, ``BatchNorm``, ``pick``, ``identity``.

These are what Gluon layers call as ``F.<op>`` in ``hybrid_forward`` when ``F``
is ``mx.nd``. ``FullyConnected`` / ``Activation`` / ``Convolution`` /
``Pooling`` run the computation of the symbol layer of the same name
(``_sym_ops.OPS``), so an imperative call and a bound symbol compute the same
thing. ``BatchNorm`` is its own op: it normalises with the batch statistics
while ``autograd.is_training()`` (with the running statistics otherwise) and,
as MXNet's CPU kernel does, updates ``moving_mean`` / ``moving_var`` when its
gradient is computed (``backward``), not in the forward. ``Dropout`` is
active while training (or with ``mode='always'``); ``axes`` share one mask
along those axes.

Example::

    y = mx.nd.FullyConnected(x, w, b, num_hidden=4)
    y = mx.nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False)
"""

import numpy as np

from ... import ops as _ops
from ..._core.dispatch import call
from ...ops._builtin import defop
from ...tensor import Tensor
from . import autograd as _autograd
from ._ndarray import array, as_nd
from ._sym_ops import OPS

__all__ = ["FullyConnected", "Activation", "Convolution", "Pooling", "Dropout", "BatchNorm", "pick", "identity"]


def _tensor(x, op, what):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, list, tuple, float, int)):
        return array(x)
    raise TypeError(f"mx.nd.{op}: input '{what}' must be an NDArray, got {type(x).__name__}")


def _from_symbol_layer(op):
    """The imperative form of the symbol layer ``op``: inputs by position or name, the rest attributes."""
    spec = OPS[op]

    def run(*args, **kwargs):
        kwargs.pop("name", None)
        out = kwargs.pop("out", None)
        given = {k: v for k, v in kwargs.items() if isinstance(v, Tensor)}
        attrs = {k: v for k, v in kwargs.items() if not isinstance(v, Tensor) and v is not None}
        names = spec.args(attrs)
        positional = list(args)
        ins = []
        for n in names:
            if n in given:
                ins.append(_tensor(given.pop(n), op, n))
            elif positional:
                ins.append(_tensor(positional.pop(0), op, n))
            else:
                raise TypeError(f"mx.nd.{op}: input '{n}' is missing; it takes {names}")
        if given or any(p is not None for p in positional):
            extra = list(given) or [f"{len(positional)} more positional"]
            raise TypeError(f"mx.nd.{op}: unexpected inputs {extra}; it takes {names}")
        res = as_nd(spec.compute(attrs, ins, [], _autograd.is_training())[0])
        if out is not None:
            np.copyto(out._data, res._data, casting="same_kind")
            return out
        return res

    run.__name__ = op
    run.__doc__ = f"MXNet's ``{op}`` on NDArrays (the computation of ``mx.sym.{op}``)."
    return run


FullyConnected = _from_symbol_layer("FullyConnected")
Activation = _from_symbol_layer("Activation")
Convolution = _from_symbol_layer("Convolution")
Pooling = _from_symbol_layer("Pooling")


def identity(data, **kwargs):
    """The input itself, as a new array on the tape."""
    return as_nd(_ops.mul(_tensor(data, "identity", "data"), 1.0))


def Dropout(data, p=0.5, mode="training", axes=(), cudnn_off=False, **kwargs):
    """Zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only)."""
    kwargs.pop("name", None)
    if mode not in ("training", "always"):
        raise ValueError(f"mx.nd.Dropout: mode must be 'training' or 'always', got {mode!r}")
    if not 0 <= float(p) < 1:
        raise ValueError(f"mx.nd.Dropout: p must be in [0, 1), got {p!r}")
    x = _tensor(data, "Dropout", "data")
    if float(p) == 0 or (mode == "training" and not _autograd.is_training()):
        return as_nd(x)
    axes = tuple(int(a) % x.ndim for a in (axes or ()))
    if not axes:
        return as_nd(_ops.dropout(x, float(p)))
    mask_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    ones = Tensor(np.ones(mask_shape, x._data.dtype))
    return as_nd(x * _ops.dropout(ones, float(p)))


# ------------------------------------------------------------------ BatchNorm
def _bn_layout(x, axis):
    axis = int(axis) % x.ndim
    return axis, tuple(i for i in range(x.ndim) if i != axis), tuple(-1 if i == axis else 1 for i in range(x.ndim))


def _bn_stats(attrs, x, mm, mv):
    axis, red, bshape = _bn_layout(x, attrs["axis"])
    if attrs["train"]:
        return x.mean(axis=red), x.var(axis=red), red, bshape
    return mm, mv, red, bshape


def _bn_compute(attrs, ins):
    x, gamma, beta, mm, mv = ins
    mean, var, red, bshape = _bn_stats(attrs, x, mm, mv)
    g = np.ones_like(gamma) if attrs["fix_gamma"] else gamma
    scale = (g / np.sqrt(var + attrs["eps"])).reshape(bshape)
    return ((x - mean.reshape(bshape)) * scale + beta.reshape(bshape)).astype(x.dtype, copy=False)


def _bn_grad_compute(attrs, ins):
    x, gamma, mm, mv, dy = ins
    mean, var, red, bshape = _bn_stats(attrs, x, mm, mv)
    inv = 1.0 / np.sqrt(var + attrs["eps"])
    g = np.ones_like(gamma) if attrs["fix_gamma"] else gamma
    xhat = (x - mean.reshape(bshape)) * inv.reshape(bshape)
    dbeta = dy.sum(axis=red)
    dgamma = (dy * xhat).sum(axis=red)
    if attrs["train"]:
        m = x.size // x.shape[int(attrs["axis"]) % x.ndim]
        dx = (g * inv).reshape(bshape) / m * (m * dy - dbeta.reshape(bshape) - xhat * dgamma.reshape(bshape))
        mom = attrs["momentum"]                 # MXNet updates the running statistics in the backward pass
        mm *= mom
        mm += (1.0 - mom) * mean.astype(mm.dtype)
        mv *= mom
        mv += (1.0 - mom) * var.astype(mv.dtype)
    else:
        dx = dy * (g * inv).reshape(bshape)
    if attrs["fix_gamma"]:
        dgamma = np.zeros_like(dgamma)
    return (dx.astype(x.dtype, copy=False), dgamma.astype(gamma.dtype, copy=False),
            dbeta.astype(gamma.dtype, copy=False))


def _bn_shape(attrs, shapes):
    x = shapes[0]
    if len(x) < 2:
        raise ValueError(f"op 'BatchNorm': data must have at least 2 dimensions, got shape {list(x)}")
    c = x[int(attrs["axis"]) % len(x)]
    for name, s in zip(("gamma", "beta", "moving_mean", "moving_var"), shapes[1:]):
        if list(s) != [c]:
            raise ValueError(f"op 'BatchNorm': {name} must have shape [{c}] (the size of axis {attrs['axis']} "
                             f"of data {list(x)}), got {list(s)}")
    return shapes, [list(x)]


_BN_GRAD = defop("mx_batch_norm_grad", 5, _bn_grad_compute,
                 lambda a, sh: (sh, [list(sh[0]), list(sh[1]), list(sh[1])]),
                 lambda a, t: (t, [t[0], t[1], t[1]]), num_outputs=3,
                 doc="gradient of BatchNorm (data, gamma, beta); updates the running statistics when training")
_BN = defop("mx_batch_norm", 5, _bn_compute, _bn_shape, lambda a, t: (t, [t[0]]),
            lambda ins, outs, g, a: list(call(_BN_GRAD, (ins[0], ins[1], ins[3], ins[4], g[0]), a)) + [None, None],
            doc="batch normalisation over every axis but `axis`",
            arg_names=("data", "gamma", "beta", "moving_mean", "moving_var"))


def BatchNorm(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9, fix_gamma=True,
              use_global_stats=False, output_mean_var=False, axis=1, cudnn_off=False, **kwargs):
    """MXNet's ``BatchNorm`` (defaults as MXNet's operator: ``eps=1e-3``, ``fix_gamma=True``)."""
    kwargs.pop("name", None)
    if output_mean_var:
        raise ValueError("mx.nd.BatchNorm: output_mean_var=True is not supported here")
    ins = tuple(_tensor(v, "BatchNorm", n) for v, n in zip((data, gamma, beta, moving_mean, moving_var),
                                                            ("data", "gamma", "beta", "moving_mean", "moving_var")))
    train = bool(_autograd.is_training()) and not use_global_stats
    return as_nd(call(_BN, ins, {"eps": float(eps), "momentum": float(momentum), "fix_gamma": bool(fix_gamma),
                                 "axis": int(axis), "train": train}))


# ------------------------------------------------------------------ pick
def _pick_index(attrs, x, index):
    axis, n = attrs["axis"], x.shape[attrs["axis"]]
    idx = index.astype(np.int64)
    idx = np.clip(idx, 0, n - 1) if attrs["mode"] == "clip" else np.mod(idx, n)
    return np.expand_dims(idx.reshape(tuple(d for i, d in enumerate(x.shape) if i != axis)), axis)


def _pick_compute(attrs, ins):
    x, index = ins
    out = np.take_along_axis(x, _pick_index(attrs, x, index), attrs["axis"])
    return out if attrs["keepdims"] else np.squeeze(out, attrs["axis"])


def _pick_grad_compute(attrs, ins):
    x, index, dy = ins
    dx = np.zeros_like(x)
    idx = _pick_index(attrs, x, index)
    np.put_along_axis(dx, idx, dy.reshape(idx.shape), attrs["axis"])
    return dx


def _pick_shape(attrs, shapes):
    x, index = shapes
    axis = attrs["axis"]
    rest = [d for i, d in enumerate(x) if i != axis]
    if int(np.prod(index)) != int(np.prod(rest)):
        raise ValueError(f"op 'pick': index of shape {list(index)} does not match data {list(x)} without axis {axis}")
    return shapes, [[1 if i == axis else d for i, d in enumerate(x)] if attrs["keepdims"] else rest]


_PICK_GRAD = defop("mx_pick_grad", 3, _pick_grad_compute, lambda a, sh: (sh, [list(sh[0])]),
                   lambda a, t: (t, [t[0]]), doc="gradient of pick: dy scattered at the picked positions")
_PICK = defop("mx_pick", 2, _pick_compute, _pick_shape, lambda a, t: (t, [t[0]]),
              lambda ins, outs, g, a: [call(_PICK_GRAD, (ins[0], ins[1], g[0]), a), None],
              doc="elements of data at index along axis", arg_names=("data", "index"))


def pick(data, index, axis=-1, keepdims=False, mode="clip", **kwargs):
    """``data`` at ``index`` along ``axis`` (indices clipped into range, or wrapped with ``mode='wrap'``)."""
    kwargs.pop("name", None)
    x = _tensor(data, "pick", "data")
    if mode not in ("clip", "wrap"):
        raise ValueError(f"mx.nd.pick: mode must be 'clip' or 'wrap', got {mode!r}")
    return as_nd(call(_PICK, (x, _tensor(index, "pick", "index")),
                      {"axis": int(axis) % x.ndim, "keepdims": bool(keepdims), "mode": mode}))
