"""MXNet's output layers and gradient stops: ``LogisticRegressionOutput``, ``MAERegressionOutput``,
``SVMOutput``, ``MakeLoss``, ``BlockGrad`` (``stop_gradient``).

Each is one built-in op of the core whose gradient is MXNet's (checked against
MXNet 1.9.1): the loss layers ignore the head gradient, as MXNet's do.

- ``LogisticRegressionOutput``: sigmoid forward; ``(p - label) * grad_scale / num_output``.
- ``MAERegressionOutput``: identity; ``sign(out - label) * grad_scale / num_output``, where a
  zero difference counts as -1 (MXNet's ``minus_sign``).
- ``SVMOutput``: identity; the (L2 or, with ``use_linear``, L1) hinge gradient times
  ``regularization_coefficient`` (no ``grad_scale``); ``label`` holds one class per row.
- ``MakeLoss``: identity; ``grad_scale`` everywhere, divided by the batch size
  (``normalization='batch'``) or by the number of outputs above ``valid_thresh`` ('valid').
- ``BlockGrad``: identity; no gradient.

``num_output`` is the size of one row (``out.size // out.shape[0]``).
"""

import numpy as np

from ..._core.dispatch import call
from ...ops._builtin import defop, same_type

__all__ = ["logistic_regression_output", "mae_regression_output", "svm_output", "make_loss", "block_grad"]


def _num_output(out):
    return out.size // out.shape[0] if out.ndim and out.shape[0] else 1


def _label_like_data(name):
    def rule(attrs, shapes):
        d, lab = shapes
        if int(np.prod(d)) != int(np.prod(lab)):
            raise ValueError(f"op '{name}': label shape {list(lab)} does not match data shape {list(d)} "
                             "(it needs as many elements)")
        return shapes, [list(d)]
    return rule


# ------------------------------------------------------------ LogisticRegressionOutput
def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(x.dtype, copy=False)


def _lro_grad(attrs, ins):
    out, label = ins
    return ((out - label.reshape(out.shape)) * (attrs["grad_scale"] / _num_output(out))).astype(out.dtype)


_LRO_GRAD = defop("mx_logistic_regression_output_grad", 2, _lro_grad,
                  _label_like_data("LogisticRegressionOutput"), same_type,
                  doc="gradient of LogisticRegressionOutput: (p - label) * grad_scale / num_output")
_LRO = defop("mx_logistic_regression_output", 2, lambda a, i: _sigmoid(i[0]),
             _label_like_data("LogisticRegressionOutput"), same_type,
             lambda ins, outs, g, a: [call(_LRO_GRAD, (outs[0], ins[1]), a), None],
             doc="sigmoid forward; (p - label) * grad_scale / num_output backward", arg_names=("data", "label"))


def logistic_regression_output(data, label, grad_scale=1.0):
    """MXNet's ``LogisticRegressionOutput`` (a logistic loss layer)."""
    return call(_LRO, (data, label), {"grad_scale": float(grad_scale)})


# ------------------------------------------------------------ MAERegressionOutput
def _mae_grad(attrs, ins):
    out, label = ins
    sign = np.where(out - label.reshape(out.shape) > 0, 1.0, -1.0)
    return (sign * (attrs["grad_scale"] / _num_output(out))).astype(out.dtype)


_MAE_GRAD = defop("mx_mae_regression_output_grad", 2, _mae_grad, _label_like_data("MAERegressionOutput"),
                  same_type, doc="gradient of MAERegressionOutput: sign(out - label) * grad_scale / num_output")
_MAE = defop("mx_mae_regression_output", 2, lambda a, i: i[0].copy(), _label_like_data("MAERegressionOutput"),
             same_type, lambda ins, outs, g, a: [call(_MAE_GRAD, (outs[0], ins[1]), a), None],
             doc="identity forward; sign(out - label) * grad_scale / num_output backward",
             arg_names=("data", "label"))


def mae_regression_output(data, label, grad_scale=1.0):
    """MXNet's ``MAERegressionOutput`` (an L1 loss layer)."""
    return call(_MAE, (data, label), {"grad_scale": float(grad_scale)})


# ------------------------------------------------------------ SVMOutput
def _svm_shape(attrs, shapes):
    d, lab = shapes
    want = [d[0]] + list(d[2:])
    if list(lab) != want:
        raise ValueError(f"op 'SVMOutput': label must have shape {want} (one class per row), got {list(lab)}")
    return shapes, [list(d)]


def _svm_grad(attrs, ins):
    out, label = ins
    x = out.reshape(out.shape[0], out.shape[1], -1)
    k = label.reshape(out.shape[0], -1).astype(np.int64)
    if np.any((k < 0) | (k >= x.shape[1])):
        raise ValueError(f"op 'SVMOutput': labels must lie in [0, {x.shape[1]}), got {np.unique(k)[:5]}")
    is_k = np.arange(x.shape[1])[None, :, None] == k[:, None, :]
    m = attrs["margin"]
    below, above = (m > x).astype(x.dtype), (m > -x).astype(x.dtype)
    if attrs["use_linear"]:
        g = np.where(is_k, -below, above)
    else:
        g = np.where(is_k, -below * 2.0 * (m - x), above * 2.0 * (m + x))
    return (g * attrs["regularization_coefficient"]).astype(out.dtype).reshape(out.shape)


_SVM_GRAD = defop("mx_svm_output_grad", 2, _svm_grad, _svm_shape, same_type,
                  doc="gradient of SVMOutput: the L1 / L2 hinge loss gradient")
_SVM = defop("mx_svm_output", 2, lambda a, i: i[0].copy(), _svm_shape, same_type,
             lambda ins, outs, g, a: [call(_SVM_GRAD, (outs[0], ins[1]), a), None],
             doc="identity forward; hinge loss gradient backward", arg_names=("data", "label"))


def svm_output(data, label, margin=1.0, regularization_coefficient=1.0, use_linear=False):
    """MXNet's ``SVMOutput``: ``label`` is one class index per row."""
    return call(_SVM, (data, label), {"margin": float(margin),
                                      "regularization_coefficient": float(regularization_coefficient),
                                      "use_linear": bool(use_linear)})


# ------------------------------------------------------------ MakeLoss / BlockGrad
_NORMALIZATIONS = ("null", "batch", "valid")


def _make_loss_grad(attrs, ins):
    out = ins[0]
    scale = attrs["grad_scale"]
    if attrs["normalization"] == "batch":
        scale /= out.shape[0] if out.ndim else 1
    elif attrs["normalization"] == "valid":
        scale /= max(int(np.count_nonzero(out > attrs["valid_thresh"])), 1)
    return np.full(out.shape, scale, out.dtype)


_MAKE_LOSS_GRAD = defop("mx_make_loss_grad", 1, _make_loss_grad, lambda a, sh: (sh, [list(sh[0])]), same_type,
                        doc="gradient of MakeLoss: grad_scale (normalized), whatever the head gradient")
_MAKE_LOSS = defop("mx_make_loss", 1, lambda a, i: i[0].copy(), lambda a, sh: (sh, [list(sh[0])]), same_type,
                   lambda ins, outs, g, a: [call(_MAKE_LOSS_GRAD, (outs[0],), a)],
                   doc="identity forward; grad_scale backward (a loss layer)", arg_names=("data",))


def make_loss(data, grad_scale=1.0, valid_thresh=0.0, normalization="null"):
    """MXNet's ``MakeLoss``: makes ``data`` a loss (its gradient is ``grad_scale``)."""
    if normalization not in _NORMALIZATIONS:
        raise ValueError(f"op 'MakeLoss': normalization must be one of {list(_NORMALIZATIONS)}, "
                         f"got {normalization!r}")
    return call(_MAKE_LOSS, (data,), {"grad_scale": float(grad_scale), "valid_thresh": float(valid_thresh),
                                      "normalization": normalization})


_BLOCK_GRAD = defop("mx_block_grad", 1, lambda a, i: i[0].copy(), lambda a, sh: (sh, [list(sh[0])]), same_type,
                    lambda ins, outs, g, a: [None], doc="identity forward; no gradient", arg_names=("data",))


def block_grad(data):
    """MXNet's ``BlockGrad`` / ``stop_gradient``: the same values, no gradient."""
    return call(_BLOCK_GRAD, (data,), {})
