"""The concern packages (``ops/math``, ``ops/array``, ``ops/nn`` ...) are set up in two steps.

Each package holds both the core op modules the functional layer is built on
(``math/elementwise.py``, ``array/shape.py``, ``nn/activation.py`` ...) and
modules of more names built on that layer (``math/_trig.py`` ...), which its
``__init__`` imports to re-export them. Importing a core module runs its
package's ``__init__`` first, so the functional layer would pull in the name
modules while it is itself half imported. ``create`` therefore registers the
packages (empty, with their ``__path__``) before the core modules load, and
``finish`` runs their ``__init__`` once the core is complete: when the deferred
group of ``mscustom/ops/__init__.py`` loads (the first lookup of one of their
names, ``_core/deferred.py``), or earlier for a package whose own names are read
(``from mscustom.ops.math import *``, ``mscustom.ops.array.hann_window``).
Importing a core module then loads that module alone.
"""

import importlib.util
import sys

__all__ = ["create", "finish"]

_PENDING = {}       # package name -> (parent, short name, module, spec), in registration order


def create(parent, names):
    """Register ``parent.<name>`` for each name as a package whose ``__init__`` has not run yet.

    Until ``finish``, its submodules import as usual; reading any other name from the package
    (``from ..array import hamming_window`` in a module that loads early) runs its ``__init__`` then.
    """
    for name in names:
        full = f"{parent}.{name}"
        if full in sys.modules:
            continue
        spec = importlib.util.find_spec(full)
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _on_demand(module)
        sys.modules[full] = module
        _PENDING[full] = (parent, name, module, spec)


def _on_demand(module):
    def __getattr__(name):
        full = f"{module.__name__}.{name}"
        if name == "__all__" and module.__name__ in _PENDING:      # ``from ..math import *``: the whole list
            _run(module.__name__)
            return module.__all__
        if name.startswith("__") or full in sys.modules or importlib.util.find_spec(full) is not None:
            raise AttributeError(name)          # a submodule: the import system loads it
        if module.__name__ not in _PENDING:     # running now: a partially initialized package
            raise AttributeError(f"partially initialized module {module.__name__!r} has no attribute "
                                 f"{name!r} (most likely due to a circular import)")
        _run(module.__name__)
        return getattr(module, name)
    return __getattr__


def _run(full):
    parent, name, module, spec = _PENDING.pop(full)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(full, None)
        raise
    finally:
        if getattr(module.__dict__.get("__getattr__"), "__qualname__", "").startswith("_on_demand"):
            del module.__getattr__
    setattr(sys.modules[parent], name, module)


def finish():
    """Run the registered packages' ``__init__`` still pending (in the order they were registered)."""
    while _PENDING:
        _run(next(iter(_PENDING)))
