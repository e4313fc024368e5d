"""Normalization: ``batch_norm``, ``layer_norm``, ``group_norm``.

Each is composed of differentiable ops (mean, subtract, rsqrt-by-sqrt,
multiply), so its gradient is the exact derivative of the forward formula,
including the terms through the batch mean and variance; ``batch_norm``'s
training mode on float32/float64 is one op each way instead
(``batch_norm.py``, the same values to float rounding). The moving
statistics of ``batch_norm`` are updated in place, outside the tape.

Example::

    y = ops.batch_norm(x, running_mean, running_var, gamma, beta, training=True)
"""

import numpy as np

from ..._core import capture as _capture
from ...tensor import Tensor
from . import batch_norm as _bn
from . import batch_norm_infer as _bn_infer
from .. import functional as F
from .._builtin import tensor_arg


def _normalize(x, axes, eps):
    """(x - mean) / sqrt(var + eps) over ``axes`` (biased variance), with the mean and variance."""
    mean = F.reduce_mean(x, axes, True)
    centered = F.sub(x, mean)
    var = F.reduce_mean(F.square(centered), axes, True)
    return F.div(centered, F.sqrt(F.add(var, eps))), mean, var


def _check_float(x, name):
    if x._data.dtype.kind != "f":
        raise TypeError(f"{name}: the input must be a float tensor, got {x.dtype.name}")


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,  # noqa: C901
               eps=1e-5):
    """Batch normalization over every axis but the channel axis 1 of ``input_x`` (N, C, ...).

    ``training=True`` normalizes with the batch's mean and (biased) variance and
    updates ``running_mean``/``running_var`` in place:
    ``running = (1 - momentum) * running + momentum * batch`` (MindSpore's
    functional convention, momentum 0.1; the layers' momentum 0.9 is
    ``1 - momentum``). The running variance takes the unbiased batch variance.
    ``training=False`` normalizes with the running statistics.
    """
    x = tensor_arg(input_x, "batch_norm")
    _check_float(x, "batch_norm")
    if x.ndim < 2:
        raise ValueError(f"batch_norm: the input must have a channel axis (N, C, ...), got shape {list(x.shape)}")
    c = x.shape[1]
    for what, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if not isinstance(t, Tensor) or t.shape != (c,):
            got = list(t.shape) if isinstance(t, Tensor) else type(t).__name__
            raise ValueError(f"batch_norm: {what} must be a Tensor of shape [{c}] (the channels), got {got}")
    if not 0.0 <= float(momentum) <= 1.0:
        raise ValueError(f"batch_norm: momentum must be in [0, 1], got {momentum!r}")
    shape = _channel_shape(x)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        count = x._data.size // c
        if count < 2:
            raise ValueError(f"batch_norm: training needs more than one value per channel, got input shape "
                             f"{list(x.shape)}")
        if _bn.takes(x._data, weight._data, bias._data) and not _exporting():     # one op each way
            y, mean, var = _bn.batch_norm_train(x, weight, bias, eps)
            _capture.effect(_MovingUpdate(float(momentum), count / (count - 1)),
                            running_mean, running_var, mean, var)
            return y
        y, mean, var = _normalize(x, axes, eps)
        # in place, as an effect so that graph mode repeats it on every replay
        _capture.effect(_MovingUpdate(float(momentum), count / (count - 1)),
                        running_mean, running_var, mean, var)
    else:
        if _bn_infer.takes(x._data, weight._data, bias._data, running_mean._data, running_var._data) \
                and not _exporting():       # one op, the composed form's bits (batch_norm_infer.py)
            return _bn_infer.batch_norm_infer(x, weight, bias, running_mean, running_var, eps)
        mean = F.reshape(F.stop_gradient(running_mean), shape)
        var = F.reshape(F.stop_gradient(running_var), shape)
        y = F.div(F.sub(x, mean), F.sqrt(F.add(var, eps)))
    return F.add(F.mul(y, F.reshape(weight, shape)), F.reshape(bias, shape))


def _exporting():
    """Whether a recording runs in PyNative mode (``ms.export``'s MindIR and ONNX captures; graph mode records
    in GRAPH_MODE): those keep the composed ops, whose steps the exporters read and whose training update
    they refuse by name."""
    from ... import context as _context
    return _capture.active() is not None and _context._settings["mode"] == _context.PYNATIVE_MODE


class _MovingUpdate:
    """``running = (1 - m) * running + m * batch`` for the mean and the (unbiased) variance, in place."""

    def __init__(self, momentum, unbias):
        self.momentum = momentum
        self.unbias = unbias

    def __call__(self, running_mean, running_var, batch_mean, batch_var):
        m = self.momentum
        for stat, batch, scale in ((running_mean, batch_mean, m), (running_var, batch_var, m * self.unbias)):
            stat *= 1 - m
            stat += scale * batch.reshape(stat.shape)


def layer_norm(input_x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the last ``len(normalized_shape)`` axes, then scale by ``weight`` and shift by ``bias``."""
    x = tensor_arg(input_x, "layer_norm")
    _check_float(x, "layer_norm")
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or tuple(x.shape[x.ndim - k:]) != normalized_shape:
        raise ValueError(f"layer_norm: normalized_shape {list(normalized_shape)} must equal the input's "
                         f"trailing dimensions, got input shape {list(x.shape)}")
    y, _, _ = _normalize(x, tuple(range(x.ndim - k, x.ndim)), eps)
    if weight is not None:
        y = F.mul(y, weight)
    if bias is not None:
        y = F.add(y, bias)
    return y


def normalize_from(x, begin_axis, eps):
    """``x`` normalized over the axes ``[begin_axis, ndim)`` (LayerNorm's ``begin_norm_axis``)."""
    axes = tuple(range(begin_axis % x.ndim, x.ndim))
    return _normalize(x, axes, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002 - MindSpore's name
    """Split the channels of ``input`` (N, C, ...) into ``num_groups`` groups and normalize each group.

    ``weight``/``bias`` have shape (C,) and apply per channel.
    """
    x = tensor_arg(input, "group_norm")
    _check_float(x, "group_norm")
    if x.ndim < 2:
        raise ValueError(f"group_norm: the input must be (N, C, ...), got shape {list(x.shape)}")
    n, c = x.shape[:2]
    if not isinstance(num_groups, (int, np.integer)) or num_groups <= 0 or c % num_groups:
        raise ValueError(f"group_norm: num_groups must be a positive int dividing the {c} channels, "
                         f"got {num_groups!r}")
    grouped = F.reshape(x, (n, int(num_groups), -1))
    y = F.reshape(_normalize(grouped, (2,), eps)[0], x.shape)
    shape = _channel_shape(x)
    if weight is not None:
        y = F.mul(y, F.reshape(weight, shape))
    if bias is not None:
        y = F.add(y, F.reshape(bias, shape))
    return y


__all__ = ["batch_norm", "layer_norm", "group_norm"]
