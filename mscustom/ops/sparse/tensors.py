"""Sparse tensors: ``COOTensor``, ``CSRTensor``, ``RowTensor`` (and ``SparseTensor``, the old COO name).

Each holds its indices and values as ``Tensor`` objects, never copies of their arrays, so a gradient
flows to ``values`` through every operation built from ops (``to_dense``, ``mv``, ``mm``, ``sum`` ...).
The computations live in ``mscustom.ops.sparse``; the methods here call them.

Example::

    coo = ms.COOTensor(ms.Tensor([[0, 1], [1, 2]], ms.int32), ms.Tensor([1.0, 2.0]), (3, 4))
    coo.to_dense(); coo.to_csr().mv(ms.Tensor(np.ones((4, 1), np.float32)))
"""

import numpy as np

from ...tensor import Tensor

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor"]

_INDEX_KINDS = (np.int16, np.int32, np.int64)


def _tensor(value, what, cls):
    if not isinstance(value, Tensor):
        raise TypeError(f"For {cls}, '{what}' must be a Tensor, got {type(value).__name__}")
    return value


def _shape(shape, cls):
    if not isinstance(shape, tuple) or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                               for s in shape):
        raise TypeError(f"For {cls}, 'shape' must be a tuple of ints, got {shape!r}")
    return tuple(int(s) for s in shape)


def _int_indices(t, what, cls):
    if t.asnumpy().dtype.type not in _INDEX_KINDS:
        raise TypeError(f"For {cls}, the type of '{what}' must be one of [int16, int32, int64], got {t.dtype}")


def _ops():
    from .. import sparse
    return sparse


def _dense_operand(other, sparse, what):
    """A number as a 0-d Tensor of the values' dtype; a Tensor as it is."""
    if isinstance(other, Tensor):
        return other
    if isinstance(other, (int, float, np.number)) and not isinstance(other, bool):
        return Tensor(np.array(other, sparse.values.asnumpy().dtype))
    raise TypeError(f"{type(sparse).__name__} {what} {type(other).__name__} is not supported (a Tensor or a number)")


def _at_coo(coo, other, name):
    """``other`` (a Tensor broadcast to the dense shape, or a number) read at the COOTensor's indices."""
    from ..array.shape import broadcast_to
    from ..array.sort_gather import gather_nd
    other = _dense_operand(other, coo, "*" if name == "mul" else "/")
    if other.ndim == 0:
        return other.astype(coo.values.dtype)
    return gather_nd(broadcast_to(other.astype(coo.values.dtype), coo.shape), coo.indices)


def _tensor_text(t):
    return repr(t).replace("\n", "\n ")


class _SparseBase:
    """What COO and CSR tensors share: the values' dtype and size, ``astype``, ``abs``."""

    @property
    def values(self):
        """The stored (non-zero) values: a 1-D Tensor, differentiable."""
        return self._values

    @property
    def indices(self):
        """The stored values' indices (COO: ``(nnz, ndim)``; CSR: the column of each value)."""
        return self._indices

    @property
    def shape(self):
        """The dense shape (a tuple)."""
        return self._shape

    @property
    def dtype(self):
        """The values' dtype."""
        return self._values.dtype

    @property
    def itemsize(self):
        """Bytes per value."""
        return int(self._values.asnumpy().dtype.itemsize)

    @property
    def ndim(self):
        """The dense rank, ``len(shape)``."""
        return len(self._shape)

    @property
    def size(self):
        """The number of stored values."""
        return int(self._values.asnumpy().size)


class COOTensor(_SparseBase):
    """A sparse tensor in coordinate format: ``indices`` ``(nnz, 2)`` int, ``values`` ``(nnz,)``, ``shape``.

    ``COOTensor(coo_tensor=other)`` makes one sharing ``other``'s tensors. Duplicate indices add up in
    ``to_dense``; ``coalesce`` merges them.
    """

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"For COOTensor, 'coo_tensor' must be a COOTensor, got {type(coo_tensor).__name__}")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        name = type(self).__name__
        indices = _tensor(indices, "indices", name)
        values = _tensor(values, "values", name)
        shape = _shape(shape, name)
        _int_indices(indices, "indices", name)
        if indices.ndim != 2:
            raise ValueError(f"For {name}, 'indices' must be a 2-dimensional tensor, got {indices.ndim} dimensions")
        if values.ndim != 1:
            raise ValueError(f"For {name}, 'values' must be a 1-dimensional tensor, got a {values.ndim}-dimensional "
                             "tensor")
        if len(shape) != 2 or indices.shape[1] != 2:
            raise ValueError(f"For {name}, the length of 'shape' and 'indices.shape[1]' must be 2, got shape "
                             f"{shape} and indices of shape {tuple(indices.shape)}")
        if indices.shape[0] != values.shape[0]:
            raise ValueError(f"For {name}, 'indices.shape[0]' must equal 'values.shape[0]', got "
                             f"{indices.shape[0]} and {values.shape[0]}")
        self._indices, self._values, self._shape = indices, values, shape

    def __repr__(self):
        return (f"COOTensor(shape={list(self._shape)}, dtype={self.dtype}, indices={_tensor_text(self._indices)}, "
                f"values={_tensor_text(self._values)})")

    __str__ = __repr__

    def to_tuple(self):
        """``(indices, values, shape)``."""
        return self._indices, self._values, self._shape

    def to_dense(self):
        """The dense Tensor (duplicate indices add up)."""
        return _ops().coo_to_dense(self)

    def to_csr(self):
        """The same matrix as a CSRTensor (entries ordered by row, stably)."""
        return _ops().coo_to_csr(self)

    def coalesce(self):
        """Duplicate indices merged (values added), indices sorted row-major."""
        return _ops().coo_coalesce(self)

    def add(self, other, thresh):
        """``ops.coo_add(self, other, thresh)``."""
        return _ops().coo_add(self, other, thresh)

    def abs(self):
        """``|values|``."""
        return _ops().coo_abs(self)

    def astype(self, dtype):
        """The values cast to ``dtype``."""
        return COOTensor(self._indices, self._values.astype(dtype), self._shape)

    # operators: with a COOTensor, a COOTensor (sum merged); with a dense Tensor, ``+``/``-`` give a dense
    # Tensor, ``*``/``/`` a COOTensor of the stored entries (the dense operand read there)
    def __neg__(self):
        return _ops().coo_neg(self)

    def __add__(self, other):
        if isinstance(other, COOTensor):
            return _ops().coo_add(self, other, 0)
        return self.to_dense() + other

    def __sub__(self, other):
        if isinstance(other, COOTensor):
            return _ops().coo_add(self, -other, 0)
        return self.to_dense() - other

    def __mul__(self, other):
        return COOTensor(self._indices, self._values * _at_coo(self, other, "mul"), self._shape)

    def __truediv__(self, other):
        return COOTensor(self._indices, self._values / _at_coo(self, other, "div"), self._shape)


class SparseTensor(COOTensor):
    """MindSpore's deprecated name for a COO tensor: ``SparseTensor(indices, values, shape)``."""

    def __init__(self, indices, values, shape):
        super().__init__(indices, values, shape)

    def __repr__(self):
        return "Sparse" + super().__repr__()[3:]


class CSRTensor(_SparseBase):
    """A sparse matrix in compressed-row format: ``indptr`` ``(rows + 1,)``, ``indices`` (each value's
    column) and ``values`` ``(nnz,)``, ``shape`` ``(rows, cols)``.

    ``CSRTensor(csr_tensor=other)`` makes one sharing ``other``'s tensors.
    """

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"For CSRTensor, 'csr_tensor' must be a CSRTensor, got {type(csr_tensor).__name__}")
            indptr, indices, values, shape = (csr_tensor.indptr, csr_tensor.indices, csr_tensor.values,
                                              csr_tensor.shape)
        indptr = _tensor(indptr, "indptr", "CSRTensor")
        indices = _tensor(indices, "indices", "CSRTensor")
        values = _tensor(values, "values", "CSRTensor")
        shape = _shape(shape, "CSRTensor")
        _int_indices(indptr, "indptr", "CSRTensor")
        _int_indices(indices, "indices", "CSRTensor")
        if indptr.ndim != 1 or indices.ndim != 1:
            raise ValueError("For CSRTensor, 'indptr' and 'indices' must be 1-dimensional, got shapes "
                             f"{tuple(indptr.shape)} and {tuple(indices.shape)}")
        if len(shape) < 2 or values.ndim != len(shape) - 1:
            raise ValueError("For CSRTensor, the values' dimension must be the shape's length - 1 (and the shape "
                             f"at least 2-D), got values of shape {tuple(values.shape)} and shape {shape}")
        if indptr.shape[0] != shape[0] + 1:
            raise ValueError(f"For CSRTensor, indptr must have length (1 + shape[0]) = {shape[0] + 1}, got "
                             f"{indptr.shape[0]}")
        if indices.shape[0] != values.shape[0]:
            raise ValueError("For CSRTensor, indices and values must have the same length, got "
                             f"{indices.shape[0]} and {values.shape[0]}")
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    @property
    def indptr(self):
        """Row ``r``'s values are ``values[indptr[r]:indptr[r + 1]]``."""
        return self._indptr

    def __repr__(self):
        return (f"CSRTensor(shape={list(self._shape)}, dtype={self.dtype}, indptr={_tensor_text(self._indptr)}, "
                f"indices={_tensor_text(self._indices)}, values={_tensor_text(self._values)})")

    __str__ = __repr__

    def to_tuple(self):
        """``(indptr, indices, values, shape)``."""
        return self._indptr, self._indices, self._values, self._shape

    def to_dense(self):
        """The dense Tensor."""
        return _ops().csr_to_dense(self)

    def to_coo(self):
        """The same matrix as a COOTensor."""
        return _ops().csr_to_coo(self)

    def mv(self, dense_vector):
        """The product with a ``(cols, 1)`` dense column: ``(rows, 1)``."""
        return _ops().csr_mv(self, dense_vector)

    def mm(self, matrix):
        """The product with a ``(cols, k)`` dense matrix: ``(rows, k)``."""
        return _ops().csr_mm_dense(self, matrix)

    def sum(self, axis):
        """The sum over ``axis`` (1 or -1): ``(rows, 1)``."""
        return _ops().csr_reduce_sum(self, axis)

    def add(self, b, alpha, beta):
        """``ops.csr_add(self, b, alpha, beta)``: ``alpha * self + beta * b``."""
        return _ops().csr_add(self, b, alpha, beta)

    def abs(self):
        """``|values|``."""
        return _ops().csr_abs(self)

    def astype(self, dtype):
        """The values cast to ``dtype``."""
        return CSRTensor(self._indptr, self._indices, self._values.astype(dtype), self._shape)

    # operators: with a CSRTensor (``+``, ``-``: csr_add), with a dense Tensor or a number (``*``, ``/``)
    def __neg__(self):
        return _ops().csr_neg(self)

    def __add__(self, other):
        return self._combine(other, 1, "+")

    def __sub__(self, other):
        return self._combine(other, -1, "-")

    def _combine(self, other, sign, what):
        if not isinstance(other, CSRTensor):
            raise TypeError(f"CSRTensor {what} {type(other).__name__} is not supported (only CSRTensor {what} "
                            "CSRTensor)")
        one = Tensor(np.array(1, self._values.asnumpy().dtype))
        return _ops().csr_add(self, other, one, one * sign)

    def __mul__(self, other):
        return _ops().csr_mul(self, _dense_operand(other, self, "*"))

    def __truediv__(self, other):
        return _ops().csr_div(self, _dense_operand(other, self, "/"))


class RowTensor:
    """Rows of a dense tensor: ``values[i]`` is row ``indices[i]`` of a tensor of shape ``dense_shape``
    (other rows are zero). What sparse gradients of embedding lookups are made of."""

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"For RowTensor, 'row_tensor' must be a RowTensor, got {type(row_tensor).__name__}")
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        self._indices = _tensor(indices, "indices", "RowTensor")
        self._values = _tensor(values, "values", "RowTensor")
        self._shape = _shape(shape, "RowTensor")
        _int_indices(self._indices, "indices", "RowTensor")

    @property
    def indices(self):
        """The row of each slice of ``values``."""
        return self._indices

    @property
    def values(self):
        """The stored rows."""
        return self._values

    @property
    def dense_shape(self):
        """The dense shape (a tuple)."""
        return self._shape

    def __repr__(self):
        return (f"RowTensor(shape={list(self._shape)}, dtype={self._values.dtype}, "
                f"indices={_tensor_text(self._indices)}, values={_tensor_text(self._values)})")

    __str__ = __repr__
