"""The Numba half of fork safety: what a forked child needs from Numba's private state.

``mscustom/ops/custom/_forksafe.py`` owns the fork hooks and ends GNU
OpenMP's thread pool before ``fork()``; in the child it asks this module to
make Numba usable again:

- ``rearm_omp_layer()``: Numba's ``omp`` threading layer records the pid of
  the process that launched it and terminates a direct child that runs a
  parallel kernel ("Terminating: fork() called from a process already using
  GNU OpenMP, this is unsafe."). Once the pool has been ended before the fork
  the child is safe, so this calls the layer's ``launch_threads`` again, which
  records the child's pid (what Numba does when it starts the layer). The
  ``tbb`` and ``workqueue`` layers handle fork() themselves.
- ``fresh_compiler_lock()``: a compile that another thread was running at the
  fork leaves Numba's global compiler lock held by a thread the child does not
  have; the child gets a new lock (the jit kind calls this from its own child
  hook).

Both read ``sys.modules`` only (they never import Numba: a process that has
not loaded it needs nothing) and touch Numba's private attributes
(``numba.np.ufunc.parallel._threading_layer``, ``omppool.launch_threads``,
``global_compiler_lock._lock``), so they act only when
``mscustom._numba_private.supported()``; with another Numba they do nothing
and return False, and Numba's own behaviour stays in force.
"""

import ctypes
import sys
import threading

from . import supported

__all__ = ["before_fork", "rearm_omp_layer", "fresh_compiler_lock"]


def before_fork():
    """In the parent, before ``fork()``: settle ``supported()`` while reading metadata is still safe.

    The child's hooks then only look at the answer (no file reads in a
    half-copied process).
    """
    if "numba" in sys.modules:
        supported()


def rearm_omp_layer():
    """Let Numba's GNU OpenMP layer run parallel kernels in this child; True when it did.

    Call it only in a forked child whose parent ended GNU OpenMP's pool before
    the fork (``omp_pause_resource_all``), or the child's parallel regions wait
    for threads it does not have.
    """
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    omppool = sys.modules.get("numba.np.ufunc.omppool")
    if parallel is None or omppool is None or not supported():
        return False
    if not getattr(parallel, "_is_initialized", False):
        return False
    if getattr(parallel, "_threading_layer", None) != "omp" or getattr(omppool, "openmp_vendor", "") != "GNU":
        return False
    launch = getattr(omppool, "launch_threads", None)
    if launch is None:
        return False
    ctypes.CFUNCTYPE(None, ctypes.c_int)(launch)(parallel.NUM_THREADS)
    return True


def fresh_compiler_lock():
    """Give Numba a new global compiler lock in this forked child; True when it did.

    The old one may be held by a thread that was compiling at the fork and
    does not exist in the child, which would block every compile there.
    """
    module = sys.modules.get("numba.core.compiler_lock")
    if module is None or not supported():
        return False
    lock = getattr(module, "global_compiler_lock", None)
    if lock is None or not hasattr(lock, "_lock"):
        return False
    lock._lock = threading.RLock()
    return True
