"""``gluon.nn``: ``Dense``, ``Activation``, ``Conv2D``, ``MaxPool2D``, ``Flatten``, ``Dropout``, ``BatchNorm``,
``Sequential``, ``HybridSequential``.

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

from .block import Block, HybridBlock

__all__ = ["Sequential", "HybridSequential", "Dense", "Activation", "Conv2D", "MaxPool2D", "Flatten", "Dropout",
           "BatchNorm"]


def _pair(v, name, what):
    v = (int(v),) * 2 if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if len(v) != 2:
        raise ValueError(f"{name}: {what} must be an int or a pair of ints (2-D), got {v}")
    return v


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


class Activation(HybridBlock):
    """``F.Activation(x, act_type=activation)``: 'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type)

    def __repr__(self):
        return f"Activation({self._act_type})"


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


class Conv2D(HybridBlock):
    """2-D convolution over NCHW data; weight ``(channels, in_channels, kh, kw)`` (no dilation or groups here)."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 layout="NCHW", activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        if layout != "NCHW":
            raise ValueError(f"Conv2D: only layout 'NCHW' is supported here, got {layout!r}")
        if _pair(dilation, "Conv2D", "dilation") != (1, 1) or groups != 1:
            raise ValueError("Conv2D: dilation other than (1, 1) and groups other than 1 are not supported here")
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            self._kwargs = {"kernel": _pair(kernel_size, "Conv2D", "kernel_size"),
                            "stride": _pair(strides, "Conv2D", "strides"), "pad": _pair(padding, "Conv2D", "padding"),
                            "dilate": (1, 1), "num_filter": channels, "num_group": 1, "no_bias": not use_bias,
                            "layout": layout}
            self.weight = self.params.get("weight", shape=(channels, in_channels) + self._kwargs["kernel"],
                                          init=weight_initializer, allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def _alias(self):
        return "conv"

    def infer_shape(self, x, *args):
        if len(x.shape) != 4:
            raise ValueError(f"Conv2D '{self.name}': expected NCHW input (4 dimensions), got shape {x.shape}")
        self.weight.shape = (self._channels, x.shape[1]) + self._kwargs["kernel"]

    def hybrid_forward(self, F, x, weight, bias=None):
        k = self._kwargs
        out = F.Convolution(x, weight, bias, kernel=k["kernel"], stride=k["stride"], pad=k["pad"],
                            num_filter=k["num_filter"], no_bias=bias is None)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        k = self._kwargs
        s = f"{type(self).__name__}({{mapping}}, kernel_size={k['kernel']}, stride={k['stride']}"
        if k["pad"] != (0, 0):
            s += f", padding={k['pad']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act}"
        shape = self.weight.shape
        return (s + ")").format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}")


class MaxPool2D(HybridBlock):
    """2-D max pooling (``strides`` default to ``pool_size``; ``ceil_mode=True`` is not supported here)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW", ceil_mode=False, **kwargs):
        super().__init__(**kwargs)
        if layout != "NCHW":
            raise ValueError(f"MaxPool2D: only layout 'NCHW' is supported here, got {layout!r}")
        if ceil_mode:
            raise ValueError("MaxPool2D: ceil_mode=True (the 'full' pooling convention) is not supported here")
        size = _pair(pool_size, "MaxPool2D", "pool_size")
        self._kwargs = {"kernel": size, "stride": size if strides is None else _pair(strides, "MaxPool2D", "strides"),
                        "pad": _pair(padding, "MaxPool2D", "padding"), "pool_type": "max", "global_pool": False,
                        "pooling_convention": "valid"}

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        k = self._kwargs
        return F.Pooling(x, kernel=k["kernel"], stride=k["stride"], pad=k["pad"], pool_type="max")

    def __repr__(self):
        k = self._kwargs
        return (f"{type(self).__name__}(size={k['kernel']}, stride={k['stride']}, padding={k['pad']}, "
                f"ceil_mode=False, global_pool=False, pool_type=max, layout=NCHW)")


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
