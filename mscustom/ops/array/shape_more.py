"""MindSpore's array surface: the small shape helpers here (``flatten``, ``shape``, ``depend``,
``masked_fill``, ``chunk``, ``swapaxes``, ``unsqueeze``, ``permute``, ``addn``), and one namespace
over the scans and statistics (``math/scan.py``), sorting and gathers (``sort_gather``) and
padding and resizing (``pad_resize``).

Every function is an op of the operator core or a short composition of such ops,
so it differentiates under ``ms.grad`` and replays in graph mode.

Example::

    ops.flatten(x); ops.masked_fill(x, x > 0, 0.0); ops.chunk(x, 2, 1)
"""

import builtins as _bi

import numpy as np

from ..._core.dispatch import call
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import (NOATTR, defop, insert_axis, is_float, same_type, tensor_arg)
from .._op_args import axis1 as _axis1, int_arg as _int_arg
from .creation import clamp, gather, split
from .pad_resize import *  # noqa: F401,F403
from .pad_resize import pad_mode_op, resize_bilinear, resize_nearest_neighbor  # noqa: F401
from ..math.scan import *  # noqa: F401,F403
from ..math.scan import scan, vector_norm  # noqa: F401
from .sort_gather import *  # noqa: F401,F403
from .sort_gather import gather_batched, scatter_elements_add  # noqa: F401


# ================================================================== shapes and small helpers
def flatten(input, order="C", *, start_dim=1, end_dim=-1):  # noqa: A002 - MindSpore's names
    """Merge dims ``start_dim`` .. ``end_dim`` into one (default: all but the batch dim)."""
    x = tensor_arg(input, "flatten")
    if order not in ("C", "F"):
        raise ValueError(f"op 'flatten': order must be 'C' or 'F', got {order!r}")
    if x.ndim == 0:
        return F.reshape(x, (1,))
    s = _axis1("flatten", start_dim, x.ndim)
    e = _axis1("flatten", end_dim, x.ndim)
    if s > e:
        raise ValueError(f"op 'flatten': start_dim ({start_dim}) must not come after end_dim ({end_dim})")
    if order == "F":                    # MindSpore: reverse the axes, then merge start_dim .. end_dim
        x = F.transpose(x)
    shape = x.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return F.reshape(x, tuple(shape[:s]) + (n,) + tuple(shape[e + 1:]))


def shape(input_x):
    """The shape of ``input_x`` as a tuple of ints."""
    return tuple(tensor_arg(input_x, "shape").shape)


_DEPEND = defop("depend", 2, lambda a, i: i[0], lambda a, s: (s, [list(s[0])]), same_type,
                lambda ins, outs, g, a: [g[0] if is_float(ins[0]) else None, None],
                doc="value, after expr (the order is that of the program here)", arg_names=("value", "expr"))


def depend(value, expr):
    """``value`` itself; ``expr`` has already run (ops run in program order, eagerly and in replays)."""
    if not isinstance(expr, Tensor):
        return value
    return call(_DEPEND, (tensor_arg(value, "depend"), expr), NOATTR)


def masked_fill(input_x, mask, value):
    """``input_x`` with ``value`` where ``mask`` is True (``value`` a number or a 0-d tensor)."""
    x = tensor_arg(input_x, "masked_fill")
    mask = tensor_arg(mask, "masked_fill")
    if mask.dtype.name != "bool":
        raise TypeError(f"op 'masked_fill': mask must be a bool tensor, got {mask.dtype.name}")
    if isinstance(value, Tensor):
        value = F.cast(value, x.dtype)
    elif isinstance(value, (int, float, bool, np.number)):
        value = Tensor._wrap(np.asarray(value, x._data.dtype))
    else:
        raise TypeError(f"op 'masked_fill': value must be a number or a Tensor, got {type(value).__name__}")
    return F.where(mask, value, x)


def chunk(input, chunks, axis=0):  # noqa: A002 - MindSpore's names
    """Split into ``chunks`` pieces of ``ceil(n / chunks)`` along ``axis`` (fewer when they run out)."""
    x = tensor_arg(input, "chunk")
    chunks = _int_arg("chunk", "chunks", chunks)
    if chunks <= 0:
        raise ValueError(f"op 'chunk': chunks must be positive, got {chunks}")
    ax = _axis1("chunk", axis, x.ndim)
    n = x.shape[ax]
    size = _bi.max(-(-n // chunks), 1)
    return split(x, size, ax)


def swapaxes(input, axis0, axis1):  # noqa: A002 - MindSpore's names
    """``input`` with two axes exchanged."""
    x = tensor_arg(input, "swapaxes")
    a = _axis1("swapaxes", axis0, x.ndim)
    b = _axis1("swapaxes", axis1, x.ndim)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return F.transpose(x, tuple(perm))


def unsqueeze(input, dim):  # noqa: A002 - MindSpore's names
    """``input`` with a new axis of size 1 at ``dim``."""
    x = tensor_arg(input, "unsqueeze")
    return F.expand_dims(x, insert_axis("unsqueeze", dim, x.ndim))


def permute(input, axis):  # noqa: A002 - MindSpore's names
    """``input`` with its axes in the order ``axis``."""
    return F.transpose(tensor_arg(input, "permute"), tuple(axis))


def addn(x):
    """The sum of a list or tuple of equally shaped tensors (MindSpore's ``ops.addn`` / ``AddN``)."""
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)):
        raise TypeError(f"op 'addn': x must be a non-empty list or tuple of tensors, got {type(x).__name__}")
    if not x:
        raise ValueError("op 'addn': x must hold at least one tensor, got an empty sequence")
    xs = [tensor_arg(t, "addn") for t in x]
    for t in xs[1:]:
        if t.shape != xs[0].shape:
            raise ValueError(f"op 'addn': all inputs need the same shape, got {[list(t.shape) for t in xs]}")
        if t.dtype != xs[0].dtype:     # no promotion: MindSpore's AddN wants one dtype
            raise TypeError(f"op 'addn': all inputs need the same dtype, got {[str(t.dtype) for t in xs]}")
    out = xs[0]
    for t in xs[1:]:
        out = F.add(out, t)
    return out


__all__ = ["flatten", "shape", "depend", "masked_fill", "chunk", "swapaxes", "unsqueeze", "permute", "addn"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name

from . import pad_resize, sort_gather  # noqa: E402
from ..math import scan as _scan  # noqa: E402

__all__ += _scan.__all__ + sort_gather.__all__ + pad_resize.__all__

# what Tensor.clamp / gather / split call
for _fn in (clamp, gather, split):
    register_function(_fn.__name__, _fn)
del _fn
