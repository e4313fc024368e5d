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
    """A Tensor for ``x``; a Python number becomes a 0-d array of NumPy's type (float64 for floats)."""
    if isinstance(x, Tensor):
        return x
    return Tensor._wrap(_np.asarray(x))


def _pair(a, b):
    """Two operands; a Python number next to a Tensor takes its dtype (as NumPy does for float arrays)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return a, b
    return _t(a), _t(b)


def _cast(x, dtype):
    if dtype is None or not isinstance(x, Tensor) or x._data.dtype == _np.dtype(dtype):
        return x
    return _F.cast(x, _np.dtype(dtype))


def _write_out(name, result, out):
    """NumPy's ``out=``: the result written into ``out`` (a minpy array or a NumPy array), which is returned.

    A minpy ``out`` also takes the result's place on the tape, so a gradient flows through it.
    """
    if out is None:
        return result
    if isinstance(out, tuple):
        if len(out) != 1:
            raise TypeError(f"minpy.numpy.{name}: out= must be one array, got a tuple of {len(out)}")
        out = out[0]
    target = out._data if isinstance(out, Tensor) else out
    if not isinstance(target, _np.ndarray):
        raise TypeError(f"minpy.numpy.{name}: out= must be an array, got {type(out).__name__}")
    value = result._data
    if target.shape != value.shape:
        raise ValueError(f"minpy.numpy.{name}: out= has shape {target.shape}, the result has shape {value.shape}")
    try:
        _np.copyto(target, value, casting="same_kind")
    except TypeError:
        raise TypeError(f"minpy.numpy.{name}: cannot write the {value.dtype} result into out= of dtype "
                        f"{target.dtype} (casting rule 'same_kind')") from None
    if isinstance(out, Tensor):
        out._node, out._oidx = result._node, result._oidx
    return out


def _check_kwargs(name, kwargs):
    if kwargs:
        raise TypeError(f"minpy.numpy.{name}: unsupported keyword argument(s) {sorted(kwargs)}; this function "
                        "takes out= and dtype= (reductions also axis= and keepdims=)")


def _unary(name, fn):
    def ufunc(x, out=None, dtype=None, **kwargs):
        _check_kwargs(name, kwargs)
        return _write_out(name, fn(_cast(_t(x), dtype)), out)
    ufunc.__name__ = name
    ufunc.__doc__ = f"NumPy's ``{name}``, taped (``out=``, ``dtype=`` as in NumPy)."
    return ufunc


def _binary(name, fn):
    def ufunc(a, b, out=None, dtype=None, **kwargs):
        _check_kwargs(name, kwargs)
        a, b = _pair(a, b)
        if dtype is not None:
            a, b = _cast(_t(a), dtype), _cast(_t(b), dtype)
        return _write_out(name, fn(a, b), out)
    ufunc.__name__ = name
    ufunc.__doc__ = f"NumPy's ``{name}``, taped (``out=``, ``dtype=`` as in NumPy)."
    return ufunc


add = _binary("add", _F.add)
subtract = _binary("subtract", _F.sub)
multiply = _binary("multiply", _F.mul)
divide = true_divide = _binary("divide", _F.div)
power = _binary("power", _F.pow)
maximum = _binary("maximum", _F.maximum)
minimum = _binary("minimum", _F.minimum)
negative = _unary("negative", _F.neg)
exp = _unary("exp", _F.exp)
log = _unary("log", _F.log)
sqrt = _unary("sqrt", _F.sqrt)
square = _unary("square", _F.square)
abs = absolute = _unary("absolute", _F.abs)              # noqa: A001
tanh = _unary("tanh", _F.tanh)
sign = _unary("sign", _F.sign)


def dot(a, b, out=None):
    """Matrix product (1-D / 2-D, and N-D x 2-D over the last axis), taped; ``out=`` as in NumPy."""
    a, b = _t(a), _t(b)
    if a.ndim > 2 and b.ndim <= 2:
        lead = a._data.shape[:-1]
        r = _F.matmul(_F.reshape(a, (-1, a._data.shape[-1])), b)
        return _write_out("dot", _F.reshape(r, lead + r._data.shape[1:]), out)
    return _write_out("dot", _F.matmul(a, b), out)


def matmul(a, b, out=None, **kwargs):
    _check_kwargs("matmul", kwargs)
    return dot(a, b, out=out)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _reduction(name, fn, with_dtype):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        _check_kwargs(name, kwargs)
        x = _t(a)
        if with_dtype:
            if dtype is None and name == "mean" and x._data.dtype.kind in "biu":
                dtype = _np.float64                  # NumPy's mean of integers is float64
            x = _cast(x, dtype)
        elif dtype is not None:
            raise TypeError(f"minpy.numpy.{name}: no dtype= (NumPy's {name} takes none)")
        return _write_out(name, fn(x, _axis(axis), bool(keepdims)), out)
    reduce.__name__ = name
    reduce.__doc__ = (f"NumPy's ``{name}``, taped: ``axis``, " + ("``dtype``, " if with_dtype else "") +
                      "``out``, ``keepdims`` as in NumPy.")
    return reduce


sum = _reduction("sum", _F.reduce_sum, True)            # noqa: A001
mean = _reduction("mean", _F.reduce_mean, True)
max = _reduction("max", _F.reduce_max, False)            # noqa: A001
min = _reduction("min", _F.reduce_min, False)            # noqa: A001
amax, amin = max, min


def reshape(a, newshape, order="C"):
    return _F.reshape(_t(a), tuple(newshape) if not isinstance(newshape, int) else (newshape,))


def transpose(a, axes=None):
    return _F.transpose(_t(a), None if axes is None else tuple(axes))


def expand_dims(a, axis):
    return _F.expand_dims(_t(a), axis)


def concatenate(arrays, axis=0, out=None, dtype=None):
    return _write_out("concatenate", _F.concat([_cast(_t(a), dtype) for a in arrays], axis=axis), out)


def stack(arrays, axis=0, out=None, dtype=None):
    return _write_out("stack", _F.stack([_cast(_t(a), dtype) for a in arrays], axis=axis), out)


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


def _float32_default(name):
    """NumPy's ``name`` giving float32 arrays unless ``dtype=`` says otherwise, as minpy's (MXNet-backed) does."""
    fn = _pass_through(name, getattr(_np, name))

    def create(*args, dtype=None, **kwargs):
        return fn(*args, dtype=_np.float32 if dtype is None else dtype, **kwargs)
    create.__name__ = name
    create.__doc__ = (f"NumPy's ``{name}``, float32 unless ``dtype=`` is given (minpy's default: its arrays are "
                      "MXNet's), not differentiated.")
    return create


# minpy creates these through MXNet, so they are float32 by default (ints too); ``asarray`` stays NumPy's
for _name in ("array", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "identity"):
    globals()[_name] = _float32_default(_name)
del _name


def __getattr__(name):
    try:
        value = getattr(_np, name)
    except AttributeError:
        raise AttributeError(f"module 'minpy.numpy' has no attribute {name!r} (NumPy has none either)") from None
    if callable(value) and not isinstance(value, type):
        value = _pass_through(name, value)
    globals()[name] = value
    return value
