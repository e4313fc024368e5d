"""``mindspore.common.api``: ``jit``."""

from ..graph import jit

__all__ = ["jit"]
