"""Scalar arguments of hybrid kernels: ``def add_scalar(a, s)`` called as ``op(x, 2.0)``.

A hybrid kernel's parameters are tensors, or scalars when the call passes a
Python number in that place (MindSpore's Custom passes non-tensor inputs to
the kernel as scalars). Whether a parameter is a scalar is known per call:
the call's template (``attrs["__template__"]``) holds the scalar values.
A scalar reaches the compiled kernel as a scalar argument whose Numba type
(bool, int64, float64, or a NumPy scalar's own type) is part of the compile
signature; its value is not, so a new value reuses the compiled kernel. Shape
and dtype declarations cannot depend on a scalar's value, and a scalar
cannot be indexed, stored into or returned; it gets no gradient.

Example::

    scalar_args(info, (None, 2.0))       # {'s': 2.0} for def k(a, s)
"""

import ast

import numpy as np

from .. import _common

__all__ = ["is_scalar_value", "scalar_args", "check_scalar_use", "numba_scalar_type", "call_template",
           "kernel_params"]

_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def is_scalar_value(value):
    """A value passed as a scalar argument (not a tensor, shape or dtype)."""
    return isinstance(value, _SCALARS)


def scalar_args(info, template):
    """``{parameter name: value}`` of the parameters a call passes scalars to (empty without a template)."""
    if template is None:
        return {}
    return {name: v for name, v in zip(info.args, template) if v is not None}


def check_scalar_use(info, names, op_name):
    """Refuse uses of scalar parameters as tensors (indexing, ``.shape``/``.dtype``, stores, return)."""
    if not names:
        return
    for node in ast.walk(info.tree):
        base = None
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name):
            base = node.value.id
        if base in names:
            raise info.error(node, f"'{base}' is given a scalar ({names[base]!r}) in this call of op "
                                   f"'{op_name}', but the kernel uses it as a tensor "
                                   f"({ast.unparse(node)!r}); pass a Tensor there", TypeError)
    returned = [n for n in info.returns if n in names]
    if returned:
        raise info.error(info.tree, f"returns '{returned[0]}', which is given a scalar in this call of op "
                                    f"'{op_name}'; a hybrid kernel returns tensors", TypeError)


def numba_scalar_type(value):
    """The Numba type a scalar argument is compiled for (by type, never by value)."""
    import numba                # the top-level package first: safe while another thread imports it
    from numba.core import types
    if isinstance(value, (bool, np.bool_)):
        return types.boolean
    if isinstance(value, np.generic):
        return numba.from_dtype(value.dtype)
    if isinstance(value, int):
        return types.int64
    return types.float64


def call_template(info, attrs, n_tensors, op_name):
    """One entry per kernel parameter: None for a tensor, the value for a scalar (or None: all tensors).

    The call's own arguments (``attrs["__template__"]``) come first; the
    parameters after them take the reg-info attributes of the same name
    (given positionally after the tensors, by keyword, or fixed by ``value=``).
    """
    attrs = attrs or {}
    template = attrs.get(_common.TEMPLATE_KEY)
    base = list(template) if template is not None else [None] * n_tensors
    if len(base) >= len(info.args):
        return template
    return tuple(base + _attr_params(info, len(base), attrs, op_name))


def kernel_params(info, args, attrs, op_name):
    """A bprop's view of the kernel's parameters: the call's arguments, then attribute values by name."""
    args = list(args)
    if not attrs:
        return args
    n_pos = len(attrs.get(_common.POSATTR_KEY) or ())
    if n_pos:
        args = args[:-n_pos]
    return args + _attr_params(info, len(args), attrs, op_name)


def _attr_params(info, start, attrs, op_name):
    values = []
    for name in info.args[start:]:
        if name not in attrs:
            raise TypeError(f"op '{op_name}': hybrid kernel '{info.name}' takes {len(info.args)} parameter(s) "
                            f"({', '.join(info.args)}); the call gives {start} and no attribute is named "
                            f"'{name}' (declare it with CustomRegOp().attr('{name}', ...))")
        value = attrs[name]
        if not is_scalar_value(value):
            raise TypeError(f"op '{op_name}': hybrid kernel '{info.name}' takes attribute '{name}' as a scalar "
                            f"parameter (bool, int or float), got {value!r}")
        values.append(value)
    return values
