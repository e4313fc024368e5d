"""The kernel kinds that ship with mscustom: one registration line each.

Kinds whose module imports Numba or cffi are registered lazily (``LazyKind``):
their module loads when the first op of that kind is made.
"""

from . import pyfunc  # noqa: F401  (registers "pyfunc")
from .kind import LazyKind, register_kind


def _jit():
    from . import jit
    return jit.KIND


def _aot():
    from . import aot
    return aot.KIND


register_kind(LazyKind("jit", _jit, options=("launch", "parallel", "debug"), default_targets=("CPU", "GPU")))
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
