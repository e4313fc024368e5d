"""Deferred imports: the bulk of the API loads when a name it defines is first looked up.

``import mscustom`` loads the core (Tensor, the operator core, the common ops,
``nn``'s everyday cells); the hundreds of further names (``ops.tril``,
``Tensor.lgamma``, ``nn.Conv3d`` ...) live in modules that most short programs
never touch, and importing them all costs more than the rest of the package.
Each such group registers a loader here; the namespaces that can miss a
deferred name (``mscustom.ops``, ``mscustom.nn``, the published functions, the op
registry) call ``load_all()`` on a miss and look again; ``Tensor`` holds a
placeholder under each method name the load binds (``tensor._DeferredMethod``).

A deferred load only adds names: it never replaces a binding that the core
made (``tests/test_import_lazy.py`` checks it), so the state after it is the
state an eager import would give, whatever was looked up first.
"""

import threading

__all__ = ["add_loader", "load_all", "pending"]

_LOADERS = []           # loader() callables not yet run, in registration order
_LOCK = threading.RLock()
_RUNNING = []           # the thread running the loaders, while it does


def add_loader(loader):
    """Register ``loader()``: it imports a deferred group of names into its namespaces."""
    with _LOCK:
        _LOADERS.append(loader)


def pending():
    """True while some deferred group is not loaded yet, or another thread is loading it now.

    False in the thread that is running the loaders: a miss there (a deferred module importing a
    submodule through ``from .. import name``, or looking up a name its group has not bound yet)
    gets its AttributeError at once, as in an eager import, instead of running the other loaders
    out of their order.
    """
    if _RUNNING:
        return _RUNNING[0] is not threading.current_thread()
    return bool(_LOADERS)


def load_all():
    """Run every pending loader (once each, in registration order); True if any ran.

    A miss during a load (a deferred module looking up a name at import time) finds no loader
    pending and raises its AttributeError, as a circular import would. A loader that fails is
    registered again (the next miss retries it and shows its error again). A load that starts inside
    a graph capture or a gradient recording (the first ``ops.lgamma`` of a ``ms.jit`` function) runs
    with both paused: only the caller's own ops are recorded.
    """
    if not pending():
        return False
    from .capture import suspended
    from .tape import paused
    with _LOCK, suspended(), paused():      # a second thread waits at the lock for the first one's load;
        ran = False                         # the modules' import-time work is no part of a graph or a tape
        _RUNNING.append(threading.current_thread())
        try:
            while _LOADERS:
                loader = _LOADERS.pop(0)
                try:
                    loader()
                except BaseException:
                    _LOADERS.insert(0, loader)
                    raise
                ran = True
        finally:
            _RUNNING.pop()
    return ran
