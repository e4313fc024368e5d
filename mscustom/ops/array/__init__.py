"""Array functions: creation, shape manipulation, joining and splitting, indexing, scatter and gather,
sorting and searching.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
