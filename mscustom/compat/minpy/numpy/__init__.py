"""``minpy.numpy``: NumPy's namespace where differentiable functions record on mscustom's tape.

``import mscustom.compat.minpy.numpy as np`` and write NumPy: the functions
below are mscustom ops (so ``minpy.core.grad`` differentiates them); every
other NumPy name passes through to NumPy, with arrays converted to NumPy and
array results returned as minpy arrays (mscustom Tensors) off the tape.
A pass-through function applied to an array that is being differentiated is
an error naming it, rather than a silently missing gradient.

Example::

    import mscustom.compat.minpy.numpy as np
    from mscustom.compat.minpy.core import grad
    grad(lambda x: np.sum(np.maximum(0, np.dot(x, x.T))))(np.random.randn(3, 2))
"""

import numpy as _np

from ...._core import autodiff as _ad
from ....ops import functional as _F
from ....tensor import Tensor
from . import random  # noqa: F401

_DIFFERENTIABLE = ("add", "subtract", "multiply", "divide", "true_divide", "negative", "power", "exp", "log",
                   "sqrt", "square", "abs", "absolute", "maximum", "minimum", "tanh", "dot", "matmul", "sum",
                   "mean", "max", "min", "amax", "amin", "reshape", "transpose", "expand_dims", "concatenate",
                   "stack", "append", "where", "sign")


def _t(x):
    if isinstance(x, Tensor):
        return x
    return Tensor._wrap(_np.asarray(x)) if not _np.isscalar(x) else x


def _pair(a, b):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = _t(a)
    return a, b


add = lambda a, b: _F.add(*_pair(a, b))                  # noqa: E731
subtract = lambda a, b: _F.sub(*_pair(a, b))             # noqa: E731
multiply = lambda a, b: _F.mul(*_pair(a, b))             # noqa: E731
divide = true_divide = lambda a, b: _F.div(*_pair(a, b))  # noqa: E731
power = lambda a, b: _F.pow(*_pair(a, b))                # noqa: E731
maximum = lambda a, b: _F.maximum(*_pair(a, b))          # noqa: E731
minimum = lambda a, b: _F.minimum(*_pair(a, b))          # noqa: E731
negative = lambda x: _F.neg(_t(x))                       # noqa: E731
exp = lambda x: _F.exp(_t(x))                            # noqa: E731
log = lambda x: _F.log(_t(x))                            # noqa: E731
sqrt = lambda x: _F.sqrt(_t(x))                          # noqa: E731
square = lambda x: _F.square(_t(x))                      # noqa: E731
abs = absolute = lambda x: _F.abs(_t(x))                 # noqa: E731,A001
tanh = lambda x: _F.tanh(_t(x))                          # noqa: E731
sign = lambda x: _F.sign(_t(x))                          # noqa: E731


def dot(a, b):
    """Matrix product (1-D / 2-D, and N-D x 2-D over the last axis), taped."""
    a, b = _t(a), _t(b)
    if a.ndim > 2 and b.ndim <= 2:
        lead = a._data.shape[:-1]
        r = _F.matmul(_F.reshape(a, (-1, a._data.shape[-1])), b)
        return _F.reshape(r, lead + r._data.shape[1:])
    return _F.matmul(a, b)


matmul = dot


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def sum(a, axis=None, keepdims=False, **kwargs):        # noqa: A001
    return _F.reduce_sum(_t(a), _axis(axis), keepdims)


def mean(a, axis=None, keepdims=False, **kwargs):
    t = _t(a)
    if not t.dtype.name.startswith("float"):
        t = _F.cast(t, "float32")       # NumPy averages integers to floats (mscustom's reduce_mean keeps them)
    return _F.reduce_mean(t, _axis(axis), keepdims)


def max(a, axis=None, keepdims=False, **kwargs):        # noqa: A001
    return _F.reduce_max(_t(a), _axis(axis), keepdims)


def min(a, axis=None, keepdims=False, **kwargs):        # noqa: A001
    return _F.reduce_min(_t(a), _axis(axis), keepdims)


amax, amin = max, min


def reshape(a, newshape, order="C"):
    return _F.reshape(_t(a), tuple(newshape) if not isinstance(newshape, int) else (newshape,))


def transpose(a, axes=None):
    return _F.transpose(_t(a), None if axes is None else tuple(axes))


def expand_dims(a, axis):
    return _F.expand_dims(_t(a), axis)


def concatenate(arrays, axis=0):
    return _F.concat([_t(a) for a in arrays], axis=axis)


def stack(arrays, axis=0):
    return _F.stack([_t(a) for a in arrays], axis=axis)


def append(arr, values, axis=None):
    if axis is None:
        return concatenate([reshape(arr, -1), reshape(values, -1)])
    return concatenate([arr, values], axis=axis)


def where(condition, x, y):
    return _F.where(_t(condition), _t(x), _t(y))


def onehot_encode(indices, out):
    """minpy's helper: write the one-hot rows of ``indices`` into ``out`` (N, C)."""
    idx = _np.asarray(indices._data if isinstance(indices, Tensor) else indices).astype(_np.int64)
    data = out._data if isinstance(out, Tensor) else out
    data[...] = 0
    data[_np.arange(len(idx)), idx] = 1
    return out


def _raw(x):
    if isinstance(x, Tensor):
        if _ad.is_recording() and _ad.node_of(x) is not None:
            raise _PassThroughOnTape(x)
        return x._data
    if isinstance(x, (list, tuple)):
        return type(x)(_raw(v) for v in x)
    return x


class _PassThroughOnTape(Exception):
    pass


def _pass_through(name, fn):
    def call(*args, **kwargs):
        try:
            raw_args = [_raw(a) for a in args]
            raw_kwargs = {k: _raw(v) for k, v in kwargs.items()}
        except _PassThroughOnTape:
            raise TypeError(f"minpy.numpy.{name} has no gradient here; it was applied to an array being "
                            f"differentiated. Differentiable functions: {', '.join(_DIFFERENTIABLE)}") from None
        result = fn(*raw_args, **raw_kwargs)
        if isinstance(result, _np.ndarray):
            return Tensor._wrap(result)
        if isinstance(result, tuple) and all(isinstance(r, _np.ndarray) for r in result):
            return tuple(Tensor._wrap(r) for r in result)
        return result
    call.__name__ = name
    call.__doc__ = f"NumPy's ``{name}`` on minpy arrays (not differentiated)."
    return call


def __getattr__(name):
    try:
        value = getattr(_np, name)
    except AttributeError:
        raise AttributeError(f"module 'minpy.numpy' has no attribute {name!r} (NumPy has none either)") from None
    if callable(value) and not isinstance(value, type):
        value = _pass_through(name, value)
    globals()[name] = value
    return value
