"""``ops.Print``: print strings, numbers and Tensors, also at every graph-mode replay.

Each input goes on its own line, as MindSpore prints it (a Tensor as its
repr). In graph mode the printing is recorded as a check step
(``capture.check``), so a replayed step prints the Tensors' new values, as
MindSpore's graph-mode Print does. Returns None.

Example::

    ops.Print()("loss:", loss)
"""

import sys

from .._core import capture as _capture
from ..tensor import Tensor
from .operations import Primitive

__all__ = ["Print"]


class Print(Primitive):
    """Print the inputs (str, int, float, bool, Tensor, or tuples/lists of them), one per line."""

    def __init__(self):
        super().__init__("Print")

    def __call__(self, *inputs):
        parts = []
        tensors = []
        for i, value in enumerate(inputs):
            items = value if isinstance(value, (tuple, list)) else (value,)
            for item in items:
                if isinstance(item, Tensor):
                    parts.append(len(tensors))
                    tensors.append(item)
                elif isinstance(item, (str, int, float, bool)):
                    parts.append(str(item))
                else:
                    raise TypeError(f"For 'Print', input {i} must be a str, a number, a Tensor or a tuple/list of "
                                    f"them, got {type(item).__name__}")
        if not parts:
            return None
        formats = [t._format for t in tensors]

        def show(*arrays):
            lines = [p if isinstance(p, str) else repr(Tensor._wrap(arrays[p], formats[p])) for p in parts]
            sys.stdout.write("\n".join(lines) + "\n")

        _capture.check(show, *tensors)
        return None
