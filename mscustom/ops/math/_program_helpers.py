"""MindSpore's program-level helpers: ``typeof``, ``isconstant``, ``print_``, ``mixed_precision_cast``,
``get_grad``, and the decorators ``add_flags``, ``constexpr``, ``prim_arg_register``,
``op_info_register``.

Graph mode uses these while compiling; eagerly they are plain Python: ``constexpr`` functions run on
their (constant) arguments, ``add_flags`` records its flags on the function (``_func_graph_flags``),
``op_info_register`` keeps the operator information and returns the function unchanged.

Example::

    @ops.constexpr
    def twice(n):
        return 2 * n

    ops.get_grad(((0, g0), (1, g1)), 1) is g1
"""

import functools
import itertools
import os

import numpy as np

from ... import dtype as _dt
from ..._typing import get_py_obj_dtype
from ...tensor import Tensor
from .. import functional as F
from .. import op_info_register as _op_info_module  # noqa: F401 - loaded first, so the function below keeps the name
from ..operations import prim_attr_register

# the operator information op_info_register was given, in order
OP_INFO = []


def typeof(x):
    """MindSpore's type of a Python value: ``ms.int64`` for an int, ``ms.float64`` for a float,
    ``TensorType(dtype)`` for a Tensor, ``ms.tuple_`` for a tuple ..."""
    return get_py_obj_dtype(x)


def isconstant(x):
    """True: eagerly every value is known (graph mode asks whether a value is a compile-time constant)."""
    return True


def print_(*input_x):
    """Print the arguments (Tensors as their values) on one line, as ``ops.Print`` does; returns None."""
    print(*(str(x) for x in input_x))


def mixed_precision_cast(dst_dtype, x):
    """``x`` with its float Tensors cast to ``dst_dtype`` (through tuples, lists and dicts); other values
    unchanged."""
    if isinstance(x, Tensor):
        return F.cast(x, dst_dtype) if _dt.is_floating(x.dtype) else x
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dst_dtype, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst_dtype, v) for k, v in x.items()}
    return x


def _matches(key, identifier):
    if isinstance(identifier, int) and not isinstance(identifier, bool):
        return isinstance(key, int) and not isinstance(key, bool) and key == identifier
    name = getattr(identifier, "name", identifier)
    return isinstance(key, str) and key == name


def get_grad(gradients, identifier):
    """The gradient for ``identifier`` (an input's position, or a Parameter) in gradients returned with
    their identifiers: nested tuples of ``(position or parameter name, gradient)`` pairs."""
    if not isinstance(identifier, (int, Tensor)) or isinstance(identifier, bool):
        raise TypeError(f"op 'get_grad': identifier must be an int position or a Parameter, got "
                        f"{type(identifier).__name__}")
    stack = [gradients]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            if len(item) == 2 and isinstance(item[0], (int, str)) and isinstance(item[1], Tensor):
                if _matches(item[0], identifier):
                    return item[1]
                continue
            stack.extend(reversed(item))
    raise RuntimeError(f"op 'get_grad': no gradient for identifier {getattr(identifier, 'name', identifier)!r}")


def add_flags(fn=None, **flags):
    """Record ``flags`` (bools) on ``fn`` in its ``_func_graph_flags`` dict and return ``fn``; without
    ``fn``, a decorator that does so."""
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"add_flags: flag {key!r} must be a bool, got {type(value).__name__}")

    def apply(f):
        current = dict(getattr(f, "_func_graph_flags", {}) or {})
        current.update(flags)
        f._func_graph_flags = current
        return f
    return apply if fn is None else apply(fn)


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """A decorator for functions graph mode runs at compile time on constant arguments; eagerly the
    function is called on its arguments."""
    def wrap(f):
        @functools.wraps(f)
        def constant(*args, **kwargs):
            return f(*args, **kwargs)
        constant.name = name or f.__name__
        return constant
    return wrap if fn is None else wrap(fn)


def prim_arg_register(fn):
    """The decorator for a Primitive's ``__init__``: its arguments become the primitive's attributes
    (``ops.prim_attr_register``)."""
    return prim_attr_register(fn)


def op_info_register(op_info):
    """A decorator recording an operator's information (a JSON string or dict, as ``TBERegOp(...)
    .get_op_info()`` gives) in ``OP_INFO``; the decorated function is returned unchanged."""
    if not isinstance(op_info, (str, dict)):
        raise TypeError(f"op_info_register: op_info must be a JSON string or a dict, got {type(op_info).__name__}")

    def register(fn):
        OP_INFO.append(op_info)
        return fn
    return register


_DUMPS = itertools.count()


def tensordump(file_name, tensor, mode="out"):
    """Save ``tensor`` as ``<file_name>_<dtype>_<n>.npy`` (``.npy`` dropped from ``file_name`` first; ``n``
    counts the dumps of this process), as MindSpore names its dump files. ``mode`` ("out" or "in")
    only matters for MindSpore's parallel graph mode."""
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"op 'tensordump': file_name must be a non-empty str, got {file_name!r}")
    if mode not in ("out", "in"):
        raise ValueError(f"op 'tensordump': mode must be 'out' or 'in', got {mode!r}")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"op 'tensordump': tensor must be a Tensor, got {type(tensor).__name__}")
    base = file_name[:-4] if file_name.endswith(".npy") else file_name
    arr = tensor.asnumpy()
    path = f"{base}_{arr.dtype}_{next(_DUMPS)}.npy"
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    np.save(path, arr)


__all__ = ["tensordump", "typeof", "isconstant", "print_", "mixed_precision_cast", "get_grad", "add_flags", "constexpr",
           "prim_arg_register", "op_info_register"]
