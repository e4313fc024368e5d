"""The table of public functional ops (``functions.add(x, y)``), by name.

The layer that defines ``ops.add`` & co. publishes them with
``register_function``; ``Tensor``'s operators and methods call them through
this table. It imports nothing, so ``tensor.py`` can use it with no cycle.
"""

import types

from . import deferred as _deferred

__all__ = ["functions", "register_function", "watch", "METHODS"]


class _Functions(types.SimpleNamespace):
    """The published functions; a name not published yet loads the deferred ops (``_core/deferred.py``)."""

    def __getattr__(self, name):
        if name.startswith("_") or not _deferred.pending():
            raise AttributeError(f"no published function named {name!r}")
        _deferred.load_all()
        return object.__getattribute__(self, name)


functions = _Functions()
_WATCHERS = []
# function name -> the Tensor method bound to it (``register_function(..., method=...)``)
METHODS = {}


def register_function(name, fn, method=None):
    """Publish ``fn`` as the functional form ``name`` (what ``Tensor.__add__`` & co. call).

    ``method``: also bind it as a ``Tensor`` method -- ``True`` under the same name, or the method's
    name as a string (``register_function("tensor_fill", fill, method="fill")``). One definition
    serves ``ops.name(x, ...)`` and ``x.name(...)``.
    """
    if not callable(fn):
        raise TypeError(f"register_function: {name!r} must be callable, got {type(fn).__name__}")
    if method:
        METHODS[name] = name if method is True else method
    setattr(functions, name, fn)
    for watcher in _WATCHERS:
        watcher(name, fn)
    return fn


def watch(watcher):
    """Call ``watcher(name, fn)`` for every function published from now on (``Tensor`` binds some of its
    operators straight to them, saving a frame per call)."""
    _WATCHERS.append(watcher)
