"""Keep freed array memory in the process (glibc's malloc): eager steps reuse it instead of faulting in fresh pages.

An eager training step allocates its temporaries anew every step (graph
replays write into buffers they keep). glibc hands blocks of 128 KiB and
more out as fresh ``mmap`` regions, or from the top of the heap, which it
gives back to the system once more than twice its (adaptive) mmap threshold
lies free there; either way the next step's arrays start on pages the kernel
must fault in and zero. Measured on the LeNet-like eager step of
``bench/graph_bench.py``: 1,525 page faults per step, 13.3-13.9 ms; with the
settings below none, 7.2-7.7 ms (the ResNet-ish eager step: 67-68 ms, then
63-64).

``apply()`` (called by ``import mscustom``) sets, through ``mallopt``:

- ``M_MMAP_THRESHOLD`` 32 MiB: blocks below it come from the heap, where freed
  ones are reused (glibc's own threshold grows to this value on its own, but
  only after freeing such a block, and it lets the heap shrink meanwhile);
- ``M_TRIM_THRESHOLD`` 256 MiB: up to that much free memory at the heap's top
  stays with the process instead of returning to the system.

The cost is memory: a process keeps up to 256 MiB of freed heap per malloc
arena it has used, as PyTorch's and jemalloc's caching allocators keep theirs.
``MSCUSTOM_MALLOC=0`` leaves malloc as it was; so does either of glibc's own
variables (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``) set by the
user, and any C library other than glibc.
"""

import os
import sys

__all__ = ["apply", "ENV", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

ENV = "MSCUSTOM_MALLOC"
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3          # glibc's malloc.h parameter numbers
_USER_VARS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def apply():
    """Set the thresholds above; True where they were set (glibc on Linux, not turned off)."""
    if os.environ.get(ENV, "1").strip() == "0" or not sys.platform.startswith("linux") \
            or any(v in os.environ for v in _USER_VARS):
        return False
    import ctypes               # already loaded by NumPy
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version           # glibc only: other C libraries read these numbers otherwise
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) & bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
