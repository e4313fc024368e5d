"""Log lines for kernel builds (``GLOG_v=1``): what was compiled or loaded from a disk cache, and how long it took.

Builds happen once per kernel and signature, never on a warm call's path,
so these lines cost nothing where it matters. ``numba_outcome`` tells a
Numba build's three outcomes apart: loaded by ``_numba_private.cache`` or by
Numba from its disk cache, compiled, or reused (already compiled in this
process).

Example::

    @logs_jit_build
    def compile(self, types, checked=False): ...
"""

import functools
import logging
import time

from ..._numba_private import cache as _numba_cache
from ...log import logger as _log

__all__ = ["logs_jit_build", "numba_counts", "numba_outcome", "log_build"]


def numba_counts(dispatcher):
    """What ``numba_outcome`` compares before and after a build of ``dispatcher``'s (None: not made yet)."""
    hits = getattr(dispatcher, "_cache_hits", None) or {}
    misses = getattr(dispatcher, "_cache_misses", None) or {}
    return _numba_cache.stats["loaded"], sum(hits.values()), sum(misses.values())


def numba_outcome(before, after):
    """``"loaded from the disk cache"``, ``"compiled"`` or ``"reused"`` from two ``numba_counts``."""
    if after[0] > before[0] or after[1] > before[1]:
        return "loaded from the disk cache"
    if after[2] > before[2]:
        return "compiled"
    return "reused"


def log_build(what, outcome, types, seconds):
    """One line: INFO for a compile or a cache load, DEBUG for a kernel already compiled in this process."""
    level = logging.DEBUG if outcome == "reused" else logging.INFO
    if _log.isEnabledFor(level):
        _log.log(level, "%s %s for (%s) in %.1f ms", what, outcome, ", ".join(str(t) for t in types),
                 seconds * 1e3, stacklevel=3)


def logs_jit_build(compile_method):
    """Decorate the jit kind's ``compile(self, types, checked=False)``: log each build's outcome and time."""
    @functools.wraps(compile_method)
    def compile(self, types, checked=False):
        if not _log.isEnabledFor(logging.INFO):
            return compile_method(self, types, checked)
        attr = "checked_dispatcher" if checked else "dispatcher"
        before = numba_counts(getattr(self, attr, None))
        t0 = time.perf_counter()
        entry = compile_method(self, types, checked)
        seconds = time.perf_counter() - t0
        outcome = numba_outcome(before, numba_counts(getattr(self, attr, None)))
        what = f"op '{self.op_name}': jit kernel '{self.kname}'{' (bounds-checked build)' if checked else ''}"
        log_build(what, outcome, types, seconds)
        return entry
    return compile
