"""More of MindSpore's layers: BatchNorm3d, SyncBatchNorm, BiDense, EmbeddingLookup, L1Regularizer,
TimeDistributed, Conv2dBnAct and DenseBnAct. Parameter names follow MindSpore's (``bn2d.gamma`` in
BatchNorm3d, ``conv.weight`` / ``batchnorm.gamma`` in Conv2dBnAct ...), so checkpoints load.

Example::

    bd = nn.BiDense(2, 3, 4)             # y = x1 @ W[k] @ x2 + b[k], W of shape (4, 2, 3)
    nn.TimeDistributed(nn.Dense(3, 2), time_axis=1)(x)      # x (N, T, 3) -> (N, T, 2)
"""

import math

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Parameter, Tensor
from . import init as _init
from .cell import Cell
from .conv import Conv2d
from .layers import Dense, get_activation
from .normalization import BatchNorm1d, BatchNorm2d, _BatchNorm

__all__ = ["BatchNorm3d", "SyncBatchNorm", "BiDense", "EmbeddingLookup", "L1Regularizer", "TimeDistributed",
           "Conv2dBnAct", "DenseBnAct"]


class BatchNorm3d(Cell):
    """Batch normalization of ``(N, C, D, H, W)`` inputs over N, D, H and W (a BatchNorm2d named ``bn2d`` inside).

    Statistics: ``moving = momentum * moving + (1 - momentum) * batch`` in training mode.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, dtype=_dt.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init, use_batch_statistics, dtype=dtype)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != 5:
            raise ValueError(f"BatchNorm3d: the input must be 5-D (N, C, D, H, W), got "
                             f"{list(getattr(x, 'shape', [type(x).__name__]))}")
        n, c, d, h, w = x.shape
        y = self.bn2d(ops.reshape(x, (n, c, d * h, w)))
        return ops.reshape(y, (n, c, d, h, w))


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose batch statistics span the devices of ``process_groups``.

    In a single process (this library's case without a communication group) the batch is the
    local one, so it equals BatchNorm over N and the spatial axes; inputs are 2-D to 4-D.
    Parameters are ``moving_mean``, ``moving_variance``, ``gamma`` and ``beta``.
    """
    _ranks = (2, 3, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=_dt.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)
        if process_groups is not None and not isinstance(process_groups, list):
            raise TypeError(f"SyncBatchNorm: process_groups must be a list or None, got "
                            f"{type(process_groups).__name__}")
        self.process_groups = process_groups
        self.moving_mean.name, self.moving_variance.name = "moving_mean", "moving_variance"


class BiDense(Cell):
    """Bilinear layer ``y[..., k] = x1 @ weight[k] @ x2 + bias[k]``; ``weight`` (out, in1, in2).

    Default initial values (None) are uniform in ``+-1/sqrt(in1_channels)``, for weight and bias.
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=_dt.float32):
        super().__init__()
        for what, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"BiDense: {what} must be a positive int, got {v!r}")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = bool(has_bias)
        bound = 1.0 / math.sqrt(in1_channels)
        if weight_init is None:
            weight_init = _init.Uniform(bound)
        self.weight = Parameter(_init.initializer(weight_init, (out_channels, in1_channels, in2_channels), dtype),
                                name="weight")
        if self.has_bias:
            if bias_init is None:
                bias_init = _init.Uniform(bound)
            self.bias = Parameter(_init.initializer(bias_init, (out_channels,), dtype), name="bias")
        else:
            self.bias = None

    def construct(self, input1, input2):
        for what, t, n in (("input1", input1, self.in1_channels), ("input2", input2, self.in2_channels)):
            if not isinstance(t, Tensor) or t.ndim < 1 or t.shape[-1] != n:
                raise ValueError(f"BiDense: {what}'s last axis must be {n}, got "
                                 f"{list(getattr(t, 'shape', [type(t).__name__]))}")
        if input1.shape[:-1] != input2.shape[:-1]:
            raise ValueError(f"BiDense: input1 and input2 must agree except in the last axis, got "
                             f"{list(input1.shape)} and {list(input2.shape)}")
        lead = tuple(input1.shape[:-1])
        x1 = ops.reshape(input1, (-1, self.in1_channels))
        x2 = ops.reshape(input2, (-1, self.in2_channels))
        # (B, in1) @ (in1, out * in2) -> (B, out, in2), times x2 and summed over in2
        w = ops.reshape(ops.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        t = ops.reshape(ops.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        y = ops.reduce_sum(ops.mul(t, ops.expand_dims(x2, 1)), 2)
        if self.bias is not None:
            y = ops.add(y, self.bias)
        return ops.reshape(y, lead + (self.out_channels,))

    def extend_repr(self):
        return (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
                f"out_channels={self.out_channels}, has_bias={self.has_bias}")


class EmbeddingLookup(Cell):
    """Rows of ``embedding_table`` (vocab_size, embedding_size) at ``indices``; ``max_norm`` clips each looked-up
    row's L2 norm. ``target``, ``slice_mode``, ``manual_shapes`` and ``sparse`` choose MindSpore's device
    placement and sharding; here the lookup is one gather either way.
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=_dt.float32):
        super().__init__()
        for what, v in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"EmbeddingLookup: {what} must be a positive int, got {v!r}")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        if max_norm is not None and (isinstance(max_norm, bool) or not isinstance(max_norm, (int, float))
                                     or max_norm <= 0):
            raise ValueError(f"EmbeddingLookup: max_norm must be a float > 0 or None, got {max_norm!r}")
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.target, self.slice_mode, self.sparse = target, slice_mode, bool(sparse)
        self.max_norm = None if max_norm is None else float(max_norm)
        self.embedding_table = Parameter(_init.initializer(param_init, (vocab_size, embedding_size), dtype),
                                         name="embedding_table")

    def construct(self, indices):
        if not isinstance(indices, Tensor) or indices._data.dtype.kind not in "iu":
            raise TypeError(f"EmbeddingLookup: indices must be an int Tensor, got "
                            f"{getattr(indices, 'dtype', type(indices).__name__)}")
        out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.reduce_sum(ops.square(out), -1, True))
            out = ops.div(ops.mul(out, self.max_norm), ops.maximum(norm, Tensor(np.float32(self.max_norm))))
        return out

    def extend_repr(self):
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, target={self.target}"


class L1Regularizer(Cell):
    """``scale * sum(|weights|)``, a scalar of ``weights``' dtype (``scale`` > 0)."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"L1Regularizer: scale must be a float, got {scale!r}")
        if not scale > 0 or math.isinf(scale):
            raise ValueError(f"L1Regularizer: scale must be a finite float > 0, got {scale!r}")
        self.scale = float(scale)

    def construct(self, weights):
        if not isinstance(weights, Tensor):
            raise TypeError(f"L1Regularizer: weights must be a Tensor, got {type(weights).__name__}")
        return ops.mul(ops.reduce_sum(ops.abs(weights)), self.scale)


class TimeDistributed(Cell):
    """Apply ``layer`` at every index of ``time_axis``: with ``reshape_with_axis`` the time axis is merged into
    that axis for one call, otherwise ``layer`` runs once per time step; the outputs are stacked back at
    ``time_axis``."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        super().__init__()
        if not isinstance(layer, Cell):
            raise TypeError(f"TimeDistributed: layer must be a Cell, got {type(layer).__name__}")
        for what, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"TimeDistributed: {what} must be an int, got {v!r}")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        if not isinstance(inputs, Tensor) or inputs.ndim < 3:
            raise ValueError(f"TimeDistributed: the input must be a Tensor of at least 3 dimensions, got "
                             f"{list(getattr(inputs, 'shape', [type(inputs).__name__]))}")
        nd = inputs.ndim
        t_axis = self.time_axis % nd if -nd <= self.time_axis < nd else None
        if t_axis is None:
            raise ValueError(f"TimeDistributed: time_axis {self.time_axis} is out of range for {nd} dimensions")
        if self.reshape_with_axis is not None:
            # as MindSpore: move the time axis next to reshape_with_axis, merge the two, run the layer once,
            # split the merged axis again (the time axis stays at its new place)
            r_axis = self.reshape_with_axis % nd
            t_new = nd - 2 if r_axis == nd - 1 else (r_axis + 1 if t_axis > r_axis else r_axis - 1)
            pos = min(t_new, r_axis)
            perm = [i for i in range(nd) if i != t_axis]
            perm.insert(t_new, t_axis)
            moved = ops.transpose(inputs, tuple(perm))
            shape = tuple(moved.shape)
            y = self.layer(ops.reshape(moved, shape[:pos] + (-1,) + shape[pos + 2:]))
            if not isinstance(y, Tensor) or y.ndim <= pos:
                raise ValueError("TimeDistributed: the layer's output must keep the merged axis")
            return ops.reshape(y, tuple(y.shape[:pos]) + shape[pos:pos + 2] + tuple(y.shape[pos + 1:]))
        steps = ops.unstack(inputs, t_axis)
        return ops.stack([self.layer(s) for s in steps], t_axis)


def _activation(activation, alpha, who):
    if activation is None or isinstance(activation, Cell):
        return activation
    if isinstance(activation, str):
        if activation.lower() == "leakyrelu":
            from .activation import LeakyReLU
            return LeakyReLU(alpha)
        return get_activation(activation)
    raise TypeError(f"{who}: activation must be None, a name or a Cell, got {type(activation).__name__}")


class Conv2dBnAct(Cell):
    """``Conv2d`` (``conv``), then optionally ``BatchNorm2d`` (``batchnorm``, when ``has_bn``), then ``activation``.

    ``after_fake`` is for quantization-aware training and has no effect here.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm2d(out_channels, eps=eps, momentum=momentum) if self.has_bn else None
        self.activation = _activation(activation, alpha, "Conv2dBnAct")
        self.after_fake = bool(after_fake)

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.activation is not None:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    """``Dense`` (``dense``), then optionally ``BatchNorm1d`` (``batchnorm``, when ``has_bn``), then ``activation``."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm1d(out_channels, eps=eps, momentum=momentum) if self.has_bn else None
        self.activation = _activation(activation, alpha, "DenseBnAct")
        self.after_fake = bool(after_fake)

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.activation is not None:
            x = self.activation(x)
        return x
