"""Neural-network functions: activations, convolution, pooling, normalization, dropout, losses,
attention, recurrent sequence ops, padding and resampling.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
