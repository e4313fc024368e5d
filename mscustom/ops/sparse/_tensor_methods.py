"""``Tensor.to_coo()`` and ``Tensor.to_csr()``: a 2-D dense Tensor's non-zero entries as a sparse tensor."""

from ..._core.registry import register_function
from ._coo import dense_to_sparse_coo
from ._csr import dense_to_sparse_csr

__all__ = []

register_function("tensor_to_coo", dense_to_sparse_coo, method="to_coo")
register_function("tensor_to_csr", dense_to_sparse_csr, method="to_csr")
