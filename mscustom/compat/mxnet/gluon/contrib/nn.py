"""``gluon.contrib.nn``: ``Concurrent`` / ``HybridConcurrent`` (children on one input, outputs joined) and ``Identity``.

As in MXNet 1.9.1: each child block runs on the same input and the outputs
are concatenated along ``axis`` (default -1); ``Identity`` returns its input.
The model zoo's DenseNet, SqueezeNet and Inception build on them.

Example::

    branches = HybridConcurrent(axis=1)
    branches.add(gluon.nn.Conv2D(4, 1), Identity())
    branches(x).shape[1] == 4 + x.shape[1]
"""

from ... import ndarray as _nd
from ..block import HybridBlock
from ..nn import HybridSequential, Sequential

__all__ = ["Concurrent", "HybridConcurrent", "Identity"]


class Concurrent(Sequential):
    """Blocks run on one input; their outputs concatenated along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return _nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """HybridBlocks run on one input; their outputs concatenated along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """The input itself."""

    def hybrid_forward(self, F, x):
        return x
