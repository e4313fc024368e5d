"""Math functions: elementwise arithmetic and special functions, comparisons, reductions, scans.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
