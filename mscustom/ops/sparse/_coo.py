"""COO tensors' functions: the element-wise ``coo_<f>`` maps of the values, ``coo_add``, ``coo_concat``,
conversions (``coo_to_dense``, ``coo_to_csr``, ``dense_to_sparse_coo``, ``coo2csr``), constructors and getters.

Index bookkeeping is done in NumPy; values only pass through ops (gather, scatter-add, concat), so
gradients reach ``values`` (and the dense input of ``dense_to_sparse_coo``).

Example::

    ops.coo_sin(coo); ops.coo_add(a, b, ms.Tensor(0.0)); ops.coo_concat((a, b), 1)
"""

import numpy as np

from .tensors import COOTensor, CSRTensor, SparseTensor
from ...tensor import Tensor
from .. import functional as F
from ._common import UNARY, const, coo_arg, row_sum, scalar, value_map

__all__ = ["coo_add", "coo_concat", "coo_tensor_get_dense_shape", "coo_tensor_get_indices",
           "coo_tensor_get_values", "dense_to_sparse_coo", "coo2csr", "make_coo_tensor", "make_sparse_tensor"]
# not in __all__ (the methods' implementations, reached through the classes): coo_to_dense, coo_to_csr, coo_coalesce


def _gather(values, order):
    from ..array.creation import gather
    return gather(values, const(np.asarray(order, np.int64)), 0)


def _make_unary(fname):
    def coo_unary(x):
        x = coo_arg(x, "coo_" + fname)
        return COOTensor(x.indices, value_map(fname)(x.values), x.shape)
    coo_unary.__name__ = coo_unary.__qualname__ = "coo_" + fname
    coo_unary.__doc__ = f"``{fname}`` of the stored values (same indices and shape)."
    return coo_unary


for _f in UNARY:
    globals()["coo_" + _f] = _make_unary(_f)
    __all__.append("coo_" + _f)
del _f


def coo_to_dense(x):
    """The dense Tensor of a COOTensor; values at repeated indices add up."""
    from .._ms_names_ops import scatter_nd
    x = coo_arg(x, "coo_to_dense")
    idx = x.indices.asnumpy()
    for axis, size in enumerate(x.shape):
        bad = (idx[:, axis] < 0) | (idx[:, axis] >= size)
        if bad.any():
            raise ValueError(f"op 'coo_to_dense': index {idx[bad][0].tolist()} is out of range for shape {x.shape}")
    return scatter_nd(x.indices, x.values, x.shape)


def coo_to_csr(x):
    """The same matrix as a CSRTensor: entries stably ordered by row; indptr of the indices' dtype."""
    x = coo_arg(x, "coo_to_csr")
    idx = x.indices.asnumpy()
    order = np.argsort(idx[:, 0], kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(idx[:, 0], minlength=x.shape[0]))]).astype(idx.dtype)
    return CSRTensor(const(indptr), const(idx[order, 1]), _gather(x.values, order), x.shape)


def _unique_rows(idx):
    """Sorted unique rows of ``idx`` (row-major) and each input row's slot among them."""
    if idx.shape[0] == 0:
        return idx, np.zeros(0, np.int64)
    uniq, inverse = np.unique(idx, axis=0, return_inverse=True)
    return uniq.astype(idx.dtype), inverse.reshape(-1)


def coo_coalesce(x):
    """Repeated indices merged (their values added), indices sorted row-major."""
    x = coo_arg(x, "coalesce")
    uniq, slot = _unique_rows(x.indices.asnumpy())
    return COOTensor(const(uniq), row_sum(slot, x.values, uniq.shape[0]), x.shape)


def coo_add(x1, x2, thresh):
    """``x1 + x2`` of two COOTensors of one shape, indices sorted row-major.

    Where both hold an index, the sum is kept only if ``|sum| >= thresh`` (entries held by one input
    are always kept), as MindSpore's SparseAdd does.
    """
    x1, x2 = coo_arg(x1, "coo_add"), coo_arg(x2, "coo_add")
    if x1.shape != x2.shape:
        raise ValueError(f"op 'coo_add': x1 and x2 must have the same shape, got {x1.shape} and {x2.shape}")
    limit = scalar(thresh, "coo_add", "thresh")
    idx = np.concatenate([x1.indices.asnumpy(), x2.indices.asnumpy().astype(x1.indices.asnumpy().dtype)])
    uniq, slot = _unique_rows(idx)
    sums = row_sum(slot, F.concat((x1.values, x2.values.astype(x1.values.dtype)), 0), uniq.shape[0])
    shared = np.bincount(slot, minlength=uniq.shape[0]) > 1
    keep = ~shared | (np.abs(sums.asnumpy()) >= limit)
    if keep.all():
        return COOTensor(const(uniq), sums, x1.shape)
    kept = np.flatnonzero(keep)
    return COOTensor(const(uniq[kept]), _gather(sums, kept), x1.shape)


def coo_concat(sp_input, concat_dim=0):
    """COOTensors joined along ``concat_dim``; the result's indices are sorted row-major."""
    if not isinstance(sp_input, (tuple, list)) or not all(isinstance(s, COOTensor) for s in sp_input):
        raise TypeError(f"op 'coo_concat': sp_input must be a tuple or list of COOTensors, got {sp_input!r}")
    if len(sp_input) < 2:
        raise ValueError(f"op 'coo_concat': needs at least 2 COOTensors, got {len(sp_input)}")
    rank = len(sp_input[0].shape)
    if isinstance(concat_dim, bool) or not isinstance(concat_dim, (int, np.integer)) or not -rank <= concat_dim < rank:
        raise ValueError(f"op 'coo_concat': concat_dim must be an int in [{-rank}, {rank}), got {concat_dim!r}")
    dim = int(concat_dim) % rank
    first = sp_input[0].shape
    for k, s in enumerate(sp_input[1:], 1):
        if len(s.shape) != rank or any(a != b for d, (a, b) in enumerate(zip(s.shape, first)) if d != dim):
            raise ValueError(f"op 'coo_concat': input {k} has shape {s.shape}, which does not match {first} "
                             f"outside dim {dim}")
    dtype = sp_input[0].indices.asnumpy().dtype
    parts, offset = [], 0
    for s in sp_input:
        idx = s.indices.asnumpy().astype(dtype, copy=True)
        idx[:, dim] += offset
        offset += s.shape[dim]
        parts.append(idx)
    idx = np.concatenate(parts)
    order = np.lexsort(idx.T[::-1])
    shape = tuple(offset if d == dim else n for d, n in enumerate(first))
    values = F.concat(tuple(s.values for s in sp_input), 0)
    return COOTensor(const(idx[order]), _gather(values, order), shape)


def dense_to_sparse_coo(tensor):
    """The non-zero entries of a 2-D Tensor as a COOTensor (int32 indices, row-major order)."""
    from ..array.sort_gather import gather_nd
    if not isinstance(tensor, Tensor):
        raise TypeError(f"op 'dense_to_sparse_coo': tensor must be a Tensor, got {type(tensor).__name__}")
    if tensor.ndim != 2:
        raise ValueError(f"op 'dense_to_sparse_coo': only 2-D Tensors convert, got shape {tuple(tensor.shape)}")
    idx = np.argwhere(tensor.asnumpy()).astype(np.int32)
    return COOTensor(const(idx), gather_nd(tensor, const(idx)), tuple(tensor.shape))


def coo2csr(coo_row_indices, height):
    """The CSR ``indptr`` (length ``height + 1``) of COO row indices (counted; order does not matter)."""
    if not isinstance(coo_row_indices, Tensor):
        raise TypeError(f"op 'coo2csr': coo_row_indices must be a Tensor, got {type(coo_row_indices).__name__}")
    rows = coo_row_indices.asnumpy()
    if rows.ndim != 1 or rows.dtype.kind not in "iu":
        raise ValueError(f"op 'coo2csr': coo_row_indices must be a 1-D int Tensor, got {rows.dtype} "
                         f"of shape {rows.shape}")
    height = int(height)
    if rows.size and (rows.min() < 0 or rows.max() >= height):
        raise ValueError(f"op 'coo2csr': row indices must lie in [0, {height}), got {rows.tolist()}")
    return const(np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=height))]).astype(rows.dtype))


def make_coo_tensor(indices, values, dense_shape):
    """``COOTensor(indices, values, dense_shape)``."""
    return COOTensor(indices, values, tuple(dense_shape))


def make_sparse_tensor(indices, values, dense_shape):
    """``SparseTensor(indices, values, dense_shape)`` (the deprecated COO name)."""
    return SparseTensor(indices, values, tuple(dense_shape))


def coo_tensor_get_indices(coo_tensor):
    """The COOTensor's indices."""
    return coo_arg(coo_tensor, "coo_tensor_get_indices").indices


def coo_tensor_get_values(coo_tensor):
    """The COOTensor's values."""
    return coo_arg(coo_tensor, "coo_tensor_get_values").values


def coo_tensor_get_dense_shape(coo_tensor):
    """The COOTensor's dense shape (a tuple)."""
    return coo_arg(coo_tensor, "coo_tensor_get_dense_shape").shape

