"""``ms.is_tensor`` and ``ms.frombuffer``.

Example::

    ms.frombuffer(b"\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00", ms.int32)     # Tensor [1, 2]
"""

import numpy as np

from . import dtype as _dt
from .tensor import Tensor

__all__ = ["is_tensor", "frombuffer"]


def is_tensor(obj):
    """Whether ``obj`` is a Tensor (a Parameter is one)."""
    return isinstance(obj, Tensor)


def frombuffer(buffer, dtype, count=-1, offset=0):
    """A 1-D Tensor of ``dtype`` read from an object exposing the buffer protocol (bytes,
    bytearray, a NumPy array, memoryview): ``count`` elements (-1: all) from byte ``offset``.
    The values are copied."""
    dtype = _dt.dtype_from_any(dtype)
    if isinstance(count, bool) or not isinstance(count, int) or isinstance(offset, bool) or \
            not isinstance(offset, int):
        raise TypeError(f"frombuffer: count and offset must be ints, got {count!r} and {offset!r}")
    try:
        raw = memoryview(buffer).cast("B")
    except TypeError:
        raise TypeError(f"frombuffer: buffer must support the buffer protocol, got {type(buffer).__name__}") from None
    size = dtype.np_dtype.itemsize
    if offset < 0 or offset > len(raw):
        raise ValueError(f"frombuffer: offset must be in [0, {len(raw)}], got {offset}")
    avail = len(raw) - offset
    if count == -1:
        if avail % size:
            raise RuntimeError(f"buffer length ({avail} bytes) after offset ({offset} bytes) must be a multiple of "
                               f"element size ({size}).")
        count = avail // size
    elif count <= 0 or count * size > avail:
        raise ValueError(f"frombuffer: count must be -1 or in [1, {avail // size}] for {avail} bytes after offset "
                         f"{offset}, got {count}")
    return Tensor(np.frombuffer(raw, dtype.np_dtype, count, offset).copy())
