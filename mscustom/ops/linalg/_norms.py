"""Norms with MindSpore 2.10's names: ``vector_norm`` and ``matrix_norm`` (compositions of reductions and
``svd``, so their gradients come from those ops)."""

import math

from ..._core.registry import register_function
from .. import functional as F
from .._builtin import normalize_axis, tensor_arg
from ._common import const


def _float_input(x, name, dtype):
    t = tensor_arg(x, name)
    if dtype is not None:
        t = F.cast(t, dtype)
    elif t._data.dtype.kind in "iub":
        t = F.cast(t, "float32")         # integers are measured in float32, as in MindSpore
    if t._data.dtype.kind not in "fc":
        raise TypeError(f"op '{name}': x must be a float tensor, got {t.dtype}")
    return t


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002 - MindSpore's names
    """The vector ``ord``-norm over ``axis`` (None: all elements): ``sum(|x|^ord)^(1/ord)``; inf/-inf give
    the largest/smallest ``|x|``, 0 the count of non-zeros."""
    t = _float_input(x, "vector_norm", dtype)
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"op 'vector_norm': ord must be a number, got {ord!r}")
    axes = normalize_axis("vector_norm", axis, t.ndim) if t.ndim else None
    a = F.abs(t)
    if ord == math.inf:
        return F.amax(a, axes, keepdims)
    if ord == -math.inf:
        return F.amin(a, axes, keepdims)
    if ord == 0:
        return F.sum(F.cast(F.not_equal(a, const(0, a)), t.dtype), axes, keepdims)
    if ord == 1:
        return F.sum(a, axes, keepdims)
    if ord == 2:
        return F.sqrt(F.sum(F.square(a), axes, keepdims))
    return F.pow(F.sum(F.pow(a, float(ord)), axes, keepdims), 1.0 / ord)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002, N803
    """The matrix norm over the two ``axis``: 'fro', 'nuc' (sum of singular values), inf/-inf (largest/
    smallest row sum of ``|A|``), 1/-1 (column sums), 2/-2 (largest/smallest singular value)."""
    t = _float_input(A, "matrix_norm", dtype)
    if t.ndim < 2:
        raise ValueError(f"op 'matrix_norm': A must have at least 2 dimensions, got shape {list(t.shape)}")
    if not isinstance(axis, (tuple, list)) or len(axis) != 2:
        raise ValueError(f"op 'matrix_norm': axis must be a pair of ints, got {axis!r}")
    r, c = (int(v) % t.ndim for v in axis)
    if r == c:
        raise ValueError(f"op 'matrix_norm': axis must name two different axes, got {axis!r}")
    if ord == "fro":
        return F.sqrt(F.sum(F.square(F.abs(t)), (r, c), keepdims))
    if ord in ("nuc", 2, -2):
        from ._decompositions import svd
        rest = [i for i in range(t.ndim) if i not in (r, c)]
        s = svd(F.transpose(t, tuple(rest) + (r, c)), compute_uv=False)
        out = F.sum(s, -1) if ord == "nuc" else (F.amax(s, -1) if ord == 2 else F.amin(s, -1))
        if keepdims:
            for ax in sorted((r, c)):
                out = F.expand_dims(out, ax)
        return out
    if ord in (math.inf, -math.inf, 1, -1) and not isinstance(ord, bool):
        inner_axis, outer_axis = (c, r) if ord in (math.inf, -math.inf) else (r, c)
        sums = F.sum(F.abs(t), inner_axis, True)
        red = F.amax if ord > 0 else F.amin
        out = red(sums, outer_axis, True)
        return out if keepdims else F.reshape(out, tuple(s for i, s in enumerate(out.shape) if i not in (r, c)))
    raise ValueError(f"op 'matrix_norm': ord must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got {ord!r}")


__all__ = ["vector_norm", "matrix_norm"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
