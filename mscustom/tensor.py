"""Tensor and Parameter: an array (NumPy on the host) with a dtype and a format tag.

Every arithmetic operator and method below calls the functional op of that
name from the core's table (``_core.functions``, filled by
``mscustom.ops``), so whatever a user writes with Tensors is dispatched and
differentiable, and this module never imports the ops layer.
"""

import types as _types

import numpy as np

from . import _ufunc
from . import dtype as _dt
from ._core import capture as _capture
from ._core.functions import functions as _F
from ._core.functions import watch as _watch_functions
from ._core.functions import METHODS as _REGISTERED_METHODS
from ._core import deferred as _deferred
from ._deferred_methods import NAMES as _DEFERRED_METHODS
from ._core.tape import STATE as _STATE

from .formats import DEFAULT_FORMAT, FORMATS


def _array_from(data, dtype):
    """Build the backing array for ``Tensor(data, dtype)`` with MindSpore's typing rules."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray) or isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        if data is None:
            raise TypeError("Tensor: input_data is None; give an array, a list or a scalar")
        try:
            arr = np.asarray(data)
        except ValueError as exc:
            raise ValueError(f"Tensor: cannot build a tensor from {type(data).__name__}: {exc}") from None
        if arr.dtype == np.float64:     # Python floats become float32, as in MindSpore
            arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu" and arr.dtype != np.int64:
            arr = arr.astype(np.int64)
    if dtype is not None:
        target = _dt.to_numpy(dtype)
        if arr.dtype != target:
            arr = arr.astype(target)
    _dt.from_numpy(arr.dtype)           # raises TypeError for unsupported dtypes
    return np.array(arr, copy=True, order="C")


def _copy_into(dst, src):
    np.copyto(dst, src, casting="unsafe")


class _CopyConstant:
    """``Tensor.copy_`` of a non-Tensor value: the value is kept (as an array) for every replay."""

    def __init__(self, array):
        self.array = np.array(array, copy=True)

    def __call__(self, dst):
        np.copyto(dst, self.array, casting="unsafe")


class Tensor:
    """An n-dimensional array that the operator core can run ops on and differentiate.

    Example::

        x = ms.Tensor([1.0, 2.0, 3.0])      # float32, as in MindSpore
        y = (x * x).sum()                    # Tensor(14.0)
    """

    __slots__ = ("_data", "_format", "_node", "_oidx", "__weakref__")
    __array_priority__ = 1000
    __array_ufunc__ = _ufunc.array_ufunc      # NumPy ufuncs run as mscustom ops (taped)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, format=None):
        if input_data is None and (shape is not None or dtype is not None) and init is None and \
                (shape is None or _has_unknown(shape)):
            self._data = _NoData(shape, dtype)      # a placeholder: Tensor(shape=[None, 3], dtype=...)
            self._format = DEFAULT_FORMAT if format is None else _check_format(format)
            self._node = None
            self._oidx = 0
            return
        if init is not None and input_data is not None:
            raise ValueError("Tensor: give either input_data or init (with shape and dtype), not both")
        if init is not None and not isinstance(init, str) and (dtype is None or shape is None):
            raise ValueError("Tensor: init, dtype and shape must be given together, e.g. "
                             "Tensor(shape=(2, 3), dtype=ms.float32, init=One())")
        if input_data is None and shape is not None:
            np_dtype = _dt.to_numpy(dtype if dtype is not None else _dt.float32)
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            if _has_unknown(shape):
                raise ValueError(f"Tensor: init={init!r} cannot fill a shape with unknown dimensions "
                                 f"{[-1 if d is None else d for d in shape]}; leave init=None for a placeholder")
            if init is None or (isinstance(init, str) and init == "zeros"):
                input_data = np.zeros(shape, np_dtype)
            elif isinstance(init, str) and init == "ones":
                input_data = np.ones(shape, np_dtype)
            else:
                input_data = _initialized(init, shape, np_dtype)
        self._data = _array_from(input_data, dtype)
        self._format = DEFAULT_FORMAT if format is None else _check_format(format)
        self._node = None
        self._oidx = 0
        if _STATE.capture is not None and isinstance(input_data, Tensor):
            # Tensor(traced) in a graph-mode capture: a copy that every replay makes again
            cap = _STATE.capture
            if cap.traced(input_data):
                cap.add_host(lambda a: (_array_from(a, dtype),), [input_data], [self])

    @staticmethod
    def _wrap(array, fmt=DEFAULT_FORMAT):
        """Wrap an array the core produced, with no copy and no checks (hot path; always a plain
        Tensor, also when called on a Parameter)."""
        t = object.__new__(Tensor)
        t._data = array
        t._format = fmt
        t._node = None
        t._oidx = 0
        return t

    # ----------------------------------------------------------------- properties
    @property
    def shape(self):
        try:
            return self._data.shape
        except PlaceholderError:
            return self._data.declared_shape()     # -1 per unknown dimension, (-2,) for unknown rank

    @property
    def dtype(self):
        try:
            return _dt.from_numpy(self._data.dtype)
        except PlaceholderError:
            return self._data.declared_dtype()

    @property
    def ndim(self):
        try:
            return self._data.ndim
        except PlaceholderError:
            shape = self._data.declared_shape()
            return -2 if shape == (-2,) else len(shape)

    @property
    def size(self):
        return self._data.size

    @property
    def format(self):
        return self._format

    def set_format(self, fmt):
        """Tag the layout of this tensor's data ("NCHW", "NHWC" or "DefaultFormat")."""
        self._format = _check_format(fmt)
        return self

    @property
    def T(self):
        return _F.transpose(self)

    def asnumpy(self):
        """The tensor's data as a NumPy array (shared with the tensor, as in MindSpore on CPU)."""
        data = self._data
        if type(data) is _NoData:
            raise PlaceholderError(f"Tensor.asnumpy: {placeholder_message(data)}")
        if _STATE.capture is not None:
            _capture.host_read(self, "array")
        return data

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        data = self.asnumpy()            # (a placeholder raises; a graph capture records the read)
        return data if dtype is None else data.astype(dtype)

    def item(self):
        if self._data.size != 1:
            raise ValueError(f"Tensor.item: only a tensor with one element can be converted, got shape {self.shape}")
        value = self._data.item()
        if _STATE.capture is not None:
            _capture.host_read(self, "item", value)
        return value

    def tolist(self):
        if _STATE.capture is not None:
            _capture.host_read(self, "array")
        return self._data.tolist()

    def astype(self, dtype):
        return _F.cast(self, dtype)

    def copy(self):
        if _STATE.capture is not None:
            return _capture.host_op(_copy_array, (self,), lambda a: Tensor._wrap(a, self._format))[0]
        return Tensor._wrap(self._data.copy(), self._format)

    def __repr__(self):
        """MindSpore's layout: ``Tensor(shape=[2], dtype=Float32, value= [1, 2])``, the value on its own
        lines from two dimensions up. Numbers are formatted by NumPy (MindSpore's C++ printer differs in
        digits)."""
        if type(self._data) is _NoData:
            return f"Tensor(shape={list(self.shape)}, dtype={_ms_dtype_name(self.dtype)}, value=<no data>)"
        body = np.array2string(self._data, separator=", ")
        sep = "\n" if self._data.ndim > 1 else " "
        return f"Tensor(shape={list(self.shape)}, dtype={_ms_dtype_name(self.dtype)}, value={sep}{body})"

    def __str__(self):
        """What ``print(tensor)`` shows in MindSpore: the values alone, as NumPy prints them."""
        if type(self._data) is _NoData:
            return repr(self)
        return str(self._data)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self._data.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self):
        if self._data.size != 1:
            raise ValueError(f"The truth value of a Tensor with shape {self.shape} is ambiguous; "
                             "use .any() or .all() on its asnumpy(), or reduce it first")
        value = bool(self._data)
        if _STATE.capture is not None:
            _capture.host_read(self, "bool", value)
        return value

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def _scalar(self, how):
        if self._data.size != 1:
            raise ValueError(f"Tensor: only a tensor with one element can be converted to {how}, "
                             f"got shape {self.shape}")
        value = self._data.item()
        if _STATE.capture is not None:
            value = float(value) if how == "float" else int(value)
            _capture.host_read(self, how, value)
        return value

    def __index__(self):
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError(f"only an integer Tensor with one element can be used as an index, got {self.dtype} {self.shape}")
        return int(self._scalar("int"))

    __hash__ = object.__hash__

    # ----------------------------------------------------------------- operators
    def __add__(self, other):
        return _F.add(self, other)

    def __radd__(self, other):
        return _F.add(other, self)

    def __sub__(self, other):
        return _F.sub(self, other)

    def __rsub__(self, other):
        return _F.sub(other, self)

    def __mul__(self, other):
        return _F.mul(self, other)

    def __rmul__(self, other):
        return _F.mul(other, self)

    def __truediv__(self, other):
        return _F.div(self, other)

    def __rtruediv__(self, other):
        return _F.div(other, self)

    def __pow__(self, other):
        return _F.pow(self, other)

    def __rpow__(self, other):
        return _F.pow(other, self)

    def __matmul__(self, other):
        return _F.matmul(self, other)

    def __rmatmul__(self, other):
        return _F.matmul(other, self)

    def __neg__(self):
        return _F.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _F.abs(self)

    def __eq__(self, other):
        return _F.equal(self, other)

    def __ne__(self, other):
        return _F.not_equal(self, other)

    def __lt__(self, other):
        return _F.less(self, other)

    def __le__(self, other):
        return _F.less_equal(self, other)

    def __gt__(self, other):
        return _F.greater(self, other)

    def __ge__(self, other):
        return _F.greater_equal(self, other)

    def __getitem__(self, index):
        return _F.getitem(self, index)

    def __setitem__(self, index, value):
        """Write into the tensor's data in place. While a gradient is recorded and this tensor or the
        value is part of the graph, the write is recorded too: the overwritten entries pass no gradient
        back and the value gets theirs, as in MindSpore (``ops/array/setitem.py``)."""
        if _STATE.depth and _F.tensor_setitem(self, index, value):
            return
        if _STATE.capture is not None:
            _capture.effect(_Setter(index, value), self, *([value] if isinstance(value, Tensor) else []))
            return
        if isinstance(value, Tensor):
            value = value._data
        self._data[index] = value

    def copy_(self, src, non_blocking=False):
        """Copy ``src``'s values into this tensor in place, broadcast to its shape and cast to its dtype;
        returns this tensor (MindSpore's ``Tensor.copy_``; not recorded for gradients)."""
        arr = src._data if isinstance(src, Tensor) else np.asarray(src)
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"Tensor.copy_: src must be a Tensor or numbers, got {type(src).__name__} "
                            f"of dtype {arr.dtype}")
        try:
            fits = np.broadcast_shapes(arr.shape, self._data.shape) == self._data.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"Tensor.copy_: src of shape {tuple(arr.shape)} does not broadcast to this "
                             f"tensor's shape {tuple(self._data.shape)}")
        if isinstance(src, Tensor):
            _capture.effect(_copy_into, self, src)      # graph mode: repeated on every replay
        else:
            _capture.effect(_CopyConstant(arr), self)
        return self

    def assign_value(self, value):
        """Give this tensor ``value``'s data: its values, shape and dtype (MindSpore's ``Tensor.assign_value``).

        The tensor then shares ``value``'s memory, as in MindSpore. In graph
        mode a tensor from outside the compiled function takes a copy of the
        value on every replay; assigning to an argument of the compiled
        function makes it run eagerly (a replay has no Tensor objects to
        rebind).
        """
        if not isinstance(value, Tensor):
            raise TypeError(f"Tensor.assign_value: value must be a Tensor, got {type(value).__name__}")
        cap = _STATE.capture
        if cap is not None and cap.traced(self) is False:   # outside tensor: every replay assigns a copy
            _capture.effect(self._take_copy, value)
            return self
        if cap is not None and cap.is_argument(self):
            cap.mark_unusable("Tensor.assign_value on an argument of the compiled function")
        self._data = value._data        # an intermediate value: later ops read value's own record slot
        self._format = value._format
        return self

    def _take_copy(self, array):
        self._data = np.array(array, copy=True)

    # ----------------------------------------------------------------- methods
    def sum(self, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None, initial=None):
        """Sum over ``axis`` (or ``dim``); ``dtype`` casts first. The old positional form
        ``sum(axis, dtype)`` is accepted too."""
        if dtype is None and dim is None and keepdim is None and initial is None and keepdims.__class__ is bool:
            return _F.sum(self, axis, keepdims)         # the common call; integers sum to int64, as in MindSpore
        if keepdims is not False and not isinstance(keepdims, bool) and dtype is None:
            dtype, keepdims = keepdims, False           # sum(axis, dtype): MindSpore's older overload
        axis, keepdims = _pick_axis(axis, dim, keepdims, keepdim)
        out = _F.sum(self, axis, keepdims) if dtype is None else _F.reduce_sum(_F.cast(self, dtype), axis, keepdims)
        return out if initial is None else _F.add(out, initial)

    def mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, dtype=None):
        if dim is None and keepdim is None and dtype is None:
            return _F.reduce_mean(self, axis, keep_dims)
        axis, keep_dims = _pick_axis(axis, dim, keep_dims, keepdim)
        x = self if dtype is None else _F.cast(self, dtype)
        return _F.reduce_mean(x, axis, keep_dims)

    def max(self, *args, **kwargs):
        """``x.max()``: the maximum; ``x.max(dim)`` / ``x.max(dim=...)``: the tuple (values, int64 indices);
        ``x.max(axis=..., keepdims=...)``: the values (MindSpore's two overloads)."""
        if not args and not kwargs:
            return _F.reduce_max(self, None, False)
        return _extreme(self, "max", args, kwargs)

    def min(self, *args, **kwargs):
        """As ``max``, for the minimum."""
        if not args and not kwargs:
            return _F.reduce_min(self, None, False)
        return _extreme(self, "min", args, kwargs)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return _F.reshape(self, tuple(shape))

    def view(self, *shape):
        return self.reshape(*shape)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        return _F.transpose(self, tuple(axes) if axes else None)

    def flatten(self, order="C", *, start_dim=0, end_dim=-1):
        if order == "C" and start_dim == 0 and end_dim == -1:
            return _F.reshape(self, (-1,))
        return _F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def squeeze(self, axis=None):
        return _F.squeeze(self, axis)

    def expand_dims(self, axis):
        return _F.expand_dims(self, axis)

    def exp(self):
        return _F.exp(self)

    def log(self):
        return _F.log(self)

    def sqrt(self):
        return _F.sqrt(self)

    def abs(self):
        return _F.abs(self)

    def square(self):
        return _F.square(self)

    def argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        """Index of the maximum (int64, the first among ties); over every element when ``axis`` is None."""
        axis, keepdims = _pick_axis(axis, dim, keepdims, keepdim)
        return _kept(self, _F.argmax(self, axis), axis, keepdims)

    def argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        """Index of the minimum (int32 as in MindSpore, the first among ties)."""
        axis, keepdims = _pick_axis(axis, dim, keepdims, keepdim)
        return _kept(self, _F.argmin(self, axis), axis, keepdims)

    # ------------------------------------------------------- MindSpore's operators and methods, continued
    def __floordiv__(self, other):
        return _F.floor_div(self, other)

    def __rfloordiv__(self, other):
        return _F.floor_div(other, self)

    def __mod__(self, other):
        return _F.floor_mod(self, other)

    def __rmod__(self, other):
        return _F.floor_mod(other, self)

    def __and__(self, other):
        return _F.bitwise_and(self, other)

    def __rand__(self, other):
        return _F.bitwise_and(other, self)

    def __or__(self, other):
        return _F.bitwise_or(self, other)

    def __ror__(self, other):
        return _F.bitwise_or(other, self)

    def __xor__(self, other):
        return _F.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _F.bitwise_xor(other, self)

    def __invert__(self):
        """``~x`` is ``logical_not(x)`` (a bool tensor), as in MindSpore 2.10, also for integers."""
        return _F.logical_not(self)

    @staticmethod
    def from_numpy(array):
        """A Tensor sharing ``array``'s memory and dtype (float64 stays float64; a copy only when the
        array is not C-contiguous); also ``ms.from_numpy``."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy: array must be a numpy.ndarray, got {type(array).__name__}")
        _dt.from_numpy(array.dtype)
        return Tensor._wrap(array if array.flags.c_contiguous else np.ascontiguousarray(array))

    def init_data(self):
        """The tensor itself (initializers fill tensors when they are made here)."""
        return self

    def dim(self):
        return self.ndim

    def nelement(self):
        return self.size

    numel = nelement

    def to(self, dtype=None, non_blocking=False, copy=False):
        return self if dtype is None else _F.cast(self, dtype)

    def int(self):
        return _F.cast(self, "int32")

    def float(self):
        return _F.cast(self, "float32")

    def clamp(self, min=None, max=None):  # noqa: A002 - MindSpore's names
        return _F.clamp(self, min, max)

    def permute(self, *dims, **kwargs):
        """``x.permute(1, 0)``, ``x.permute((1, 0))`` or ``x.permute(dims=(1, 0))`` (also ``axis=``)."""
        if kwargs:
            unknown = set(kwargs) - {"dims", "axis"}
            if unknown or dims or len(kwargs) > 1:
                raise TypeError(f"Tensor.permute: give the axes positionally or as dims=, got {sorted(kwargs)}")
            dims = tuple(next(iter(kwargs.values())))
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = dims[0]
        return _F.permute(self, tuple(dims))

    def unsqueeze(self, dim):
        return _F.unsqueeze(self, dim)

    def swapaxes(self, axis0, axis1):
        return _F.swapaxes(self, axis0, axis1)

    def ravel(self):
        return _F.reshape(self, (-1,))

    def pow(self, exponent):
        return _F.pow(self, exponent)

    def neg(self):
        return _F.neg(self)

    def sigmoid(self):
        return _F.sigmoid(self)

    def tanh(self):
        return _F.tanh(self)

    def softmax(self, axis, dtype=None):
        x = self if dtype is None else _F.cast(self, dtype)
        return _F.softmax(x, axis)

    def floor(self):
        return _F.floor(self)

    def ceil(self):
        return _F.ceil(self)

    def round(self, decimals=0):
        return _F.round(self, decimals=decimals)

    def sign(self):
        return _F.sign(self)

    def matmul(self, other):
        return _F.matmul(self, other)

    def dot(self, other):
        """``ops.dot(self, other)``: both of rank >= 2, the last axis of self against other's second-to-last."""
        return _F.dot(self, other)

    def bmm(self, mat2):
        """``ops.bmm(self, mat2)``: the batched matrix product (equal batch dimensions)."""
        return _F.bmm(self, mat2)

    def baddbmm(self, batch1, batch2, beta=1, alpha=1):
        """``ops.baddbmm(self, batch1, batch2, beta, alpha)``: ``beta * self + alpha * bmm(batch1, batch2)``."""
        return _F.baddbmm(self, batch1, batch2, beta, alpha)

    def cumsum(self, dim=None, *, dtype=None, axis=None):
        """Running sums along ``dim`` (or ``axis``); over the flattened tensor when neither is given."""
        d = dim if dim is not None else axis
        if d is None:
            return _F.cumsum(_F.reshape(self, (-1,)), 0, dtype)
        return _F.cumsum(self, d, dtype)

    def cumprod(self, dim, dtype=None):
        return _F.cumprod(self, dim, dtype)

    def prod(self, dim=None, keepdim=False, dtype=None, *, axis=None, keep_dims=None):
        dim, keepdim = _pick_axis(dim, axis, keepdim, keep_dims)
        return _F.prod(self, dim, keepdim, dtype)

    def std(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None):
        axis, keepdims = _pick_axis(axis, dim, keepdims, keepdim)
        return _F.std(self, axis, ddof if correction is None else correction, keepdims)

    def var(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None):
        axis, keepdims = _pick_axis(axis, dim, keepdims, keepdim)
        return _F.var(self, axis, ddof if correction is None else correction, keepdims)

    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - MindSpore's names
        return _F.norm(self, ord, dim, keepdim, dtype=dtype)

    def logsumexp(self, dim, keepdim=False):
        return _F.logsumexp(self, dim, keepdim)

    def all(self, axis=None, keep_dims=False):
        return _F.all(self, axis, keep_dims)

    def any(self, axis=None, keep_dims=False):
        return _F.any(self, axis, keep_dims)

    def tile(self, dims=None, *, reps=None):
        return _F.tile(self, dims if dims is not None else reps)

    def broadcast_to(self, shape):
        return _F.broadcast_to(self, shape)

    def expand_as(self, other):
        return _F.broadcast_to(self, tuple(other.shape))

    def sort(self, dim=-1, descending=False, stable=False, *, axis=None):
        return _F.sort(self, dim if axis is None else axis, descending)

    def argsort(self, axis=-1, descending=False, *, dim=None):
        return _F.argsort(self, axis if dim is None else dim, descending)

    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
        return _F.topk(self, k, dim, largest, sorted)

    def masked_fill(self, mask, value):
        return _F.masked_fill(self, mask, value)

    def split(self, split_size=None, dim=0, *, axis=None, split_size_or_sections=None):
        size = split_size if split_size_or_sections is None else split_size_or_sections
        if size is None:
            raise TypeError("Tensor.split: missing split_size (an int or a list of sizes)")
        return _F.split(self, size, dim if axis is None else axis)

    def chunk(self, chunks, dim=0, *, axis=None):
        return _F.chunk(self, chunks, dim if axis is None else axis)

    def gather(self, *args, **kwargs):
        """``x.gather(dim, index)`` (MindSpore's gather_elements) or the older
        ``x.gather(input_indices, axis, batch_dims=0)``."""
        if "dim" in kwargs or "index" in kwargs or (args and not isinstance(args[0], Tensor)):
            names = ("dim", "index")
            values = dict(zip(names, args))
            values.update(kwargs)
            return _F.gather_elements(self, values["dim"], values["index"])
        names = ("input_indices", "axis", "batch_dims")
        values = dict(zip(names, args))
        values.update(kwargs)
        return _F.gather(self, values["input_indices"], values["axis"], values.get("batch_dims", 0))

    def where(self, condition, y):
        return _F.where(condition, self, y)


def _pick_axis(axis, dim, keep, keepdim):
    """Merge MindSpore's two spellings (``axis``/``keepdims`` and ``dim``/``keepdim``)."""
    if dim is not None:
        if axis is not None:
            raise TypeError("give either axis or dim, not both")
        axis = dim
    if keepdim is not None:
        keep = keepdim
    if isinstance(axis, list):
        axis = tuple(axis)
    return axis, bool(keep)


def _kept(x, index, axis, keepdims):
    """``index`` (an arg-reduction of ``x`` over ``axis``) with the reduced axis kept as size 1."""
    if not keepdims:
        return index
    shape = [1] * x.ndim if axis is None else list(x.shape)
    if axis is not None:
        shape[axis] = 1
    return index.reshape(shape)


def _extreme(x, which, args, kwargs):
    """Tensor.max / Tensor.min with MindSpore 2.10's overloads."""
    unknown = set(kwargs) - {"axis", "keepdims", "dim", "keepdim", "initial", "where", "return_indices"}
    if unknown:
        raise TypeError(f"Tensor.{which}: unexpected keyword argument(s) {sorted(unknown)}")
    if len(args) > 2:
        raise TypeError(f"Tensor.{which} takes at most 2 positional arguments (dim, keepdim), got {len(args)}")
    if kwargs.get("initial") is not None or kwargs.get("where") is not None:   # NumPy's initial/where
        axis = args[0] if args else kwargs.get("axis")
        keep = bool(kwargs.get("keepdims", False))
        return getattr(_F, which)(x, axis, keep, initial=kwargs.get("initial"), where=kwargs.get("where"))[0]
    older = any(k in kwargs for k in ("axis", "keepdims", "initial", "where", "return_indices"))
    keep = bool(args[1]) if len(args) > 1 else bool(kwargs.get("keepdim", kwargs.get("keepdims", False)))
    if (args or "dim" in kwargs) and not older:         # max(dim, keepdim=False): (values, indices)
        dim = args[0] if args else kwargs["dim"]
        fn = _F.argmax_with_value if which == "max" else _F.argmin_with_value
        index, values = fn(x, dim, keep, which)
        return values, index
    axis = args[0] if args else kwargs.get("axis")      # max(axis=None, keepdims=False, ...): the values
    if type(axis) is int:                               # the gradient goes to the first extreme, as in MindSpore
        values = _F.extreme_first(x, axis, keep, which)
    else:
        values = (_F.reduce_max if which == "max" else _F.reduce_min)(x, axis, keep)
    if kwargs.get("return_indices"):
        fn = _F.argmax_with_value if which == "max" else _F.argmin_with_value
        return values, fn(x, axis, keep, which)[0]
    return values


def _initialized(init, shape, np_dtype):
    """The array an initializer (``ms.common.initializer.One()``, or a number) gives for ``shape``.

    An Initializer is called as ``init(shape, dtype)`` and returns a Tensor
    (``mscustom.nn.init.Initializer.__call__``), so this module needs no import of it.
    """
    if isinstance(init, (int, float, np.number)) and not isinstance(init, (bool, np.bool_)):
        return np.full(shape, init, np_dtype)
    if isinstance(init, str) or not callable(init):
        raise TypeError(f"Tensor: init must be an Initializer (e.g. ms.common.initializer.One()), a number, "
                        f"'zeros' or 'ones', got {init!r}")
    out = init(shape, _dt.from_numpy(np_dtype))
    arr = out._data if isinstance(out, Tensor) else np.asarray(out)
    if tuple(arr.shape) != tuple(shape):
        raise ValueError(f"Tensor: init {init!r} gave shape {list(arr.shape)}, expected {list(shape)}")
    return np.asarray(arr, np_dtype)


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
    """``ms.tensor(...)``: the function form of ``Tensor(...)``."""
    return Tensor(input_data, dtype=dtype, shape=shape, init=init)


from_numpy = Tensor.from_numpy      # ms.from_numpy(array): shares the array's memory, as in MindSpore


# Operators whose functional form takes ``(self, other)`` in that order are bound to the published
# function itself (``Tensor.__mul__`` is ``ops.mul``): one Python frame less per call; ``sum`` to the
# ops layer's ``tensor_sum``, which calls the reduction at once in the common case and this method
# otherwise. A function published again is bound again; one that is not a plain Python function gets
# the method defined above.
_DIRECT_OPERATORS = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__",
                     "tensor_sum": "sum"}
_FORWARDING = {dunder: Tensor.__dict__[dunder] for dunder in _DIRECT_OPERATORS.values()}


def _bind_operator(name, fn):
    dunder = _DIRECT_OPERATORS.get(name)
    if dunder is not None:
        setattr(Tensor, dunder, fn if type(fn) is _types.FunctionType else _FORWARDING[dunder])


# Methods that are the published function itself (``x.tril(1)`` is ``ops.tril(x, 1)``): one definition,
# in the ops layer; the table maps a published name to the method's name.
_PUBLISHED_METHODS = {
    "tril": "tril", "triu": "triu", "flip": "flip", "isclose": "isclose", "outer": "outer", "addmm": "addmm",
    "lerp": "lerp", "atan2": "atan2", "floor_divide": "floor_divide", "masked_select": "masked_select",
    "isnan": "isnan", "minimum": "minimum", "trace": "trace", "contiguous": "contiguous",
    "tensor_diagonal": "diagonal", "tensor_repeat_interleave": "repeat_interleave", "tensor_add": "add",
    "tensor_bool": "bool", "tensor_fill": "fill",
}


def _bind_method(name, fn):
    method = _PUBLISHED_METHODS.get(name) or _REGISTERED_METHODS.get(name)
    if method is not None:
        if type(fn) is not _types.FunctionType:     # a callable object binds no self: call it with one
            fn = (lambda f: lambda self, *args, **kwargs: f(self, *args, **kwargs))(fn)
        setattr(Tensor, method, fn)


def _bind_published(name, fn):
    _bind_operator(name, fn)
    _bind_method(name, fn)


for _name in list(_DIRECT_OPERATORS) + list(_PUBLISHED_METHODS) + list(_REGISTERED_METHODS):
    if hasattr(_F, _name):
        _bind_published(_name, getattr(_F, _name))
del _name
_watch_functions(_bind_published)


class _DeferredMethod:
    """A Tensor method or property that the deferred ops bind (``x.lgamma()``, ``Tensor.add_``): the
    first lookup loads them (``_core/deferred.py``), which puts the real one in its place.

    The names are listed in ``_deferred_methods.py`` (``tests/test_import_lazy.py`` checks the list
    against what the load binds). Placeholders keep every other lookup on Tensor as fast as on any
    class (NumPy probes a Tensor's type for ``__array_interface__`` & co. on each conversion).
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        _deferred.load_all()
        if Tensor.__dict__.get(self.name) is self:      # the load did not bind it (or is running now)
            raise AttributeError(f"type object 'Tensor' has no attribute {self.name!r}")
        return getattr(obj if obj is not None else owner, self.name)

    def __repr__(self):
        return f"<Tensor.{self.name}, bound when the deferred ops load>"


def _install_placeholders(names):
    for name in names:
        if name not in Tensor.__dict__:
            setattr(Tensor, name, _DeferredMethod(name))


_install_placeholders(_DEFERRED_METHODS)


class Parameter(Tensor):
    """A Tensor that a model learns: it has a name and is found by ``Cell.trainable_params``.

    Example::

        w = ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), name="w")
        w.set_data(ms.Tensor(np.ones((3, 2), np.float32)))
    """

    __slots__ = ("name", "requires_grad")

    def __init__(self, default_input, name=None, requires_grad=True):
        data = default_input._data if isinstance(default_input, Tensor) else default_input
        super().__init__(data)
        if isinstance(default_input, Tensor):
            self._format = default_input._format
        self.name = name
        self.requires_grad = bool(requires_grad)

    def set_data(self, data):
        """Replace the parameter's value; the shape must stay the same."""
        arr = data._data if isinstance(data, Tensor) else np.asarray(data)
        if arr.shape != self._data.shape:
            raise ValueError(f"Parameter.set_data: parameter '{self.name}' has shape {self.shape}, "
                             f"the new data has shape {arr.shape}")
        if _STATE.capture is not None and isinstance(data, Tensor):
            _capture.effect(self._replace_data, data)       # graph mode: repeated on every replay
            return self
        self._data = np.array(arr, dtype=self._data.dtype, copy=True)
        return self

    def _replace_data(self, array):
        self._data = np.array(array, dtype=self._data.dtype, copy=True)

    def value(self):
        """The parameter's value as a plain Tensor (differentiable with respect to the parameter)."""
        return _F.reshape(self, tuple(self._data.shape))

    def clone(self, name=None):
        return Parameter(Tensor._wrap(self._data.copy()), name=name or self.name,
                         requires_grad=self.requires_grad)

    def __repr__(self):
        """MindSpore's form: ``Parameter (name=fc.weight, shape=(2, 3), dtype=Float32, requires_grad=True)``."""
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={_ms_dtype_name(self.dtype)}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__


class DynamicTensor(Tensor):
    """A Tensor (real data, real ``.shape``) whose shape inference sees ``_seen`` instead.

    Made by ``ops.ConvertToDynamic`` and by a Cell whose ``set_inputs`` declared
    unknown dimensions (``mscustom/ops/_dynamic.py``): ``_seen`` holds -1 per
    unknown dimension, or ``(-2,)`` for an unknown rank.
    """

    __slots__ = ("_seen",)


def seen_shape(tensor):
    """The shape inference sees for ``tensor``: its declared unknowns, or None when it is static."""
    return tensor._seen if type(tensor) is DynamicTensor else None


def _ms_dtype_name(dtype):
    """MindSpore's printed dtype name: ``Float32``, ``Int64``, ``UInt8``, ``Bool``."""
    name = dtype.name
    if name == "bool":
        return "Bool"
    if name.startswith("uint"):
        return "UInt" + name[4:]
    return name[0].upper() + name[1:]


_ufunc.bind_tensor_class(Tensor)


class ParameterTuple(tuple):
    """A tuple of Parameters, as optimizers and ``grad(weights=...)`` take."""

    def __new__(cls, params):
        params = tuple(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple: every element must be a Parameter, got {type(p).__name__}")
        return super().__new__(cls, params)


class PlaceholderError(AttributeError):
    """The data of a placeholder Tensor was used (an AttributeError, so attribute probes see no data)."""


class _NoData:
    """The ``_data`` of a placeholder Tensor: ``Tensor(shape=[None, 3], dtype=ms.float32)``.

    A placeholder describes an input signature (``Cell.set_inputs``) and has
    no values: reading anything from it raises ``PlaceholderError``, which the
    dispatcher reports naming the op (``placeholder_message``).
    """

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape, dtype):
        if dtype is None:
            raise TypeError("Tensor: a tensor without data (input_data=None) needs a dtype, e.g. "
                            "Tensor(shape=[None, 3], dtype=ms.float32)")
        np_dtype = _dt.to_numpy(dtype)
        if shape is None:
            dims = (-2,)                      # unknown rank, as MindSpore reports it
        else:
            dims = (shape,) if isinstance(shape, int) or shape is None else tuple(shape)
            for d in dims:
                if d is not None and (isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < -1):
                    raise TypeError(f"Tensor: shape entries must be non-negative ints or None (unknown), "
                                    f"got {list(dims)}")
            dims = tuple(-1 if d is None else int(d) for d in dims)
        object.__setattr__(self, "_shape", dims)
        object.__setattr__(self, "_dtype", np_dtype)

    def declared_shape(self):
        return object.__getattribute__(self, "_shape")

    def declared_dtype(self):
        return _dt.from_numpy(object.__getattribute__(self, "_dtype"))

    def __getattribute__(self, name):
        if name in ("declared_shape", "declared_dtype", "__class__", "__reduce_ex__", "__reduce__"):
            return object.__getattribute__(self, name)
        raise PlaceholderError(placeholder_message(self))

    def __array__(self, *args, **kwargs):
        raise PlaceholderError(placeholder_message(self))


def placeholder_message(data):
    """Why a placeholder cannot be used as data (``data`` is its ``_NoData``)."""
    shape = list(data.declared_shape())
    return (f"Tensor(shape={shape}, dtype={_ms_dtype_name(data.declared_dtype())}) is a placeholder without "
            "data (it only declares a signature, e.g. for Cell.set_inputs); give a Tensor with values")


def is_placeholder(tensor):
    """True for ``Tensor(shape=[None, ...], dtype=...)`` and ``Tensor(shape=None, dtype=...)``: no data."""
    return isinstance(tensor, Tensor) and type(tensor._data) is _NoData


def _has_unknown(shape):
    """A shape with an unknown (None, or MindSpore's -1) dimension."""
    if isinstance(shape, (tuple, list)):
        return any(d is None or (type(d) is int and d == -1) for d in shape)
    return False


def _check_format(fmt):
    if fmt not in FORMATS:
        raise ValueError(f"unknown tensor format {fmt!r}: expected one of {list(FORMATS)}")
    return fmt


def as_tensor(value, like=None):
    """Turn a Tensor, array or Python scalar into a Tensor.

    A Python scalar next to a tensor ``like`` takes ``like``'s dtype when the
    scalar's kind fits (a float next to float16 stays float16), as in MindSpore.
    """
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        _dt.from_numpy(value.dtype)
        return Tensor._wrap(value)
    if like is not None and isinstance(value, (int, float, bool)) and not isinstance(value, np.generic):
        ldt = like._data.dtype
        if isinstance(value, bool) or (isinstance(value, int) and ldt.kind in "iuf") or (isinstance(value, float) and ldt.kind == "f"):
            return Tensor._wrap(np.asarray(value, dtype=ldt))
    return Tensor(value)


def _copy_array(array):
    return (array.copy(),)


class _Setter:
    """``Tensor.__setitem__`` as a graph-mode effect: ``target[index] = value`` on the replay's arrays."""

    def __init__(self, index, value):
        self.index = index
        self.value = None if isinstance(value, Tensor) else value

    def __call__(self, target, value=None):
        target[self.index] = self.value if value is None else value
