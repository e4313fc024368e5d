"""Reductions: sum, mean, max and min over axes, with keep_dims.

Example::

    ops.reduce_mean(x, axis=(0, 2), keep_dims=True)
"""

import builtins as _bi

import numpy as np

from ... import dtype as _dt
from ..._core import capture as _capture
from ..._core.dispatch import PROFILER as _PROFILER, TIMING as _TIMING, call
from ..._core.tape import STATE as _STATE
from ..._core.registry import get_op as _get_op, register_function
from ...tensor import Tensor
from ..._core.functions import functions as F  # the published functional ops, looked up at call time
from .._builtin import axis_attr, defop, is_float, normalize_axis, tensor_arg

_new_tensor = object.__new__

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
    return dtypes, [d]                  # integers average to their own dtype, as in MindSpore


def _extreme_type(name):
    def infer(attrs, dtypes):
        if dtypes[0].name == "bool":
            raise TypeError(f"op '{name}': input must be a number type, got bool")
        return dtypes, [dtypes[0]]
    return infer


def int_mean(x, axis, keepdims):
    """MindSpore's mean of an integer array: summed in its own dtype (wrapping), divided by the count
    and truncated toward zero, in that dtype."""
    total = np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    count = x.size // _bi.max(np.size(total), 1) if x.size else 1
    q = np.abs(total) // count if x.dtype.kind == "i" else total // count
    if x.dtype.kind == "i":
        q = np.where(total < 0, -q, q)
    return np.asarray(q, dtype=x.dtype)


def _mean_compute(a, i):
    x = i[0]
    if x.dtype.kind != "f":
        return int_mean(x, a["axis"], a["keep_dims"])
    return np.asarray(np.mean(x, axis=a["axis"], keepdims=a["keep_dims"]))


def _spread(g, ins, attrs):
    """The reduced gradient ``g`` broadcast back over the input's shape."""
    if g._data.ndim and not attrs["keep_dims"] and attrs["axis"] is not None:
        g = F.reshape(g, _keep_shape(ins, attrs))      # put the reduced axes back as size 1
    if type(g) is Tensor:
        # F.broadcast_to's call without its argument checks: a Tensor and an array's shape (ints)
        return call(_BROADCAST[0] if _BROADCAST else _broadcast_op(), (g,), {"shape": ins[0]._data.shape})
    return F.broadcast_to(g, ins[0]._data.shape)


_BROADCAST = []                         # the registered broadcast_to op (ops/array/shape.py), on first use


def _broadcast_op():
    _BROADCAST.append(_get_op("broadcast_to"))
    return _BROADCAST[0]


def _sum_grad(ins, outs, g, a):
    g0 = g[0]
    st = _STATE
    if type(g0) is Tensor and type(ins[0]) is Tensor and not st.depth and st.capture is None and \
            _PROFILER[0] is None and not _TIMING[0]:          # dispatch.unrecorded(), inline
        # nobody records this backward: broadcast_to's kernel on the array, no op calls
        dg = g0._data
        if dg.ndim and not a["keep_dims"] and a["axis"] is not None:
            dg = dg.reshape(_keep_shape(ins, a))
        out = np.empty(ins[0]._data.shape, dg.dtype)
        out[...] = dg
        t = _new_tensor(Tensor)         # wrap_unrecorded(out), inline: out is an array already
        t._data = out
        t._format = "DefaultFormat"
        t._node = None
        t._oidx = 0
        return [t]
    return [_spread(g0, ins, a)]


def _mean_grad(ins, outs, g, a):
    shape = ins[0]._data.shape
    count = 1
    for i in normalize_axis("reduce_mean", a["axis"], len(shape)):
        count *= shape[i]
    # divide the reduced gradient, then spread it: one full-size array instead of two
    return [_spread(F.div(g[0], _bi.max(count, 1)), ins, a)]


def _extreme_grad(ins, outs, g, a):
    """Gradient of max/min: split evenly among the elements equal to the extreme (ties share), or with
    the attribute ``first`` (``ops.max``/``ops.min`` with an axis) all to the first of them."""
    x = ins[0]
    if not is_float(x):
        return [None]
    keep = _keep_shape(ins, a)
    if a.get("first") is not None:
        return [F.mul(_first_mask(x, a["axis"], a["first"]), F.reshape(g[0], keep))]
    mask = F.cast(F.equal(x, F.reshape(outs[0], keep)), x.dtype)
    count = reduce_sum(mask, a["axis"], True)
    return [F.div(F.mul(mask, F.reshape(g[0], keep)), count)]


def _sum_compute(a, i):
    x = i[0]
    # np.add.reduce is np.sum without its Python wrapper (this kernel runs in every broadcast gradient)
    # positional: (array, axis, dtype, out, keepdims) binds faster than keywords
    return np.asarray(np.add.reduce(x, a["axis"], np.int64 if x.dtype.kind == "b" else x.dtype, None,
                                    a["keep_dims"]))


_REDUCE_SUM = defop(
    "reduce_sum", 1, _sum_compute,
    _reduce_shape("reduce_sum"), _sum_type, _sum_grad, doc="sum over axes", arg_names=("x",))
_REDUCE_MEAN = defop(
    "reduce_mean", 1, _mean_compute,
    _reduce_shape("reduce_mean"), _mean_type, _mean_grad, doc="mean over axes", arg_names=("x",))
_REDUCE_MAX = defop(
    "reduce_max", 1, lambda a, i: np.asarray(np.max(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
    _reduce_shape("reduce_max", True), _extreme_type("reduce_max"), _extreme_grad,
    doc="maximum over axes; the gradient is shared evenly among ties", arg_names=("x",))
_REDUCE_MIN = defop(
    "reduce_min", 1, lambda a, i: np.asarray(np.min(i[0], axis=a["axis"], keepdims=a["keep_dims"])),
    _reduce_shape("reduce_min", True), _extreme_type("reduce_min"), _extreme_grad,
    doc="minimum over axes; the gradient is shared evenly among ties", arg_names=("x",))


def _first_mask(x, axis, kind):
    """1 at the first maximum (``kind`` "max") or minimum along ``axis``, 0 elsewhere, in ``x``'s dtype.

    A host op: graph-mode replays find the positions again.
    """
    pick = np.argmax if kind == "max" else np.argmin

    def mask(a):
        idx = np.expand_dims(pick(a, axis=axis), axis)
        out = np.zeros(a.shape, a.dtype)
        np.put_along_axis(out, idx, 1, axis=axis)
        return (out,)
    return _capture.host_op(mask, (x,), Tensor._wrap)[0]


_ALL_AXES = {"axis": axis_attr(None), "keep_dims": False}     # shared, never modified


def reduce_sum(x, axis=None, keep_dims=False):
    """Sum of ``x`` over ``axis`` (None or (): all axes) in ``x``'s dtype; bool sums to int64.

    This is ``ops.ReduceSum``; ``ops.sum`` and ``Tensor.sum`` sum integers as int64.
    """
    if type(x) is not Tensor:
        x = tensor_arg(x, "reduce_sum")
    return call(_REDUCE_SUM, (x,), {"axis": axis_attr(axis), "keep_dims": bool(keep_dims)})


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):  # noqa: A001,A002
    """``ops.sum(input, dim=None, keepdim=False, *, dtype=None)`` (MindSpore 2.10): the sum over ``dim``
    (None: every axis; an int or a tuple). Bool and integer inputs other than int64 sum to int64, as
    in MindSpore (``ops.ReduceSum`` keeps the integer dtype); ``dtype`` casts the input first and the
    sum keeps that dtype. ``axis=`` / ``keepdims=`` are accepted as the older names of ``dim`` / ``keepdim``.

    Example::

        ops.sum(x, dim=1, keepdim=True), ops.sum(x, dtype=ms.float64)
    """
    if type(input) is not Tensor:
        input = tensor_arg(input, "sum")
    if axis is not None:
        if dim is not None:
            raise TypeError(f"op 'sum': give dim or axis, not both (got dim={dim!r}, axis={axis!r})")
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    if dim is None and keepdim is False and dtype is None and input._data.dtype.kind == "f":
        return call(_REDUCE_SUM, (input,), _ALL_AXES)   # the commonest call: a float sum of everything
    if dtype is not None:
        input = F.cast(input, dtype)
    elif input._data.dtype.kind in "biu" and input._data.dtype != np.int64 and input._data.dtype != np.uint64:
        input = F.cast(input, _dt.int64)
    return call(_REDUCE_SUM, (input,), {"axis": axis_attr(dim), "keep_dims": bool(keepdim)})   # reduce_sum's call


_TENSOR_SUM = Tensor.sum                 # the method as tensor.py defines it: every other form of the call


def tensor_sum(self, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None, initial=None):
    """``Tensor.sum`` (bound to it): a float tensor's sum of everything calls the reduction at once."""
    if axis is None and keepdims is False and dtype is None and dim is None and keepdim is None and \
            initial is None and type(self) is Tensor and self._data.dtype.kind == "f":
        return call(_REDUCE_SUM, (self,), _ALL_AXES)
    return _TENSOR_SUM(self, axis, keepdims, dtype=dtype, dim=dim, keepdim=keepdim, initial=initial)


tensor_sum.__doc__ = _TENSOR_SUM.__doc__
register_function("tensor_sum", tensor_sum)


def reduce_mean(x, axis=None, keep_dims=False):
    """Mean of ``x`` over ``axis`` (None or (): all axes). As in MindSpore, an integer tensor's mean
    keeps its dtype: the sum in that dtype (wrapping) divided by the count, truncated toward zero."""
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


def _with_index(name, op, arg, x, axis, keepdims):
    """MindSpore 2.x ``ops.max``/``ops.min``: the tuple (values, int64 indices of the first extreme).

    With ``axis=None`` the value is over every element, its gradient shared
    among ties, and the index is 0, as MindSpore gives; with an axis the
    gradient goes to the first extreme (the one the index names), and
    ``keepdims`` applies.
    """
    if type(x) is not Tensor:
        x = tensor_arg(x, name)
    if x._data.dtype == np.bool_:
        raise TypeError(f"op '{name}': input must be a number type, got bool")
    if axis is None:
        return call(op, (x,), {"axis": None, "keep_dims": False}), Tensor._wrap(np.zeros((), np.int64))
    if type(axis) is not int:
        raise TypeError(f"op '{name}': axis must be an int or None, got {type(axis).__name__} {axis} "
                        "(MindSpore takes a Python int here)")
    ax = normalize_axis(name, axis, x.ndim)[0]
    idx = _capture.host_op(lambda a: (np.asarray(arg(a, axis=ax, keepdims=bool(keepdims)), np.int64),), (x,),
                           Tensor._wrap)[0]           # a host op: graph-mode replays compute it again
    values = call(op, (x,), {"axis": ax, "keep_dims": bool(keepdims), "first": name})
    return values, idx


def extreme_first(x, axis, keepdims, kind):
    """The max (``kind`` "max") or min of ``x`` over the int ``axis`` with the gradient to the first
    extreme: ``ops.max(x, axis)[0]`` without computing the index (``Tensor.max(axis=...)``)."""
    ax = normalize_axis(kind, axis, x.ndim)[0]
    return call(_REDUCE_MAX if kind == "max" else _REDUCE_MIN, (x,),
                {"axis": ax, "keep_dims": bool(keepdims), "first": kind})


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002 - MindSpore's names
    """The maximum over ``axis`` and its index: a tuple ``(values, indices)`` as MindSpore 2.x returns.

    The indices are int64 (the first maximum); with an axis the gradient goes
    to that first maximum, as in MindSpore. ``initial`` is the least value an
    output takes; ``where`` (with ``initial``) leaves out the False elements.

    Example::

        values, idx = ops.max(ms.Tensor([[1.0, 5.0], [7.0, 2.0]]), axis=1)   # [5, 7], [1, 0]
    """
    if initial is not None or where is not None:
        input = _bounded("max", input, initial, where)
    return _with_index("max", _REDUCE_MAX, np.argmax, input, axis, keepdims)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002 - MindSpore's names
    """The minimum over ``axis`` and its index: a tuple ``(values, indices)`` as MindSpore 2.x returns."""
    if initial is not None or where is not None:
        input = _bounded("min", input, initial, where)
    return _with_index("min", _REDUCE_MIN, np.argmin, input, axis, keepdims)


def _bounded(name, x, initial, where):
    """``x`` bounded by ``initial`` (below for max, above for min), ``initial`` where ``where`` is False: the
    reduction then gives NumPy's ``initial``/``where`` result, and the index of that value (MindSpore's)."""
    if initial is None:
        raise ValueError(f"op '{name}': initial value must be provided for where masks")
    x = tensor_arg(x, name)
    bound = Tensor._wrap(np.asarray(initial, x._data.dtype))
    y = F.maximum(x, bound) if name == "max" else F.minimum(x, bound)
    if where is not None:
        mask = where if isinstance(where, Tensor) else Tensor._wrap(np.asarray(where, np.bool_))
        y = F.where(mask, y, bound)
    return y


from ..._core.registry import register_function as _register_function  # noqa: E402

_register_function("extreme_first", extreme_first)         # Tensor.max / Tensor.min with an int axis
