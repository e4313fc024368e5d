"""Split a kernel's batch of samples among the thread budget's threads (``mscustom/_threads.py``).

The convolution kernels run over chunks of samples (im2col into a per-thread
scratch buffer, then BLAS products); chunks are independent, the Numba loops
release the GIL and so does NumPy's matmul, so with a budget of ``n`` threads
the chunks are dealt round-robin to ``n`` workers: the calling thread and
``n - 1`` threads of a pool kept for the process. BLAS runs on one thread
meanwhile (two levels of threads would only oversubscribe the cores). Each
worker's share is fixed by the budget and the batch, so results are the same
from run to run; a worker's exception is raised in the caller once every
worker has stopped (none is left writing into the outputs).
"""

import os
import sys
import threading

__all__ = ["workers_for", "over_chunks"]

_POOL = {"pool": None, "size": 0, "pid": None}
_LOCK = threading.Lock()


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
