"""The hybrid DSL's names, ``@kernel``, and direct execution on NumPy arrays.

A hybrid kernel is a Python function written with MindSpore's Hybrid DSL
(``output_tensor``, ``allocate``, loops over ``range``/``serial``/``parallel``/
``vectorize``/``reduce``/``grid`` and scalar intrinsics). ``@kernel`` marks it;
calling the marked function on NumPy arrays runs it as plain Python with the
DSL names injected, so the user's module needs no import of them (as in
MindSpore). Unlike MindSpore, the names go into a private copy of the
function's globals: the user's module is left untouched.

Example::

    from mscustom.ops import kernel

    @kernel
    def add(a, b):
        c = output_tensor(a.shape, a.dtype)
        for i in range(a.shape[0]):
            c[i] = a[i] + b[i]
        return c

    add(np.ones(3, np.float32), np.ones(3, np.float32))      # array([2., 2., 2.], dtype=float32)
"""

import functools
import json
import types

import numpy as np

from .check import analyse
from .runtime import BINARY, BUFFERS, CASTS, KEYWORDS, LOOPS, RUNTIME, SCOPES, UNARY  # noqa: F401  (the DSL's names)

__all__ = ["kernel", "ms_kernel", "HybridFunction", "RUNTIME", "LOOPS", "BUFFERS", "UNARY", "BINARY",
           "CASTS", "is_hybrid", "unwrap", "as_hybrid"]


class HybridFunction:
    """A function marked by ``@kernel``: callable on NumPy arrays, accepted by ``ops.Custom``.

    ``func`` is the user's function, ``reg_info`` and ``compile_attrs`` what
    ``@kernel`` was given (``compile_attrs`` is kept as MindSpore keeps it, a
    JSON string, and is part of the compiled kernel's cache key).
    """

    ms_kernel_flag = True

    def __init__(self, func, reg_info=None, compile_attrs=None):
        self.func = func
        self.compile_attrs = json.dumps(compile_attrs or {}, sort_keys=True)
        if reg_info is not None:
            self.reg_info = reg_info
        functools.update_wrapper(self, func)
        self._info = None

    @property
    def info(self):
        """The parsed and checked kernel (``check.KernelInfo``), made on first use."""
        if self._info is None:
            self._info = analyse(self.func)
        return self._info

    def __call__(self, *args):
        """Run the DSL function as Python on NumPy arrays (inputs written by the kernel are copied first)."""
        info = self.info
        if len(args) != len(info.args):
            raise TypeError(f"hybrid kernel '{info.name}' takes {len(info.args)} input(s) "
                            f"({', '.join(info.args)}), got {len(args)}")
        args = [np.array(a) if info.args[i] in info.written_inputs else a for i, a in enumerate(args)]
        f = self.func
        env = dict(f.__globals__)
        env.update(RUNTIME)
        run = types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)
        return run(*args)

    def __repr__(self):
        return f"<hybrid kernel {self.func.__qualname__}>"


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Mark a function written in the hybrid DSL (MindSpore's ``ops.kernel``).

    Usable as ``@kernel`` or ``@kernel(reg_info=..., compile_attrs=...)``. The
    marked function runs on NumPy arrays as plain Python, and
    ``ops.Custom(func)`` compiles it with Numba, infers its output shapes and
    dtypes from its ``output_tensor`` declarations and derives its gradient.

    Example::

        @kernel
        def scale(a):
            c = output_tensor(a.shape, a.dtype)
            for i in parallel(a.shape[0]):
                c[i] = a[i] * 2.0
            return c
    """
    if compile_attrs is not None and not isinstance(compile_attrs, dict):
        raise TypeError(f"kernel: compile_attrs must be a dict, got {type(compile_attrs).__name__}")
    for key in compile_attrs or {}:
        if not isinstance(key, str):
            raise TypeError(f"kernel: the keys of compile_attrs must be str, got {type(key).__name__}")
    if reg_info is not None and not isinstance(reg_info, (str, dict, tuple, list)) \
            and not hasattr(reg_info, "get_op_info"):
        raise TypeError(f"kernel: reg_info must be a str, dict, tuple or CustomRegOp, "
                        f"got {type(reg_info).__name__}")

    def wrap(func):
        if isinstance(func, HybridFunction):
            func = func.func
        if not isinstance(func, types.FunctionType):
            raise TypeError(f"kernel: expects a Python function written in the hybrid DSL, "
                            f"got {type(func).__name__}")
        return HybridFunction(func, reg_info, compile_attrs)

    return wrap(fn) if fn is not None else wrap


ms_kernel = kernel


def is_hybrid(func):
    """Whether ``func`` was marked by ``@kernel``."""
    return isinstance(func, HybridFunction)


def unwrap(func):
    """``(python_function, compile_attrs)`` of a marked or undecorated DSL function."""
    if isinstance(func, HybridFunction):
        return func.func, func.compile_attrs
    return func, "{}"

def as_hybrid(func, op_name):
    """``func`` as a checked ``HybridFunction`` (undecorated DSL functions are accepted, as for 'akg')."""
    if not is_hybrid(func):
        if not callable(func) or not hasattr(func, "__code__"):
            raise TypeError(f"op '{op_name}': a hybrid kernel must be a Python function written in the hybrid "
                            f"DSL (decorated with ops.kernel), got {type(func).__name__}")
        func = HybridFunction(func)
    try:
        func.info                   # the static checks run now, at construction
    except (TypeError, ValueError, SyntaxError) as exc:
        if str(exc).startswith("op '"):
            raise
        raise type(exc)(f"op '{op_name}': {exc}; expected a kernel written in the hybrid DSL "
                        f"(see docs/hybrid.md)") from exc
    return func
