"""Reductions: sum, mean, max and min over axes, with keep_dims.

Example::

    ops.reduce_mean(x, axis=(0, 2), keep_dims=True)
"""

import builtins as _bi

import numpy as np

from .. import dtype as _dt
from .._core import capture as _capture
from .._core.dispatch import call
from ..tensor import Tensor
from . import functional as F
from ._builtin import axis_attr, defop, is_float, normalize_axis, same_type, tensor_arg

# Gradients are built from ops that may live in the other op modules; they
# reach them through ``F`` (mscustom.ops.functional), looked up at call time.


# ================================================================== reductions
def _reduce_shape(name, needs_items=False):
    def infer(attrs, shapes):
        src = shapes[0]
        axes = normalize_axis(name, attrs["axis"], len(src))
        if needs_items:
            for ax in axes:
                if src[ax] == 0:
                    raise ValueError(f"op '{name}': cannot reduce axis {ax} of size 0 in a tensor of "
                                     f"shape {list(src)} (there is no identity for max/min)")
        if attrs["keep_dims"]:
            out = [1 if i in axes else s for i, s in enumerate(src)]
        else:
            out = [s for i, s in enumerate(src) if i not in axes]
        return shapes, [out]
    return infer


def _keep_shape(ins, attrs):
    """The reduced output's shape with the reduced axes kept as 1 (for broadcasting back)."""
    src = ins[0]._data.shape
    axes = normalize_axis("reduce", attrs["axis"], len(src))
    return tuple(1 if i in axes else s for i, s in enumerate(src))


def _sum_type(attrs, dtypes):
    d = dtypes[0]
    return dtypes, [_dt.int64 if d.name == "bool" else d]


def _mean_type(attrs, dtypes):
    d = dtypes[0]
    if d.name == "bool":
        raise TypeError("op 'reduce_mean': input must be a number type, got bool")
    return dtypes, [d if _dt.is_floating(d) else _dt.float32]


def _spread(g, ins, attrs):
    """The reduced gradient ``g`` broadcast back over the input's shape."""
    if g._data.ndim and not attrs["keep_dims"] and attrs["axis"] is not None:
        g = F.reshape(g, _keep_shape(ins, attrs))      # put the reduced axes back as size 1
    return F.broadcast_to(g, ins[0]._data.shape)


def _sum_grad(ins, outs, g, a):
    return [_spread(g[0], ins, a)]


def _mean_grad(ins, outs, g, a):
    shape = ins[0]._data.shape
    count = 1
    for i in normalize_axis("reduce_mean", a["axis"], len(shape)):
        count *= shape[i]
    # divide the reduced gradient, then spread it: one full-size array instead of two
    return [_spread(F.div(g[0], _bi.max(count, 1)), ins, a)]


def _extreme_grad(ins, outs, g, a):
    """Gradient of max/min: split evenly among the elements equal to the extreme (ties share)."""
    x = ins[0]
    if not is_float(x):
        return [None]
    keep = _keep_shape(ins, a)
    mask = F.cast(F.equal(x, F.reshape(outs[0], keep)), x.dtype)
    count = reduce_sum(mask, a["axis"], True)
    return [F.div(F.mul(mask, F.reshape(g[0], keep)), count)]


def _sum_compute(a, i):
    x = i[0]
    # np.add.reduce is np.sum without its Python wrapper (this kernel runs in every broadcast gradient)
    return np.asarray(np.add.reduce(x, axis=a["axis"], keepdims=a["keep_dims"],
                                    dtype=np.int64 if x.dtype.kind == "b" else x.dtype))


_REDUCE_SUM = defop(
    "reduce_sum", 1, _sum_compute,
    _reduce_shape("reduce_sum"), _sum_type, _sum_grad, doc="sum over axes", arg_names=("x",))
_REDUCE_MEAN = defop(
    "reduce_mean", 1,
    lambda a, i: np.asarray(np.mean(i[0], axis=a["axis"], keepdims=a["keep_dims"],
                                    dtype=None if i[0].dtype.kind == "f" else np.float64)),
    _reduce_shape("reduce_mean"), _mean_type, _mean_grad, doc="mean over axes", arg_names=("x",))
_REDUCE_MAX = defop(
    "reduce_max", 1, lambda a, i: np.asarray(np.max(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
    _reduce_shape("reduce_max", True), same_type, _extreme_grad,
    doc="maximum over axes; the gradient is shared evenly among ties", arg_names=("x",))
_REDUCE_MIN = defop(
    "reduce_min", 1, lambda a, i: np.asarray(np.min(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
    _reduce_shape("reduce_min", True), same_type, _extreme_grad,
    doc="minimum over axes; the gradient is shared evenly among ties", arg_names=("x",))


def reduce_sum(x, axis=None, keep_dims=False):
    """Sum of ``x`` over ``axis`` (None or (): all axes); bool sums to int64."""
    if type(x) is not Tensor:
        x = tensor_arg(x, "reduce_sum")
    return call(_REDUCE_SUM, (x,), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def sum(x, axis=None, keepdims=False):  # noqa: A001 - MindSpore's name
    """``ops.sum``: the same as ``reduce_sum``."""
    return reduce_sum(x, axis, keepdims)


def reduce_mean(x, axis=None, keep_dims=False):
    """Mean of ``x`` over ``axis`` (None or (): all axes); integers average to float32."""
    if type(x) is not Tensor:
        x = tensor_arg(x, "reduce_mean")
    return call(_REDUCE_MEAN, (x,), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def mean(x, axis=None, keep_dims=False):
    """``ops.mean``: the same as ``reduce_mean``."""
    return reduce_mean(x, axis, keep_dims)


def reduce_max(x, axis=None, keep_dims=False):
    """Maximum of ``x`` over ``axis``. The gradient is split evenly among tied maxima."""
    if type(x) is not Tensor:
        x = tensor_arg(x, "reduce_max")
    return call(_REDUCE_MAX, (x,), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def reduce_min(x, axis=None, keep_dims=False):
    """Minimum of ``x`` over ``axis``. The gradient is split evenly among tied minima."""
    if type(x) is not Tensor:
        x = tensor_arg(x, "reduce_min")
    return call(_REDUCE_MIN, (x,), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def amax(x, axis=None, keepdims=False):
    """``ops.amax``: the same as ``reduce_max``."""
    return reduce_max(x, axis, keepdims)


def amin(x, axis=None, keepdims=False):
    """``ops.amin``: the same as ``reduce_min``."""
    return reduce_min(x, axis, keepdims)


def _with_index(name, reduce, arg, x, axis, keepdims):
    """MindSpore 2.x ``ops.max``/``ops.min``: the tuple (values, int32 indices of the first extreme).

    With ``axis=None`` the value is over every element and the index is 0, as
    MindSpore documents; ``keepdims`` applies only when ``axis`` is given.
    """
    if type(x) is not Tensor:
        x = tensor_arg(x, name)
    if axis is None:
        return reduce(x, None, False), Tensor._wrap(np.zeros((), np.int32))
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"op '{name}': axis must be an int or None, got {axis!r}")
    ax = normalize_axis(name, axis, x.ndim)[0]
    idx = _capture.host_op(lambda a: (np.asarray(arg(a, axis=ax, keepdims=bool(keepdims)), np.int32),), (x,),
                           Tensor._wrap)[0]           # a host op: graph-mode replays compute it again
    return reduce(x, ax, keepdims), idx


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002 - MindSpore's names
    """The maximum over ``axis`` and its index: a tuple ``(values, indices)`` as MindSpore 2.x returns.

    The values are differentiable; ``initial``/``where`` are not supported.

    Example::

        values, idx = ops.max(ms.Tensor([[1.0, 5.0], [7.0, 2.0]]), axis=1)   # [5, 7], [1, 0]
    """
    if initial is not None or where is not None:
        raise ValueError("op 'max': initial and where are not supported")
    return _with_index("max", reduce_max, np.argmax, input, axis, keepdims)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002 - MindSpore's names
    """The minimum over ``axis`` and its index: a tuple ``(values, indices)`` as MindSpore 2.x returns."""
    if initial is not None or where is not None:
        raise ValueError("op 'min': initial and where are not supported")
    return _with_index("min", reduce_min, np.argmin, input, axis, keepdims)
