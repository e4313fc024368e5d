"""The concern packages (``ops/math``, ``ops/array``, ``ops/nn`` ...) are set up in two steps.

Each package holds both the core op modules the functional layer is built on
(``math/elementwise.py``, ``array/shape.py``, ``nn/activation.py`` ...) and
modules of more names built on that layer (``math/_trig.py`` ...), which its
``__init__`` imports to re-export them. Importing a core module runs its
package's ``__init__`` first, so the functional layer would pull in the name
modules while it is itself half imported. ``create`` therefore registers the
packages (empty, with their ``__path__``) before the core modules load, and
``finish`` runs their ``__init__`` once the core is complete, at the end of
``mscustom/ops/__init__.py``. Importing a core module then loads that module
alone.
"""

import importlib.util
import sys

__all__ = ["create", "finish"]

_PENDING = []


def create(parent, names):
    """Register ``parent.<name>`` for each name as a package whose ``__init__`` has not run yet."""
    for name in names:
        full = f"{parent}.{name}"
        if full in sys.modules:
            continue
        spec = importlib.util.find_spec(full)
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        _PENDING.append((parent, name, module, spec))


def finish():
    """Run the registered packages' ``__init__`` (in the order they were registered)."""
    while _PENDING:
        parent, name, module, spec = _PENDING.pop(0)
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(module.__name__, None)
            raise
        setattr(sys.modules[parent], name, module)
