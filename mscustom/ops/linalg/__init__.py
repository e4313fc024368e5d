"""Linear algebra: products (matmul, bmm, einsum, dot), decompositions, solves, norms, determinants.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
