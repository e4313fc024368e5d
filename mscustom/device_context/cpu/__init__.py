"""``mindspore.device_context.cpu``: the host as a device, and the CPU kernels' thread count.

As in MindSpore 2.10: ``device_count()`` is 1 and ``is_available()`` True; the
thread count is set with ``op_tuning.threads_num(n)`` (also ``threads_num``
here, as MindSpore re-exports it), which sets mscustom's one thread budget
(``mscustom/_threads.py``: BLAS, OpenMP and Numba share it).
"""

from . import op_tuning
from .op_tuning import threads_num

__all__ = ["device_count", "is_available", "op_tuning", "threads_num"]


def device_count():
    """The number of CPU devices: 1, as MindSpore counts it."""
    return 1


def is_available():
    """Whether the CPU device can be used: always True."""
    return True
