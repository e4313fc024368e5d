"""``ops.dot`` and ``Tensor.dot``: MindSpore's dot product of two tensors of rank 2 or more.

``dot(x1, x2)`` sums over the last axis of ``x1`` and the second-to-last axis of
``x2`` (NumPy's ``dot`` for N-D arrays): shapes ``(a..., N)`` and ``(b..., N, M)``
give ``(a..., b..., M)``. It is composed of reshape, transpose and matmul, so it
is differentiated and replayed like they are.

Example::

    ops.dot(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((3, 4), np.float32)))   # (2, 4)
"""

from ..._core.functions import register_function
from ...tensor import Tensor, as_tensor
from ..array.shape import reshape, transpose
from ..math.elementwise import matmul

__all__ = ["dot"]

_FLOATS = ("float16", "float32", "float64")      # float64 too: MindSpore's CPU kernel has no float64


def dot(input, other):  # noqa: A002 - MindSpore's name
    """MindSpore's ``ops.dot``: both inputs of rank >= 2, the same float dtype (float64 is accepted too,
    where MindSpore refuses it)."""
    x1 = input if isinstance(input, Tensor) else as_tensor(input)
    x2 = other if isinstance(other, Tensor) else as_tensor(other)
    if x1.dtype.name not in _FLOATS:
        raise TypeError(f"For 'dot', the 'x1' doesn't support '{x1.dtype}' and expect to receive "
                        f"[mindspore.float16, mindspore.float32].")
    if x1.dtype != x2.dtype:
        raise TypeError(f"For 'dot', the inputs must be the same type, but got x1_type: {x1.dtype} and "
                        f"x2_type: {x2.dtype}.")
    s1, s2 = x1.shape, x2.shape
    if len(s1) < 2 or len(s2) < 2:
        raise ValueError(f"For 'dot', the inputs x1, x2 should have 'dimension >= 2', but got "
                         f"'len(x1_shape)': ({len(s1)}) and 'len(x2_shape)': ({len(s2)}).")
    n = s1[-1]
    if s2[-2] != n:
        raise ValueError(f"For 'dot', the last dimension of x1 ({n}) must equal the second-to-last "
                         f"dimension of x2 ({s2[-2]}); got shapes {list(s1)} and {list(s2)}.")
    # (b..., N, M) -> (N, b..., M) -> (N, B*M): one matmul with x1 as (A, N)
    k = len(s2)
    moved = transpose(x2, (k - 2,) + tuple(range(k - 2)) + (k - 1,))
    flat2 = reshape(moved, (n, -1))
    out = matmul(reshape(x1, (-1, n)), flat2)
    return reshape(out, tuple(s1[:-1]) + tuple(s2[:-2]) + (s2[-1],))


register_function("dot", dot)
