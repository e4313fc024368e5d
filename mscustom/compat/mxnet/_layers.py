"""NumPy ops behind MXNet's layers: convolution, pooling and the two loss outputs.

``mscustom.ops`` has no convolution or pooling yet, so these are small
im2col implementations (``sliding_window_view`` + one matrix product), each
registered with ``defop`` like any built-in op and reached through the
functions at the bottom (``conv2d``, ``pool2d``, ``softmax_output``,
``linear_regression_output``), so the symbol layer can switch to core ops
later by changing those functions only.

The loss outputs behave as MXNet's: the forward gives the prediction
(softmax probabilities / the data itself) and the gradient ignores the head
gradient (``(p - onehot(label)) * grad_scale`` / ``(out - label) * grad_scale / num_output``).
"""

import numpy as np

from ..._core.dispatch import call
from ...ops._builtin import defop, same_type
from ...tensor import Tensor

__all__ = ["conv2d", "pool2d", "softmax_output", "linear_regression_output"]

_view = np.lib.stride_tricks.sliding_window_view


def _pair(v, name, what):
    v = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v, v)))
    if len(v) != 2 or min(v) < (0 if what == "pad" else 1):
        raise ValueError(f"op '{name}': {what} must be two {'non-negative' if what == 'pad' else 'positive'} "
                         f"ints (2-D only), got {v}")
    return v


def _out_hw(name, hw, k, s, p):
    oh, ow = ((hw[0] + 2 * p[0] - k[0]) // s[0] + 1, (hw[1] + 2 * p[1] - k[1]) // s[1] + 1)
    if oh < 1 or ow < 1:
        raise ValueError(f"op '{name}': kernel {list(k)} is larger than the padded input {[hw[0] + 2 * p[0], hw[1] + 2 * p[1]]}")
    return oh, ow


def _windows(x, k, s, p, oh, ow):
    """(N, C, oh, ow, kh, kw) strided windows of the zero-padded ``x`` (a view, no copy)."""
    if p[0] or p[1]:
        x = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    w = _view(x, k, axis=(2, 3))
    return w[:, :, ::s[0], ::s[1]][:, :, :oh, :ow]


def _scatter(dcols, xshape, k, s, p, oh, ow):
    """Add window gradients (N, C, oh, ow, kh, kw) back onto the input (col2im)."""
    n, c, h, w = xshape
    dxp = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), dcols.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            dxp[:, :, i:i + s[0] * oh:s[0], j:j + s[1] * ow:s[1]] += dcols[:, :, :, :, i, j]
    return dxp[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


# ================================================================== convolution
def _conv_shape(attrs, shapes):
    name = "Convolution"
    x, w = shapes
    if len(x) != 4 or len(w) != 4:
        raise ValueError(f"op '{name}': expected data (N, C, H, W) and weight (F, C, kh, kw), got {list(x)} and {list(w)}")
    if x[1] != w[1]:
        raise ValueError(f"op '{name}': data has {x[1]} channels, weight expects {w[1]}")
    oh, ow = _out_hw(name, x[2:], tuple(w[2:]), attrs["stride"], attrs["pad"])
    return shapes, [[x[0], w[0], oh, ow]]


def _conv_compute(attrs, ins):
    x, w = ins
    s, p = attrs["stride"], attrs["pad"]
    k = w.shape[2:]
    oh, ow = _out_hw("Convolution", x.shape[2:], k, s, p)
    cols = _windows(x, k, s, p, oh, ow).transpose(0, 2, 3, 1, 4, 5).reshape(x.shape[0] * oh * ow, -1)
    out = cols @ w.reshape(w.shape[0], -1).T
    return np.ascontiguousarray(out.reshape(x.shape[0], oh, ow, w.shape[0]).transpose(0, 3, 1, 2))


def _conv_grad_data(attrs, ins):
    dy, w = ins
    s, p, xshape = attrs["stride"], attrs["pad"], attrs["xshape"]
    n, f, oh, ow = dy.shape
    dcols = dy.transpose(0, 2, 3, 1).reshape(-1, f) @ w.reshape(f, -1)
    dcols = dcols.reshape(n, oh, ow, w.shape[1], w.shape[2], w.shape[3]).transpose(0, 3, 1, 2, 4, 5)
    return np.ascontiguousarray(_scatter(dcols, xshape, w.shape[2:], s, p, oh, ow))


def _conv_grad_weight(attrs, ins):
    x, dy = ins
    s, p, wshape = attrs["stride"], attrs["pad"], attrs["wshape"]
    n, f, oh, ow = dy.shape
    cols = _windows(x, wshape[2:], s, p, oh, ow).transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, -1)
    return (dy.transpose(0, 2, 3, 1).reshape(-1, f).T @ cols).reshape(wshape).astype(x.dtype, copy=False)


_CONV_DX = defop("mx_conv2d_grad_data", 2, _conv_grad_data,
                 lambda a, sh: (sh, [list(a["xshape"])]), same_type, doc="gradient of Convolution for its data")
_CONV_DW = defop("mx_conv2d_grad_weight", 2, _conv_grad_weight,
                 lambda a, sh: (sh, [list(a["wshape"])]), same_type, doc="gradient of Convolution for its weight")


def _conv_gradient(ins, outs, g, attrs):
    x, w = ins
    a = dict(attrs, xshape=x._data.shape, wshape=w._data.shape)
    return [call(_CONV_DX, (g[0], w), a), call(_CONV_DW, (x, g[0]), a)]


_CONV = defop("mx_conv2d", 2, _conv_compute, _conv_shape, same_type, _conv_gradient,
              doc="2-D convolution (NCHW data, FCkk weight), im2col", arg_names=("data", "weight"))


def conv2d(x, w, stride=(1, 1), pad=(0, 0)):
    """2-D cross-correlation of ``x`` (N, C, H, W) with ``w`` (F, C, kh, kw)."""
    return call(_CONV, (x, w), {"stride": _pair(stride, "Convolution", "stride"),
                                "pad": _pair(pad, "Convolution", "pad")})


# ================================================================== pooling
def _pool_shape(attrs, shapes):
    x = shapes[0]
    if len(x) != 4:
        raise ValueError(f"op 'Pooling': expected data (N, C, H, W), got {list(x)}")
    k = tuple(x[2:]) if attrs["global"] else attrs["kernel"]
    oh, ow = _out_hw("Pooling", x[2:], k, attrs["stride"], attrs["pad"])
    return shapes, [[x[0], x[1], oh, ow]]


def _pool_geometry(attrs, x):
    k = tuple(x.shape[2:]) if attrs["global"] else attrs["kernel"]
    s, p = ((1, 1), (0, 0)) if attrs["global"] else (attrs["stride"], attrs["pad"])
    return (k, s, p) + _out_hw("Pooling", x.shape[2:], k, s, p)


def _pool_compute(attrs, ins):
    x = ins[0]
    k, s, p, oh, ow = _pool_geometry(attrs, x)
    if attrs["pool_type"] == "max" and (p[0] or p[1]):
        x = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=-np.inf)
        p = (0, 0)
    win = _windows(x, k, s, p, oh, ow)
    r = win.max(axis=(4, 5)) if attrs["pool_type"] == "max" else win.mean(axis=(4, 5))
    return np.ascontiguousarray(r)


def _pool_grad(attrs, ins):
    x, dy = ins
    k, s, p, oh, ow = _pool_geometry(attrs, x)
    n, c = x.shape[:2]
    if attrs["pool_type"] == "max":
        xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=-np.inf) if (p[0] or p[1]) else x
        win = _windows(xp, k, s, (0, 0), oh, ow).reshape(n, c, oh, ow, -1)
        first = win.argmax(axis=-1)                       # MXNet routes the gradient to the first maximum
        dcols = (np.arange(k[0] * k[1]) == first[..., None]) * dy[..., None]
    else:
        dcols = np.broadcast_to(dy[..., None] / (k[0] * k[1]), (n, c, oh, ow, k[0] * k[1]))
    dcols = dcols.reshape(n, c, oh, ow, k[0], k[1]).astype(x.dtype, copy=False)
    return np.ascontiguousarray(_scatter(dcols, x.shape, k, s, p, oh, ow))


_POOL_DX = defop("mx_pool2d_grad", 2, _pool_grad, lambda a, sh: (sh, [list(sh[0])]), same_type,
                 doc="gradient of Pooling")
_POOL = defop("mx_pool2d", 1, _pool_compute, _pool_shape, same_type,
              lambda ins, outs, g, a: [call(_POOL_DX, (ins[0], g[0]), a)],
              doc="2-D max/avg pooling, 'valid' convention", arg_names=("data",))


def pool2d(x, kernel=(1, 1), pool_type="max", stride=(1, 1), pad=(0, 0), global_pool=False):
    """Max or average pooling of ``x`` (N, C, H, W); average counts padding, as MXNet's default."""
    if pool_type not in ("max", "avg"):
        raise ValueError(f"op 'Pooling': pool_type must be 'max' or 'avg' here, got {pool_type!r}")
    return call(_POOL, (x,), {"kernel": _pair(kernel, "Pooling", "kernel"), "pool_type": pool_type,
                              "stride": _pair(stride, "Pooling", "stride"), "pad": _pair(pad, "Pooling", "pad"),
                              "global": bool(global_pool)})


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
