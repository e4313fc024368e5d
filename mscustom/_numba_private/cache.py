"""Load a jit kernel's machine code from Numba's disk cache without Numba's start-up cost.

In a fresh process, ``dispatcher.compile(types)`` for a kernel that is already
in the disk cache spends about 130 ms building Numba's typing and target
contexts (every typing template and lowering registry Numba has) before it
reads the cache -- although running cached machine code needs none of them.
What it does need are the runtime symbols the code may call: Numba's helper
library (registered when Numba is imported), the NRT memory runtime, the hash
secret, C math functions (registered when the target context is made) and,
for ``prange`` kernels, the threading layer (started by the cache entry's own
reload hook). ``load_cached`` registers those and reads the cache entry
directly: about 20-30 ms instead of 130-160 ms.

This reads private parts of Numba (``Dispatcher._cache``,
``FunctionCache._load_overload``, ``nrt.rtsys``), so it runs only when
``mscustom._numba_private.supported()``. Anything unexpected -- another Numba
series, a cache miss, a stale entry, a dispatcher of another kind -- returns
None, and the caller takes Numba's public path (``dispatcher.compile``, which
reads the same cache after Numba's start-up). ``MSCUSTOM_JIT_FAST_CACHE=0``
turns this off.

Used by the jit and hybrid kinds and by ``aot_caller``.

Example::

    from mscustom._numba_private import cache
    entry = cache.load_cached(numba.njit(cache=True)(kernel), argtypes)   # or None
"""

import os

from . import supported

__all__ = ["load_cached", "uses_disk_cache", "drop_disk_cache", "separate_cache", "FAST_CACHE_ENV", "stats"]

FAST_CACHE_ENV = "MSCUSTOM_JIT_FAST_CACHE"
stats = {"loaded": 0, "fallbacks": 0}      # how often the fast path answered (for tests and diagnosis)


def load_cached(dispatcher, argtypes):
    """The compiled entry point for ``argtypes`` from the disk cache, or None to take Numba's path."""
    if os.environ.get(FAST_CACHE_ENV, "1") == "0" or not supported():
        return None
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or type(cache).__name__ != "FunctionCache" or not getattr(cache, "_enabled", False):
        return None
    if tuple(argtypes) in getattr(dispatcher, "overloads", {}):
        return None                      # already compiled in this process: Numba's path is quick
    try:
        import numba.cpython.hashing  # noqa: F401  (registers the hash-secret symbols)
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.runtime import nrt
        with global_compiler_lock:
            ctx = dispatcher.targetctx
            nrt.rtsys.initialize(ctx)
            cres = cache._load_overload(tuple(argtypes), ctx)
            if cres is not None:
                dispatcher.add_overload(cres)      # the dispatcher knows it, as after its own load
    except Exception:                    # a private API changed, an unreadable entry, ...
        stats["fallbacks"] += 1
        return None
    if cres is None:
        return None                      # not in the cache (or stale): compile normally
    stats["loaded"] += 1
    return cres.entry_point


def uses_disk_cache(dispatcher):
    """True when ``dispatcher`` (an njit dispatcher) reads and writes Numba's disk cache."""
    return type(getattr(dispatcher, "_cache", None)).__name__ != "NullCache"


def drop_disk_cache(dispatcher):
    """Make ``dispatcher`` compile without Numba's disk cache from now on (an entry it cannot load)."""
    from numba.core.caching import NullCache
    dispatcher._cache = NullCache()         # what a dispatcher made without cache=True holds


def separate_cache(dispatcher, tag):
    """Give an ``njit(cache=True)`` dispatcher disk-cache files of its own, named with ``-tag``.

    Numba's cache files are named after the function and keyed by signature
    only, not by compile options: a ``boundscheck=True`` build of a kernel would
    share (and overwrite) the plain build's entries. Returns False, with the
    disk cache turned off for this dispatcher, where Numba's cache is not the
    one this was written for.
    """
    cache = getattr(dispatcher, "_cache", None)
    if type(cache).__name__ == "NullCache":
        return False
    try:
        if not supported() or type(cache).__name__ != "FunctionCache":
            raise TypeError("another cache")
        files = cache._cache_file
        base = files._index_name[:-len(".nbi")]
        type(files).__init__(files, files._cache_path, f"{base}-{tag}", files._source_stamp)
    except Exception:
        drop_disk_cache(dispatcher)
        return False
    return True
