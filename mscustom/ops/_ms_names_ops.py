"""Functions real MindSpore programs call, with MindSpore 2.10's signatures and dtype rules:
``tril``, ``triu``, ``flip``, ``isclose``, ``outer``, ``addmm``, ``lerp``, ``atan2``,
``floor_divide``, ``cdist``, ``masked_select``, ``hardtanh``, ``clip_by_global_norm``, and the
functions Tensor methods of the same names are bound to (``diagonal``, ``trace``,
``repeat_interleave``, ``clone`` ...).

Most are compositions of existing ops, so their gradients come from those ops' gradients;
``flip``, ``atan2`` and ``cdist`` are ops of their own (``defop``) with a gradient built from ops.
Each is published with ``register_function`` so that ``Tensor``'s method of the same name is
this function (``tensor.py`` binds published names in its ``_PUBLISHED_METHODS``).

Example::

    ops.tril(x, 1), ops.lerp(start, end, 0.5), ops.cdist(x1, x2, p=1.0), x.masked_select(mask)
"""

import numpy as np

from .. import dtype as _dt
from .._core.dispatch import call
from .._core.registry import register_function
from ..tensor import Tensor
from . import functional as F
from ._builtin import (NOATTR, broadcast_shape, defop, float_only, is_float, normalize_axis, same_shape,
                       same_type, tensor_arg)
from .math.elementwise_more import floor_div
from .math.reduce import sum as sum_
from .array.sort_gather import _SCATTER_ND
from .array.creation import gather, split


def _const(array):
    """A constant Tensor (a mask, indices) made from a NumPy array."""
    return Tensor._wrap(np.ascontiguousarray(array))


def _int_arg(value, what, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"op '{name}': {what} must be an int, got {value!r}")
    return int(value)


# ================================================================== tril / triu
def _triangle(input, diagonal, name, lower):
    x = tensor_arg(input, name)
    k = _int_arg(diagonal, "diagonal", name)
    if x.ndim < 2:
        raise ValueError(f"op '{name}': input must have at least 2 dimensions, got shape {list(x.shape)}")
    rows, cols = x.shape[-2:]
    keep = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return F.where(_const(keep), x, F.zeros_like(x))


def tril(input, diagonal=0):  # noqa: A002 - MindSpore's names
    """The lower triangle of the last two axes (elements above ``diagonal`` set to 0); any dtype."""
    return _triangle(input, diagonal, "tril", True)


def triu(input, diagonal=0):  # noqa: A002
    """The upper triangle of the last two axes (elements below ``diagonal`` set to 0); any dtype."""
    return _triangle(input, diagonal, "triu", False)


# ================================================================== flip
_FLIP = defop("flip", 1, lambda a, i: np.ascontiguousarray(np.flip(i[0], a["dims"])), same_shape, same_type,
              lambda ins, outs, g, a: [call(_FLIP, (g[0],), a) if is_float(ins[0]) else None],
              doc="x reversed along the axes `dims`", arg_names=("input",))


def flip(input, dims):  # noqa: A002
    """``input`` reversed along ``dims`` (a tuple or list of ints, as MindSpore's ReverseV2 asks)."""
    x = tensor_arg(input, "flip")
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"op 'flip': dims must be a tuple or list of ints, got {dims!r}")
    axes = normalize_axis("flip", tuple(dims), x.ndim) if len(dims) else ()
    return call(_FLIP, (x,), {"dims": axes})


# ================================================================== isclose
_ISCLOSE = defop("isclose", 2,
                 lambda a, i: np.isclose(i[0], i[1], rtol=a["rtol"], atol=a["atol"], equal_nan=a["equal_nan"]),
                 broadcast_shape("isclose"), lambda a, d: (d, [_dt.bool_]),
                 lambda ins, outs, g, a: [None, None],
                 doc="|input - other| <= atol + rtol * |other|, elementwise (bool)", arg_names=("input", "other"))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (bool; NaNs equal when ``equal_nan``)."""
    x = tensor_arg(input, "isclose")
    y = other if isinstance(other, Tensor) else Tensor(np.asarray(other, x._data.dtype))
    return call(_ISCLOSE, (x, y), {"rtol": float(rtol), "atol": float(atol), "equal_nan": bool(equal_nan)})


# ================================================================== outer / addmm / lerp
def outer(input, vec2):  # noqa: A002
    """The outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``."""
    x, y = tensor_arg(input, "outer"), tensor_arg(vec2, "outer")
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"op 'outer': input and vec2 must be 1-D, got shapes {list(x.shape)} and {list(y.shape)}")
    return F.mul(F.reshape(x, (-1, 1)), F.reshape(y, (1, -1)))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape."""
    x = tensor_arg(input, "addmm")
    prod = F.matmul(tensor_arg(mat1, "addmm"), tensor_arg(mat2, "addmm"))
    if alpha != 1:
        prod = F.mul(prod, alpha)
    return F.add(x if beta == 1 else F.mul(x, beta), prod)


def lerp(input, end, weight):  # noqa: A002
    """``input + weight * (end - input)``; ``weight`` a float or a float Tensor."""
    start, stop = tensor_arg(input, "lerp"), tensor_arg(end, "lerp")
    for t in (start, stop):
        if not is_float(t):
            raise TypeError(f"op 'lerp': input and end must be float tensors, got {t.dtype}")
    if not isinstance(weight, Tensor) and (isinstance(weight, bool) or not isinstance(weight, (int, float))):
        raise TypeError(f"op 'lerp': weight must be a float or a Tensor, got {weight!r}")
    return F.add(start, F.mul(weight, F.sub(stop, start)))


# ================================================================== atan2
def _atan2_grad(ins, outs, g, a):
    y, x = ins
    denom = F.add(F.square(x), F.square(y))
    return [F.sum_to(F.div(F.mul(g[0], x), denom), y.shape),
            F.sum_to(F.neg(F.div(F.mul(g[0], y), denom)), x.shape)]


_ATAN2 = defop("atan2", 2, lambda a, i: np.arctan2(i[0], i[1]), broadcast_shape("atan2"), float_only("atan2"),
               _atan2_grad, doc="the angle of the point (other, input): arctan(input / other) in its quadrant",
               arg_names=("input", "other"))


def atan2(input, other):  # noqa: A002
    """Elementwise ``arctan(input / other)`` in the right quadrant (float tensors)."""
    x = tensor_arg(input, "atan2")
    y = other if isinstance(other, Tensor) else Tensor(np.asarray(other, x._data.dtype))
    return call(_ATAN2, (x, y), NOATTR)


def floor_divide(input, other):  # noqa: A002
    """``floor(input / other)`` elementwise (``ops.floor_div`` under MindSpore's newer name)."""
    return floor_div(input, other)


# ================================================================== cdist
def _cdist_compute(a, ins):
    x1, x2 = ins
    p = a["p"]
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == np.inf:
        out = diff.max(-1) if diff.shape[-1] else diff.sum(-1)
    elif p == 0:
        out = (diff != 0).sum(-1).astype(x1.dtype)
    else:
        out = np.power(np.power(diff, p).sum(-1), 1.0 / p)
    return out.astype(x1.dtype)


def _cdist_shape(a, shapes):
    s1, s2 = shapes
    if len(s1) != len(s2) or len(s1) not in (2, 3) or s1[-1] != s2[-1] or s1[:-2] != s2[:-2]:
        raise ValueError(f"op 'cdist': x1 and x2 must be 2-D or 3-D with the same batch and last dimension, "
                         f"got shapes {list(s1)} and {list(s2)}")
    return shapes, [list(s1[:-1]) + [s2[-2]]]


def _cdist_grad_compute(a, ins):
    g, x1, x2, dist = ins
    p = a["p"]
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    d = dist[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == np.inf:
            w = np.sign(diff) * (np.abs(diff) == d)
        elif p == 0:
            w = np.zeros_like(diff)
        elif p == 1:
            w = np.sign(diff)
        else:
            w = np.sign(diff) * np.power(np.abs(diff), p - 1) / np.power(d, p - 1)
        w = np.where(d == 0, 0, w)
    w = w * g[..., None]
    return [w.sum(-2).astype(x1.dtype), (-w.sum(-3)).astype(x2.dtype)]


_CDIST_GRAD = defop("cdist_grad", 4, _cdist_grad_compute, lambda a, s: (s, [list(s[1]), list(s[2])]),
                    lambda a, d: (d, [d[1], d[2]]), None, num_outputs=2,
                    doc="the gradients of cdist for x1 and x2", arg_names=("dy", "x1", "x2", "dist"))
_CDIST = defop("cdist", 2, _cdist_compute, _cdist_shape, float_only("cdist", promote=False),
               lambda ins, outs, g, a: list(call(_CDIST_GRAD, (g[0], ins[0], ins[1], outs[0]), a)),
               doc="the p-norm distance between each row of x1 and each row of x2", arg_names=("x1", "x2"))


def cdist(x1, x2, p=2.0):
    """The ``p``-norm distance between each pair of rows of ``x1`` (B, P, M) and ``x2`` (B, R, M):
    shape (B, P, R) (also without the batch axis). ``p`` >= 0, ``float('inf')`` for the largest
    difference. The gradient at a zero distance is 0."""
    a, b = tensor_arg(x1, "cdist"), tensor_arg(x2, "cdist")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        raise ValueError(f"op 'cdist': p must be a float >= 0, got {p!r}")
    if a.dtype != b.dtype:
        raise TypeError(f"op 'cdist': x1 and x2 must have the same dtype, got {a.dtype} and {b.dtype}")
    return call(_CDIST, (a, b), {"p": float(p)})


# ================================================================== masked_select
def masked_select(input, mask):  # noqa: A002
    """The elements of ``input`` where the bool ``mask`` is True, as a 1-D tensor (the two broadcast)."""
    x, m = tensor_arg(input, "masked_select"), tensor_arg(mask, "masked_select")
    if m._data.dtype != np.bool_:
        raise TypeError(f"op 'masked_select': mask must be a bool tensor, got {m.dtype}")
    try:
        shape = np.broadcast_shapes(x.shape, m.shape)
    except ValueError:
        raise ValueError(f"op 'masked_select': input shape {list(x.shape)} and mask shape {list(m.shape)} "
                         f"cannot be broadcast together") from None
    if tuple(x.shape) != shape:
        x = F.broadcast_to(x, shape)
    # the result's shape depends on the mask's values: asnumpy tells a graph-mode capture so (it runs eagerly)
    index = np.flatnonzero(np.broadcast_to(m.asnumpy(), shape)).astype(np.int64)
    return gather(F.reshape(x, (-1,)), _const(index), 0)


# ================================================================== hardtanh
def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """``input`` clipped to [min_val, max_val]. As in MindSpore, the gradient is 1 inside, 0 outside
    and 1/2 at either bound; integer tensors keep their dtype."""
    x = tensor_arg(input, "hardtanh")
    if min_val > max_val:
        raise ValueError(f"op 'hardtanh': min_val must not exceed max_val, got {min_val} and {max_val}")
    lo, hi = (np.asarray(v, x._data.dtype) for v in (min_val, max_val))
    return F.minimum(F.maximum(x, _const(lo)), _const(hi))


# ================================================================== clip_by_global_norm
def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale every tensor of ``x`` by ``clip_norm / max(global_norm, clip_norm)``, where global_norm is
    the L2 norm of all of them together; a tuple back (a single Tensor in, a Tensor back, as in
    MindSpore 2.10). ``use_norm`` must be None, as in MindSpore 2.10."""
    if use_norm is not None:
        raise ValueError(f"op 'clip_by_global_norm': use_norm only supports None, got {use_norm!r}")
    if isinstance(x, Tensor):
        return clip_by_global_norm((x,), clip_norm)[0]
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"op 'clip_by_global_norm': x must be a Tensor or a non-empty tuple or list of tensors, "
                        f"got {x!r}")
    xs = [tensor_arg(t, "clip_by_global_norm") for t in x]
    total = None
    for t in xs:
        s = F.reduce_sum(F.square(t if is_float(t) else F.cast(t, _dt.float32)), ())
        total = s if total is None else F.add(total, F.cast(s, total.dtype))
    norm = F.sqrt(total)
    scale = F.div(clip_norm, F.maximum(norm, _const(np.asarray(clip_norm, norm._data.dtype))))
    return tuple(F.mul(t, F.cast(scale, t.dtype)) for t in xs)


# ================================================================== diagonal / trace / repeat_interleave
def _flat_index(shape):
    """The flat index of every element of an array of ``shape`` (to pick elements with ``gather``)."""
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def _pick(x, index):
    """``x``'s elements at the flat indices ``index`` (shape of ``index``); the gradient goes back
    through ``gather``."""
    out = gather(F.reshape(x, (-1,)), _const(index.reshape(-1)), 0)
    return F.reshape(out, index.shape)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """The diagonal at ``offset`` of the axes ``dim1`` and ``dim2``, as the last axis (NumPy's order)."""
    x = tensor_arg(input, "diagonal")
    offset = _int_arg(offset, "offset", "diagonal")
    d1 = normalize_axis("diagonal", _int_arg(dim1, "dim1", "diagonal"), x.ndim)[0]
    d2 = normalize_axis("diagonal", _int_arg(dim2, "dim2", "diagonal"), x.ndim)[0]
    if d1 == d2:
        raise ValueError(f"op 'diagonal': dim1 and dim2 must differ, got {dim1} and {dim2}")
    return _pick(x, np.diagonal(_flat_index(x.shape), offset, d1, d2))


def tensor_diagonal(input, offset=0, axis1=0, axis2=1):  # noqa: A002
    """``Tensor.diagonal(offset=0, axis1=0, axis2=1)``."""
    return diagonal(input, offset, axis1, axis2)


def trace(input, offset=0, axis1=0, axis2=1, dtype=None):  # noqa: A002
    """The sum of the diagonal (``Tensor.trace``'s arguments; ``ops.trace(input)`` uses the defaults).
    Integer tensors sum to int64 as in MindSpore; ``dtype`` casts first."""
    x = tensor_arg(input, "trace")
    if x.ndim < 2:
        raise ValueError(f"op 'trace': input must have at least 2 dimensions, got shape {list(x.shape)}")
    return sum_(diagonal(x, offset, axis1, axis2), -1, dtype=dtype)


def repeat_interleave(input, repeats, axis=None):  # noqa: A002
    """Each element (``axis`` None: of the flattened tensor) or each slice along ``axis`` repeated
    ``repeats`` times (an int, or one count per element: a list or an int Tensor)."""
    x = tensor_arg(input, "repeat_interleave")
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    axis = normalize_axis("repeat_interleave", _int_arg(axis, "axis", "repeat_interleave"), x.ndim)[0]
    counts = repeats.asnumpy() if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1 or (counts < 0).any():
        raise TypeError(f"op 'repeat_interleave': repeats must be a non-negative int or a list/Tensor of them, "
                        f"got {repeats!r}")
    try:
        index = np.repeat(np.arange(x.shape[axis], dtype=np.int64), counts)
    except ValueError:
        raise ValueError(f"op 'repeat_interleave': {counts.size} repeats for {x.shape[axis]} elements "
                         f"along axis {axis}") from None
    return gather(x, _const(index), axis)


def tensor_repeat_interleave(input, repeats, dim=None):  # noqa: A002
    """``Tensor.repeat_interleave(repeats, dim=None)``."""
    return repeat_interleave(input, repeats, dim)


# ================================================================== small Tensor methods
def tensor_add(input, other, *, alpha=1):  # noqa: A002
    """``Tensor.add(other, *, alpha=1)``: ``input + alpha * other``."""
    return F.add(input, other if alpha == 1 else F.mul(other, alpha))


def tensor_bool(input):  # noqa: A002
    """``Tensor.bool()``: the tensor cast to bool (nonzero, NaN included, is True)."""
    return F.cast(input, _dt.bool_)


def tensor_fill(input, value):  # noqa: A002
    """``Tensor.fill(value)``: a new tensor of ``input``'s shape and dtype filled with ``value``
    (MindSpore 2.10 leaves ``input`` unchanged; an integer tensor truncates a float value)."""
    x = tensor_arg(input, "fill")
    if isinstance(value, Tensor):
        value = value.asnumpy()
    return Tensor._wrap(np.full(x.shape, value, x._data.dtype))


def contiguous(input):  # noqa: A002
    """``Tensor.contiguous()``: the tensor itself (every mscustom tensor is C-contiguous)."""
    return input


_IDENTITY = defop("identity", 1, lambda a, i: i[0].copy(), same_shape, same_type,
                  lambda ins, outs, g, a: [g[0] if is_float(ins[0]) else None],
                  doc="a copy of x (ops.Identity); the gradient passes through", arg_names=("x",))


def identity(x):
    """A copy of ``x`` (MindSpore's ``ops.Identity()``); the gradient passes through."""
    return call(_IDENTITY, (tensor_arg(x, "identity"),), NOATTR)


# ================================================================== scatter_nd / unstack / l2 normalize
def scatter_nd(indices, updates, shape):
    """Zeros of ``shape`` with ``updates`` added at the n-dimensional ``indices`` (repeated indices add)."""
    idx, upd = tensor_arg(indices, "scatter_nd"), tensor_arg(updates, "scatter_nd")
    if idx._data.dtype.kind not in "iu":
        raise TypeError(f"op 'scatter_nd': indices must be an int32 or int64 tensor, got {idx.dtype}")
    if not isinstance(shape, (tuple, list)) or not shape:
        raise TypeError(f"op 'scatter_nd': shape must be a non-empty tuple of ints, got {shape!r}")
    return call(_SCATTER_ND, (upd, idx), {"shape": tuple(_int_arg(d, "shape", "scatter_nd") for d in shape)})


def unstack(input_x, axis=0):
    """The slices of ``input_x`` along ``axis``, as a tuple of tensors with that axis removed."""
    x = tensor_arg(input_x, "unstack")
    axis = normalize_axis("unstack", _int_arg(axis, "axis", "unstack"), x.ndim)[0]
    return tuple(F.squeeze(t, axis) for t in split(x, 1, axis))


def l2_normalize(x, axis=0, epsilon=1e-4):
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))`` (``ops.L2Normalize``'s computation)."""
    x = tensor_arg(x, "l2_normalize")
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise TypeError(f"op 'l2_normalize': axis must be an int or a tuple of one int, got {axis!r}")
        axis = axis[0]
    axis = normalize_axis("l2_normalize", _int_arg(axis, "axis", "l2_normalize"), x.ndim)
    norm2 = F.reduce_sum(F.square(x), axis, True)
    return F.div(x, F.sqrt(F.maximum(norm2, _const(np.asarray(epsilon, x._data.dtype)))))


__all__ = ["tril", "triu", "flip", "isclose", "outer", "addmm", "lerp", "atan2", "floor_divide", "cdist",
           "masked_select", "hardtanh", "clip_by_global_norm", "diagonal", "trace", "repeat_interleave",
           "scatter_nd", "unstack"]

# the forms Tensor's methods of these names take (``tensor.py``'s ``_PUBLISHED_METHODS``)
_METHOD_FORMS = ["tensor_diagonal", "tensor_repeat_interleave", "tensor_add", "tensor_bool", "tensor_fill",
                 "contiguous"]

for _name in __all__ + _METHOD_FORMS:
    register_function(_name, globals()[_name])
del _name
