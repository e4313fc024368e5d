"""``ms.mutable``: mark an argument as a variable of graph mode, as MindSpore does.

MindSpore compiles a graph once for every value of a constant Python scalar,
tuple or list argument, and once for all values of a ``mutable`` one.
mscustom's graph mode records a function again for each new value of a Python
scalar argument (``graph.py``), mutable or not, so results are the same and
only the number of records differs. ``mutable`` checks its input as MindSpore
does and returns it: Tensors, tuples, lists and dicts as they are, and Python
scalars as int / float / bool subclasses that remember they are mutable.

Example::

    n = ms.mutable(2)              # an int, n + 1 == 3
    batch = ms.mutable((x, y))     # the same tuple
"""

from .tensor import Tensor

__all__ = ["mutable"]


class _Int(int):
    """A Python int marked mutable."""
    __slots__ = ()


class _Float(float):
    """A Python float marked mutable."""
    __slots__ = ()


_KINDS = {int: _Int, float: _Float}


def _check(value, seen):
    if isinstance(value, (bool, int, float, Tensor)):
        return
    if isinstance(value, (tuple, list, dict)):
        if id(value) in seen:
            raise TypeError("For 'mutable', the 'input_data' must not refer to itself")
        seen = seen | {id(value)}
        for item in (value.values() if isinstance(value, dict) else value):
            _check(item, seen)
        return
    raise TypeError(f"For 'mutable', the 'input_data' should be one of (bool, int, float, Tensor, tuple, list, dict) "
                    f"or their nested structures with no self-reference, but got {type(value).__name__}: {value}.")


def mutable(input_data, dynamic_len=False):
    """``input_data`` marked as a graph-mode variable (see the module's note).

    ``dynamic_len=True`` is for tuples and lists whose length may change, as
    in MindSpore.
    """
    _check(input_data, frozenset())
    if not isinstance(dynamic_len, bool):
        raise TypeError(f"For 'mutable', the 'dynamic_len' must be a bool, but got {type(dynamic_len).__name__}")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when 'dynamic_len' is True, the 'input_data' must be a tuple or a list, "
                        f"but got {type(input_data).__name__}")
    kind = _KINDS.get(type(input_data))
    return kind(input_data) if kind is not None else input_data
