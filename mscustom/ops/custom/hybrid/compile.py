"""Load generated kernel source as a module (a file keyed by its content) and compile it with Numba.

A generated module is written once to ``$MSCUSTOM_CACHE_DIR/hybrid`` (default
``~/.cache/mscustom/hybrid``) under a name holding the hash of its text, then
imported from there, so ``numba.njit(cache=True)`` finds a source file and
Numba's on-disk cache serves later processes. Compiled entry points are kept
per (source, argument types) for the life of the process.

Example::

    fn = cpu_function(source, "k_add", parallel=False, argtypes=types)
"""

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np

from .._buildlog import log_build, numba_counts, numba_outcome

__all__ = ["cache_dir", "load_module", "cpu_function", "numba_array_types"]

_LOCK = threading.Lock()
_MODULES = {}
_COMPILED = {}


def cache_dir():
    env = os.environ.get("MSCUSTOM_CACHE_DIR")
    return (Path(env) if env else Path.home() / ".cache" / "mscustom") / "hybrid"


def load_module(source, stem):
    """Import ``source`` as a module from a content-named file (written atomically, once)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    with _LOCK:
        mod = _MODULES.get(digest)
        if mod is not None:
            return mod
        directory = cache_dir()
        path = directory / f"{stem}_{digest}.py"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
                with os.fdopen(fd, "w") as fh:
                    fh.write(source)
                os.replace(tmp, path)
        except OSError:                 # read-only home: a private temporary directory
            directory = Path(tempfile.mkdtemp(prefix="mscustom-hybrid-"))
            path = directory / f"{stem}_{digest}.py"
            path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"mscustom_hybrid_{stem}_{digest}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod             # Numba's cache and pickling look modules up by name
        spec.loader.exec_module(mod)
        _MODULES[digest] = mod
        return mod


def numba_array_types(shapes, dtypes):
    import numba
    from numba.core import types
    return tuple(types.Array(numba.from_dtype(np.dtype(d)), len(s), "C") for s, d in zip(shapes, dtypes))


def cpu_function(source, stem, fname, parallel, argtypes):
    """The compiled entry point of ``fname`` in ``source`` for ``argtypes`` (``numba.njit(cache=True)``)."""
    key = (source, fname, argtypes)
    fn = _COMPILED.get(key)
    if fn is not None:
        return fn
    import numba
    from numba.core.errors import NumbaWarning
    from ...._numba_private import cache as _numba_cache
    mod = load_module(source, stem)
    with _LOCK:
        dispatcher = getattr(mod, "_mscustom_dispatchers", {}).get(fname)
        if dispatcher is None:
            py = getattr(mod, fname)
            try:
                dispatcher = numba.njit(cache=True, parallel=parallel)(py)
            except RuntimeError:
                dispatcher = numba.njit(parallel=parallel)(py)
            mod.__dict__.setdefault("_mscustom_dispatchers", {})[fname] = dispatcher
    before, t0 = numba_counts(dispatcher), time.perf_counter()
    fn = _numba_cache.load_cached(dispatcher, argtypes)
    if fn is None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Cannot cache compiled function", category=NumbaWarning)
            try:
                fn = dispatcher.compile(argtypes)
            except (ImportError, EOFError, AttributeError):     # an unreadable cache entry: compile afresh
                fn = numba.njit(parallel=parallel)(getattr(mod, fname)).compile(argtypes)
    log_build(f"hybrid kernel '{fname}'", numba_outcome(before, numba_counts(dispatcher)), argtypes,
              time.perf_counter() - t0)
    _COMPILED[key] = fn
    return fn
