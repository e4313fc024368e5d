"""Keeping the thread pools of jit and aot kernels usable across ``os.fork()``.

Two runtimes start worker threads in a process that runs compiled kernels:
GNU OpenMP (``libgomp``: aot kernels built with ``-fopenmp``, and Numba's
``omp`` threading layer, Numba's default where TBB is not installed) and
Numba's other threading layers. ``fork()`` copies only the calling thread.

- GNU OpenMP keeps a pool of worker threads per thread that started a
  parallel region. In a forked child the pool describes threads that do not
  exist, and the child's first parallel region waits for them forever (an
  aot kernel hangs). OpenMP 5.0's ``omp_pause_resource_all`` ends the pool's
  threads (libgomp joins them); the next parallel region starts new ones.
  The hook below calls it just before ``os.fork()``, so the child starts its
  own threads and runs parallel regions at full speed; the parent pays a
  thread start (tens of microseconds) on its next parallel region.
  ``mscustom/include/mscustom_aot.h`` does the same in C (``pthread_atfork``) for
  forks that do not go through Python.
- Numba's ``omp`` layer knows libgomp is not fork-safe and terminates a
  direct child that runs a parallel kernel. Once the pause above has ended the
  pool, the child is safe, and the child hook re-arms the layer for the child
  (``mscustom/_numba_private/forksafe.py``: that part reads Numba's private
  state, so it runs only for the Numba series it was written for; with another
  Numba, Numba's own check stays in force). The other layers need nothing:
  ``tbb`` and ``workqueue`` handle fork() themselves (and ``workqueue`` aborts
  the process when two threads launch parallel kernels at once, so mscustom
  does not switch to it).

This module itself knows nothing of Numba's internals: it pauses OpenMP and
calls the Numba half.

If the pause is unavailable (a libgomp older than GCC 9) or fails (a fork
from inside a parallel region), nothing is re-armed: aot kernels built with
the header run serially in that child, and Numba's own check stays in force.

Hooks registered with ``os.register_at_fork`` run for ``os.fork()`` and for
``multiprocessing``'s "fork" start method; ``install()`` registers them once.

``install()`` also makes ``OMP_WAIT_POLICY=passive`` the default, when the
variable is unset and no OpenMP runtime is loaded yet (the runtime reads it
when it loads). With OpenMP's default, workers spin for a while after each
parallel region; on a small machine they spin against NumPy's BLAS threads,
and in the demo a 10 µs bias-add kernel right after a matrix product took
7 ms. Set the variable yourself to choose otherwise.
"""

import ctypes
import os
import threading

from ..._numba_private import forksafe as _numba_forksafe

__all__ = ["install", "state"]

_GNU_OPENMP = "libgomp.so.1"
_OMP_PAUSE_HARD = 2                     # omp_pause_resource_t: every resource, threads included
_lock = threading.Lock()

# what the hooks found at the last fork (read by tests and for diagnosis):
#   paused: None (no GNU OpenMP loaded), True (its threads ended), False (pause missing or failed)
#   numba_rearmed: whether the child re-armed Numba's omp layer
state = {"installed": False, "paused": None, "numba_rearmed": False}
_gomp = []                              # the loaded libgomp, once found


def install():
    """Register the fork hooks for this process (idempotent; loads nothing).

    Example::

        from mscustom.ops.custom import _forksafe
        _forksafe.install()
    """
    with _lock:
        if state["installed"] or not hasattr(os, "register_at_fork"):
            return
        state["installed"] = True
        if "OMP_WAIT_POLICY" not in os.environ and _loaded_gnu_openmp() is None:
            os.environ["OMP_WAIT_POLICY"] = "passive"
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


def _loaded_gnu_openmp():
    """libgomp when this process has already loaded it, else None (never loads it)."""
    if _gomp:
        return _gomp[0]
    noload = getattr(os, "RTLD_NOLOAD", 0)
    if not noload:
        return None
    try:
        # PyDLL: the call keeps the GIL, so no other Python thread runs during the fork's hooks
        lib = ctypes.PyDLL(_GNU_OPENMP, mode=noload | os.RTLD_LAZY)
        pause = lib.omp_pause_resource_all
    except (OSError, AttributeError):       # not loaded, or older than OpenMP 5.0
        return None
    pause.argtypes, pause.restype = [ctypes.c_int], ctypes.c_int
    _gomp.append(pause)
    return pause


def _before_fork():
    pause = _loaded_gnu_openmp()
    state["paused"] = None if pause is None else pause(_OMP_PAUSE_HARD) == 0
    state["numba_rearmed"] = False
    _numba_forksafe.before_fork()


def _after_fork_in_child():
    if state["paused"]:
        state["numba_rearmed"] = _numba_forksafe.rearm_omp_layer()
