"""Sparse NDArrays (``csr`` and ``row_sparse``) stored as ``scipy.sparse`` matrices.

``CSRNDArray`` keeps a ``scipy.sparse.csr_matrix``; ``RowSparseNDArray`` keeps a
``scipy.sparse.bsr_matrix`` whose blocks are whole rows (block size ``(1, row size)``),
which is exactly MXNet's row-sparse layout: the stored rows (``.data``) and their row
ids (``.indices``). Both are NDArrays: any op without a sparse kernel reads the dense
values (``_data``, materialized once and read-only), as MXNet's storage fallback does,
and returns a dense NDArray.

The sparse kernels (``elemwise_mul`` / ``elemwise_add`` / ``dot`` / ``retain`` /
``square``, scalar ``*`` and ``/``, ``+`` / ``-`` / ``*`` of two sparse arrays) are
scipy's. Inside ``mx.autograd.record()`` with an input on the tape they run the
core's dense op instead, so the tape differentiates them, and the result takes the
storage type MXNet gives it (gradients reach sparse ``grad`` buffers in that storage).
"""

import numpy as np

try:                                   # scipy holds the storage: ``pip install mscustom[sparse]``
    import scipy.sparse as _sp
except ImportError:                    # dense MXNet programs run without it
    _sp = None

from ..._core import autodiff as _ad
from ... import ops as _ops
from ...tensor import Tensor
from . import base as _base
from ._ndarray import SPARSE as _HOOKS, NDArray, as_nd, wrap
from .context import current_context

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "csr_matrix", "row_sparse_array", "zeros",
           "empty", "array", "elemwise_mul", "elemwise_add", "elemwise_sub", "dot", "retain", "square",
           "sqrt", "abs", "negative", "zeros_like", "tostype", "is_sparse", "sparse_like", "write_into",
           "rand_sparse"]

_DATA_SLOT = Tensor.__dict__["_data"]
_INDEX = np.int64


def is_sparse(x):
    return isinstance(x, BaseSparseNDArray)


class BaseSparseNDArray(NDArray):
    """A sparse NDArray: a scipy matrix, its shape, and a dense read-only view made on first use."""

    __slots__ = ("_sm", "_shape", "_sink")

    stype = None

    # ------------------------------------------------------------ storage
    @property
    def _data(self):
        try:
            return _DATA_SLOT.__get__(self)
        except AttributeError:
            pass
        dense = np.asarray(self._sm.toarray()).reshape(self._shape)
        dense.flags.writeable = False
        _DATA_SLOT.__set__(self, dense)
        return dense

    @_data.setter
    def _data(self, value):
        self._set_dense(np.asarray(value))

    def _set_matrix(self, sm):
        """Replace the stored matrix (and write the dense values into the op output it stands for)."""
        self._sm = sm
        try:
            _DATA_SLOT.__delete__(self)
        except AttributeError:
            pass
        if self._sink is not None:
            np.copyto(self._sink, self._data, casting="same_kind")

    def _set_dense(self, dense):
        self._set_matrix(self._from_dense(np.asarray(dense, dtype=self._sm.dtype).reshape(self._shape)))

    def _write(self, value, add=False):
        """Write (or add) ``value`` (sparse, NDArray, array or number) keeping this storage type."""
        if add:
            value = self._data + _dense_of(value)
        if is_sparse(value) and value.stype == self.stype and not add:
            if value.shape != self._shape:
                raise ValueError(f"{type(self).__name__}: cannot assign an array of shape {value.shape} to one of "
                                 f"shape {self._shape}")
            self._set_matrix(value._sm.astype(self._sm.dtype, copy=True))
            return
        dense = _dense_of(value)
        if dense.shape != self._shape and dense.size != 1:
            raise ValueError(f"{type(self).__name__}: cannot assign an array of shape {dense.shape} to one of shape "
                             f"{self._shape}")
        self._set_dense(np.broadcast_to(dense, self._shape))

    # ------------------------------------------------------------ MXNet surface
    @property
    def shape(self):
        return tuple(self._shape)

    @property
    def dtype(self):
        return self._sm.dtype.type

    @property
    def size(self):
        return int(np.prod(self._shape))

    @property
    def ndim(self):
        return len(self._shape)

    def asnumpy(self):
        self.wait_to_read()
        return np.asarray(self._sm.toarray()).reshape(self._shape)

    def tostype(self, stype):
        """A copy in storage type ``stype`` ('default', or this array's own)."""
        if stype == "default":
            return wrap(self.asnumpy(), ctx=self._ctx)
        if stype == self.stype:
            return self.copy()
        if stype in ("csr", "row_sparse"):
            raise ValueError(f"cast_storage from {self.stype} to {stype} is not supported")
        raise ValueError(f"NDArray.tostype: unknown storage type {stype!r}; expected 'default', 'csr' or "
                         "'row_sparse'")

    def copy(self):
        return _make(type(self), self._sm.copy(), self._shape, self._ctx)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self._sm.dtype:
            return self
        return _make(type(self), self._sm.astype(np.dtype(dtype)), self._shape, self._ctx)

    def copyto(self, other):
        if isinstance(other, NDArray):
            if other.shape != self.shape:
                raise ValueError(f"NDArray.copyto: shapes differ, {self.shape} into {other.shape}")
            write_into(other, self)
            return other
        return _make(type(self), self._sm.copy(), self._shape, other)

    def attach_grad(self, grad_req="write", stype=None):
        """A zero ``grad`` buffer, in this array's storage type unless ``stype`` says otherwise."""
        from . import autograd as _autograd
        _autograd.attach(self, grad_req, zeros(stype or self.stype, self._shape, ctx=self._ctx, dtype=self.dtype))

    @property
    def data(self):
        """The stored values (an NDArray); each storage type (CSRNDArray, RowSparseNDArray) defines it."""
        raise NotImplementedError(f"{type(self).__name__}.data: only csr and row_sparse arrays store values")

    @property
    def indices(self):
        """The stored indices (an NDArray); each storage type defines it."""
        raise NotImplementedError(f"{type(self).__name__}.indices: only csr and row_sparse arrays store indices")

    def __setitem__(self, key, value):
        """``x[:] = value``: the whole array (MXNet supports no other index on sparse arrays)."""
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError(f"{type(self).__name__}: only x[:] = value is supported on sparse arrays, "
                             f"got index {key!r}")
        if isinstance(value, (int, float, np.number)):
            raise ValueError(f"Assigning numeric types to {type(self).__name__} is not implemented yet.")
        self._write(value)
        self._assigned = True

    def __getitem__(self, key):
        raise ValueError(f"{type(self).__name__}: indexing is not supported here; convert with .tostype('default')")

    def _view(self):
        """Another array on the same stored matrix (executors bind views of their arguments)."""
        return _make(type(self), self._sm, self._shape, self._ctx)

    def __repr__(self):
        shape = "x".join(map(str, self._shape))
        return f"\n<{type(self).__name__} {shape} @{self.context}>"

    __str__ = __repr__

    # ------------------------------------------------------------ arithmetic (MXNet's result storage)
    def __mul__(self, other):
        if _is_number(other):
            return _scalar(self, other, np.multiply)
        return elemwise_mul(self, other) if _same_or_dense(self, other) else NDArray.__mul__(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if _is_number(other):
            return _scalar(self, other, np.true_divide)
        return as_nd(NDArray.__truediv__(self, other))

    __div__ = __truediv__

    def __add__(self, other):
        if is_sparse(other) and other.stype == self.stype:
            return elemwise_add(self, other)
        return as_nd(NDArray.__add__(self, other))

    __radd__ = __add__

    def __sub__(self, other):
        if is_sparse(other) and other.stype == self.stype:
            return elemwise_sub(self, other)
        return as_nd(NDArray.__sub__(self, other))

    def __neg__(self):
        return _scalar(self, -1, np.multiply)

    def _inplace(self, other, fn):
        self._set_dense(fn(self._data, _dense_of(other)))
        return self


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row storage (``.data``, ``.indices``, ``.indptr``)."""

    __slots__ = ()
    stype = "csr"

    @staticmethod
    def _from_dense(dense):
        if dense.ndim != 2:
            raise ValueError(f"To convert to a CSR, the NDArray should be 2 Dimensional. Current shape is "
                             f"{tuple(dense.shape)}")
        return _sp.csr_matrix(dense)

    @property
    def data(self):
        return wrap(self._sm.data.copy(), ctx=self._ctx)

    @property
    def indices(self):
        return wrap(self._sm.indices.astype(_INDEX), ctx=self._ctx)

    @property
    def indptr(self):
        return wrap(self._sm.indptr.astype(_INDEX), ctx=self._ctx)

    def asscipy(self):
        """The values as a ``scipy.sparse.csr_matrix`` (a copy)."""
        return self._sm.copy()


class RowSparseNDArray(BaseSparseNDArray):
    """An array whose stored rows (``.data``) are listed by row id (``.indices``); others are zero."""

    __slots__ = ()
    stype = "row_sparse"

    def _from_dense(self, dense):
        return _rows_matrix(dense)

    @property
    def data(self):
        sm = self._sm
        return wrap(sm.data.reshape((sm.data.shape[0],) + tuple(self._shape[1:])).copy(), ctx=self._ctx)

    @property
    def indices(self):
        return wrap(_row_ids(self._sm), ctx=self._ctx)


def _failed_variant(cls):
    """``cls`` written by a failed op: the first synchronisation raises its ``MXNetError`` (as ``_Failed``)."""
    class Failed(cls):
        __slots__ = ()

        @property
        def _data(self):
            err = _base.peek(self)
            if err is None:                       # reported already
                self.__class__ = cls
                return cls._data.fget(self)
            raise err

        @_data.setter
        def _data(self, value):
            cls._data.fset(self, value)

        def wait_to_read(self):
            found = _base.take(self)
            self.__class__ = cls
            if found:
                raise found[0]

    Failed.__name__ = Failed.__qualname__ = cls.__name__
    return Failed


_FAILED = {CSRNDArray: _failed_variant(CSRNDArray), RowSparseNDArray: _failed_variant(RowSparseNDArray)}
BaseSparseNDArray._fail = lambda self: setattr(self, "__class__", _FAILED[type(self)]) \
    if type(self) in _FAILED else None


# ------------------------------------------------------------ building
def _need_scipy(where):
    if _sp is None:
        raise _base.MXNetError(f"{where}: sparse storage is kept in scipy.sparse matrices, and scipy is not "
                               "installed; install it (pip install 'mscustom[sparse]')")


def _make(cls, sm, shape, ctx=None, sink=None):
    n = object.__new__(cls)
    n._sm, n._shape, n._sink = sm, tuple(int(s) for s in shape), sink
    n._format, n._node, n._oidx = "DefaultFormat", None, 0
    n._grad, n._grad_req, n._assigned, n._leaf, n._role = None, "null", False, None, None
    n._ctx = ctx
    return n


def _flat2d(shape):
    return (int(shape[0]), int(np.prod(shape[1:], dtype=np.int64))) if len(shape) else (1, 1)


def _rows_matrix(dense):
    """A row-block ``bsr_matrix`` holding the rows of ``dense`` that have a non-zero value."""
    if dense.ndim < 1:
        raise ValueError("row_sparse storage needs at least one dimension")
    flat = dense.reshape(_flat2d(dense.shape))
    keep = np.flatnonzero(np.any(flat != 0, axis=1))
    return _rows_from(flat[keep], keep, flat.shape)


def _rows_from(rows, ids, shape2d):
    n_rows, width = shape2d
    if width == 0:
        raise ValueError("row_sparse storage needs rows of at least one element")
    indptr = np.zeros(n_rows + 1, _INDEX)
    indptr[np.asarray(ids, _INDEX) + 1] = 1
    np.cumsum(indptr, out=indptr)
    blocks = np.asarray(rows).reshape(len(ids), 1, width)
    return _sp.bsr_matrix((blocks, np.zeros(len(ids), _INDEX), indptr), shape=shape2d, blocksize=(1, width))


def _row_ids(bsr):
    return np.repeat(np.arange(bsr.shape[0], dtype=_INDEX), np.diff(bsr.indptr)).astype(_INDEX)


def _rows_of(bsr):
    return bsr.data.reshape(bsr.data.shape[0], -1)


def _dense_of(x):
    if isinstance(x, Tensor):
        return np.asarray(x._data)
    return np.asarray(x)


def _is_number(x):
    return isinstance(x, (int, float, np.number)) and not isinstance(x, bool)


def _same_or_dense(a, b):
    return not is_sparse(b) or b.stype == a.stype


def _ctx(ctx):
    return ctx or current_context()


def _np_dtype(dtype, default):
    return np.dtype(default if dtype is None else dtype)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A ``CSRNDArray`` from ``(data, indices, indptr)``, a scipy matrix, a dense array or NDArray, or
    a shape ``(M, N)`` (all zeros). Float32 unless ``dtype`` (or the data's own type, for the
    ``(data, indices, indptr)`` form) says otherwise, as in MXNet.

    Example::

        a = mx.nd.sparse.csr_matrix(([1.0, 2.0], [0, 2], [0, 1, 2]), shape=(2, 3))
        a.indptr.asnumpy()          # array([0, 1, 2])
    """
    _need_scipy("mx.nd.sparse.csr_matrix")
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = (_dense_of(v) for v in arg1)
        if shape is None:
            raise ValueError("mx.nd.sparse.csr_matrix: shape=(M, N) is required with (data, indices, indptr)")
        dt = _np_dtype(dtype, data.dtype if isinstance(arg1[0], (np.ndarray, Tensor)) else np.float32)
        if len(indptr) != shape[0] + 1 or (len(indices) and (indices.min() < 0 or indices.max() >= shape[1])):
            raise ValueError(f"mx.nd.sparse.csr_matrix: indptr must have {shape[0] + 1} entries and indices lie in "
                             f"[0, {shape[1]}) for shape {tuple(shape)}; got {len(indptr)} indptr entries and "
                             f"indices {indices.tolist()[:8]}")
        sm = _sp.csr_matrix((data.astype(dt), indices.astype(_INDEX), indptr.astype(_INDEX)), shape=tuple(shape))
        return _make(CSRNDArray, sm, shape, _ctx(ctx))
    if isinstance(arg1, tuple) and len(arg1) == 2 and all(isinstance(v, (int, np.integer)) for v in arg1):
        return zeros("csr", arg1, ctx=ctx, dtype=dtype)
    if _sp.issparse(arg1):
        sm = _sp.csr_matrix(arg1, dtype=_np_dtype(dtype, arg1.dtype))
        return _make(CSRNDArray, sm, sm.shape, _ctx(ctx))
    if isinstance(arg1, CSRNDArray):
        return arg1.astype(_np_dtype(dtype, arg1.dtype))
    if isinstance(arg1, tuple):
        raise ValueError(f"mx.nd.sparse.csr_matrix: a tuple must be (data, indices, indptr) or a shape (M, N), "
                         f"got {len(arg1)} items")
    dense = _dense_of(arg1).astype(_np_dtype(dtype, np.float32))
    return _make(CSRNDArray, CSRNDArray._from_dense(dense), dense.shape, _ctx(ctx))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A ``RowSparseNDArray`` from ``(data, indices)`` (the stored rows and their row ids), a dense array or
    NDArray, or a shape (all zeros).

    Example::

        r = mx.nd.sparse.row_sparse_array(([[1.0, 2.0]], [3]), shape=(5, 2))
        r.indices.asnumpy()         # array([3])
    """
    _need_scipy("mx.nd.sparse.row_sparse_array")
    if isinstance(arg1, tuple) and len(arg1) == 2 and not all(isinstance(v, (int, np.integer)) for v in arg1):
        data, indices = _dense_of(arg1[0]), _dense_of(arg1[1]).astype(_INDEX).reshape(-1)
        if shape is None:
            raise ValueError("mx.nd.sparse.row_sparse_array: shape= is required with (data, indices)")
        shape = tuple(int(s) for s in shape)
        dt = _np_dtype(dtype, data.dtype if isinstance(arg1[0], (np.ndarray, Tensor)) else np.float32)
        if data.shape != (len(indices),) + shape[1:]:
            raise ValueError(f"mx.nd.sparse.row_sparse_array: data must have shape {(len(indices),) + shape[1:]} "
                             f"for {len(indices)} row indices and shape {shape}, got {data.shape}")
        if len(indices) and (indices.min() < 0 or indices.max() >= shape[0] or len(set(indices)) != len(indices)):
            raise ValueError(f"mx.nd.sparse.row_sparse_array: indices must be distinct rows in [0, {shape[0]}), "
                             f"got {indices.tolist()[:8]}")
        order = np.argsort(indices, kind="stable")
        rows = data.reshape(len(indices), -1)[order].astype(dt)
        return _make(RowSparseNDArray, _rows_from(rows, indices[order], _flat2d(shape)), shape, _ctx(ctx))
    if isinstance(arg1, tuple):
        return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        return arg1.astype(_np_dtype(dtype, arg1.dtype))
    dense = _dense_of(arg1).astype(_np_dtype(dtype, np.float32))
    return _make(RowSparseNDArray, _rows_matrix(dense), dense.shape, _ctx(ctx))


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype`` ('csr', 'row_sparse' or 'default')."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    dt = _np_dtype(dtype, np.float32)
    if stype == "default":
        return wrap(np.zeros(shape, dt), ctx=_ctx(ctx))
    _need_scipy("mx.nd.sparse.zeros")
    if stype == "csr":
        if len(shape) != 2:
            raise ValueError(f"mx.nd.sparse.zeros: csr storage is 2-D, got shape {shape}")
        return _make(CSRNDArray, _sp.csr_matrix(shape, dtype=dt), shape, _ctx(ctx))
    if stype == "row_sparse":
        return _make(RowSparseNDArray, _rows_from(np.zeros((0, _flat2d(shape)[1]), dt), [], _flat2d(shape)), shape,
                     _ctx(ctx))
    raise ValueError(f"mx.nd.sparse.zeros: unknown storage type {stype!r}; expected 'csr', 'row_sparse' or 'default'")


empty = zeros


def array(source_array, ctx=None, dtype=None):
    """A sparse copy of a sparse NDArray or a scipy matrix (csr)."""
    if is_sparse(source_array):
        return source_array.astype(_np_dtype(dtype, source_array.dtype))
    if _sp.issparse(source_array):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise TypeError(f"mx.nd.sparse.array: expected a sparse NDArray or a scipy.sparse matrix, got "
                    f"{type(source_array).__name__}")


def tostype(x, stype):
    """``x`` (dense or sparse) in storage type ``stype``."""
    _need_scipy("NDArray.tostype")
    if is_sparse(x):
        return x.tostype(stype)
    if stype == "csr":
        return _make(CSRNDArray, CSRNDArray._from_dense(_dense_of(x)), x.shape, getattr(x, "_ctx", None))
    if stype == "row_sparse":
        return _make(RowSparseNDArray, _rows_matrix(_dense_of(x)), x.shape, getattr(x, "_ctx", None))
    raise ValueError(f"NDArray.tostype: unknown storage type {stype!r}; expected 'default', 'csr' or 'row_sparse'")


def sparse_like(value, stype, sink=None):
    """``value`` (a Tensor) as an array of storage type ``stype``, keeping its place on the tape."""
    if stype in (None, "default"):
        return as_nd(value)
    _need_scipy("sparse storage")
    dense = _dense_of(value)
    sm = CSRNDArray._from_dense(dense) if stype == "csr" else _rows_matrix(dense)
    out = _make(CSRNDArray if stype == "csr" else RowSparseNDArray, sm, dense.shape, getattr(value, "_ctx", None),
                sink=sink)
    if isinstance(value, Tensor):
        out._node, out._oidx = value._node, value._oidx
    return out


def write_into(buf, value, add=False):
    """Write (or add) ``value`` into the NDArray ``buf``, dense or sparse."""
    if is_sparse(buf):
        buf._write(value, add=add)
    elif add:
        np.add(buf._data, _dense_of(value), out=buf._data, casting="same_kind")
    else:
        np.copyto(buf._data, _dense_of(value), casting="same_kind")


# ------------------------------------------------------------ sparse kernels (scipy) and their taped form
def _taped(*xs):
    return _ad.is_recording() and any(isinstance(x, Tensor) and x._node is not None for x in xs)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else wrap(np.asarray(x, np.float32))


def _matrix(x):
    """A scipy matrix of ``x``'s values (2-D; row-sparse arrays flattened to rows)."""
    if isinstance(x, CSRNDArray):
        return x._sm
    if isinstance(x, RowSparseNDArray):
        return x._sm.tocsr()
    d = _dense_of(x)
    return _sp.csr_matrix(d.reshape(_flat2d(d.shape)) if d.ndim != 2 else d)


def _result(stype, sm, shape, dtype, ctx):
    """A result (scipy matrix or dense array) as an array of storage type ``stype`` and type ``dtype``."""
    sm = sm.astype(dtype, copy=False)
    if stype == "csr":
        return _make(CSRNDArray, _sp.csr_matrix(sm), shape, ctx)
    dense = np.asarray(sm.toarray() if _sp.issparse(sm) else sm).reshape(shape)
    if stype == "row_sparse":
        return _make(RowSparseNDArray, _rows_matrix(dense), shape, ctx)
    return wrap(np.ascontiguousarray(dense), ctx=ctx)


def _check_same_shape(name, a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise _base.MXNetError(f"mx.nd.sparse.{name}: operands must have the same shape, got {tuple(a.shape)} and "
                               f"{tuple(b.shape)}")


def _scalar(x, s, fn):
    """``x * s`` or ``x / s`` for a sparse ``x``: the same storage type (zero stays zero)."""
    if _taped(x):
        op = Tensor.__mul__ if fn is np.multiply else Tensor.__truediv__
        return sparse_like(op(x, s), x.stype)
    sm = x._sm.copy()
    sm.data = fn(sm.data, s).astype(sm.dtype, copy=False)
    return _make(type(x), sm, x._shape, x._ctx)


def elemwise_mul(lhs, rhs):
    """Elementwise product; sparse when either operand is (csr * dense stays csr, as in MXNet)."""
    _check_same_shape("elemwise_mul", lhs, rhs)
    stype = lhs.stype if is_sparse(lhs) else (rhs.stype if is_sparse(rhs) else "default")
    if stype == "default" or _taped(lhs, rhs):
        return sparse_like(_ops.mul(_as_tensor(lhs), _as_tensor(rhs)), stype)
    a, b = (lhs, rhs) if is_sparse(lhs) else (rhs, lhs)
    prod = _matrix(a).multiply(_matrix(b) if is_sparse(b) else _dense_of(b).reshape(_flat2d(b.shape)))
    return _result(stype, _sp.csr_matrix(prod), lhs.shape, np.result_type(lhs.dtype, rhs.dtype), lhs._ctx)


def _add_like(name, lhs, rhs, sign):
    _check_same_shape(name, lhs, rhs)
    both = is_sparse(lhs) and is_sparse(rhs) and lhs.stype == rhs.stype
    stype = lhs.stype if both else "default"
    if not both or _taped(lhs, rhs):
        fn = _ops.add if sign > 0 else _ops.sub
        return sparse_like(fn(_as_tensor(lhs), _as_tensor(rhs)), stype)
    res = _matrix(lhs) + _matrix(rhs) if sign > 0 else _matrix(lhs) - _matrix(rhs)
    return _result(stype, res, lhs.shape, np.result_type(lhs.dtype, rhs.dtype), lhs._ctx)


def elemwise_add(lhs, rhs):
    """Elementwise sum; sparse when both operands have the same sparse storage type, else dense."""
    return _add_like("elemwise_add", lhs, rhs, 1)


def elemwise_sub(lhs, rhs):
    """Elementwise difference; sparse when both operands have the same sparse storage type, else dense."""
    return _add_like("elemwise_sub", lhs, rhs, -1)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    """Matrix product with MXNet's result storage: csr x dense -> dense, csr.T x dense -> row_sparse,
    dense x csr -> csr; anything else dense."""
    ls, rs = getattr(lhs, "stype", "default"), getattr(rhs, "stype", "default")
    if ls == "csr" and rs == "default" and not transpose_b:
        stype = "row_sparse" if transpose_a else "default"
    elif ls == "default" and rs == "csr" and not transpose_a and not transpose_b:
        stype = "csr"
    else:
        stype = "default"
    if forward_stype is not None:
        stype = forward_stype
    a_shape = tuple(lhs.shape[::-1]) if transpose_a else tuple(lhs.shape)
    b_shape = tuple(rhs.shape[::-1]) if transpose_b else tuple(rhs.shape)
    if len(a_shape) != 2 or len(b_shape) != 2 or a_shape[1] != b_shape[0]:
        raise _base.MXNetError(f"mx.nd.sparse.dot: shapes {a_shape} and {b_shape} (after transposes) do not "
                               "multiply (2-D operands, inner dimensions equal)")
    if _taped(lhs, rhs) or (ls == "default" and rs == "default"):
        a, b = _as_tensor(lhs), _as_tensor(rhs)
        a = _ops.transpose(a) if transpose_a else a
        b = _ops.transpose(b) if transpose_b else b
        return sparse_like(_ops.matmul(a, b), stype)
    a = _matrix(lhs) if ls != "default" else _dense_of(lhs)
    b = _matrix(rhs) if rs != "default" else _dense_of(rhs)
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    res = a @ b
    return _result(stype, res if _sp.issparse(res) else np.asarray(res), (a_shape[0], b_shape[1]),
                   np.result_type(lhs.dtype, rhs.dtype), getattr(lhs, "_ctx", None))


def retain(data=None, indices=None, out=None, name=None, **kwargs):
    """The rows of the row-sparse ``data`` whose ids are in ``indices``; every other row becomes zero."""
    if out is not None:
        write_into(out, retain(data, indices))
        return out
    if not isinstance(data, RowSparseNDArray):
        raise TypeError(f"mx.nd.sparse.retain: data must be a RowSparseNDArray, got "
                        f"{getattr(data, 'stype', type(data).__name__)!r}")
    keep = np.unique(_dense_of(indices).astype(_INDEX).reshape(-1))
    ids = _row_ids(data._sm)
    mask = np.isin(ids, keep)
    rows = _rows_of(data._sm)[mask]
    return _make(RowSparseNDArray, _rows_from(rows, ids[mask], _flat2d(data._shape)), data._shape, data._ctx)


def _unary(name, fn, op):
    def unary(data, **kwargs):
        if not is_sparse(data) or _taped(data):
            return sparse_like(op(_as_tensor(data)), getattr(data, "stype", "default"))
        sm = data._sm.copy()
        sm.data = fn(sm.data).astype(sm.dtype, copy=False)
        return _make(type(data), sm, data._shape, data._ctx)
    unary.__name__ = name
    unary.__doc__ = f"Elementwise ``{name}``, keeping the storage type (zero stays zero)."
    return unary


square = _unary("square", np.square, _ops.square)
sqrt = _unary("sqrt", np.sqrt, _ops.sqrt)
abs = _unary("abs", np.abs, _ops.abs)                    # noqa: A001
negative = _unary("negative", np.negative, _ops.neg)


def zeros_like(data, **kwargs):
    """Zeros of ``data``'s shape, dtype and storage type."""
    return zeros(getattr(data, "stype", "default"), data.shape, ctx=getattr(data, "_ctx", None), dtype=data.dtype)


def rand_sparse(shape, stype, density=None, dtype=None, ctx=None):
    """``mx.test_utils.rand_ndarray`` for sparse storage: csr entries / row_sparse rows kept with
    probability ``density`` (``np.random.rand()`` when None), values uniform in [0, 1)."""
    _need_scipy("rand_ndarray")
    shape = tuple(int(s) for s in shape)
    density = np.random.rand() if density is None else float(density)
    if not 0.0 <= density <= 1.0:
        raise ValueError(f"rand_ndarray: density must lie in [0, 1], got {density}")
    dt = _np_dtype(dtype, np.float32)
    if stype == "csr":
        if len(shape) != 2:
            raise ValueError(f"rand_ndarray: csr storage is 2-D, got shape {shape}")
        sm = _sp.random(shape[0], shape[1], density=density, format="csr", dtype=dt)
        return _make(CSRNDArray, sm, shape, _ctx(ctx))
    if stype == "row_sparse":
        ids = np.flatnonzero(np.random.rand(shape[0]) < density)
        rows = np.random.rand(len(ids), _flat2d(shape)[1]).astype(dt)
        return _make(RowSparseNDArray, _rows_from(rows, ids, _flat2d(shape)), shape, _ctx(ctx))
    raise ValueError(f"rand_ndarray: unknown storage type {stype!r}; expected 'default', 'csr' or 'row_sparse'")


_HOOKS.update(tostype=tostype, zeros=zeros)          # NDArray.tostype / attach_grad(stype=) reach these
