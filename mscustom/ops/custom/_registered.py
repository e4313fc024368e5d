"""The kernel kinds that ship with mscustom: one registration line each.

Kinds whose module imports Numba or cffi are registered lazily (``LazyKind``):
their module loads when the first op of that kind is made.
"""

from . import pyfunc  # noqa: F401  (registers "pyfunc")
from .kind import LazyKind, register_kind


def _numba_whole():
    """Import Numba's top-level package, if installed, before a kind's module imports parts of it.

    The jit kind enters Numba through a submodule (``numba.core.registry``). Done while another
    thread is importing ``numba`` itself (an aot plan's tier-up, the built-in loops' loader), each
    thread holds a module lock the other waits for, and Python breaks the cycle by failing both
    imports ("partially initialized module"). Two imports of the top-level package only wait for
    each other. (A jit op that runs as Python, ``debug=True``, so imports Numba too.)
    """
    try:
        import numba  # noqa: F401
    except ImportError:             # no Numba: the kind says so when it needs it
        pass


def _jit():
    _numba_whole()
    from . import jit
    return jit.KIND


def _aot():
    from . import aot
    return aot.KIND


register_kind(LazyKind("jit", _jit, options=("launch", "parallel", "debug", "vector_math"),
                        default_targets=("CPU", "GPU")))
def _hybrid(name):
    def load():
        from .hybrid import kind
        return kind.HybridKind(name)
    return load


register_kind(LazyKind("hybrid", _hybrid("hybrid"), default_targets=("CPU", "GPU")))
def _akg():
    from .hybrid import irbuilder
    return irbuilder.AkgKind()


register_kind(LazyKind("akg", _akg, default_targets=("CPU", "GPU")))
register_kind(LazyKind("aot", _aot, options=(), default_targets=None))
