"""Random sampling functions (seeded by ``ms.set_seed`` and their own ``seed`` arguments).

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
