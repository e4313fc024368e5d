"""Lowering ``math.*`` / ``np.*`` calls in a jit kernel to the vector versions.

``lowered(py_func)`` returns a copy of the kernel that Numba compiles with the
vector functions in place of ``math.exp``, ``np.tanh``, ``from math import
erf`` and the like (the names in ``MATH`` and ``NUMPY``), or None when the
kernel calls none of them. The user's function object is left alone: the copy
shares its code object, defaults, name and closure, and only its globals
differ:

* a global (or closure cell) holding the ``math`` or ``numpy`` module becomes a
  stand-in module named like the original whose lowered attributes are shims
  and whose other attributes are the real module's (``np.empty``,
  ``np.float32``, ``np.random`` ... stay what they were, so Numba's array
  analysis and ``parallel=True`` still see ``numpy`` calls);
* a global (or cell) holding one of the functions themselves becomes its shim;
* every other global is looked up in the kernel's module when Numba compiles,
  as for the original (a helper defined after the op is made is found).

A shim types the call as Numba types the original function and, where that is
a real-number call in float32 or float64 (``math.tanh(x)`` with ``x`` a
float32 gives float32, an int gives float64), compiles the vector version of
that type; any other call (an array, a complex number, a ``dtype=`` keyword)
is the original function's, unchanged. Python code never calls the copy, but
a shim called from Python is the original function.

``SKIPPED`` lists the functions not lowered: ``math.sqrt`` / ``np.sqrt``
already compile to the CPU's vector square root.
"""

import math
import types

import numpy as np
from numba import types as nbtypes
from numba.core import errors
from numba.core.registry import cpu_target
from numba.extending import overload

from . import _impls

__all__ = ["lowered", "for_kernel", "enabled", "MATH", "NUMPY", "SKIPPED", "cache_tag", "OPTION"]

OPTION = "vector_math"      # the jit kernel option that turns the lowering off (vector_math=False)

# module attribute -> vecmath name
MATH = {"exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p", "tanh": "tanh", "erf": "erf",
        "sin": "sin", "cos": "cos", "pow": "pow"}
NUMPY = {"exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p", "tanh": "tanh", "sin": "sin",
         "cos": "cos", "power": "pow"}
SKIPPED = ("math.sqrt", "np.sqrt")
_ARITY = {"pow": 2}


def enabled(options, op_name):
    """Whether the op's options leave the lowering on (the default); a TypeError for a non-bool."""
    value = options.get(OPTION, True)
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"op '{op_name}': {OPTION} must be True or False, got {value!r}")
    return bool(value)


def for_kernel(py_func, options, op_name):
    """``(function, cache tag)`` for Numba to compile a jit kernel with: the lowered copy and its tag,
    or ``(py_func, "")`` when the op turned the lowering off or the kernel calls nothing to lower."""
    if not enabled(options, op_name):
        return py_func, ""
    copy = lowered(py_func)
    return (py_func, "") if copy is None else (copy, cache_tag())


def cache_tag():
    """The tag of the lowered kernels' cache files (changes with the vecmath sources)."""
    return "vecmath-" + _impls.SOURCE_TAG


def _vector(original, name, args):
    """The vector function and float type for a call of ``original`` with Numba types ``args``, or None."""
    if not all(isinstance(a, (nbtypes.Float, nbtypes.Integer, nbtypes.Boolean)) for a in args):
        return None
    ctx = cpu_target.typing_context
    try:
        sig = ctx.resolve_function_type(ctx.resolve_value_type(original), args, {})
    except errors.TypingError:
        return None
    rt = getattr(sig, "return_type", None)
    if rt not in (nbtypes.float32, nbtypes.float64):
        return None                         # e.g. np.power of two ints: an int, left to NumPy's loop
    F = np.float32 if rt == nbtypes.float32 else np.float64
    return F, _impls.get(name, F)


def _is_none(t):
    return t is None or isinstance(t, (nbtypes.NoneType, nbtypes.Omitted))


def _make_shim(module, attr, name):
    """``module.attr`` for Python; in compiled code the vector ``name`` where the call is a real one."""
    original = getattr(module, attr)
    doc = f"{module.__name__}.{attr}, lowered to vecmath.{name} in compiled real-number calls."
    if _ARITY.get(name, 1) == 1:
        def shim(x, out=None):
            return original(x) if out is None else original(x, out)

        @overload(shim, inline="always")
        def _typed1(x, out=None):
            found = _vector(original, name, (x,)) if _is_none(out) else None
            if found is None:
                if _is_none(out):
                    return lambda x, out=None: original(x)
                return lambda x, out=None: original(x, out)
            F, fn = found
            return lambda x, out=None: fn(F(x))
    else:
        def shim(x, y, out=None):
            return original(x, y) if out is None else original(x, y, out)

        @overload(shim, inline="always")
        def _typed2(x, y, out=None):
            found = _vector(original, name, (x, y)) if _is_none(out) else None
            if found is None:
                if _is_none(out):
                    return lambda x, y, out=None: original(x, y)
                return lambda x, y, out=None: original(x, y, out)
            F, fn = found
            return lambda x, y, out=None: fn(F(x), F(y))
    shim.__name__ = shim.__qualname__ = attr
    shim.__doc__ = doc
    return shim


def _stand_in(module, table):
    """A module named like ``module`` whose ``table`` attributes are shims and the rest the module's."""
    mod = types.ModuleType(module.__name__, module.__doc__)
    for attr, name in table.items():
        setattr(mod, attr, _make_shim(module, attr, name))

    def __getattr__(attr):                  # PEP 562: everything else is the real module's
        return getattr(module, attr)
    mod.__getattr__ = __getattr__
    return mod


_MODULES = None        # {id(module): stand-in}
_FUNCTIONS = None      # {id(function): shim}
_NAMES = frozenset(MATH) | frozenset(NUMPY)


def _tables():
    global _MODULES, _FUNCTIONS
    if _MODULES is None:
        m, n = _stand_in(math, MATH), _stand_in(np, NUMPY)
        funcs = {id(getattr(math, a)): getattr(m, a) for a in MATH}
        funcs.update({id(getattr(np, a)): getattr(n, a) for a in NUMPY})
        _FUNCTIONS = funcs
        _MODULES = {id(math): m, id(np): n}
    return _MODULES, _FUNCTIONS


class _Globals(dict):
    """The copy's globals: the replaced names, and the kernel module's live namespace for the rest."""

    def __init__(self, live, replaced):
        super().__init__(replaced)
        self.live = live
        for key in ("__name__", "__file__", "__builtins__", "__package__", "__spec__"):
            if key in live and key not in replaced:
                self[key] = live[key]

    def __missing__(self, key):
        return self.live[key]


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _replacement(value, names, modules, functions):
    if isinstance(value, types.ModuleType):
        stand_in = modules.get(id(value))
        if stand_in is not None and names & (set(MATH) if value is math else set(NUMPY)):
            return stand_in
        return None
    try:
        return functions.get(id(value))
    except TypeError:
        return None


def lowered(py_func):
    """A copy of ``py_func`` compiled with the vector math, or None when it calls none of it."""
    code = getattr(py_func, "__code__", None)
    if not isinstance(py_func, types.FunctionType) or code is None:
        return None
    names = _code_names(code)
    if not names & _NAMES:
        return None
    modules, functions = _tables()
    live = py_func.__globals__
    replaced = {}
    for name in code.co_names:
        if name in live:
            new = _replacement(live[name], names, modules, functions)
            if new is not None:
                replaced[name] = new
    closure = py_func.__closure__
    if closure is not None:
        cells = []
        for cell in closure:
            try:
                value = cell.cell_contents
            except ValueError:              # an empty cell
                cells.append(cell)
                continue
            new = _replacement(value, names, modules, functions)
            cells.append(types.CellType(new) if new is not None else cell)
        if any(c is not o for c, o in zip(cells, closure)):
            closure = tuple(cells)
        elif not replaced:
            return None
    elif not replaced:
        return None
    copy = types.FunctionType(code, _Globals(live, replaced), py_func.__name__, py_func.__defaults__, closure)
    copy.__kwdefaults__ = py_func.__kwdefaults__
    copy.__qualname__ = py_func.__qualname__
    copy.__module__ = py_func.__module__
    copy.__doc__ = py_func.__doc__
    copy.__wrapped_kernel__ = py_func
    return copy
