"""Construction-time checks of ``ops.Custom``: name, func_type, kernel options, bprop.

Each check raises an error naming the op, what was expected and what was given.
"""

import inspect

from .kind import get_kind

__all__ = ["default_name", "check_name", "kind_for", "check_options", "check_bprop"]


def default_name(func):
    """The op's name when none is given: the function's name or the AOT symbol."""
    if isinstance(func, str):
        return func.rsplit(":", 1)[-1] if ":" in func else func.rsplit("/", 1)[-1]
    for f in (func, getattr(func, "py_func", None), getattr(func, "func", None)):
        name = getattr(f, "__name__", None)
        if isinstance(name, str):
            return name
    return type(func).__name__


def check_name(name):
    if not isinstance(name, str) or not name:
        raise TypeError(f"ops.Custom: name must be a non-empty string, got {name!r}")
    return name


def kind_for(func_type, func, op_name):
    """The registered kind serving ``func_type``; AKG's ir_builder / TVM-compute kernels are refused."""
    if not isinstance(func_type, str):
        raise TypeError(f"op '{op_name}': func_type must be a string such as 'pyfunc', 'jit' or 'aot', "
                        f"got {type(func_type).__name__}")
    if func_type == "akg" and callable(func):
        _reject_akg_dialects(func, op_name)
    return get_kind(func_type, op_name)


def _reject_akg_dialects(func, op_name):
    """MindSpore's akg kind also takes TVM ir_builder and compute kernels; only the hybrid DSL exists here."""
    try:
        source = inspect.getsource(func)
    except (OSError, TypeError):
        return
    if "ir_builder" in source:
        return                  # served by the akg kind (hybrid/irbuilder.py)
    for marker, what in (("tvm.", "a TVM compute kernel"), ("te.compute", "a TVM compute kernel")):
        if marker in source:
            raise ValueError(f"op '{op_name}': {what} is not supported here (it needs AKG/TVM); write the "
                             f"kernel with tvm.ir_builder or in the hybrid DSL (func_type='hybrid'), as a jit "
                             f"kernel or as a pyfunc")


def check_options(kind, func_type, options, op_name):
    unknown = sorted(set(options) - set(kind.options))
    if unknown:
        known = list(kind.options) or "none"
        raise TypeError(f"op '{op_name}': unknown keyword argument(s) {unknown} for func_type "
                        f"{func_type!r}; its kernel options are {known}")


def check_bprop(bprop, op_name):
    if bprop is not None and not callable(bprop):
        raise TypeError(f"op '{op_name}': bprop must be callable as bprop(*inputs, out, dout), "
                        f"got {type(bprop).__name__}")
    return bprop
