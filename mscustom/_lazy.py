"""Lazy attributes of a package (PEP 562): import a submodule on first use, not at package import.

``import mscustom`` stays fast because what most programs never touch (the
dataset engine, training and export, MPI communication, the profiler ...) is
imported only when its name is first looked up. Each package lists its lazy
names once::

    __getattr__, __dir__ = lazy_attrs(__name__, globals(), {
        "dataset": ".dataset",              # a submodule
        "Model": ".train:Model",            # a name inside a submodule
    })

The first lookup imports the target and stores it in the package's namespace,
so later lookups are plain attribute reads. More names can be added later in
the package with ``__getattr__.targets.update({...})``.
"""

import importlib

__all__ = ["lazy_attrs"]


def lazy_attrs(package, namespace, targets):
    """Return ``(__getattr__, __dir__)`` serving ``targets`` (name -> ``".module"`` or ``".module:attr"``)."""
    targets = dict(targets)

    def __getattr__(name):
        spec = targets.get(name)
        if spec is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attr = spec.partition(":")
        module = importlib.import_module(module_name, package)
        value = getattr(module, attr) if attr else module
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(targets))

    __getattr__.targets = targets
    return __getattr__, __dir__


def with_deferred(lazy_getattr, lazy_dir, namespace):
    """Wrap a package's ``lazy_attrs`` pair so that a miss also loads the deferred groups
    (``mscustom/_core/deferred.py``) and looks again; ``__all__`` is the package's own once they are
    loaded, or every public name it has bound when it defines none (what ``from package import *`` takes
    from a package without one)."""
    from ._core import deferred

    def __getattr__(name):
        if name in lazy_getattr.targets:
            return lazy_getattr(name)
        if name == "__all__":
            deferred.load_all()
            if "__all__" in namespace:
                return namespace["__all__"]
            return sorted(n for n in namespace if not n.startswith("_"))   # lazy names stay unimported
        if not name.startswith("_") and deferred.pending():
            deferred.load_all()
            if name in namespace:
                return namespace[name]
        return lazy_getattr(name)       # AttributeError naming the module

    def __dir__():
        deferred.load_all()
        return lazy_dir()

    __getattr__.targets = lazy_getattr.targets
    return __getattr__, __dir__
