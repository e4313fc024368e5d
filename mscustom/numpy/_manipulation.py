"""Shape manipulation, joining and splitting, rearranging, indexing and selection.

Compositions of ``mscustom.ops`` (reshape, transpose, concat, getitem with index arrays,
where ...), so gradients flow through them. ``unique`` and ``searchsorted`` return indices or
values picked by comparison and carry no gradient.
"""

import builtins

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ..tensor import Tensor
from . import _ufuncs as U
from ._utils import axes_tuple, check_axis, const, is_scalar, to_tensor

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "squeeze",
           "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "split", "array_split",
           "hsplit", "vsplit", "dsplit", "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90",
           "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "append", "pad",
           "take", "take_along_axis", "where", "select", "choose", "unique", "searchsorted",
           "apply_along_axis", "apply_over_axes", "piecewise", "size", "array_str", "diagonal", "argwhere",
           "ravel_multi_index", "unravel_index"]


def _t(x, name):
    return to_tensor(x, name=name)


def _along(x, index, axis):
    """``x`` indexed by the NumPy index array ``index`` along ``axis`` (differentiable gather)."""
    return x[(slice(None),) * axis + (index,)]


# ------------------------------------------------------------------ shapes
def reshape(x, new_shape):
    """``x`` with shape ``new_shape`` (one entry may be -1)."""
    x = _t(x, "reshape")
    if isinstance(new_shape, (builtins.int, np.integer)):
        new_shape = (builtins.int(new_shape),)
    return F.reshape(x, tuple(new_shape))


def ravel(x):
    """``x`` flattened to 1-D."""
    return F.reshape(_t(x, "ravel"), (-1,))


def transpose(a, axes=None):
    """``a`` with its axes permuted (reversed when ``axes`` is None)."""
    a = _t(a, "transpose")
    perm = tuple(range(a.ndim))[::-1] if axes is None else tuple(axes_tuple(axes, a.ndim, "transpose"))
    if len(perm) != a.ndim:
        raise ValueError(f"op 'transpose': axes {axes!r} do not match a tensor of rank {a.ndim}")
    return F.transpose(a, perm)


def swapaxes(x, axis1, axis2):
    """``x`` with axes ``axis1`` and ``axis2`` interchanged."""
    x = _t(x, "swapaxes")
    i, j = check_axis(axis1, x.ndim, "swapaxes"), check_axis(axis2, x.ndim, "swapaxes")
    perm = list(range(x.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return F.transpose(x, tuple(perm))


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to positions ``destination`` (the others keep their order)."""
    a = _t(a, "moveaxis")
    src = axes_tuple(source, a.ndim, "moveaxis")
    dst = axes_tuple(destination, a.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("op 'moveaxis': source and destination must name as many axes")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return F.transpose(a, tuple(order))


def rollaxis(x, axis, start=0):
    """``x`` with ``axis`` rolled back until it lies before position ``start``."""
    x = _t(x, "rollaxis")
    axis = check_axis(axis, x.ndim, "rollaxis")
    if not -x.ndim <= start <= x.ndim:
        raise ValueError(f"op 'rollaxis': start {start} is out of range for a tensor of rank {x.ndim}")
    start = start % (x.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    order = [i for i in range(x.ndim) if i != axis]
    order.insert(start, axis)
    return F.transpose(x, tuple(order))


def expand_dims(a, axis):
    """``a`` with new axes of length 1 at the positions ``axis`` (an int or a tuple)."""
    a = _t(a, "expand_dims")
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    ndim = a.ndim + len(axes)
    pos = sorted(check_axis(ax, ndim, "expand_dims") for ax in axes)
    shape = list(a.shape)
    for p in pos:
        shape.insert(p, 1)
    return F.reshape(a, tuple(shape))


def squeeze(a, axis=None):
    """``a`` without axes of length 1 (only ``axis`` when given, which must have length 1)."""
    a = _t(a, "squeeze")
    if axis is None:
        return F.reshape(a, tuple(s for s in a.shape if s != 1))
    axes = axes_tuple(axis, a.ndim, "squeeze")
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError(f"op 'squeeze': axis {ax} has length {a.shape[ax]}, not 1")
    return F.reshape(a, tuple(s for i, s in enumerate(a.shape) if i not in axes))


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape``."""
    return F.broadcast_to(_t(array, "broadcast_to"), tuple(shape) if not isinstance(shape, int) else (shape,))


def broadcast_arrays(*args):
    """The inputs broadcast against each other (a list)."""
    ts = [_t(a, "broadcast_arrays") for a in args]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in ts))
    return [F.broadcast_to(t, shape) for t in ts]


def _atleast(arys, n, name):
    out = []
    for a in arys:
        t = _t(a, name)
        if t.ndim < n:
            if n == 3 and t.ndim == 2:
                shape = tuple(t.shape) + (1,)
            elif n == 3 and t.ndim == 1:
                shape = (1,) + tuple(t.shape) + (1,)
            else:
                shape = (1,) * (n - t.ndim) + tuple(t.shape)
            t = F.reshape(t, shape)
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each input with at least 1 dimension (one tensor, or a list for several)."""
    return _atleast(arys, 1, "atleast_1d")


def atleast_2d(*arys):
    """Each input with at least 2 dimensions (1-D ``(N,)`` becomes ``(1, N)``)."""
    return _atleast(arys, 2, "atleast_2d")


def atleast_3d(*arys):
    """Each input with at least 3 dimensions (``(N,)`` becomes ``(1, N, 1)``, ``(M, N)`` ``(M, N, 1)``)."""
    return _atleast(arys, 3, "atleast_3d")


# ------------------------------------------------------------------ joining
def _promoted(ts):
    dtype = _dt.from_numpy(_result([t.dtype.np_dtype for t in ts]))
    return [t if t.dtype == dtype else F.cast(t, dtype) for t in ts]


def _result(dtypes):
    from ..ops._builtin import result_dtype
    return result_dtype(dtypes)


def concatenate(arrays, axis=0):
    """The tensors joined along an existing ``axis`` (flattened first when ``axis`` is None). One tensor
    is the sequence of its sub-tensors along axis 0, as in NumPy and MindSpore."""
    if isinstance(arrays, Tensor) and axis is not None:
        if arrays.ndim < 2:
            raise ValueError(f"op 'concatenate': a single tensor must have at least 2 dimensions to be "
                             f"joined, got shape {list(arrays.shape)}")
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    ts = [_t(a, "concatenate") for a in (arrays if isinstance(arrays, (list, tuple)) else [arrays])]
    if axis is None:
        ts = [F.reshape(t, (-1,)) for t in ts]
        axis = 0
    if len(ts) == 1:
        return ts[0]
    return F.concat(tuple(_promoted(ts)), check_axis(axis, ts[0].ndim, "concatenate"))


def stack(arrays, axis=0):
    """The same-shaped tensors joined along a new ``axis``."""
    ts = _promoted([_t(a, "stack") for a in arrays])
    return F.stack(tuple(ts), check_axis(axis, ts[0].ndim + 1, "stack"))


def hstack(tup):
    """Joined column-wise (along axis 1; along axis 0 for 1-D inputs)."""
    ts = [_t(a, "hstack") for a in tup]
    return concatenate(ts, 0 if ts[0].ndim <= 1 else 1) if ts[0].ndim else concatenate(atleast_1d(*ts), 0)


def vstack(tup):
    """Joined row-wise (1-D inputs become rows)."""
    ts = _atleast([_t(a, "vstack") for a in tup], 2, "vstack")
    return concatenate(ts if isinstance(ts, list) else [ts], 0)


def dstack(tup):
    """Joined along the third axis (inputs made at least 3-D)."""
    ts = _atleast([_t(a, "dstack") for a in tup], 3, "dstack")
    return concatenate(ts if isinstance(ts, list) else [ts], 2)


def column_stack(tup):
    """1-D inputs as columns of a 2-D tensor (2-D inputs joined along axis 1)."""
    ts = []
    for a in tup:
        t = _t(a, "column_stack")
        ts.append(F.reshape(t, (-1, 1)) if t.ndim < 2 else t)
    return concatenate(ts, 1)


def append(arr, values, axis=None):
    """``values`` appended to ``arr`` along ``axis`` (both flattened when ``axis`` is None)."""
    return concatenate((_t(arr, "append"), _t(values, "append")), axis)


# ------------------------------------------------------------------ splitting
def _split_points(n, sections, name, strict):
    if isinstance(sections, (builtins.int, np.integer)):
        k = builtins.int(sections)
        if k <= 0:
            raise ValueError(f"op '{name}': the number of sections must be positive, got {k}")
        if strict and n % k:
            raise ValueError(f"op '{name}': an axis of length {n} cannot be split into {k} equal sections")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        return list(np.cumsum([0] + sizes))
    points = [builtins.min(builtins.max(int(p) if p >= 0 else n + int(p), 0), n) for p in sections]
    return [0] + points + [n]


def _split(x, sections, axis, name, strict):
    x = _t(x, name)
    axis = check_axis(axis, x.ndim, name)
    pts = _split_points(x.shape[axis], sections, name, strict)
    out = []
    as_list = not isinstance(sections, (builtins.int, np.integer))   # mindspore.numpy: a list for indices
    for lo, hi in zip(pts[:-1], pts[1:]):
        hi = builtins.max(hi, lo)
        out.append(x[(slice(None),) * axis + (slice(int(lo), int(hi)),)])
    return out if as_list else tuple(out)


def split(x, indices_or_sections, axis=0):
    """``x`` split along ``axis`` into equal sections, or at the given indices (a tuple)."""
    return _split(x, indices_or_sections, axis, "split", True)


def array_split(x, indices_or_sections, axis=0):
    """``split`` that allows sections of unequal length (the first ones one longer)."""
    return _split(x, indices_or_sections, axis, "array_split", False)


def hsplit(x, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D inputs)."""
    x = _t(x, "hsplit")
    return _split(x, indices_or_sections, 1 if x.ndim > 1 else 0, "hsplit", True)


def vsplit(x, indices_or_sections):
    """``split`` along axis 0 (inputs of at least 2 dimensions)."""
    x = _t(x, "vsplit")
    if x.ndim < 2:
        raise ValueError(f"op 'vsplit': input must have at least 2 dimensions, got shape {list(x.shape)}")
    return _split(x, indices_or_sections, 0, "vsplit", True)


def dsplit(x, indices_or_sections):
    """``split`` along axis 2 (inputs of at least 3 dimensions)."""
    x = _t(x, "dsplit")
    if x.ndim < 3:
        raise ValueError(f"op 'dsplit': input must have at least 3 dimensions, got shape {list(x.shape)}")
    return _split(x, indices_or_sections, 2, "dsplit", True)


# ------------------------------------------------------------------ rearranging
def tile(a, reps):
    """``a`` repeated ``reps`` times along each axis."""
    a = _t(a, "tile")
    reps = (reps,) if isinstance(reps, (builtins.int, np.integer)) else tuple(reps)
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    elif len(reps) > a.ndim:
        a = F.reshape(a, (1,) * (len(reps) - a.ndim) + tuple(a.shape))
    return _ops.tile(a, reps)


def repeat(a, repeats, axis=None):
    """Each element (of the flattened tensor when ``axis`` is None) repeated ``repeats`` times."""
    a = _t(a, "repeat")
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    return _ops.repeat_interleave(a, list(repeats) if isinstance(repeats, tuple) else repeats, axis)


def flip(m, axis=None):
    """``m`` reversed along ``axis`` (every axis when None)."""
    m = _t(m, "flip")
    return _ops.flip(m, axes_tuple(axis, m.ndim, "flip"))


def fliplr(m):
    """``m`` reversed along axis 1."""
    m = _t(m, "fliplr")
    if m.ndim < 2:
        raise ValueError(f"op 'fliplr': input must have at least 2 dimensions, got shape {list(m.shape)}")
    return _ops.flip(m, (1,))


def flipud(m):
    """``m`` reversed along axis 0."""
    m = _t(m, "flipud")
    if m.ndim < 1:
        raise ValueError("op 'flipud': input must have at least 1 dimension")
    return _ops.flip(m, (0,))


def roll(a, shift, axis=None):
    """Elements shifted by ``shift`` along ``axis`` (of the flattened tensor when None), wrapping around."""
    a = _t(a, "roll")
    if axis is None:
        return F.reshape(roll(F.reshape(a, (-1,)), shift, 0), a.shape)
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    shifts = shift if isinstance(shift, (list, tuple)) else (shift,) * len(axes)
    if len(shifts) != len(axes):
        shifts, axes = np.broadcast_arrays(np.asarray(shifts), np.asarray(axes))
    total = {}
    for s, ax in zip(shifts, axes):
        ax = check_axis(int(ax), a.ndim, "roll")
        total[ax] = total.get(ax, 0) + int(s)
    for ax, s in total.items():
        n = a.shape[ax]
        if n and s % n:
            a = _along(a, (np.arange(n) - s) % n, ax)
    return a


def rot90(a, k=1, axes=(0, 1)):
    """``a`` rotated by 90 degrees ``k`` times in the plane of ``axes`` (from the first towards the second)."""
    a = _t(a, "rot90")
    if len(axes) != 2:
        raise ValueError(f"op 'rot90': axes must name 2 axes, got {axes!r}")
    i, j = check_axis(axes[0], a.ndim, "rot90"), check_axis(axes[1], a.ndim, "rot90")
    if i == j:
        raise ValueError(f"op 'rot90': axes must differ, got {axes!r}")
    k %= 4
    if k == 0:
        return a
    if k == 2:
        return _ops.flip(a, (i, j))
    if k == 1:
        return swapaxes(_ops.flip(a, (j,)), i, j)
    return _ops.flip(swapaxes(a, i, j), (j,))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """Diagonal ``offset`` of the 2-D slices over ``axis1`` and ``axis2`` (as the last axis)."""
    return _ops.diagonal(_t(a, "diagonal"), offset, axis1, axis2)


# ------------------------------------------------------------------ pad
def _pad_widths(pad_width, ndim, name):
    w = np.asarray(pad_width.asnumpy() if isinstance(pad_width, Tensor) else pad_width)
    if w.dtype.kind not in "iu" or (w < 0).any():
        raise ValueError(f"op '{name}': pad_width must hold non-negative ints, got {pad_width!r}")
    try:
        return np.broadcast_to(w, (ndim, 2)).tolist()
    except ValueError:
        raise ValueError(f"op '{name}': pad_width {pad_width!r} does not fit a tensor of rank {ndim}") from None


_INDEX_MODES = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric", "wrap": "wrap"}


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """``arr`` padded by ``pad_width`` (before, after) per axis. Modes: 'constant', 'edge', 'reflect',
    'symmetric' (``reflect_type`` 'even' or 'odd'), 'wrap', 'maximum', 'minimum', 'mean' (over
    ``stat_length`` edge elements, all when None), 'linear_ramp' (to ``end_values``), 'empty' (zeros)."""
    x = _t(arr, "pad")
    widths = _pad_widths(pad_width, x.ndim, "pad")
    if mode == "median":
        raise NotImplementedError("op 'pad': mode 'median' is not supported")
    if mode not in ("constant", "empty", "maximum", "minimum", "mean", "linear_ramp") and mode not in _INDEX_MODES:
        raise ValueError(f"op 'pad': mode {mode!r} is not supported")
    if kwargs:
        raise TypeError(f"op 'pad': unexpected arguments {sorted(kwargs)}")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"op 'pad': reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    cvals = np.broadcast_to(np.asarray(constant_values), (x.ndim, 2)).tolist()
    evals = np.broadcast_to(np.asarray(end_values), (x.ndim, 2)).tolist()
    stats = None if stat_length is None else np.broadcast_to(np.asarray(stat_length), (x.ndim, 2)).tolist()
    for ax, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        if mode in ("reflect", "symmetric") and reflect_type == "odd":
            x = _pad_odd(x, ax, before, after, mode)
        elif mode in _INDEX_MODES:
            x = _along(x, np.pad(np.arange(x.shape[ax]), (before, after), mode=_INDEX_MODES[mode]), ax)
        else:
            x = _pad_fill(x, ax, before, after, mode, cvals[ax], evals[ax], stats and stats[ax])
    return x


def _edge_slice(x, ax, side, count):
    """The ``count`` elements of ``x`` at the start (side 0) or end (side 1) of axis ``ax``."""
    n = x.shape[ax]
    return x[_axis_slice(ax, slice(0, count) if side == 0 else slice(n - count, n))]


def _axis_slice(ax, s):
    return (slice(None),) * ax + (s,)


def _pad_fill(x, ax, before, after, mode, cvals, evals, stats):
    """Pads along one axis made from constants, statistics of the edges or ramps, joined to ``x``."""
    n = x.shape[ax]
    parts = []
    for side, count in ((0, before), (1, after)):
        if not count:
            parts.append(None)
            continue
        shape = list(x.shape)
        shape[ax] = count
        if mode in ("constant", "empty"):
            fill = cvals[side] if mode == "constant" else 0
            parts.append(F.cast(const(np.full(shape, fill)), x.dtype))
        elif mode in ("maximum", "minimum", "mean"):
            length = n if stats is None or stats[side] is None else builtins.max(builtins.min(int(stats[side]), n), 1)
            region = _edge_slice(x, ax, side, length)
            fn = {"maximum": F.amax, "minimum": F.amin, "mean": F.mean}[mode]
            stat = fn(region, (ax,), True)
            if stat.dtype != x.dtype:
                stat = F.cast(stat, x.dtype)
            parts.append(F.broadcast_to(stat, tuple(shape)))
        else:                           # linear_ramp: from end_values (outside) to the edge value
            edge = _edge_slice(x, ax, side, 1)
            k = np.arange(count) / count
            frac = k if side == 0 else 1.0 - (np.arange(1, count + 1) / count)
            fshape = [1] * x.ndim
            fshape[ax] = count
            ftype = x.dtype.np_dtype if _dt.is_floating(x.dtype) else np.float32
            fr = const(frac.reshape(fshape).astype(ftype))
            end = float(evals[side])
            ramp = F.add(end, F.mul(fr, F.sub(F.cast(edge, fr.dtype), end)))
            parts.append(F.cast(F.broadcast_to(ramp, tuple(shape)), x.dtype))
    pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
    return F.concat(tuple(pieces), ax)


def _pad_odd(x, ax, before, after, mode):
    """Odd reflection along one axis: ``2 * edge - mirrored values``, in rounds of at most one
    period (as NumPy pads), each round mirroring the tensor padded so far."""
    while before or after:
        n = x.shape[ax]
        period = n - 1 if mode == "reflect" else n
        if period <= 0:                 # a single element: odd reflection repeats it
            return _along(x, np.zeros(n + before + after, dtype=np.int64), ax)
        b, a = builtins.min(before, period), builtins.min(after, period)
        pieces = []
        if b:
            first = _edge_slice(x, ax, 0, 1)
            idx = np.arange(b, 0, -1) if mode == "reflect" else np.arange(b - 1, -1, -1)
            pieces.append(F.sub(F.mul(first, 2), _along(x, idx, ax)))
        pieces.append(x)
        if a:
            last = _edge_slice(x, ax, 1, 1)
            idx = (n - 2 - np.arange(a)) if mode == "reflect" else (n - 1 - np.arange(a))
            pieces.append(F.sub(F.mul(last, 2), _along(x, idx, ax)))
        x = F.concat(tuple(pieces), ax)
        before, after = before - b, after - a
    return x


# ------------------------------------------------------------------ indexing and selection
def _index_array(indices, n, mode, name):
    """Indices along an axis of length ``n`` made valid: 'clip' (negatives count from the end, then
    clipped), 'wrap' (modulo n) or 'raise'."""
    idx = _t(indices, name)
    if idx.dtype.np_dtype.kind not in "iu":
        raise TypeError(f"op '{name}': indices must be integers, got {idx.dtype}")
    if mode == "wrap":
        return _ops.remainder(idx, n)
    if mode == "clip":
        idx = F.where(F.less(idx, 0), F.add(idx, n), idx)
        return _ops.clamp(idx, 0, n - 1)
    if mode == "raise":
        vals = idx.asnumpy()
        if vals.size and (vals.max() >= n or vals.min() < -n):
            raise IndexError(f"op '{name}': index out of range for an axis of length {n}")
        return idx
    raise ValueError(f"op '{name}': mode must be 'clip', 'wrap' or 'raise', got {mode!r}")


def take(a, indices, axis=None, mode="clip"):
    """Elements of ``a`` (flattened when ``axis`` is None) at ``indices`` along ``axis``."""
    a = _t(a, "take")
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    axis = check_axis(axis, a.ndim, "take")
    idx = _index_array(indices, a.shape[axis], mode, "take")
    return a[(slice(None),) * axis + (idx,)]


def take_along_axis(arr, indices, axis):
    """``arr`` gathered with ``indices`` (of ``arr``'s rank) along ``axis`` (flattened when None)."""
    a = _t(arr, "take_along_axis")
    idx = _t(indices, "take_along_axis")
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    axis = check_axis(axis, a.ndim, "take_along_axis")
    if idx.ndim != a.ndim:
        raise ValueError(f"op 'take_along_axis': indices of rank {idx.ndim} do not match input of rank {a.ndim}")
    shape = [builtins.max(s, i) if k != axis else i for k, (s, i) in enumerate(zip(a.shape, idx.shape))]
    a_shape = list(shape)
    a_shape[axis] = a.shape[axis]
    if list(a.shape) != a_shape:
        a = F.broadcast_to(a, tuple(a_shape))
    if list(idx.shape) != shape:
        idx = F.broadcast_to(idx, tuple(shape))
    idx = F.where(F.less(idx, 0), F.add(idx, a.shape[axis]), idx)
    return _ops.gather_elements(a, axis, idx)


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y`` (broadcast together)."""
    if x is None or y is None:
        raise TypeError("op 'where': x and y must both be given")
    cond = _t(condition, "where")
    if cond.dtype != _dt.bool_:
        cond = F.cast(cond, _dt.bool_)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = _t(x, "where")
    if not is_scalar(x) or isinstance(x, Tensor):
        x = _t(x, "where")
    if not is_scalar(y) or isinstance(y, Tensor):
        y = _t(y, "where")
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype != y.dtype:
        x, y = _promoted([x, y])
    return F.where(cond, x, y)


def select(condlist, choicelist, default=0):
    """From ``choicelist``, the element of the first true condition in ``condlist`` (else ``default``)."""
    if len(condlist) != len(choicelist):
        raise ValueError("op 'select': condlist and choicelist must have the same length")
    choices = _promoted([_t(c, "select") for c in choicelist])
    conds = [_t(c, "select") for c in condlist]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in choices + conds))
    out = F.broadcast_to(F.cast(_t(default, "select"), choices[0].dtype), shape)
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = F.where(cond, choice, out)
    return out


def choose(a, choices, mode="clip"):
    """For each element of the index tensor ``a``, the element of ``choices[a]`` at that position."""
    a = _t(a, "choose")
    cs = _promoted([_t(c, "choose") for c in choices])
    shape = np.broadcast_shapes(tuple(a.shape), *(tuple(c.shape) for c in cs))
    stacked = F.stack(tuple(F.broadcast_to(c, shape) for c in cs), 0)
    idx = _index_array(F.broadcast_to(a, shape), len(cs), mode, "choose")
    return F.reshape(_ops.gather_elements(stacked, 0, F.reshape(idx, (1,) + tuple(shape))), shape)


def unique(x, return_inverse=False):
    """The sorted unique elements of ``x`` (flattened); with ``return_inverse`` also the indices that
    rebuild ``x`` from them (int32). No gradient."""
    t = _t(x, "unique")
    vals, inv = np.unique(t.asnumpy(), return_inverse=True)
    out = const(vals.astype(t.dtype.np_dtype))
    return (out, const(inv.reshape(-1).astype(np.int32))) if return_inverse else out


def searchsorted(a, v, side="left", sorter=None):
    """Where ``v``'s elements would be inserted into the sorted 1-D ``a`` to keep it sorted (int32)."""
    if side not in ("left", "right"):
        raise ValueError(f"op 'searchsorted': side must be 'left' or 'right', got {side!r}")
    a = _t(a, "searchsorted")
    if a.ndim != 1:
        raise ValueError(f"op 'searchsorted': a must be 1-D, got shape {list(a.shape)}")
    vt = _t(v, "searchsorted")
    if sorter is not None:
        a = take(a, sorter)
    return U.searchsorted(a, vt, side)


def argwhere(a):
    """The indices of the non-zero elements of ``a``, one row each (int64). No gradient."""
    t = _t(a, "argwhere")
    return const(np.argwhere(t.asnumpy()).astype(np.int64))


def unravel_index(indices, shape, order="C"):
    """Flat indices as a tuple of coordinate tensors for an array of ``shape`` (int32)."""
    if order not in ("C", "F"):
        raise ValueError(f"op 'unravel_index': order must be 'C' or 'F', got {order!r}")
    idx = _t(indices, "unravel_index")
    dims = [builtins.int(s) for s in ((shape,) if isinstance(shape, int) else shape)]
    total = builtins.int(np.prod(dims))
    idx = F.where(F.less(idx, 0), F.add(idx, total), idx)
    sizes = dims if order == "C" else dims[::-1]
    strides = np.cumprod([1] + sizes[::-1][:-1])[::-1]
    out = [_ops.remainder(_ops.floor_divide(idx, builtins.int(s)), d) for s, d in zip(strides, sizes)]
    out = [F.cast(o, _dt.int32) if o.dtype != _dt.int32 else o for o in out]
    return tuple(out if order == "C" else out[::-1])


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Coordinate tensors as flat indices into an array of shape ``dims`` (int32)."""
    if order not in ("C", "F"):
        raise ValueError(f"op 'ravel_multi_index': order must be 'C' or 'F', got {order!r}")
    dims = [builtins.int(d) for d in dims]
    if len(multi_index) != len(dims):
        raise ValueError(f"op 'ravel_multi_index': {len(multi_index)} index arrays for {len(dims)} dims")
    idx = [_index_array(i, d, mode, "ravel_multi_index") for i, d in zip(multi_index, dims)]
    sizes, idx = (dims, idx) if order == "C" else (dims[::-1], idx[::-1])
    strides = np.cumprod([1] + sizes[::-1][:-1])[::-1]
    out = None
    for i, s in zip(idx, strides):
        term = F.mul(F.cast(i, _dt.int32), builtins.int(s))
        out = term if out is None else F.add(out, term)
    return out


# ------------------------------------------------------------------ functional helpers
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis``; results stacked in its place."""
    a = _t(arr, "apply_along_axis")
    axis = check_axis(axis, a.ndim, "apply_along_axis")
    moved = moveaxis(a, axis, -1)
    outer = tuple(moved.shape[:-1])
    rows = F.reshape(moved, (-1, moved.shape[-1]))
    results = [_t(func1d(rows[i], *args, **kwargs), "apply_along_axis") for i in range(rows.shape[0])]
    res = F.stack(tuple(results), 0)
    res = F.reshape(res, outer + tuple(res.shape[1:]))
    if res.ndim > len(outer):           # the result's own axes take the place of ``axis``
        res = moveaxis(res, tuple(range(len(outer), res.ndim)),
                       tuple(range(axis, axis + res.ndim - len(outer))))
    return res


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, keeping the reduced axes (length 1)."""
    res = _t(a, "apply_over_axes")
    for ax in (axes if isinstance(axes, (list, tuple)) else (axes,)):
        ax = check_axis(ax, res.ndim, "apply_over_axes")
        out = _t(func(res, ax), "apply_over_axes")
        if out.ndim == res.ndim - 1:
            out = F.expand_dims(out, ax)
        elif out.ndim != res.ndim:
            raise ValueError("op 'apply_over_axes': func must keep the rank or remove one axis")
        res = out
    return res


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i]`` (a function of ``x`` or a value) where ``condlist[i]`` holds; one extra entry in
    ``funclist`` gives the value where no condition holds (else 0). The result has ``x``'s dtype."""
    x = _t(x, "piecewise")
    if isinstance(condlist, Tensor) or (isinstance(condlist, (list, tuple)) and condlist and
                                        not isinstance(condlist[0], (list, tuple, Tensor, np.ndarray))):
        condlist = [condlist]
    conds = [_t(c, "piecewise") for c in condlist]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"op 'piecewise': funclist must have {n} or {n + 1} entries, got {len(funclist)}")

    def value(f):
        v = f(x, *args, **kw) if callable(f) else f
        return F.broadcast_to(F.cast(_t(v, "piecewise"), x.dtype), x.shape)

    out = value(funclist[n]) if len(funclist) == n + 1 else F.zeros_like(x)
    if len(funclist) == n + 1:
        none = conds[0]
        for c in conds[1:]:
            none = _ops.logical_or(none, c)
        out = F.where(none, F.zeros_like(x), out)
    for c, f in zip(conds, funclist[:n]):
        out = F.where(c, value(f), out)
    return out


def size(a, axis=None):
    """The number of elements of ``a`` (along ``axis`` when given)."""
    t = _t(a, "size")
    if axis is None:
        return builtins.int(np.prod(t.shape))
    return builtins.int(t.shape[check_axis(axis, t.ndim, "size")])


def array_str(a):
    """The values of ``a`` as NumPy prints them."""
    return np.array_str(_t(a, "array_str").asnumpy())
