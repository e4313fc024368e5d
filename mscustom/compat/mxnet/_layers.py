"""NumPy ops behind MXNet's two loss outputs: ``SoftmaxOutput`` and ``LinearRegressionOutput``.

Each is registered with ``defop`` like any built-in op and reached through the
functions below (``softmax_output``, ``linear_regression_output``). They behave
as MXNet's: the forward gives the prediction (softmax probabilities / the data
itself) and the gradient ignores the head gradient (``(p - onehot(label)) *
grad_scale`` / ``(out - label) * grad_scale / num_output``). Convolution and
pooling are the core's kernels (``_cnn.py``).
"""

import numpy as np

from ..._core.dispatch import call
from ...ops._builtin import defop, same_type
from ...tensor import Tensor

__all__ = ["softmax_output", "linear_regression_output"]


# ================================================================== loss outputs
def _softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _so_compute(attrs, ins):
    x = ins[0]
    return _softmax_rows(x.reshape(x.shape[0], -1)).reshape(x.shape)


def _so_grad_compute(attrs, ins):
    out, label = ins
    p = out.reshape(out.shape[0], -1).copy()
    lab = label.reshape(-1).astype(np.int64)
    if lab.shape[0] != p.shape[0]:
        raise ValueError(f"op 'SoftmaxOutput': label has {lab.shape[0]} entries for {p.shape[0]} rows")
    keep = np.ones(len(lab), bool)
    if attrs["use_ignore"]:
        keep = lab != int(attrs["ignore_label"])
    bad = (lab < 0) | (lab >= p.shape[1])
    if np.any(bad & keep):
        raise ValueError(f"op 'SoftmaxOutput': labels must lie in [0, {p.shape[1]}), got {lab[bad & keep][:5]}")
    rows = np.nonzero(keep)[0]
    p[rows, lab[rows]] -= 1.0
    p[~keep] = 0.0
    scale = float(attrs["grad_scale"])
    if attrs["normalization"] == "batch":
        scale /= p.shape[0]
    elif attrs["normalization"] == "valid":
        scale /= max(int(keep.sum()), 1)
    return (p * scale).astype(out.dtype, copy=False).reshape(out.shape)


_SO_GRAD = defop("mx_softmax_output_grad", 2, _so_grad_compute, lambda a, sh: (sh, [list(sh[0])]), same_type,
                 doc="gradient of SoftmaxOutput: (p - onehot(label)) * grad_scale (normalized)")
_SO = defop("mx_softmax_output", 2, _so_compute, lambda a, sh: (sh, [list(sh[0])]), same_type,
            lambda ins, outs, g, a: [call(_SO_GRAD, (outs[0], ins[1]), a), None],
            doc="softmax forward; its gradient ignores the head gradient (a loss layer)", arg_names=("data", "label"))


def softmax_output(data, label, grad_scale=1.0, ignore_label=-1.0, use_ignore=False, normalization="null"):
    """MXNet's ``SoftmaxOutput``: softmax over axis 1 forward, ``p - onehot(label)`` backward."""
    if normalization not in ("null", "batch", "valid"):
        raise ValueError(f"op 'SoftmaxOutput': normalization must be 'null', 'batch' or 'valid', got {normalization!r}")
    return call(_SO, (data, label), {"grad_scale": float(grad_scale), "ignore_label": float(ignore_label),
                                     "use_ignore": bool(use_ignore), "normalization": normalization})


def _lr_grad_compute(attrs, ins):
    out, label = ins
    num_output = out.size // out.shape[0] if out.ndim else 1
    return ((out - label.reshape(out.shape)) * (float(attrs["grad_scale"]) / num_output)).astype(out.dtype)


def _lr_shape(attrs, shapes):
    d, l = shapes
    if int(np.prod(d)) != int(np.prod(l)):
        raise ValueError(f"op 'LinearRegressionOutput': label shape {list(l)} does not match data shape {list(d)}")
    return shapes, [list(d)]


_LR_GRAD = defop("mx_linear_regression_output_grad", 2, _lr_grad_compute, _lr_shape, same_type,
                 doc="gradient of LinearRegressionOutput")
_LR = defop("mx_linear_regression_output", 2, lambda a, i: i[0].copy(), _lr_shape, same_type,
            lambda ins, outs, g, a: [call(_LR_GRAD, (outs[0], ins[1]), a), None],
            doc="identity forward; (out - label) * grad_scale / num_output backward", arg_names=("data", "label"))


def linear_regression_output(data, label, grad_scale=1.0):
    """MXNet's ``LinearRegressionOutput`` (an L2 loss layer)."""
    return call(_LR, (data, label), {"grad_scale": float(grad_scale)})


def as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(np.asarray(x))
