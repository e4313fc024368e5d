"""CSR tensors' functions: the element-wise ``csr_<f>`` maps of the values, products with dense
operands (``csr_mv``, the dense ``CSRTensor.mm``), ``csr_mul`` / ``csr_div`` by a broadcast dense tensor,
``csr_add``, ``csr_reduce_sum``, ``csr_softmax``, ``csr_gather``, conversions, constructor and getters.

Index bookkeeping is in NumPy; values go through ops (gather, scatter-add), so gradients reach the
values and the dense operands.

Example::

    ops.csr_mv(csr, ms.Tensor(np.ones((4, 1), np.float32))); ops.csr_softmax(csr, ms.float32)
"""

import numpy as np

from .tensors import COOTensor, CSRTensor
from ...tensor import Tensor
from .. import functional as F
from ._common import UNARY, const, csr_arg, csr_coords, csr_rows, row_sum, scalar, two_d, value_map

__all__ = ["csr_add", "csr_div", "csr_gather", "csr_mul", "csr_mv", "csr_reduce_sum", "csr_softmax", "csr_to_coo",
           "csr_to_dense", "csr2coo", "dense_to_sparse_csr", "make_csr_tensor", "csr_tensor_get_dense_shape",
           "csr_tensor_get_indices", "csr_tensor_get_indptr", "csr_tensor_get_values"]
# not in __all__: csr_mm_dense (CSRTensor.mm with a dense matrix)


def _gather(x, index, axis=0):
    from ..array.creation import gather
    return gather(x, const(np.asarray(index, np.int64)), axis)


def _make_unary(fname):
    def csr_unary(x):
        x = csr_arg(x, "csr_" + fname)
        return CSRTensor(x.indptr, x.indices, value_map(fname)(x.values), x.shape)
    csr_unary.__name__ = csr_unary.__qualname__ = "csr_" + fname
    csr_unary.__doc__ = f"``{fname}`` of the stored values (same indptr, indices and shape)."
    return csr_unary


for _f in UNARY:
    globals()["csr_" + _f] = _make_unary(_f)
    __all__.append("csr_" + _f)
del _f


def csr_to_dense(csr_tensor):
    """The dense Tensor of a 2-D CSRTensor."""
    from .._ms_names_ops import scatter_nd
    x = csr_arg(csr_tensor, "csr_to_dense")
    two_d(x, "csr_to_dense")
    return scatter_nd(const(csr_coords(x).astype(np.int64)), x.values, x.shape)


def csr_to_coo(tensor):
    """The same 2-D matrix as a COOTensor (indices of the CSR indices' dtype)."""
    x = csr_arg(tensor, "csr_to_coo")
    two_d(x, "csr_to_coo")
    return COOTensor(const(csr_coords(x)), x.values, x.shape)


def csr2coo(indptr, length):
    """The row of each of the ``length`` stored values, from a CSR ``indptr``."""
    if not isinstance(indptr, Tensor):
        raise TypeError(f"op 'csr2coo': indptr must be a Tensor, got {type(indptr).__name__}")
    ptr = indptr.asnumpy()
    if ptr.ndim != 1 or ptr.dtype.kind not in "iu" or ptr.size == 0:
        raise ValueError(f"op 'csr2coo': indptr must be a non-empty 1-D int Tensor, got {ptr.dtype} {ptr.shape}")
    if int(ptr[-1]) != int(length):
        raise ValueError(f"op 'csr2coo': length must equal indptr[-1] = {int(ptr[-1])}, got {length}")
    return const(np.repeat(np.arange(ptr.size - 1, dtype=ptr.dtype), np.diff(ptr)))


def dense_to_sparse_csr(tensor):
    """The non-zero entries of a 2-D Tensor as a CSRTensor (int32 indptr and indices)."""
    from ..array.sort_gather import gather_nd
    if not isinstance(tensor, Tensor):
        raise TypeError(f"op 'dense_to_sparse_csr': tensor must be a Tensor, got {type(tensor).__name__}")
    if tensor.ndim != 2:
        raise ValueError(f"op 'dense_to_sparse_csr': only 2-D Tensors convert, got shape {tuple(tensor.shape)}")
    idx = np.argwhere(tensor.asnumpy()).astype(np.int32)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(idx[:, 0], minlength=tensor.shape[0]))]).astype(np.int32)
    return CSRTensor(const(indptr), const(idx[:, 1]), gather_nd(tensor, const(idx)), tuple(tensor.shape))


def _dense_product(x, dense, name, what):
    x = csr_arg(x, name)
    two_d(x, name)
    if not isinstance(dense, Tensor):
        raise TypeError(f"op '{name}': {what} must be a Tensor, got {type(dense).__name__}")
    if dense.ndim != 2 or dense.shape[0] != x.shape[1]:
        raise ValueError(f"op '{name}': {what} must be 2-D with shape[0] == {x.shape[1]} (the CSRTensor's "
                         f"columns), got shape {tuple(dense.shape)}")
    picked = _gather(dense, x.indices.asnumpy())                  # (nnz, k): the rows each value meets
    products = F.expand_dims(x.values, 1) * picked.astype(x.values.dtype)
    return row_sum(csr_rows(x), products, x.shape[0])


def csr_mv(csr_tensor, dense):
    """The product of a 2-D CSRTensor with a dense ``(cols, 1)`` column: ``(rows, 1)``."""
    if isinstance(dense, Tensor) and dense.ndim == 2 and dense.shape[1] != 1:
        raise ValueError(f"op 'csr_mv': dense must have shape ({csr_tensor.shape[1]}, 1), got {tuple(dense.shape)}")
    return _dense_product(csr_tensor, dense, "csr_mv", "dense")


def csr_mm_dense(csr_tensor, matrix):
    """The product of a 2-D CSRTensor with a dense ``(cols, k)`` matrix: ``(rows, k)``."""
    return _dense_product(csr_tensor, matrix, "CSRTensor.mm", "matrix")


def csr_reduce_sum(csr_tensor, axis):
    """Each row's sum of a 2-D CSRTensor, shape ``(rows, 1)``; ``axis`` must be 1 (or -1)."""
    x = csr_arg(csr_tensor, "csr_reduce_sum")
    two_d(x, "csr_reduce_sum")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or axis not in (1, -1):
        raise ValueError(f"op 'csr_reduce_sum': axis must be 1 or -1, got {axis!r}")
    return row_sum(csr_rows(x), F.expand_dims(x.values, 1), x.shape[0])


def _at_entries(x, y, name):
    """``y`` broadcast to the CSRTensor's shape, read at its stored entries (in the values' dtype)."""
    from ..array.sort_gather import gather_nd
    if not isinstance(y, Tensor):
        raise TypeError(f"op '{name}': y must be a Tensor, got {type(y).__name__}")
    two_d(x, name)
    try:
        np.broadcast_shapes(tuple(y.shape), x.shape)
    except ValueError:
        raise ValueError(f"op '{name}': y of shape {tuple(y.shape)} does not broadcast to {x.shape}") from None
    full = F.broadcast_to(y.astype(x.values.dtype), x.shape)
    return gather_nd(full, const(csr_coords(x).astype(np.int64)))


def csr_mul(x, y):
    """The CSRTensor times a dense Tensor broadcast to its shape (only stored entries are kept)."""
    x = csr_arg(x, "csr_mul")
    return CSRTensor(x.indptr, x.indices, x.values * _at_entries(x, y, "csr_mul"), x.shape)


def csr_div(x, y):
    """The CSRTensor divided by a dense Tensor broadcast to its shape (only stored entries are kept)."""
    x = csr_arg(x, "csr_div")
    return CSRTensor(x.indptr, x.indices, x.values / _at_entries(x, y, "csr_div"), x.shape)


def csr_add(a, b, alpha, beta):
    """``alpha * a + beta * b`` of two CSRTensors of one shape; each row's columns come out sorted."""
    a, b = csr_arg(a, "csr_add"), csr_arg(b, "csr_add")
    two_d(a, "csr_add")
    if a.shape != b.shape:
        raise ValueError(f"op 'csr_add': a and b must have the same shape, got {a.shape} and {b.shape}")
    for what, v in (("alpha", alpha), ("beta", beta)):
        scalar(v, "csr_add", what)
    alpha = alpha.reshape(()) if isinstance(alpha, Tensor) else alpha
    beta = beta.reshape(()) if isinstance(beta, Tensor) else beta
    coords = np.concatenate([csr_coords(a).astype(np.int64), csr_coords(b).astype(np.int64)])
    values = F.concat((a.values * alpha, (b.values * beta).astype(a.values.dtype)), 0)
    if coords.shape[0]:
        uniq, slot = np.unique(coords, axis=0, return_inverse=True)
        slot = slot.reshape(-1)
    else:
        uniq, slot = coords, np.zeros(0, np.int64)
    summed = row_sum(slot, values, uniq.shape[0])
    dtype = a.indptr.asnumpy().dtype
    indptr = np.concatenate([[0], np.cumsum(np.bincount(uniq[:, 0], minlength=a.shape[0]))]).astype(dtype)
    return CSRTensor(const(indptr), const(uniq[:, 1].astype(a.indices.asnumpy().dtype)), summed, a.shape)


def csr_softmax(logits, dtype):
    """Softmax over each row's stored values (absent entries take no part), in the values' dtype.

    ``dtype`` must be a float dtype (MindSpore checks it and computes in the values' dtype too).
    """
    x = csr_arg(logits, "csr_softmax")
    two_d(x, "csr_softmax")
    if getattr(dtype, "np_dtype", None) is None or np.dtype(dtype.np_dtype).kind != "f":
        raise TypeError(f"op 'csr_softmax': dtype must be a float dtype, got {dtype}")
    rows = csr_rows(x)
    data = x.values.asnumpy()
    top = np.full(x.shape[0], -np.inf, data.dtype)
    np.maximum.at(top, rows, data)                              # a constant shift: softmax does not change
    e = F.exp(x.values - const(top[rows]))
    total = row_sum(rows, e, x.shape[0])
    return CSRTensor(x.indptr, x.indices, e / _gather(total, rows), x.shape)


def csr_gather(indptr, indices, dense, sparse_shape):
    """The entries of ``dense`` at a CSR pattern's positions: the pattern's values (1-D Tensor)."""
    from ..array.sort_gather import gather_nd
    pattern = CSRTensor(indptr, indices, F.zeros_like(indices), tuple(sparse_shape))
    if not isinstance(dense, Tensor) or tuple(dense.shape[:2]) != pattern.shape:
        raise ValueError(f"op 'csr_gather': dense must be a Tensor whose leading shape is {pattern.shape}, got "
                         f"{getattr(dense, 'shape', type(dense).__name__)}")
    return gather_nd(dense, const(csr_coords(pattern).astype(np.int64)))


def make_csr_tensor(indptr, indices, values, dense_shape):
    """``CSRTensor(indptr, indices, values, dense_shape)``."""
    return CSRTensor(indptr, indices, values, tuple(dense_shape))


def csr_tensor_get_indptr(csr_tensor):
    """The CSRTensor's indptr."""
    return csr_arg(csr_tensor, "csr_tensor_get_indptr").indptr


def csr_tensor_get_indices(csr_tensor):
    """The CSRTensor's column indices."""
    return csr_arg(csr_tensor, "csr_tensor_get_indices").indices


def csr_tensor_get_values(csr_tensor):
    """The CSRTensor's values."""
    return csr_arg(csr_tensor, "csr_tensor_get_values").values


def csr_tensor_get_dense_shape(csr_tensor):
    """The CSRTensor's dense shape (a tuple)."""
    return csr_arg(csr_tensor, "csr_tensor_get_dense_shape").shape
