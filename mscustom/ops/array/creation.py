"""Creation, random, gather and small array ops with MindSpore 2.x signatures.

``ones``/``zeros``/``full``/``arange`` build constant tensors; ``uniform`` and
``standard_normal`` draw from the generator that ``ms.set_seed`` seeds, so
runs are reproducible. ``gather`` is an op whose gradient is a scatter-add
(``gather_grad``, itself differentiable back to ``gather``). ``argmax``,
``clamp``/``clip_by_value``, ``split`` and ``cat`` complete the set.

Example::

    ms.set_seed(0)
    w = ops.standard_normal((3, 4))
    rows = ops.gather(w, ms.Tensor([2, 0]), 0)          # (2, 4)
"""

import builtins as _bi

import numpy as np

from ... import dtype as _dt
from ..._core import capture as _capture
from ..._core.dispatch import call
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, is_float, normalize_axis, plain_axis, tensor_arg
from .sort_gather import gather_batched


def _rng():
    from ...nn.init import rng          # late: mscustom.nn imports mscustom.ops
    return rng()


def _shape(shape, name):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if isinstance(shape, Tensor):
        shape = tuple(int(s) for s in shape._data.reshape(-1))
    if not isinstance(shape, (tuple, list)) or not _bi.all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise TypeError(f"{name}: shape must be an int or a tuple of non-negative ints, got {shape!r}")
    return tuple(int(s) for s in shape)


def _dtype(dtype, default):
    return default if dtype is None else _dt.dtype_from_any(dtype)


# ================================================================== creation
def ones(shape, dtype=None):
    """A tensor of ones (float32 unless ``dtype`` says otherwise)."""
    return Tensor._wrap(np.ones(_shape(shape, "ones"), _dtype(dtype, _dt.float32).np_dtype))


def zeros(size, dtype=None):
    """A tensor of zeros (float32 unless ``dtype`` says otherwise)."""
    return Tensor._wrap(np.zeros(_shape(size, "zeros"), _dtype(dtype, _dt.float32).np_dtype))


def full(size, fill_value, *, dtype=None):
    """A tensor filled with ``fill_value``; the dtype follows the value (bool, int64, float32) unless given."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if isinstance(fill_value, (bool, np.bool_)):
        default = _dt.bool_
    elif isinstance(fill_value, (int, np.integer)):
        default = _dt.int64
    elif isinstance(fill_value, (float, np.floating)):
        default = _dt.float32
    else:
        raise TypeError(f"full: fill_value must be a number, a bool or a one-element Tensor, got {fill_value!r}")
    return Tensor._wrap(np.full(_shape(size, "full"), fill_value, _dtype(dtype, default).np_dtype))


def arange(start=0, end=None, step=1, *, dtype=None):
    """``[start, end)`` by ``step``; ``arange(n)`` counts from 0. int64 for ints, float32 if any is a float."""
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[1] is None:
        vals = [0, vals[0], vals[2]]
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"arange: start, end and step must be numbers, got {v!r}")
    if vals[2] == 0:
        raise ValueError("arange: step must not be 0")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise ValueError(f"arange: the range [{vals[0]}, {vals[1]}) is empty for step {vals[2]} "
                         "(end must lie in the direction of step)")
    default = _dt.float32 if _bi.any(isinstance(v, (float, np.floating)) for v in vals) else _dt.int64
    return Tensor._wrap(np.arange(*vals).astype(_dtype(dtype, default).np_dtype))


# ================================================================== random
def uniform(shape, minval, maxval, seed=None, dtype=_dt.float32):
    """Uniform samples in ``[minval, maxval)`` (numbers or one-element Tensors), from ``ms.set_seed``'s generator.

    ``seed`` is accepted for MindSpore compatibility; reproducibility comes
    from ``ms.set_seed``.
    """
    lo = minval.item() if isinstance(minval, Tensor) else minval
    hi = maxval.item() if isinstance(maxval, Tensor) else maxval
    if not lo < hi:
        raise ValueError(f"uniform: minval must be less than maxval, got {lo!r} and {hi!r}")
    shape, np_dtype = _shape(shape, "uniform"), _dt.dtype_from_any(dtype).np_dtype
    # a host op: graph-mode replays draw fresh numbers too
    return _capture.host_op(lambda: (_rng().uniform(lo, hi, shape).astype(np_dtype),), (), Tensor._wrap)[0]


def standard_normal(shape, seed=None):
    """float32 samples of N(0, 1), from ``ms.set_seed``'s generator."""
    shape = _shape(shape, "standard_normal")
    return _capture.host_op(lambda: (_rng().standard_normal(shape).astype(np.float32),), (), Tensor._wrap)[0]


# ================================================================== gather
def _gather_axis(attrs, ndim, name):
    return normalize_axis(name, attrs["axis"], ndim)[0]


def _gather_shape(attrs, shapes):
    src, idx = shapes
    ax = _gather_axis(attrs, len(src), "gather")
    return shapes, [list(src[:ax]) + list(idx) + list(src[ax + 1:])]


def _gather_type(attrs, dtypes):
    if not _dt.is_integral(dtypes[1]) or dtypes[1].name == "bool":
        raise TypeError(f"op 'gather': input_indices must be an integer tensor, got {dtypes[1].name}")
    return dtypes, [dtypes[0]]


def _check_indices(idx, size, name):
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise IndexError(f"op '{name}': index {int(bad)} is out of range for an axis of size {size} "
                         f"(expected 0 <= index < {size})")


def _gather_compute(attrs, ins):
    x, idx = ins
    ax = _gather_axis(attrs, x.ndim, "gather")
    _check_indices(idx, x.shape[ax], "gather")
    return np.take(x, idx, axis=ax)


def _gather_grad_compute(attrs, ins):
    g, idx = ins
    shape = attrs["shape"]
    ax = _gather_axis(attrs, len(shape), "gather_grad")
    k = idx.ndim
    moved = np.moveaxis(g, tuple(range(ax, ax + k)), tuple(range(k)))
    moved = moved.reshape((idx.size,) + moved.shape[k:])
    out = np.zeros((shape[ax],) + tuple(shape[:ax]) + tuple(shape[ax + 1:]), g.dtype)
    np.add.at(out, idx.reshape(-1), moved)
    return np.ascontiguousarray(np.moveaxis(out, 0, ax))


def _gather_grad_shape(attrs, shapes):
    shape = list(attrs["shape"])
    expect = _gather_shape(attrs, [shape, shapes[1]])[1][0]
    if list(shapes[0]) != expect:
        raise ValueError(f"op 'gather_grad': the gradient must have shape {expect}, got {list(shapes[0])}")
    return shapes, [shape]


_GATHER = defop("gather", 2, _gather_compute, _gather_shape, _gather_type,
                lambda ins, outs, g, a: [gather_grad(g[0], ins[1], ins[0].shape, a["axis"])
                                         if is_float(ins[0]) else None, None],
                doc="take slices along an axis by integer indices", arg_names=("input_params", "input_indices"))
_GATHER_GRAD = defop("gather_grad", 2, _gather_grad_compute, _gather_grad_shape, _gather_type,
                     lambda ins, outs, g, a: [call(_GATHER, (g[0], ins[1]), {"axis": a["axis"]}), None],
                     doc="scatter-add of a gather's gradient (repeated indices add up)",
                     arg_names=("dy", "indices"))


def gather_grad(g, indices, shape, axis):
    """The gradient of ``gather`` for an input of ``shape``: ``g`` scatter-added at ``indices``."""
    return call(_GATHER_GRAD, (g, indices), {"axis": axis, "shape": tuple(int(s) for s in shape)})


def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of ``input_params`` along ``axis`` at ``input_indices``; output shape
    ``params.shape[:axis] + indices.shape + params.shape[axis+1:]``.

    Indices must lie in ``[0, params.shape[axis])`` (an IndexError otherwise).
    With ``batch_dims = b > 0`` the first ``b`` dims of both are batch dims and
    each batch entry gathers on its own (``params.shape[:axis] + indices.shape[b:] + ...``).
    """
    if batch_dims != 0:
        return gather_batched(input_params, input_indices, axis, batch_dims)
    x, idx = tensor_arg(input_params, "gather"), tensor_arg(input_indices, "gather")
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    return call(_GATHER, (x, idx), {"axis": axis})


# ================================================================== small array ops
def _index_of(fn, x, dtype=np.int64, **kw):
    """``fn(x, **kw)`` as an int64 (or ``dtype``) Tensor (a host op, so graph-mode replays compute it again)."""
    return _capture.host_op(lambda a: (np.asarray(fn(a, **kw), dtype),), (x,), Tensor._wrap)[0]


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """Index of the maximum (int64; the first one among ties), over all elements when ``dim`` is None."""
    x = tensor_arg(input, "argmax")
    dim = plain_axis(dim)
    if dim is None:
        return _index_of(np.argmax, x)
    ax = normalize_axis("argmax", dim, x.ndim)[0]
    return _index_of(np.argmax, x, axis=ax, keepdims=bool(keepdim))


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    """Index of the minimum (int32, as MindSpore's ``ops.argmin`` gives; the first one among ties)."""
    x = tensor_arg(input, "argmin")
    if x._data.dtype == np.bool_:
        raise TypeError("op 'argmin': input must be a number type, got bool")
    axis = plain_axis(axis)
    if axis is None:
        return _index_of(np.argmin, x, np.int32)
    ax = normalize_axis("argmin", axis, x.ndim)[0]
    return _index_of(np.argmin, x, np.int32, axis=ax, keepdims=bool(keepdims))


def clamp(input, min=None, max=None):  # noqa: A002 - MindSpore's names
    """``input`` limited to ``[min, max]`` (numbers or Tensors; either may be None, not both)."""
    x = tensor_arg(input, "clamp")
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    from ..math.elementwise import maximum_x, minimum_x
    if min is not None:
        x = maximum_x(x, min)           # at a bound the gradient stays with x, as in MindSpore's clamp
    if max is not None:
        x = minimum_x(x, max)
    return x


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``x`` limited to ``[clip_value_min, clip_value_max]``; at a bound the gradient is split 0.5/0.5
    (``maximum``/``minimum``'s rule), as in MindSpore."""
    x = tensor_arg(x, "clip_by_value")
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("clip_by_value: at least one of clip_value_min and clip_value_max must be given")
    if clip_value_min is not None:
        x = F.maximum(x, clip_value_min)
    if clip_value_max is not None:
        x = F.minimum(x, clip_value_max)
    return x


def split(tensor, split_size_or_sections, axis=0):
    """Split along ``axis`` into chunks of ``split_size_or_sections`` (an int; the last may be
    smaller) or into pieces of the listed sizes (which must add up to the axis length)."""
    x = tensor_arg(tensor, "split")
    ax = normalize_axis("split", axis, x.ndim)[0]
    n = x.shape[ax]
    s = split_size_or_sections
    if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
        if s <= 0:
            raise ValueError(f"split: split_size_or_sections must be positive, got {s}")
        sizes = [int(s)] * (n // s) + ([n % s] if n % s else [])
    elif isinstance(s, (tuple, list)) and _bi.all(isinstance(v, (int, np.integer)) for v in s):
        sizes = [int(v) for v in s]
        if _bi.sum(sizes) != n or _bi.min(sizes, default=0) < 0:
            raise ValueError(f"split: the sizes {list(s)} must be non-negative and add up to {n}, "
                             f"the length of axis {ax}")
    else:
        raise TypeError(f"split: split_size_or_sections must be an int or a list of ints, got {s!r}")
    out, start = [], 0
    for size in sizes:
        out.append(F.getitem(x, (slice(None),) * ax + (slice(start, start + size),)))
        start += size
    return tuple(out)


def cat(tensors, axis=0):
    """``ops.cat``: the same as ``concat``."""
    return F.concat(tensors, axis)


__all__ = ["ones", "zeros", "full", "arange", "uniform", "standard_normal", "gather", "argmax", "argmin",
           "clamp", "clip_by_value", "split", "cat"]

from ..._core.registry import register_function as _register_function  # noqa: E402

_register_function("argmax", argmax)          # Tensor.argmax / Tensor.argmin call these
_register_function("argmin", argmin)
