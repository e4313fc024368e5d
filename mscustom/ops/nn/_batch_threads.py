"""Split a kernel's batch of samples among the thread budget's threads (``mscustom/_threads.py``).

Two ways. Kernels whose work is Numba loops split inside one compiled call
(the second half of this module: ``prange`` drivers over fixed chunks). The
im2col convolutions and stacks of small products, whose work is BLAS calls
between Numba loops, use a pool of Python threads (this half).

The im2col convolution kernels run over chunks of samples (im2col into a per-thread
scratch buffer, then BLAS products); chunks are independent, the Numba loops
release the GIL and so does NumPy's matmul, so with a budget of ``n`` threads
the chunks are dealt round-robin to ``n`` workers: the calling thread and
``n - 1`` threads of a pool kept for the process. BLAS runs on one thread
meanwhile (two levels of threads would only oversubscribe the cores). Each
worker's share is fixed by the budget and the batch, so results are the same
from run to run; a worker's exception is raised in the caller once every
worker has stopped (none is left writing into the outputs).
"""

import contextlib
import os
import sys
import threading

__all__ = ["workers_for", "over_chunks", "one_blas_thread", "numba_workers", "chunk_bounds", "chunk_count",
           "parallel_njit"]

_POOL = {"pool": None, "size": 0, "pid": None}
_LOCK = threading.Lock()
_BLAS = {"libs": None}


@contextlib.contextmanager
def one_blas_thread():
    """A context running BLAS on one thread: while the budget's workers run products at once, and for
    the convolutions' filter gradient.

    That product has a tiny output (O x C*kH*kW) and a huge inner dimension
    (N*oH*oW). Threaded OpenBLAS gains little on it, and on a machine whose
    cores are busy with other processes its threads wait for each other at
    every barrier: measured here 100-400 ms instead of 0.5 ms for a
    (6 x 36864) @ (36864 x 25) product, about a tenth of the calls. One thread
    costs at most about 2x on an idle machine and never stalls.

    The BLAS libraries' own thread setters are called directly (about a
    microsecond each): threadpoolctl's ``limit`` context re-reads every
    library's info on entry and exit, about 0.3 ms per product.
    """
    libs = _BLAS["libs"]
    if libs is None:
        from threadpoolctl import ThreadpoolController      # imported on the first product, not at import
        libs = _BLAS["libs"] = ThreadpoolController().select(user_api="blas").lib_controllers
    saved = [lib.get_num_threads() for lib in libs]
    if all(n == 1 for n in saved):
        yield
        return
    for lib in libs:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in zip(libs, saved):
            lib.set_num_threads(n)


def workers_for(n_chunks):
    """How many threads a kernel with ``n_chunks`` independent chunks uses: the budget, at most one per chunk.

    Reads the budget only where it was set up (``mscustom._threads`` imported by a budget call or a
    jit kernel); otherwise the process's CPUs are the default, as ``_threads.default_num_threads`` gives.
    """
    threads = sys.modules.get("mscustom._threads")
    if threads is None:
        from ... import _threads as threads
    return max(1, min(threads.get_num_threads(), n_chunks))


def _pool(size):
    """The process's worker pool with at least ``size`` threads (a fresh one after ``os.fork``)."""
    from concurrent.futures import ThreadPoolExecutor    # with the first threaded kernel, not at import
    with _LOCK:
        if _POOL["pool"] is None or _POOL["size"] < size or _POOL["pid"] != os.getpid():
            if _POOL["pool"] is not None and _POOL["pid"] == os.getpid():
                _POOL["pool"].shutdown(wait=False)      # a larger budget: its idle threads end
            _POOL["pool"] = ThreadPoolExecutor(max_workers=size, thread_name_prefix="mscustom-batch")
            _POOL["size"], _POOL["pid"] = size, os.getpid()
        return _POOL["pool"]


def over_chunks(chunks, work, workers):
    """``[work(share) for share in shares]``: ``chunks`` (a list of ``(b0, b1)``) dealt round-robin into
    ``workers`` shares, the first run by the calling thread, the others by the pool at the same time."""
    shares = [chunks[i::workers] for i in range(workers)]
    if workers == 1:
        return [work(shares[0])]
    futures = [_pool(workers - 1).submit(work, share) for share in shares[1:]]
    try:
        first = work(shares[0])
    finally:
        results, error = [], None
        for future in futures:          # wait for every worker before anything is raised or returned
            try:
                results.append(future.result())
            except BaseException as exc:        # noqa: B902 - re-raised below, after the others stopped
                error = error or exc
    if error is not None:
        raise error
    return [first] + results


# ------------------------------------------------------------------ chunks on Numba's threads
# Loops written in Numba split the batch (or the channels) inside one compiled call: a driver runs
# ``for t in prange(workers)`` over fixed chunks (``chunk_bounds``), one per worker, on Numba's
# threading layer (GNU OpenMP here), with no Python frame or GIL hand-off in the other thread. The
# wake-up itself costs about what the pool's does on this machine (about 50 us with OpenMP's
# workers passive, the default: ops/custom/_forksafe.py), but in the ResNet-ish step the direct
# convolutions ran about 10% faster on two threads this way than through the pool.
# The chunks depend on the budget only, never on how many threads Numba actually has, so values are
# the same whatever Numba's pool does (its threads may run the chunks one after another).

def chunk_bounds(n, workers, t):
    """Chunk ``t`` of ``range(n)`` cut into ``workers`` chunks of ``ceil(n / workers)`` (the last ones
    shorter or empty): ``(start, stop)``."""
    step = (n + workers - 1) // workers
    b0 = min(n, int(t) * step)      # int: a prange index is unsigned in Numba, and the loops a driver
    return b0, min(n, b0 + step)    # calls would compile again for unsigned bounds (seconds each)


def chunk_count(n, workers):
    """How many of ``chunk_bounds``'s chunks are not empty."""
    if n <= 0:
        return 0
    step = (n + workers - 1) // workers
    return (n + step - 1) // step


_JIT = {}


def _chunk_bounds_jit():
    """``chunk_bounds`` compiled, for drivers to call (inlined)."""
    fn = _JIT.get("chunk_bounds")
    if fn is None:
        import numba
        fn = _JIT["chunk_bounds"] = numba.njit(inline="always")(chunk_bounds)
    return fn


def parallel_njit(fn, calls=None, **options):
    """``fn`` compiled with ``parallel=True`` (and ``nogil``, Numba's disk cache where it can write):
    a driver whose ``prange`` runs chunks at once on Numba's threads. ``prange``, ``chunk_bounds``
    (compiled) and the loops in ``calls`` (name -> compiled loop) are bound in ``fn``'s module
    first, under the names ``fn`` calls them by. Registers the fork hooks that keep GNU OpenMP's pool
    usable in a forked child first (``ops/custom/_forksafe.py``)."""
    import numba

    from ..custom import _forksafe
    from .. import _loop_loader
    _forksafe.install()
    fn.__globals__.update(prange=numba.prange, chunk_bounds=_chunk_bounds_jit(), **(calls or {}))
    return _loop_loader.njit(fn, parallel=True, **options)


def numba_workers(n_chunks):
    """``workers_for(n_chunks)``, with Numba's thread count in this Python thread set to the budget
    when a driver will split (``_threads.apply_to_numba``: Numba's limit is per thread)."""
    workers = workers_for(n_chunks)
    if workers > 1:
        sys.modules["mscustom._threads"].apply_to_numba()
    return workers
