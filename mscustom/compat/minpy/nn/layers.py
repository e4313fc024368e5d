"""``minpy.nn.layers``: affine, relu, batchnorm, dropout, softmax_loss, convolution (and a few more).

Written with ``minpy.numpy``, so every layer is mscustom ops and differentiable.
Semantics are minpy's: ``dropout(x, prob)`` drops with probability ``prob``
and does not rescale in training (it scales by ``1 - prob`` in testing);
``batchnorm`` returns ``(out, running_mean, running_var)``.

Example::

    out = layers.relu(layers.affine(x, w, b))
    loss = layers.softmax_loss(out, y)
"""

import numpy as _onp

from ...mxnet import _cnn
from .. import numpy as np

__all__ = ["affine", "relu", "batchnorm", "dropout", "softmax_loss", "softmax_cross_entropy", "l2_loss",
           "sigmoid", "convolution", "max_pool"]


def affine(x, w, b):
    """``x`` reshaped to (N, D) times ``w`` (D, M) plus ``b`` (M,)."""
    x = np._t(x)
    if x.ndim != 2:
        x = np.reshape(x, (x.shape[0], -1))
    return np.dot(x, w) + b


def relu(x):
    return np.maximum(0, x)


def sigmoid(x):
    return 1 / (1 + np.exp(-np._t(x)))


def batchnorm(x, gamma, beta, mode="train", eps=1e-5, momentum=0.9, running_mean=None, running_var=None):
    """Batch normalization over axis 0 of (N, D) data; returns ``(out, running_mean, running_var)``."""
    x = np._t(x)
    n, d = x.shape
    running_mean = np.zeros(d) if running_mean is None else running_mean
    running_var = np.zeros(d) if running_var is None else running_var
    if mode == "train":
        mean = np.sum(x, axis=0) / n
        centered = x - np.expand_dims(mean, axis=0)
        var = np.sum(centered ** 2, axis=0) / n
        out = gamma * (centered / np.expand_dims(np.sqrt(var + eps), axis=0)) + beta
        running_mean = momentum * running_mean + (1.0 - momentum) * mean.asnumpy()
        running_var = momentum * running_var + (1.0 - momentum) * var.asnumpy()
    elif mode == "test":
        out = gamma * ((x - running_mean) / np.sqrt(running_var + eps)) + beta
    else:
        raise ValueError(f'Invalid forward batchnorm mode "{mode}"')
    return out, running_mean, running_var


def dropout(x, prob, mode="train", seed=None):
    """Drop each unit with probability ``prob`` in training (no rescaling, as minpy); scale by ``1 - prob`` in test."""
    x = np._t(x)
    if seed is not None:
        np.random.seed(seed)
    if mode == "train":
        mask = (_onp.random.rand(*x.shape) > prob).astype(x.asnumpy().dtype)
        return x * mask
    return x * (1 - prob)


def softmax_loss(x, y):
    """Mean softmax cross-entropy of scores ``x`` (N, C) and labels ``y`` ((N,) indices or (N, C) one-hot)."""
    x = np._t(x)
    n, c = x.shape
    y = y.asnumpy() if hasattr(y, "asnumpy") else _onp.asarray(y)
    if y.ndim == 1:
        onehot = _onp.zeros((n, c), dtype=x.asnumpy().dtype)
        onehot[_onp.arange(n), y.astype(_onp.int64)] = 1
    else:
        onehot = y.astype(x.asnumpy().dtype)
    shifted = x - np.max(x, axis=1, keepdims=True)
    loss = -np.sum(shifted * onehot) / n
    return loss + np.sum(np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))) / n


def softmax_cross_entropy(prob, label):
    prob = np._t(prob)
    n, c = prob.shape
    label = label.asnumpy() if hasattr(label, "asnumpy") else _onp.asarray(label)
    onehot = label if label.ndim == 2 else _onp.eye(c, dtype=prob.asnumpy().dtype)[label.astype(_onp.int64)]
    return -np.sum(np.log(prob) * onehot) / n


def l2_loss(x, label):
    x = np._t(x)
    return np.sum((x - label) ** 2) / x.shape[0]


def convolution(x, w, b, stride=1, pad=0):
    """2-D convolution of ``x`` (N, C, H, W) with ``w`` (F, C, HH, WW) plus ``b`` (F,)."""
    out = _cnn.conv2d(np._t(x), np._t(w), (stride, stride), (pad, pad))
    return out + np.reshape(b, (1, -1, 1, 1))


def max_pool(x, pool_height=2, pool_width=2, stride=2):
    return _cnn.pool2d(np._t(x), (pool_height, pool_width), "max", (stride, stride))
