"""Sparse tensors' functions (COO and CSR): the ``coo_*`` / ``csr_*`` ops and conversions.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
