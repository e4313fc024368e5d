"""Gluon's convolution and pooling blocks: ``Conv1D``, ``Conv2D``, ``MaxPool1D`` / ``MaxPool2D``,
``AvgPool1D`` / ``AvgPool2D``, ``GlobalMaxPool1D`` / ``GlobalMaxPool2D``, ``GlobalAvgPool1D`` / ``GlobalAvgPool2D``.

Each calls MXNet's operator (``F.Convolution`` / ``F.Pooling``, which run the
core's convolution and pooling kernels, see ``_cnn.py``) with MXNet 1.9.1's
arguments, defaults, Parameter names (``conv0_weight``), deferred input
channels and ``repr``. Convolutions take ``dilation`` and ``groups``
(``groups == channels``: a depthwise convolution); ``ceil_mode=True`` is
MXNet's 'full' pooling convention; ``AvgPool*`` counts the padding unless
``count_include_pad=False``. Layouts are channel-first only (``NCW`` / ``NCHW``).

Example::

    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(8, 3, padding=1, groups=1, activation="relu"), gluon.nn.MaxPool2D(2, ceil_mode=True),
            gluon.nn.GlobalAvgPool2D())
"""

import numpy as np

from ._activation import Activation
from .block import HybridBlock

__all__ = ["Conv1D", "Conv2D", "MaxPool1D", "MaxPool2D", "AvgPool1D", "AvgPool2D", "GlobalMaxPool1D",
           "GlobalMaxPool2D", "GlobalAvgPool1D", "GlobalAvgPool2D"]

_LAYOUTS = {1: "NCW", 2: "NCHW"}


def _tuple(v, n, cls, what):
    v = (int(v),) * n if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if len(v) != n:
        raise ValueError(f"{cls}: {what} must be a number or a list of {n} ints, got {v}")
    return v


def _check_layout(cls, layout, n):
    if layout != _LAYOUTS[n]:
        raise ValueError(f"{cls}: only layout {_LAYOUTS[n]!r} is supported here, got {layout!r}")


class _Conv(HybridBlock):
    """An n-D convolution: weight ``(channels, in_channels / groups, *kernel_size)``, bias ``(channels,)``."""

    _dims = 2

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout=None,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros", in_channels=0,
                 **kwargs):
        super().__init__(**kwargs)
        n, cls = self._dims, type(self).__name__
        layout = _LAYOUTS[n] if layout is None else layout
        _check_layout(cls, layout, n)
        if int(groups) < 1 or int(channels) % int(groups) or int(in_channels) % int(groups):
            raise ValueError(f"{cls}: groups must be a positive int dividing channels ({channels}) and in_channels "
                             f"({in_channels}), got {groups!r}")
        with self.name_scope():
            self._channels = int(channels)
            self._in_channels = int(in_channels)
            kernel = _tuple(kernel_size, n, cls, "kernel_size")
            self._kwargs = {"kernel": kernel, "stride": _tuple(strides, n, cls, "strides"),
                            "dilate": _tuple(dilation, n, cls, "dilation"), "pad": _tuple(padding, n, cls, "padding"),
                            "num_filter": self._channels, "num_group": int(groups), "no_bias": not use_bias,
                            "layout": layout}
            self.weight = self.params.get("weight", shape=(self._channels, self._in_channels // int(groups)) + kernel,
                                          init=weight_initializer, allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(self._channels,), init=bias_initializer,
                                        allow_deferred_init=True) if use_bias else None
            self.act = _activation(activation)

    def _alias(self):
        return "conv"

    def infer_shape(self, x, *args):
        if len(x.shape) != self._dims + 2:
            raise ValueError(f"{type(self).__name__} '{self.name}': expected {self._kwargs['layout']} input "
                             f"({self._dims + 2} dimensions), got shape {x.shape}")
        groups = self._kwargs["num_group"]
        if x.shape[1] % groups:
            raise ValueError(f"{type(self).__name__} '{self.name}': {x.shape[1]} input channels are not divisible "
                             f"by groups={groups}")
        self.weight.shape = (self._channels, x.shape[1] // groups) + self._kwargs["kernel"]

    def hybrid_forward(self, F, x, weight, bias=None):
        k = self._kwargs
        out = F.Convolution(x, weight, bias, kernel=k["kernel"], stride=k["stride"], dilate=k["dilate"], pad=k["pad"],
                            num_filter=k["num_filter"], num_group=k["num_group"], no_bias=bias is None)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        k, n = self._kwargs, self._dims
        s = f"{type(self).__name__}({{mapping}}, kernel_size={k['kernel']}, stride={k['stride']}"
        if k["pad"] != (0,) * n:
            s += f", padding={k['pad']}"
        if k["dilate"] != (1,) * n:
            s += f", dilation={k['dilate']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act}"
        shape = self.weight.shape
        return (s + ")").format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}")


def _activation(activation):
    return None if activation is None else Activation(activation, prefix=activation + "_")


class Conv1D(_Conv):
    """1-D convolution over ``NCW`` data (``kernel_size`` an int or a 1-tuple)."""

    _dims = 1

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout="NCW",
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros", in_channels=0,
                 **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
                         weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over ``NCHW`` data; ``groups`` splits the channels (``groups == channels``: depthwise)."""

    _dims = 2

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 layout="NCHW", activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
                         weight_initializer, bias_initializer, in_channels, **kwargs)


# ================================================================== pooling
class _Pooling(HybridBlock):
    """Max / average pooling (``strides`` default to ``pool_size``; ``ceil_mode``: MXNet's 'full' convention)."""

    _dims = 2

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        n, cls = self._dims, type(self).__name__
        _check_layout(cls, layout, n)
        size = _tuple(pool_size, n, cls, "pool_size")
        self._kwargs = {"kernel": size, "stride": size if strides is None else _tuple(strides, n, cls, "strides"),
                        "pad": _tuple(padding, n, cls, "padding"), "global_pool": bool(global_pool),
                        "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = bool(count_include_pad)

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return (f"{type(self).__name__}(size={k['kernel']}, stride={k['stride']}, padding={k['pad']}, "
                f"ceil_mode={k['pooling_convention'] == 'full'}, global_pool={k['global_pool']}, "
                f"pool_type={k['pool_type']}, layout={k['layout']})")


class MaxPool1D(_Pooling):
    """1-D max pooling over ``NCW`` data."""

    _dims = 1

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, **kwargs):
        super().__init__(pool_size, strides, padding, ceil_mode, False, "max", layout, **kwargs)


class MaxPool2D(_Pooling):
    """2-D max pooling over ``NCHW`` data."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW", ceil_mode=False, **kwargs):
        super().__init__(pool_size, strides, padding, ceil_mode, False, "max", layout, **kwargs)


class AvgPool1D(_Pooling):
    """1-D average pooling over ``NCW`` data (padding counted unless ``count_include_pad=False``)."""

    _dims = 1

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, count_include_pad=True,
                 **kwargs):
        super().__init__(pool_size, strides, padding, ceil_mode, False, "avg", layout, count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    """2-D average pooling over ``NCHW`` data (padding counted unless ``count_include_pad=False``)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False, layout="NCHW",
                 count_include_pad=True, **kwargs):
        super().__init__(pool_size, strides, padding, ceil_mode, False, "avg", layout, count_include_pad, **kwargs)


def _global(name, dims, pool_type):
    layout = _LAYOUTS[dims]

    def __init__(self, layout=layout, **kwargs):
        _Pooling.__init__(self, (1,) * dims, None, 0, True, True, pool_type, layout, **kwargs)

    doc = f"Global {'max' if pool_type == 'max' else 'average'} pooling over the whole {layout[2:]} extent."
    return type(name, (_Pooling,), {"_dims": dims, "__init__": __init__, "__doc__": doc})


GlobalMaxPool1D = _global("GlobalMaxPool1D", 1, "max")
GlobalMaxPool2D = _global("GlobalMaxPool2D", 2, "max")
GlobalAvgPool1D = _global("GlobalAvgPool1D", 1, "avg")
GlobalAvgPool2D = _global("GlobalAvgPool2D", 2, "avg")
