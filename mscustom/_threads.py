"""One thread budget for every pool mscustom runs work on.

Three pools can run a step's work: Numba's (``prange`` kernels, the fused
kernels of graph replays, the built-in Numba loops), the BLAS NumPy links
(OpenBLAS: matmuls, convolutions' GEMMs) and OpenMP (AOT kernels built with
``-fopenmp``). Left alone each sizes itself to the machine, and a program
that limits one (``OMP_NUM_THREADS=1``) still gets the others at full size:
threads of one pool then spin while another's run, and a step with more
threads than cores gets slower, not faster. The budget is one number, applied
to all three:

- by default, ``MSCUSTOM_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the
  CPUs this process may run on;
- ``ms.set_context(runtime_num_threads=n)`` (MindSpore's key; 0 restores the
  default) or ``ms.device_context.cpu.op_tuning.threads_num(n)`` (MindSpore
  2.10's call: once per process, as there) set it, as does ``set_num_threads``.

BLAS and OpenMP are limited through threadpoolctl, for the whole process.
Numba's limit is per Python thread (``numba.set_num_threads``): it is applied
in the thread that sets the budget and in each thread that binds a jit kernel
(``apply_to_numba``); Numba's pool itself has ``NUMBA_NUM_THREADS`` threads
(set before Numba starts, e.g. by ``msrun``), which caps the budget there.

Spinning workers. After a threaded product OpenBLAS's workers spin, by default
for 2**28 cycles (about 0.1 s), waiting for the next one; on a small machine
they spin against the worker threads of Numba's parallel kernels and of the
convolutions' batch split, which then finish last: a parallel elementwise
kernel over 2**19 values right after a product took 4.6 ms with two threads
against 3.6 ms with one (1.8 ms once OpenBLAS's workers stopped spinning), and
the Transformer layer's step was slower with two threads than with one.
Importing ``mscustom`` makes ``OPENBLAS_THREAD_TIMEOUT=14`` (2**14 cycles, a
few microseconds: enough for products called back to back) the default where
OpenBLAS is not loaded yet -- it reads the variable when it loads, with NumPy.
A program that imports NumPy first keeps OpenBLAS's own default: set the
variable yourself (or import ``mscustom`` first). A value already set is never
changed.

Example::

    import mscustom as ms
    ms.set_context(runtime_num_threads=1)      # one thread for BLAS, OpenMP and Numba
"""

import os
import sys
import threading

__all__ = ["default_num_threads", "get_num_threads", "set_num_threads", "apply_to_numba"]

ENV = "MSCUSTOM_NUM_THREADS"

_lock = threading.Lock()
_budget = [None]            # the number set, or None for the default
_limiter = [None]           # threadpoolctl's limiter, kept so its limits stay
_generation = [0]           # bumped by each set_num_threads: threads apply Numba's limit again
_numba_applied = threading.local()


_NATIVE_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_ORIGINAL = {var: os.environ.get(var) for var in _NATIVE_VARS}   # before a budget wrote them


def _positive_env(name):
    value = (_ORIGINAL[name] if name in _ORIGINAL else os.environ.get(name)) or ""
    value = value.strip()
    if not value:
        return None
    try:
        n = int(value.split(",")[0])
    except ValueError:
        return None
    return n if n > 0 else None


def default_num_threads():
    """``MSCUSTOM_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the CPUs this process may use."""
    n = _positive_env(ENV) or _positive_env("OMP_NUM_THREADS")
    if n is not None:
        return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def get_num_threads():
    """The budget in force."""
    return _budget[0] if _budget[0] is not None else default_num_threads()


def set_num_threads(n, who="set_num_threads"):
    """Set the budget to ``n`` threads (None: the default) and apply it to BLAS, OpenMP and Numba."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n <= 0):
        raise ValueError(f"{who}: the number of threads must be a positive int, got {n!r}")
    with _lock:
        _budget[0] = n
        _limit_native(get_num_threads())
        _generation[0] += 1
    apply_to_numba()


def _limit_native(n):
    """BLAS and OpenMP pools (threadpoolctl), for the whole process.

    Pools loaded later (SciPy's OpenBLAS, the libgomp of an AOT kernel library)
    read the environment when they load, so the variables are set too (child
    processes inherit them as well).
    """
    for var in _NATIVE_VARS:
        if _budget[0] is None and _ORIGINAL[var] is not None:
            os.environ[var] = _ORIGINAL[var]        # the default again: the user's own values
        else:
            os.environ[var] = str(n)
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:             # not installed: the pools keep their own sizes
        return
    old = _limiter[0]
    if old is not None:
        old.restore_original_limits()
    _limiter[0] = ThreadpoolController().limit(limits=n)


def apply_to_numba():
    """Numba's thread count in this Python thread, once per budget (when Numba is imported)."""
    numba = sys.modules.get("numba")
    if numba is None or getattr(_numba_applied, "generation", -1) == _generation[0]:
        return
    set_threads = getattr(numba, "set_num_threads", None)
    if set_threads is None:
        return
    # numba.set_num_threads starts Numba's threading layer, which loads GNU OpenMP: the fork hooks
    # and the OpenMP defaults (``ops/custom/_forksafe.py``: idle workers sleep instead of spinning
    # against BLAS's threads) must be in place first, as the runtime reads them when it loads.
    from .ops.custom import _forksafe
    _forksafe.install()
    n = min(get_num_threads(), int(numba.config.NUMBA_NUM_THREADS))
    set_threads(max(1, n))
    _numba_applied.generation = _generation[0]


def apply_default_at_start():
    """At each jit kernel bind: a budget set in code or limited by the environment applies to every pool.

    Only when a budget was set, or ``MSCUSTOM_NUM_THREADS`` or ``OMP_NUM_THREADS``
    is set: BLAS and OpenMP read ``OMP_NUM_THREADS`` themselves, Numba does not,
    and ``MSCUSTOM_NUM_THREADS`` is read by none of them.
    """
    if _budget[0] is None and _positive_env(ENV) is None and _positive_env("OMP_NUM_THREADS") is None:
        return
    with _lock:         # again at each bind: pools loaded since (SciPy's BLAS) get the limit too
        _limit_native(get_num_threads())
    apply_to_numba()
