"""Normalization layers: ``BatchNorm1d``, ``BatchNorm2d``, ``LayerNorm``, ``GroupNorm``.

BatchNorm keeps MindSpore's Parameters, in its order: ``moving_mean``,
``moving_variance`` (``requires_grad=False``; named "mean" and "variance" in a
standalone layer, as MindSpore names them), ``gamma``, ``beta`` (trainable when
``affine``).
In training mode (``set_train()``) it normalizes with the batch statistics and
updates ``moving = momentum * moving + (1 - momentum) * batch`` (momentum 0.9,
MindSpore's convention); in inference mode it uses the moving statistics.
``use_batch_statistics`` True/False forces one behaviour whatever the mode.

Example::

    bn = nn.BatchNorm2d(6)
    bn.set_train()
    y = bn(x)               # batch statistics; bn.moving_mean moved towards the batch mean
"""

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Parameter, Tensor
from . import init as _init
from .cell import Cell

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm"]


def _param(owner, what, init, shape, dtype, requires_grad=True, name=None):
    try:
        return Parameter(_init.initializer(init, shape, dtype), name=name, requires_grad=requires_grad)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{owner}: bad {what}: {exc}") from None


class _BatchNorm(Cell):
    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None,
                 data_format="NCHW", dtype=_dt.float32):
        super().__init__()
        name = type(self).__name__
        if not isinstance(num_features, (int, np.integer)) or isinstance(num_features, bool) or num_features < 1:
            raise ValueError(f"{name}: num_features must be a positive int, got {num_features!r}")
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"{name}: momentum must be in [0, 1], got {momentum!r}")
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")
        if use_batch_statistics not in (None, True, False):
            raise ValueError(f"{name}: use_batch_statistics must be None, True or False, got "
                             f"{use_batch_statistics!r}")
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), float(momentum)
        self.affine, self.use_batch_statistics = bool(affine), use_batch_statistics
        c = (self.num_features,)
        # MindSpore's order and names: a standalone BatchNorm's statistics are "mean" and "variance"
        # (inside a network they take the structural names, "bn.moving_mean"), registered first
        self.moving_mean = _param(name, "moving_mean_init", moving_mean_init, c, dtype, False, "mean")
        self.moving_variance = _param(name, "moving_var_init", moving_var_init, c, dtype, False, "variance")
        self.gamma = _param(name, "gamma_init", gamma_init, c, dtype, self.affine)
        self.beta = _param(name, "beta_init", beta_init, c, dtype, self.affine)

    def construct(self, x):
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
        if x.ndim not in self._ranks or x.shape[1] != self.num_features:
            raise ValueError(f"{name}(num_features={self.num_features}): expects an input of rank "
                             f"{' or '.join(map(str, self._ranks))} with {self.num_features} channels on "
                             f"axis 1, got shape {list(x.shape)}")
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                              training=use_batch, momentum=1.0 - self.momentum, eps=self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs over every axis but C."""
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs over N, H and W."""
    _ranks = (4,)


class LayerNorm(Cell):
    """Normalize over the axes from ``begin_norm_axis`` on; scale/shift with ``gamma``/``beta``
    of shape ``normalized_shape``, applied from ``begin_params_axis`` on.

    MindSpore's defaults: ``begin_norm_axis=-1``, ``begin_params_axis=-1``, ``epsilon=1e-7``.
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=_dt.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list of ints, got "
                            f"{normalized_shape!r}")
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.begin_norm_axis, self.begin_params_axis = int(begin_norm_axis), int(begin_params_axis)
        self.epsilon = float(epsilon)
        self.gamma = _param("LayerNorm", "gamma_init", gamma_init, self.normalized_shape, dtype)
        self.beta = _param("LayerNorm", "beta_init", beta_init, self.normalized_shape, dtype)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"LayerNorm: the input must be a Tensor, got {type(x).__name__}")
        nd = x.ndim
        if not -nd <= self.begin_norm_axis < nd or not -nd <= self.begin_params_axis < nd:
            raise ValueError(f"LayerNorm: begin_norm_axis {self.begin_norm_axis} and begin_params_axis "
                             f"{self.begin_params_axis} must be axes of the input of shape {list(x.shape)}")
        if tuple(x.shape[self.begin_params_axis % nd:]) != self.normalized_shape:
            raise ValueError(f"LayerNorm: normalized_shape {list(self.normalized_shape)} must equal the input's "
                             f"dimensions from begin_params_axis={self.begin_params_axis}, got input shape "
                             f"{list(x.shape)}")
        y = ops.nn.norm.normalize_from(x, self.begin_norm_axis, self.epsilon)
        return ops.add(ops.mul(y, self.gamma), self.beta)

    def extend_repr(self):
        return (f"normalized_shape={list(self.normalized_shape)}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")


class GroupNorm(Cell):
    """Group normalization of (N, C, ...) inputs: ``num_channels`` split into ``num_groups`` groups."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=_dt.float32):
        super().__init__()
        for what, v in (("num_groups", num_groups), ("num_channels", num_channels)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"GroupNorm: {what} must be a positive int, got {v!r}")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps = int(num_groups), int(num_channels), float(eps)
        self.affine = bool(affine)
        self.gamma = _param("GroupNorm", "gamma_init", gamma_init, (self.num_channels,), dtype, self.affine)
        self.beta = _param("GroupNorm", "beta_init", beta_init, (self.num_channels,), dtype, self.affine)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim < 2 or x.shape[1] != self.num_channels:
            got = list(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"GroupNorm(num_channels={self.num_channels}): expects (N, {self.num_channels}, "
                             f"...), got {got}")
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
