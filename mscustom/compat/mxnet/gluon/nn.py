"""``gluon.nn``: ``Dense``, ``Activation``, ``Conv1D`` / ``Conv2D``, max / average / global pooling (1-D and 2-D),
``Flatten``, ``Dropout``, ``BatchNorm``, ``Sequential``, ``HybridSequential``.

Each layer is a HybridBlock whose ``hybrid_forward`` calls MXNet's operator
(``F.FullyConnected``, ``F.Convolution``, ...), with MXNet 1.9.1's argument
names, defaults, Parameter names (``dense0_weight``, ``batchnorm0_running_mean``),
initializers (weights: the ``initialize`` default, biases ``'zeros'``,
BatchNorm's gamma / running_var ``'ones'``) and ``repr``. Input sizes left at 0
(``in_units``, ``in_channels``) are filled in by the first forward.

Example::

    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dense(3))
    net.initialize()
    net(mx.nd.ones((2, 8))).shape           # (2, 3)
"""

import numpy as np

from ._activation import Activation
from ._conv_layers import (AvgPool1D, AvgPool2D, Conv1D, Conv2D, GlobalAvgPool1D, GlobalAvgPool2D,
                           GlobalMaxPool1D, GlobalMaxPool2D, MaxPool1D, MaxPool2D)
from .block import Block, HybridBlock

__all__ = ["Sequential", "HybridSequential", "Dense", "Activation", "Conv1D", "Conv2D", "MaxPool1D", "MaxPool2D",
           "AvgPool1D", "AvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalAvgPool1D", "GlobalAvgPool2D",
           "Flatten", "Dropout", "BatchNorm"]


class Sequential(Block):
    """Blocks run one after the other (``add`` appends; indexing and ``len`` as a list)."""

    def add(self, *blocks):
        for b in blocks:
            if not isinstance(b, Block):
                raise TypeError(f"{type(self).__name__}.add: expected Blocks, got {type(b).__name__}")
            self.register_child(b)

    def forward(self, x, *args):
        for block in self._children.values():
            x = block(x, *args)
            args = ()
        return x

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)


class HybridSequential(HybridBlock):
    """HybridBlocks run one after the other; hybridizes as one graph."""

    def add(self, *blocks):
        for b in blocks:
            if not isinstance(b, HybridBlock):
                raise TypeError(f"{type(self).__name__}.add: expected HybridBlocks, got {type(b).__name__}")
            self.register_child(b)

    def hybrid_forward(self, F, x, *args):
        for block in self._children.values():
            x = block(x, *args)
            args = ()
        return x

    __getitem__ = Sequential.__getitem__
    __len__ = Sequential.__len__


class Dense(HybridBlock):
    """``activation(dot(x, weight.T) + bias)``; weight ``(units, in_units)``, ``flatten`` as MXNet."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32", weight_initializer=None,
                 bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self._flatten = flatten
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(units,), init=bias_initializer, dtype=dtype,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def infer_shape(self, x, *args):
        shape = x.shape
        self.weight.shape = (self._units, int(np.prod(shape[1:])) if self._flatten else shape[-1])

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units, flatten=self._flatten)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        shape = self.weight.shape
        return (f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0]}, "
                f"{self.act if self.act is not None else 'linear'})")


class Flatten(HybridBlock):
    """Reshape to ``(batch, -1)``."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return type(self).__name__


class Dropout(HybridBlock):
    """Drop with probability ``rate`` while training (``axes``: share the mask along them)."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = tuple(axes)

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes)
        return x

    def __repr__(self):
        return f"{type(self).__name__}(p = {self._rate}, axes={self._axes})"


class BatchNorm(HybridBlock):
    """Batch normalisation over ``axis`` (MXNet's Gluon defaults: momentum 0.9, epsilon 1e-5, gamma learned).

    The running statistics are updated when the gradient is computed, as MXNet does.
    """

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer="zeros", gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats}
        self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=(in_channels,),
                                            init=running_mean_initializer, allow_deferred_init=True,
                                            differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=(in_channels,),
                                           init=running_variance_initializer, allow_deferred_init=True,
                                           differentiable=False)

    def infer_shape(self, x, *args):
        c = x.shape[self._kwargs["axis"] % len(x.shape)]
        for p in (self.gamma, self.beta, self.running_mean, self.running_var):
            p.shape = (c,)

    def cast(self, dtype):
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        c = self.gamma.shape[0]
        return (f"{type(self).__name__}(axis={k['axis']}, eps={k['eps']}, momentum={k['momentum']}, "
                f"fix_gamma={k['fix_gamma']}, use_global_stats={k['use_global_stats']}, "
                f"in_channels={c if c else None})")
