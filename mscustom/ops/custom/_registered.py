"""The kernel kinds that ship with mscustom: one registration line each.

Kinds whose module imports Numba or cffi are registered lazily (``LazyKind``):
their module loads when the first op of that kind is made.
"""

from . import pyfunc  # noqa: F401  (registers "pyfunc")
from .kind import LazyKind, ModuleKind, register_kind


def _jit():
    from . import jit
    return jit.KIND


def _aot():
    from . import aot
    return aot


register_kind(LazyKind("jit", _jit, options=("launch", "parallel", "debug"), default_targets=("CPU", "GPU")))
# aot is still a make_kernel module; its package will register a kind class of its own
register_kind(ModuleKind("aot", _aot, options=(), default_targets=None))
