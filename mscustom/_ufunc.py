"""NumPy ufuncs on Tensors: ``np.exp(t)``, ``ndarray * t``, ``np.maximum(0, t)`` return Tensors, taped.

``Tensor.__array_ufunc__`` maps each ufunc NumPy hands it to the mscustom op
of the same meaning, so the result is a Tensor and, under a gradient, is
recorded like the op itself. Binary operators with a NumPy array on the left
(``ndarray + t``) reach here too and give the same Tensor as ``t + ndarray``.

A ufunc with no op here (``np.floor``, ``np.arctan2``...) runs on the data and
returns a Tensor off the tape; if an input is being differentiated that
would silently drop its gradient, so it is an error naming the ufunc instead.
``out=`` writes NumPy's result into the given arrays (not while taping).

Example::

    x = ms.Tensor([1.0, 2.0])
    ms.grad(lambda t: np.sum(np.exp(t) * np.array([1.0, 3.0])))(x)
"""

import numpy as np

from ._core import tape as _tape
from ._core.functions import functions as _functions

_TABLE = {}
_TENSOR = []            # the Tensor class, given by tensor.py once it exists (this module sits below it)


def bind_tensor_class(cls):
    """Called by ``tensor.py`` after ``Tensor`` is defined (so this module never imports it)."""
    _TENSOR[:] = [cls]


def _table():
    if not _TABLE:
        F = _functions
        _TABLE.update({
            np.add: F.add, np.subtract: F.sub, np.multiply: F.mul, np.true_divide: F.div,
            np.negative: F.neg, np.positive: lambda x: x, np.power: F.pow, np.float_power: F.pow,
            np.exp: F.exp, np.log: F.log, np.sqrt: F.sqrt, np.square: F.square, np.absolute: F.abs,
            np.sign: F.sign, np.maximum: F.maximum, np.minimum: F.minimum, np.tanh: F.tanh,
            np.matmul: F.matmul, np.equal: F.equal, np.not_equal: F.not_equal, np.less: F.less,
            np.less_equal: F.less_equal, np.greater: F.greater, np.greater_equal: F.greater_equal,
            np.reciprocal: lambda x: F.div(1.0, x),
            np.expm1: lambda x: F.sub(F.exp(x), 1.0), np.log1p: lambda x: F.log(F.add(x, 1.0)),
        })
    return _TABLE


def _data(x):
    return x._data if isinstance(x, _TENSOR[0]) else x


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``Tensor.__array_ufunc__``: run ``ufunc`` as an mscustom op where one exists."""
    Tensor = _TENSOR[0]
    out = kwargs.pop("out", None)
    fn = _table().get(ufunc) if method == "__call__" else None
    simple = not kwargs or (set(kwargs) <= {"where", "casting", "order", "dtype", "subok"}
                            and kwargs.get("where", True) is True and kwargs.get("dtype") is None)
    if fn is not None and out is None and simple:
        args = [a if isinstance(a, Tensor) or np.ndim(a) == 0 and not isinstance(a, np.ndarray)
                else Tensor._wrap(np.asarray(a)) for a in inputs]
        return fn(*args)
    taped = _tape.is_recording() and any(isinstance(a, Tensor) and _tape.node_of(a) is not None for a in inputs)
    if taped:
        raise TypeError(f"np.{ufunc.__name__}{'' if method == '__call__' else '.' + method} on a Tensor that "
                        "is being differentiated has no gradient here (no mscustom op matches it"
                        f"{' with these arguments' if fn is not None else ''}); use mscustom.ops, or apply it "
                        "to t.asnumpy() outside the gradient")
    raw = [_data(a) for a in inputs]
    if out is not None:
        kwargs["out"] = tuple(_data(o) for o in out)
    result = getattr(ufunc, method)(*raw, **kwargs)
    if out is not None:
        return out[0] if len(out) == 1 else out
    if isinstance(result, tuple):
        return tuple(Tensor._wrap(np.asarray(r)) for r in result)
    return Tensor._wrap(np.asarray(result)) if isinstance(result, np.ndarray) or np.ndim(result) == 0 else result
