"""Output shapes and dtypes of a hybrid kernel, evaluated from its declarations without running it.

MindSpore runs the whole kernel once on zero inputs to learn its outputs.
Here only the shape and dtype expressions of ``output_tensor``/``allocate``
(and the top-level scalars they use, such as ``n = a.shape[0]``) are evaluated,
on objects that carry just a shape and a dtype: no loop runs and no data is
touched, so inference costs microseconds whatever the tensor sizes.

Example::

    meta = tensor_meta(info, [(4, 3), (3, 5)], ["float32", "float32"])
    meta["c"]                    # Meta(shape=(4, 5), dtype='float32')
"""

import ast
from collections import namedtuple

import numpy as np

from .runtime import BINARY, UNARY

__all__ = ["Meta", "tensor_meta", "output_meta", "evaluate"]

Meta = namedtuple("Meta", "shape dtype")


class _Unknown:
    """A top-level scalar whose value depends on tensor data: usable in loops, not in a declaration."""

    def __init__(self, name, why="whose value depends on tensor data"):
        self.name, self.why = name, why


def _env(meta, scalars):
    env = {"__builtins__": {}, "len": len, **UNARY, **BINARY}
    env.update(meta)
    env.update(scalars)
    return env


def evaluate(info, node, meta, scalars=None, what="expression"):
    """Evaluate one shape/dtype expression of ``info`` with tensor metadata ``meta``."""
    env = _env(meta, scalars or {})
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(env.get(n.id), _Unknown):
            raise info.error(n, f"the {what} uses '{n.id}', {env[n.id].why}; shapes "
                                f"must follow from the input shapes")
    try:
        return eval(compile(ast.Expression(node), info.filename, "eval"), env)
    except Exception as exc:
        raise info.error(node, f"cannot evaluate the {what} {ast.unparse(node)!r} from the input shapes and "
                               f"dtypes: {type(exc).__name__}: {exc}") from None


def _shape(info, node, meta, scalars):
    value = evaluate(info, node, meta, scalars, "shape")
    if isinstance(value, (int, np.integer)):
        value = (value,)
    try:
        shape = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise info.error(node, f"a shape must be a tuple of ints, {ast.unparse(node)!r} gives {value!r}") from None
    if any(s < 0 for s in shape):
        raise info.error(node, f"the shape {ast.unparse(node)!r} is negative: {shape}")
    return shape


def _dtype(info, node, meta, scalars):
    value = evaluate(info, node, meta, scalars, "dtype")
    try:
        return np.dtype(value).name
    except TypeError:
        raise info.error(node, f"{ast.unparse(node)!r} gives {value!r}, which is not a dtype") from None


def tensor_meta(info, in_shapes, in_dtypes, scalar_args=()):
    """``{name: Meta}`` for the inputs and every declared tensor, for one input signature.

    ``in_shapes`` or ``in_dtypes`` may be None: that half is then left None
    (shapes never depend on dtypes here, nor dtypes on shapes). They hold one
    entry per parameter; the entries of ``scalar_args`` (names of parameters
    given scalars) are ignored: scalars get no Meta, and a declaration using
    one is refused (scalars are compiled by type, not by value).
    """
    n = len(info.args)
    shapes = [None if a in scalar_args else tuple(int(v) for v in shp)
              for a, shp in zip(info.args, in_shapes)] if in_shapes is not None else [None] * n
    dtypes = [None if a in scalar_args else np.dtype(d).name
              for a, d in zip(info.args, in_dtypes)] if in_dtypes is not None else [None] * n
    meta = {a: Meta(shp, d) for a, shp, d in zip(info.args, shapes, dtypes) if a not in scalar_args}
    scalars = {a: _Unknown(a, "a scalar argument (compiled by its type, not its value)") for a in scalar_args}

    def visit(stmts, top):
        for s in stmts:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
                name = s.targets[0].id
                if name in info.decls:
                    call = info.decls[name][1]
                    meta[name] = Meta(_shape(info, call.args[0], meta, scalars) if in_shapes is not None
                                      else None,
                                      _dtype(info, call.args[1], meta, scalars) if in_dtypes is not None
                                      else None)
                elif top and name not in scalars:
                    try:
                        scalars[name] = eval(compile(ast.Expression(s.value), info.filename, "eval"),
                                             _env(meta, scalars))
                    except Exception:
                        scalars[name] = _Unknown(name)
                elif name not in scalars:
                    scalars[name] = _Unknown(name)
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                scalars[s.target.id] = _Unknown(s.target.id)
            elif isinstance(s, (ast.For, ast.If, ast.With)):
                visit(s.body + getattr(s, "orelse", []), False)
    visit(info.tree.body, True)
    return meta


def output_meta(info, in_shapes, in_dtypes, scalar_args=()):
    """``(shapes, dtypes)`` of the returned tensors, in return order."""
    meta = tensor_meta(info, in_shapes, in_dtypes, scalar_args)
    outs = [meta[n] for n in info.returns]
    return [m.shape for m in outs], [m.dtype for m in outs]
