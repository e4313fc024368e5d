"""RowTensor's constructors and getters (``make_row_tensor``, ``row_tensor_get_*``).

Example::

    r = ops.make_row_tensor(ms.Tensor([0, 2], ms.int32), values, (4, 3)); ops.row_tensor_get_values(r)
"""

from .tensors import RowTensor

__all__ = ["make_row_tensor", "make_row_tensor_inner", "row_tensor_get_dense_shape", "row_tensor_get_indices",
           "row_tensor_get_values"]


def _row_arg(x, name):
    if not isinstance(x, RowTensor):
        raise TypeError(f"op '{name}': input must be a RowTensor, got {type(x).__name__}")
    return x


def make_row_tensor(indices, values, dense_shape):
    """``RowTensor(indices, values, dense_shape)``."""
    return RowTensor(indices, values, tuple(dense_shape))


def make_row_tensor_inner(indices, values, dense_shape):
    """``RowTensor(indices, values, dense_shape)`` (MindSpore's internal constructor name)."""
    return RowTensor(indices, values, tuple(dense_shape))


def row_tensor_get_indices(row_tensor):
    """The RowTensor's row indices."""
    return _row_arg(row_tensor, "row_tensor_get_indices").indices


def row_tensor_get_values(row_tensor):
    """The RowTensor's stored rows."""
    return _row_arg(row_tensor, "row_tensor_get_values").values


def row_tensor_get_dense_shape(row_tensor):
    """The RowTensor's dense shape (a tuple)."""
    return _row_arg(row_tensor, "row_tensor_get_dense_shape").dense_shape
