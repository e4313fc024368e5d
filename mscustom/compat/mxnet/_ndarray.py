"""The ``NDArray`` class: a Tensor with MXNet's gradient buffer, context, storage type and sync points.

An ``NDArray`` is an mscustom ``Tensor``: every op and the tape work on it
unchanged. ``attach_grad()`` puts it on the tape as a leaf and gives it a
``grad`` buffer; ``backward()`` on a result runs the core's backward pass and
writes (or, with ``grad_req="add"``, adds) the gradients into the buffers of
every attached array it reaches.

As in MXNet, ``asnumpy()`` returns a copy, and ``asnumpy`` / ``wait_to_read``
are synchronisation points: an error raised inside the op that produced the
array is raised there, as ``MXNetError`` (see ``mx.base``). Only the
``default`` storage type exists here; ``csr`` / ``row_sparse`` are refused
with an error that says so.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.tape import STATE as _STATE
from ..._core.functions import functions as _F
from ...tensor import Tensor
from . import autograd as _autograd
from . import base as _base
from .context import Context, current_context

__all__ = ["NDArray", "wrap", "as_nd", "array", "STORAGE_TYPES"]

STORAGE_TYPES = ("default", "csr", "row_sparse")
_DATA_SLOT = Tensor.__dict__["_data"]            # the raw slot, readable while an array is marked failed
SPARSE = {}                 # "tostype", "zeros": filled in by ``_sparse`` (which builds on this module)


def check_stype(stype, where):
    """The storage type ``stype`` names (None: ``'default'``); a clear error for an unknown one."""
    if stype is None:
        return "default"
    if stype in STORAGE_TYPES:
        return stype
    raise ValueError(f"{where}: unknown storage type {stype!r}; expected one of {list(STORAGE_TYPES)}")


class NDArray(Tensor):
    """An MXNet-style array: a Tensor plus ``attach_grad`` / ``grad`` / ``backward`` / ``context``.

    ``dtype`` is the NumPy type (``np.float32``) as in MXNet; ``shape`` is a tuple.
    Built from anything but an NDArray (or Tensor), the dtype defaults to float32, as
    ``mx.nd.array`` does in MXNet (pass ``dtype=np.float64`` to keep doubles).
    """

    __slots__ = ("_grad", "_grad_req", "_assigned", "_leaf", "_role", "_ctx")

    def __init__(self, source, dtype=None, ctx=None):
        arr = source._data if isinstance(source, Tensor) else np.asarray(source)
        if dtype is None and not isinstance(source, Tensor):
            dtype = np.float32                # MXNet's default (mx_real_t) for lists, scalars and arrays
        super().__init__(arr, dtype=dtype)
        self._grad, self._grad_req, self._assigned, self._leaf, self._role = None, "null", False, None, None
        self._ctx = ctx

    # ------------------------------------------------------------ MXNet surface
    @property
    def dtype(self):
        return _DATA_SLOT.__get__(self).dtype.type

    @property
    def shape(self):
        return tuple(_DATA_SLOT.__get__(self).shape)

    @property
    def size(self):
        return int(_DATA_SLOT.__get__(self).size)

    @property
    def ndim(self):
        return _DATA_SLOT.__get__(self).ndim

    @property
    def context(self):
        return self._ctx if self._ctx is not None else Context("cpu", 0)

    ctx = context

    @property
    def stype(self):
        """The storage type: ``'default'`` (dense); sparse arrays are ``CSRNDArray`` / ``RowSparseNDArray``."""
        return "default"

    def tostype(self, stype):
        """A copy in storage type ``stype`` ('default', 'csr' or 'row_sparse')."""
        if check_stype(stype, "NDArray.tostype") == "default":
            return wrap(self.asnumpy(), ctx=self._ctx)
        return SPARSE["tostype"](self, stype)

    def attach_grad(self, grad_req="write", stype=None):
        """Give this array a zero ``grad`` buffer (of storage type ``stype``) and make it a gradient target."""
        if check_stype(stype, "NDArray.attach_grad") == "default":
            buf = wrap(np.zeros_like(self._data), ctx=self._ctx)
        else:
            buf = SPARSE["zeros"](stype, self.shape, ctx=self._ctx, dtype=self.dtype)
        _autograd.attach(self, grad_req, buf)

    @property
    def grad(self):
        return self._grad

    def detach(self):
        """The same data, off the tape."""
        return wrap(self._data, ctx=self._ctx)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Back-propagate from this array into every attached array it depends on.

        ``out_grad``: the head gradient (ones when None).
        """
        _autograd.backward([self], None if out_grad is None else [out_grad])

    # ------------------------------------------------------------ synchronisation
    def wait_to_read(self):
        """Wait for the array to be computed; raises ``MXNetError`` if the op that wrote it failed."""

    def asnumpy(self):
        """A NumPy copy of the data (a synchronisation point, as in MXNet)."""
        self.wait_to_read()
        if _STATE.capture is not None:            # read into Python while graph mode records: say so
            _capture.host_read(self, "array")
        return self._data.copy()

    numpy = asnumpy

    def asscalar(self):
        if self.size != 1:
            raise ValueError(f"NDArray.asscalar: the array must have exactly one element, got shape {self.shape}")
        return self.asnumpy().reshape(()).item()

    def _fail(self):
        """Mark this array as written by a failed op (see ``mx.base``)."""
        self.__class__ = _Failed

    # ------------------------------------------------------------ copies and devices
    def copyto(self, other):
        """Copy into the NDArray ``other``, or to a new array on the Context ``other``."""
        if isinstance(other, NDArray):
            if other.shape != self.shape:
                raise ValueError(f"NDArray.copyto: shapes differ, {self.shape} into {other.shape}")
            np.copyto(other._data, self._data, casting="unsafe")
            return other
        if isinstance(other, Context):
            return wrap(self._data.copy(), ctx=other)
        raise TypeError(f"NDArray.copyto: expected an NDArray or a Context, got {type(other).__name__}")

    def as_in_context(self, context):
        """This array when already on ``context``, else a copy there."""
        return self if context == self.context else self.copyto(context)

    as_in_ctx = as_in_context

    def copy(self):
        return wrap(self._data.copy(), ctx=self._ctx)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self._data.dtype:
            return self
        return as_nd(Tensor.astype(self, np.dtype(dtype)))

    def reshape(self, *shape, **kwargs):
        shape = kwargs.get("shape", shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)
        src = self._data.shape
        shape = [src[i] if d == 0 else d for i, d in enumerate(shape)]      # MXNet: 0 keeps that dimension
        return as_nd(Tensor.reshape(self, tuple(shape)))

    def __repr__(self):
        return f"\n{self._data}\n<NDArray {'x'.join(map(str, self._data.shape)) or '0-d'} @{self.context}>"

    __str__ = __repr__

    def __setitem__(self, index, value):
        """Write in place (what ``out_data[0][:] = ...`` in a CustomOp's forward does)."""
        try:
            Tensor.__setitem__(self, index, value)
        except ValueError as exc:
            if self._role is None:
                raise
            op_type, label = self._role
            raise ValueError(f"op '{op_type}': could not write into {label}, whose inferred shape is "
                             f"{list(self._data.shape)}: {exc}") from None
        self._assigned = True

    def _inplace(self, other, fn):
        value = other._data if isinstance(other, Tensor) else other
        fn(self._data, value, out=self._data, casting="same_kind")
        return self

    def __iadd__(self, other):
        return self._inplace(other, np.add)

    def __isub__(self, other):
        return self._inplace(other, np.subtract)

    def __imul__(self, other):
        return self._inplace(other, np.multiply)

    def __itruediv__(self, other):
        return self._inplace(other, np.true_divide)


class _Failed(NDArray):
    """An NDArray written by an op that failed: reading it raises that op's ``MXNetError`` once.

    The first synchronisation (``wait_to_read``, ``asnumpy``, ``mx.nd.waitall``)
    raises the error and turns every array of the failed op back into a plain
    NDArray holding its earlier data; using it in another op raises too.
    """

    __slots__ = ()

    @property
    def _data(self):
        err = _base.peek(self)
        if err is None:                       # reported already (e.g. by waitall)
            self.__class__ = NDArray
            return _DATA_SLOT.__get__(self)
        raise err

    @_data.setter
    def _data(self, value):
        _DATA_SLOT.__set__(self, value)

    def wait_to_read(self):
        found = _base.take(self)
        restore(found[1] if found else [self])
        if found:
            raise found[0]


def restore(arrays):
    """Turn arrays marked failed back into plain NDArrays (their error was reported)."""
    for a in arrays:
        if a is not None and type(a) is _Failed:
            a.__class__ = NDArray


def wrap(array, like=None, role=None, ctx=None):
    """An NDArray around ``array`` (no copy); ``like`` lends its tape position.

    ``role``: ``(op_type, label)`` for the views a CustomOp's forward/backward
    writes into, so errors can say which op and which output went wrong.
    """
    n = object.__new__(NDArray)
    n._data = array
    n._format = like._format if like is not None else "DefaultFormat"
    n._node = like._node if like is not None else None
    n._oidx = like._oidx if like is not None else 0
    n._grad, n._grad_req, n._assigned, n._leaf, n._role = None, "null", False, None, role
    n._ctx = ctx if ctx is not None else getattr(like, "_ctx", None)
    return n


def as_nd(value):
    """Results of Tensor methods and ops come back as NDArrays (sharing data and tape position)."""
    if isinstance(value, NDArray):
        return value
    if isinstance(value, Tensor):
        return wrap(value._data, value)
    if isinstance(value, tuple):
        return tuple(as_nd(v) for v in value)
    if isinstance(value, list):
        return [as_nd(v) for v in value]
    return value


def _returning_nd(name):
    method = getattr(Tensor, name)

    def wrapper(self, *args, **kwargs):
        return as_nd(method(self, *args, **kwargs))

    wrapper.__name__ = name
    wrapper.__doc__ = method.__doc__
    return wrapper


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__",
              "__abs__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
              "sum", "mean", "max", "min", "transpose", "flatten", "squeeze", "expand_dims",
              "exp", "log", "sqrt", "abs", "square", "argmax", "argmin"):
    setattr(NDArray, _name, _returning_nd(_name))


def _mx_reduction(name, reduce):
    """MXNet's reductions keep the input's dtype and share the gradient among tied maxima (mscustom's
    Tensor methods follow MindSpore: integer sums to int64, the first maximum for an int axis)."""
    def method(self, axis=None, keepdims=False):
        return as_nd(getattr(_F, reduce)(self, axis, keepdims))
    method.__name__ = name
    return method


def _mx_index(name):
    def method(self, axis=None):
        return as_nd(_F.cast(getattr(_F, name)(self, axis), np.int64))
    method.__name__ = name
    return method


for _name, _reduce in (("sum", "reduce_sum"), ("max", "reduce_max"), ("min", "reduce_min")):
    setattr(NDArray, _name, _mx_reduction(_name, _reduce))
NDArray.argmax, NDArray.argmin = _mx_index("argmax"), _mx_index("argmin")
NDArray.T = property(lambda self: as_nd(Tensor.T.fget(self)))
NDArray.__hash__ = object.__hash__           # __eq__ is elementwise; arrays stay usable in sets
NDArray.__div__ = NDArray.__truediv__


def array(source_array, ctx=None, dtype=None):
    """An NDArray copy of ``source_array``; float32 unless ``dtype`` says otherwise or it is an NDArray.

    Example::

        mx.nd.array([1, 2]).dtype                        # numpy.float32, as in MXNet
        mx.nd.array(np.ones(2), dtype=np.float64).dtype  # numpy.float64
    """
    if isinstance(source_array, Tensor):
        src = source_array.asnumpy() if isinstance(source_array, NDArray) else source_array._data.copy()
        return NDArray(src, dtype=src.dtype if dtype is None else dtype, ctx=ctx or current_context())
    return NDArray(np.array(source_array), dtype=dtype, ctx=ctx or current_context())
