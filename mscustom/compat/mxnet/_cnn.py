"""MXNet's ``Convolution`` and ``Pooling`` on the core's convolution and pooling kernels.

The symbol layers, ``mx.nd.Convolution`` / ``mx.nd.Pooling``, Gluon's
``Conv1D`` / ``Conv2D`` and pooling blocks and minpy's convolution layer all
come here. Convolutions run ``mscustom.ops.conv2d`` (im2col + BLAS with the
Numba column loops for float32/float64, with its bias as one op), pooling runs
the core's ``max_pool2d`` / ``avg_pool2d`` ops with the padding MXNet's
geometry asks for; 1-D data runs as 2-D data of height 1.

MXNet's parameters and rules, checked against MXNet 1.9.1:

- ``Convolution``: ``kernel`` (1 or 2 numbers), ``num_filter``, ``stride``,
  ``dilate``, ``pad`` (symmetric), ``num_group``; weight ``(num_filter,
  channels / num_group, *kernel)``, output ``(size + 2 pad - dilate (k - 1) - 1)
  // stride + 1``.
- ``Pooling``: ``pool_type`` 'max', 'avg' or 'sum'; ``pooling_convention``
  'valid' (floor) or 'full' (ceil: a last, partial window); ``stride``
  defaults to 1; ``global_pool`` pools the whole plane; ``count_include_pad``
  (default True) counts the padding in an average, never the rows 'full' adds
  past it; max pooling's gradient goes to the first maximum of each window.

Example::

    p = conv_params(kernel=(3, 3), num_filter=8, pad=(1, 1))
    y = convolution(p, x, w, b)                 # x (N, C, H, W), w (8, C, 3, 3)
    y = pooling(pool_params(kernel=(2, 2), stride=(2, 2), pool_type="max"), x)
"""

from collections import namedtuple

from ... import ops as _ops
from ..._core.dispatch import call
from ..._core.registry import get_op

__all__ = ["ConvParams", "PoolParams", "conv_params", "conv_shapes", "convolution", "pool_params",
           "pool_out_shape", "pooling", "conv2d", "pool2d"]

ConvParams = namedtuple("ConvParams", "kernel stride dilate pad num_filter num_group")
PoolParams = namedtuple("PoolParams", "kernel stride pad pool_type convention global_pool count_include_pad")

_CONV_LAYOUTS = {1: "NCW", 2: "NCHW"}


def _ints(value, n, op, what, minimum, default):
    if value is None or (isinstance(value, (tuple, list)) and len(value) == 0):
        return (default,) * n
    v = tuple(int(x) for x in value) if isinstance(value, (tuple, list)) else (int(value),)
    if len(v) != n:
        raise ValueError(f"op '{op}': {what} must have {n} entries like kernel, got {v}")
    if min(v) < minimum:
        raise ValueError(f"op '{op}': {what} must be {'positive' if minimum else 'non-negative'}, got {v}")
    return v


def _kernel(kernel, op):
    if kernel is None:
        raise ValueError(f"op '{op}': the attribute kernel is required (e.g. kernel=(3, 3))")
    k = tuple(int(x) for x in kernel) if isinstance(kernel, (tuple, list)) else (int(kernel),)
    if len(k) not in (1, 2):
        raise ValueError(f"op '{op}': only 1-D and 2-D kernels are supported here, got kernel={k}")
    if min(k) < 1:
        raise ValueError(f"op '{op}': kernel must be positive, got {k}")
    return k


# ================================================================== convolution
def conv_params(kernel, num_filter, stride=None, dilate=None, pad=None, num_group=1, layout=None):
    """Validated ``Convolution`` attributes (MXNet's defaults: stride and dilate 1, pad 0, one group)."""
    k = _kernel(kernel, "Convolution")
    n = len(k)
    if layout not in (None, "None", _CONV_LAYOUTS[n]):
        raise ValueError(f"op 'Convolution': only layout {_CONV_LAYOUTS[n]!r} is supported for a {n}-D kernel "
                         f"here, got {layout!r}")
    if num_filter is None or int(num_filter) < 1:
        raise ValueError(f"op 'Convolution': num_filter must be a positive int, got {num_filter!r}")
    if int(num_group) < 1 or int(num_filter) % int(num_group):
        raise ValueError(f"op 'Convolution': num_group must be a positive int dividing num_filter "
                         f"{num_filter}, got {num_group!r}")
    return ConvParams(k, _ints(stride, n, "Convolution", "stride", 1, 1),
                      _ints(dilate, n, "Convolution", "dilate", 1, 1), _ints(pad, n, "Convolution", "pad", 0, 0),
                      int(num_filter), int(num_group))


def _conv_out(size, k, s, d, p):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def conv_shapes(p, data, no_bias):
    """``([data, weight(, bias)], out)`` shapes for ``data`` of shape (N, C, *spatial)."""
    n = len(p.kernel)
    if len(data) != n + 2:
        raise ValueError(f"op 'Convolution': a {n}-D kernel needs data of {n + 2} dimensions "
                         f"({_CONV_LAYOUTS[n]}), got shape {list(data)}")
    c = data[1]
    if c % p.num_group:
        raise ValueError(f"op 'Convolution': the {c} input channels are not divisible by num_group {p.num_group}")
    out = [_conv_out(data[2 + i], p.kernel[i], p.stride[i], p.dilate[i], p.pad[i]) for i in range(n)]
    if min(out) < 1:
        raise ValueError(f"op 'Convolution': kernel {p.kernel} (dilate {p.dilate}) is larger than the padded "
                         f"input {[data[2 + i] + 2 * p.pad[i] for i in range(n)]}")
    ins = [list(data), [p.num_filter, c // p.num_group] + list(p.kernel)] + ([] if no_bias else [[p.num_filter]])
    return ins, [data[0], p.num_filter] + out


def _as_2d(t, lead):
    """(lead..., W) as (lead..., 1, W): 1-D data and weights run as 2-D ones of height 1."""
    return _ops.reshape(t, tuple(t.shape[:lead]) + (1, t.shape[-1]))


def convolution(p, x, w, b=None):
    """MXNet's ``Convolution`` of ``x`` with ``w`` (and bias ``b``) on ``mscustom.ops.conv2d``."""
    conv_shapes(p, x.shape, b is None)
    expect = (p.num_filter, x.shape[1] // p.num_group) + p.kernel
    if tuple(w.shape) != expect:
        raise ValueError(f"op 'Convolution': weight must have shape {list(expect)} for data {list(x.shape)}, "
                         f"got {list(w.shape)}")
    one_d = len(p.kernel) == 1
    if one_d:
        x, w = _as_2d(x, 2), _as_2d(w, 2)
    kernel2 = lambda v, fill: (fill,) + v if one_d else v          # noqa: E731
    ph, pw = kernel2(p.pad, 0)
    y = _ops.conv2d(x, w, b, stride=kernel2(p.stride, 1), pad_mode="pad", padding=(ph, ph, pw, pw),
                    dilation=kernel2(p.dilate, 1), groups=p.num_group)
    return _ops.reshape(y, tuple(y.shape[:2]) + (y.shape[-1],)) if one_d else y


def conv2d(x, w, stride=(1, 1), pad=(0, 0)):
    """2-D cross-correlation of ``x`` (N, C, H, W) with ``w`` (F, C, kh, kw), no bias (minpy's layer)."""
    p = conv_params(tuple(w.shape[2:]), w.shape[0], stride=stride, pad=pad)
    return convolution(p, x, w)


# ================================================================== pooling
_POOL_TYPES = ("max", "avg", "sum")
_CONVENTIONS = ("valid", "full")


def pool_params(kernel=None, pool_type="max", stride=None, pad=None, global_pool=False,
                pooling_convention="valid", count_include_pad=None, layout=None):
    """Validated ``Pooling`` attributes (MXNet's defaults: stride 1, pad 0, 'valid', padding counted)."""
    if pool_type not in _POOL_TYPES:
        raise ValueError(f"op 'Pooling': pool_type must be one of {list(_POOL_TYPES)} here, got {pool_type!r}")
    if pooling_convention not in _CONVENTIONS:
        raise ValueError(f"op 'Pooling': pooling_convention must be one of {list(_CONVENTIONS)} here, got "
                         f"{pooling_convention!r}")
    global_pool = bool(global_pool)
    if global_pool and kernel is None:
        kernel = (1, 1)
    k = _kernel(kernel, "Pooling")
    n = len(k)
    if layout not in (None, "None", _CONV_LAYOUTS[n]):
        raise ValueError(f"op 'Pooling': only layout {_CONV_LAYOUTS[n]!r} is supported for a {n}-D kernel here, "
                         f"got {layout!r}")
    s = _ints(stride, n, "Pooling", "stride", 1, 1)
    pad = _ints(pad, n, "Pooling", "pad", 0, 0)
    if not global_pool and any(q >= kk for q, kk in zip(pad, k)):
        raise ValueError(f"op 'Pooling': pad {pad} must be smaller than kernel {k}")
    include = True if count_include_pad is None else bool(count_include_pad)
    return PoolParams(k, s, pad, pool_type, pooling_convention, global_pool, include)


def _geometry(p, spatial):
    """(kernel, stride, pad, extra) per spatial axis; ``extra``: rows 'full' adds after the padding."""
    if p.global_pool:
        return tuple(spatial), (1,) * len(spatial), (0,) * len(spatial), (0,) * len(spatial)
    if len(spatial) != len(p.kernel):
        raise ValueError(f"op 'Pooling': a {len(p.kernel)}-D kernel needs data of {len(p.kernel) + 2} dimensions, "
                         f"got {len(spatial) + 2}")
    extra = []
    for size, k, s, q in zip(spatial, p.kernel, p.stride, p.pad):
        span = size + 2 * q - k
        if span < 0:
            raise ValueError(f"op 'Pooling': kernel {p.kernel} is larger than the padded input "
                             f"{[d + 2 * v for d, v in zip(spatial, p.pad)]}")
        out = (-(-span // s) if p.convention == "full" else span // s) + 1
        extra.append((out - 1) * s + k - (size + 2 * q))
    return p.kernel, p.stride, p.pad, tuple(extra)


def pool_out_shape(p, data):
    """The output shape of pooling ``data`` (N, C, *spatial)."""
    if len(data) < 3:
        raise ValueError(f"op 'Pooling': data must be (N, C, W) or (N, C, H, W), got shape {list(data)}")
    k, s, q, e = _geometry(p, data[2:])
    return list(data[:2]) + [(size + 2 * qq + ee - kk) // ss + 1 for size, kk, ss, qq, ee in zip(data[2:], k, s, q, e)]


def pooling(p, x):
    """MXNet's ``Pooling`` of ``x`` on the core's ``max_pool2d`` / ``avg_pool2d`` ops."""
    k, s, q, e = _geometry(p, x.shape[2:])
    one_d = len(k) == 1
    if one_d:
        x = _as_2d(x, 2)
        k, s, q, e = (1,) + k, (1,) + s, (0,) + q, (0,) + e
    attrs = {"kernel": k, "stride": s, "pad": (q[0], q[0] + e[0], q[1], q[1] + e[1])}
    if p.pool_type == "max":
        y = call(get_op("max_pool2d"), (x,), attrs)[0]
    else:
        attrs.update(count_include_pad=p.count_include_pad, divisor_override=1 if p.pool_type == "sum" else 0)
        if any(e):
            attrs["real_pad"] = (q[0], q[0], q[1], q[1])
        y = call(get_op("avg_pool2d"), (x,), attrs)
    return _ops.reshape(y, tuple(y.shape[:2]) + (y.shape[-1],)) if one_d else y


def pool2d(x, kernel=(1, 1), pool_type="max", stride=(1, 1), pad=(0, 0), global_pool=False):
    """Max or average pooling of ``x`` (N, C, H, W), 'valid' convention (minpy's layer)."""
    return pooling(pool_params(kernel, pool_type, stride, pad, global_pool), x)
