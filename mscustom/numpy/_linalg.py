"""Products and norms: dot, matmul, inner, outer, tensordot, kron, cross, trace, norm, multi_dot.

Built from ``matmul``, ``reshape``, ``transpose``, ``mul`` and reductions, so gradients flow
through them. Integer inputs keep NumPy's integer products.
"""

import builtins

import numpy as np

from .. import ops as _ops
from ..ops import functional as F
from ._manipulation import _promoted, moveaxis
from ._utils import axes_tuple, check_axis, is_scalar, to_float, to_tensor

__all__ = ["dot", "matmul", "inner", "outer", "tensordot", "kron", "cross", "trace", "norm", "multi_dot"]


def _t(x, name):
    return to_tensor(x, name=name)


def tensordot(a, b, axes=2):
    """The sum of products over ``axes``: the last ``axes`` axes of ``a`` with the first of ``b``, or
    the axes listed in a pair of sequences."""
    a, b = _promoted([_t(a, "tensordot"), _t(b, "tensordot")])
    if isinstance(axes, (builtins.int, np.integer)):
        n = builtins.int(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError(f"op 'tensordot': axes={n} does not fit ranks {a.ndim} and {b.ndim}")
        ax_a, ax_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = list(axes_tuple(ax_a, a.ndim, "tensordot"))
        ax_b = list(axes_tuple(ax_b, b.ndim, "tensordot"))
    if len(ax_a) != len(ax_b) or any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError(f"op 'tensordot': the summed axes of shapes {list(a.shape)} and {list(b.shape)} "
                         "do not match")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    k = builtins.int(np.prod([a.shape[i] for i in ax_a]))
    am = F.reshape(F.transpose(a, tuple(free_a + ax_a)), (-1, k))
    bm = F.reshape(F.transpose(b, tuple(ax_b + free_b)), (k, -1))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b)
    return F.reshape(F.matmul(am, bm), out_shape)


def dot(a, b):
    """NumPy's dot: scalars multiply, 1-D with 1-D is the inner product, otherwise a sum over the last
    axis of ``a`` and the second-to-last of ``b`` (the last when ``b`` is 1-D)."""
    a, b = _t(a, "dot"), _t(b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (builtins.max(b.ndim - 2, 0),)))


def matmul(x1, x2, dtype=None):
    """The matrix product with batch broadcasting; 1-D operands act as a row / column vector."""
    a, b = _promoted([_t(x1, "matmul"), _t(x2, "matmul")])
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("op 'matmul': operands must not be scalars")
    out = F.matmul(a, b)
    return out if dtype is None else F.cast(out, dtype)


def inner(a, b):
    """The sum of products over the last axes of ``a`` and ``b`` (scalars multiply)."""
    a, b = _t(a, "inner"), _t(b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    """``out[i, j] = a.ravel()[i] * b.ravel()[j]``."""
    a, b = _t(a, "outer"), _t(b, "outer")
    return F.mul(F.reshape(a, (-1, 1)), F.reshape(b, (1, -1)))


def kron(a, b):
    """The Kronecker product: blocks of ``b`` scaled by the elements of ``a``."""
    a, b = _t(a, "kron"), _t(b, "kron")
    nd = builtins.max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    ia = tuple(v for s in sa for v in (s, 1))
    ib = tuple(v for s in sb for v in (1, s))
    prod = F.mul(F.reshape(a, ia), F.reshape(b, ib))
    return F.reshape(prod, tuple(x * y for x, y in zip(sa, sb)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or 2-vectors: the z component) along the given axes."""
    a, b = _promoted([_t(a, "cross"), _t(b, "cross")])
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, check_axis(axisa, a.ndim, "cross"), -1)
    b = moveaxis(b, check_axis(axisb, b.ndim, "cross"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(f"op 'cross': vectors must have 2 or 3 components, got {na} and {nb}")

    def comp(t, i):
        return t[..., i] if i < t.shape[-1] else None

    a0, a1, a2 = comp(a, 0), comp(a, 1), comp(a, 2)
    b0, b1, b2 = comp(b, 0), comp(b, 1), comp(b, 2)
    z = F.sub(F.mul(a0, b1), F.mul(a1, b0))
    if na == 2 and nb == 2:
        return z
    x = F.sub(F.mul(a1, b2), F.mul(a2, b1)) if a2 is not None and b2 is not None else (
        F.mul(a1, b2) if a2 is None else F.neg(F.mul(a2, b1)))
    y = F.sub(F.mul(a2, b0), F.mul(a0, b2)) if a2 is not None and b2 is not None else (
        F.neg(F.mul(a0, b2)) if a2 is None else F.mul(a2, b0))
    out = F.stack((x, y, z), -1)
    return moveaxis(out, -1, check_axis(axisc, out.ndim, "cross"))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along diagonal ``offset`` of the 2-D slices over ``axis1`` and ``axis2``."""
    a = _t(a, "trace")
    out = F.sum(_ops.diagonal(a, offset, axis1, axis2), -1, False)
    return out if dtype is None else F.cast(out, dtype)


def multi_dot(arrays):
    """The chained matrix product ``arrays[0] @ arrays[1] @ ...`` (1-D ends act as vectors)."""
    ts = [_t(a, "multi_dot") for a in arrays]
    if len(ts) < 2:
        raise ValueError("op 'multi_dot': at least 2 arrays are needed")
    out = ts[0]
    for t in ts[1:]:
        out = dot(out, t)
    return out


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """Vector norms (``ord`` None/2, a number, inf, -inf, 0) and matrix norms (``'fro'``, 1, -1, inf,
    -inf) over ``axis`` (the whole tensor, flattened, when ``axis`` and ``ord`` are None)."""
    t = to_float(x, "norm")
    if axis is None:
        if ord is None:
            return _frob(t, tuple(range(t.ndim)), keepdims)
        axis = tuple(range(t.ndim))
        if t.ndim > 2:
            raise ValueError("op 'norm': axis is required for tensors of more than 2 dimensions with an ord")
    axes = axes_tuple(axis, t.ndim, "norm")
    if len(axes) == 1:
        return _vector_norm(t, axes[0], ord, keepdims)
    if len(axes) != 2:
        raise ValueError(f"op 'norm': axis must name 1 or 2 axes, got {axis!r}")
    r, c = axes
    if ord in (None, "fro"):
        return _frob(t, axes, keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        sum_axis, red_axis = (r, c) if ord in (1, -1) else (c, r)
        col = F.sum(F.abs(t), (sum_axis,), True)
        out = (F.amax if ord in (1, np.inf) else F.amin)(col, (red_axis,), True)
        return out if keepdims else F.reshape(out, tuple(s for i, s in enumerate(t.shape) if i not in axes))
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"op 'norm': the matrix norm ord={ord!r} needs singular values; not supported")
    raise ValueError(f"op 'norm': invalid matrix norm ord={ord!r} ('fro', 1, -1, inf, -inf)")


def _frob(t, axes, keepdims):
    return F.sqrt(F.sum(F.square(t), axes, bool(keepdims)))


def _vector_norm(t, axis, ord, keepdims):
    a = F.abs(t)
    if ord is None or ord == 2:
        return F.sqrt(F.sum(F.square(t), (axis,), bool(keepdims)))
    if ord == np.inf:
        return F.amax(a, (axis,), bool(keepdims))
    if ord == -np.inf:
        return F.amin(a, (axis,), bool(keepdims))
    if ord == 0:
        return F.sum(F.cast(F.not_equal(t, 0.0), t.dtype), (axis,), bool(keepdims))
    if is_scalar(ord) and not isinstance(ord, str):
        p = float(ord)
        return F.pow(F.sum(F.pow(a, p), (axis,), bool(keepdims)), 1.0 / p)
    raise ValueError(f"op 'norm': vector norm ord={ord!r} is not supported")

