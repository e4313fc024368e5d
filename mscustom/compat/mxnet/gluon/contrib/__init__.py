"""``gluon.contrib``: ``contrib.nn`` (``Concurrent``, ``HybridConcurrent``, ``Identity``)."""

from . import nn

__all__ = ["nn"]
