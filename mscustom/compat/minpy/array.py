"""``minpy.array``: minpy's value types, ``Value``, ``Number`` and ``Array``, and ``wrap``.

In minpy every value a ``minpy.numpy`` function returns is a ``Value``: a
scalar result is a ``Number`` (a ``float`` carrying gradient information), an
array result an ``Array``. Here minpy's arrays are mscustom Tensors, so these
names describe Tensors as minpy would:

- ``isinstance(v, Number)``: a Python / NumPy number, a ``Number``, or a 0-d
  Tensor (what ``np.sum(x)`` returns here);
- ``isinstance(v, Array)``: a Tensor of one or more dimensions;
- ``isinstance(v, Value)``: either.

``Number(3.0)`` is a ``float`` (with minpy's ``val`` / ``asnumpy()``),
``Array(data)`` builds a minpy array (a Tensor), ``wrap(data)`` turns NumPy
arrays and numbers into them.

Example::

    from mscustom.compat.minpy.array import Number
    isinstance(np.sum(np.ones((2, 2))), Number)       # True (np: minpy.numpy)
"""

import numbers

import numpy as _np

from ...tensor import Tensor

__all__ = ["Value", "Number", "Array", "wrap"]


def _is_number(v):
    if isinstance(v, Tensor):
        return v._data.ndim == 0
    return isinstance(v, (numbers.Number, _np.number)) and not isinstance(v, bool)


def _is_array(v):
    return isinstance(v, Tensor) and v._data.ndim > 0


class _ValueKind(type):
    """Membership by minpy's meaning (a Tensor is an Array or a Number), not only by subclassing."""

    def __instancecheck__(cls, obj):
        if type.__instancecheck__(cls, obj):
            return True
        test = cls.__dict__.get("_member")
        return test is not None and test(obj)


class Value(metaclass=_ValueKind):
    """Any minpy value: a ``Number`` or an ``Array``."""

    _member = staticmethod(lambda v: _is_number(v) or _is_array(v))

    @property
    def context(self):
        from ..mxnet.context import current_context
        return current_context()

    def wait_to_read(self):
        """Values are computed eagerly here: nothing to wait for."""


class Number(Value, float):
    """A scalar value: a ``float`` with minpy's ``val``, ``asnumpy()`` and ``get_data()``."""

    _member = staticmethod(_is_number)

    def __new__(cls, val, context=None):
        obj = float.__new__(cls, float(val))
        obj._val = val
        return obj

    @property
    def val(self):
        """The number this was made from."""
        return self._val

    def asnumpy(self):
        return self._val

    def get_data(self, dtype=None):
        return self._val

    def __repr__(self):
        return repr(self._val)

    def __str__(self):
        return str(self._val)


class Array(Value):
    """An array value; ``Array(data)`` returns a minpy array (an mscustom Tensor) holding ``data``."""

    _member = staticmethod(_is_array)

    def __new__(cls, data, atype=None, context=None):
        if isinstance(data, Tensor):
            return data
        return Tensor._wrap(_np.array(data))


def wrap(data):
    """minpy's wrapper for ``data``: numbers become ``Number``s, NumPy arrays and lists minpy arrays.

    Tensors (and values already wrapped) are returned as they are; other
    objects too, as in minpy.
    """
    if isinstance(data, (Tensor, Number)):
        return data
    if isinstance(data, (numbers.Number, _np.number)) and not isinstance(data, bool):
        return Number(data)
    if isinstance(data, (_np.ndarray, list, tuple)):
        return Tensor._wrap(_np.asarray(data))
    return data
