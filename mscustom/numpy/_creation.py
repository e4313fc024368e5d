"""Array creation: from data, filled, ranges, grids, matrices, window functions.

Constants are built with NumPy and wrapped (no gradient to carry); functions of tensors
(``linspace`` between tensors, ``diag``, ``meshgrid``, ``tril`` ...) are compositions of ops,
so gradients flow through them. Default dtypes are mindspore.numpy's: float32 for floats and
for filled arrays without a dtype, int32 for integers.
"""

import builtins

import numpy as np

from .. import dtype as _dt
from .. import ops as _ops
from ..ops import functional as F
from ..tensor import Tensor
from ._utils import const, is_scalar, to_dtype, to_float, to_tensor

__all__ = ["array", "asarray", "asfarray", "ones", "zeros", "full", "empty", "ones_like", "zeros_like",
           "full_like", "empty_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity",
           "diag", "diagflat", "tri", "tril", "triu", "meshgrid", "indices", "mgrid", "ogrid", "ix_",
           "vander", "diag_indices", "tril_indices", "triu_indices", "tril_indices_from",
           "triu_indices_from", "bartlett", "blackman", "hamming", "hanning"]


# ------------------------------------------------------------------ from data
def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor from a Tensor, a number, a (nested) list or tuple, or a NumPy array.

    Python floats give float32 and ints int32; ``ndmin`` prepends axes of length 1. A Tensor of
    the right dtype is returned itself (``copy`` is accepted; ops never write into their inputs),
    so gradients reach it.
    """
    out = to_tensor(obj, dtype, "array")
    if out.ndim < ndmin:
        out = F.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def asarray(a, dtype=None):
    """``a`` as a Tensor; a Tensor of the right dtype is returned as it is."""
    return to_tensor(a, dtype, "asarray")


def asfarray(a, dtype=_dt.float32):
    """``a`` as a float Tensor (float32 unless ``dtype`` is a float dtype)."""
    dtype = to_dtype(dtype, "asfarray")
    if dtype is None or not _dt.is_floating(dtype):
        dtype = _dt.float32
    return to_tensor(a, dtype, "asfarray")


# ------------------------------------------------------------------ filled
def _shape(shape, name):
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, (builtins.int, np.integer)) and not isinstance(shape, builtins.bool):
        return (builtins.int(shape),)
    if isinstance(shape, (list, tuple)) and all(isinstance(s, (builtins.int, np.integer)) for s in shape):
        if any(s < 0 for s in shape):
            raise ValueError(f"op '{name}': shape must not hold negative sizes, got {shape!r}")
        return tuple(builtins.int(s) for s in shape)
    raise TypeError(f"op '{name}': shape must be an int or a tuple of ints, got {shape!r}")


def _filled(shape, value, dtype, name):
    dtype = to_dtype(dtype, name) or _dt.float32
    return const(np.full(_shape(shape, name), value, dtype.np_dtype))


def ones(shape, dtype=_dt.float32):
    """A tensor of ones (float32 by default)."""
    return _filled(shape, 1, dtype, "ones")


def zeros(shape, dtype=_dt.float32):
    """A tensor of zeros (float32 by default)."""
    return _filled(shape, 0, dtype, "zeros")


def empty(shape, dtype=_dt.float32):
    """A new tensor (zero-filled here: uninitialised memory would make results irreproducible)."""
    return _filled(shape, 0, dtype, "empty")


def full(shape, fill_value, dtype=None):
    """A tensor filled with ``fill_value``: a number (its dtype: bool, int32, float32 unless ``dtype``)
    or a tensor broadcast to ``shape`` (differentiable)."""
    shape = _shape(shape, "full")
    if isinstance(fill_value, Tensor) or not is_scalar(fill_value):
        value = to_tensor(fill_value, dtype, "full")
        return F.broadcast_to(value, shape)
    if dtype is None:
        dtype = to_tensor(fill_value).dtype
    return _filled(shape, fill_value, dtype, "full")


def _like(a, dtype, shape, name):
    a = to_tensor(a, name=name)
    return (to_dtype(dtype, name) or a.dtype), (a.shape if shape is None else _shape(shape, name))


def ones_like(a, dtype=None, shape=None):
    """Ones with ``a``'s shape and dtype (unless given)."""
    dtype, shape = _like(a, dtype, shape, "ones_like")
    return _filled(shape, 1, dtype, "ones_like")


def zeros_like(a, dtype=None, shape=None):
    """Zeros with ``a``'s shape and dtype (unless given)."""
    dtype, shape = _like(a, dtype, shape, "zeros_like")
    return _filled(shape, 0, dtype, "zeros_like")


def empty_like(prototype, dtype=None, shape=None):
    """A zero-filled tensor with ``prototype``'s shape and dtype (unless given)."""
    dtype, shape = _like(prototype, dtype, shape, "empty_like")
    return _filled(shape, 0, dtype, "empty_like")


def full_like(a, fill_value, dtype=None, shape=None):
    """``fill_value`` in ``a``'s shape and dtype (a float fill in an int tensor is truncated)."""
    dtype, shape = _like(a, dtype, shape, "full_like")
    if isinstance(fill_value, Tensor) or not is_scalar(fill_value):
        return F.broadcast_to(to_tensor(fill_value, dtype, "full_like"), shape)
    return _filled(shape, fill_value, dtype, "full_like")


# ------------------------------------------------------------------ ranges
def _number(v, name):
    if isinstance(v, Tensor):
        if v.ndim:
            raise TypeError(f"op '{name}': expected a number or a 0-d tensor, got shape {list(v.shape)}")
        return v.asnumpy().item()
    return v


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``: int32 when every bound is an int, else float32."""
    start, stop, step = (_number(v, "arange") for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("op 'arange': step must not be 0")
    values = np.arange(start, stop, step)
    default = _dt.int32 if all(isinstance(v, (builtins.int, np.integer)) for v in (start, stop, step)) \
        else _dt.float32
    dtype = to_dtype(dtype, "arange") or default
    return const(values.astype(dtype.np_dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (float32 by default).

    Tensor bounds give one sequence per element, laid along ``axis``; the result is
    differentiable with respect to them.
    """
    if not isinstance(num, (builtins.int, np.integer)) or num < 0:
        raise ValueError(f"op 'linspace': num must be a non-negative int, got {num!r}")
    dtype = to_dtype(dtype, "linspace")
    div = (num - 1) if endpoint else num
    if not isinstance(start, Tensor) and not isinstance(stop, Tensor) and is_scalar(start) and is_scalar(stop):
        dtype = dtype or _dt.float32
        values = np.linspace(float(start), float(stop), num, endpoint=endpoint).astype(np.float32)
        out = const(values)
        if dtype != _dt.float32:
            out = F.cast(const(np.linspace(float(start), float(stop), num, endpoint=endpoint)), dtype) \
                if _dt.is_floating(dtype) else const(np.floor(values).astype(dtype.np_dtype))
        if not retstep:
            return out
        if div <= 0:                    # one sample: no step (a Python NaN, as mindspore.numpy gives)
            return out, float("nan")
        return out, const(np.asarray((float(stop) - float(start)) / div, np.float32))
    a, b = to_float(start, "linspace"), to_float(stop, "linspace")
    if a.dtype != b.dtype:
        a, b = (F.cast(t, _dt.float64) if _dt.float64 in (a.dtype, b.dtype) else F.cast(t, _dt.float32) for t in (a, b))
    dtype = dtype or a.dtype
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    a, b = F.broadcast_to(a, shape), F.broadcast_to(b, shape)
    frac = np.arange(num, dtype=np.float64) / div if div > 0 else np.zeros(num)
    if endpoint and num > 1:
        frac[-1] = 1.0
    frac = const(frac.reshape((num,) + (1,) * len(shape)).astype(a.dtype.np_dtype))
    out = F.add(F.expand_dims(a, 0), F.mul(frac, F.expand_dims(F.sub(b, a), 0)))
    if len(shape):
        out = F.transpose(out, _moved(0, axis, out.ndim))
    if out.dtype != dtype:
        out = F.cast(_ops.floor(out) if not _dt.is_floating(dtype) else out, dtype)
    if retstep:
        return out, F.div(F.sub(b, a), float(div)) if div > 0 else F.mul(F.sub(b, a), float("nan"))
    return out


def _moved(src, dst, ndim):
    """The permutation that moves axis ``src`` to position ``dst``."""
    dst = dst % ndim
    order = [i for i in range(ndim) if i != src]
    order.insert(dst, src)
    return tuple(order)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (float32 by default)."""
    exps = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = F.pow(const(np.asarray(base, np.float32)) if is_scalar(base) else to_float(base), exps)
    dtype = to_dtype(dtype, "logspace")
    return out if dtype is None or out.dtype == dtype else F.cast(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """A geometric progression from ``start`` to ``stop`` (float32 by default)."""
    a, b = to_float(start, "geomspace"), to_float(stop, "geomspace")
    # a progression of negative numbers is the negated progression of their magnitudes
    sign = F.where(F.less(a, 0.0), F.add(F.zeros_like(a), -1.0), F.add(F.zeros_like(a), 1.0))
    out = _ops.exp(linspace(F.log(F.abs(a)), F.log(F.abs(b)), num, endpoint=endpoint, axis=axis))
    out = F.mul(out, sign)
    # the end points exactly, as NumPy gives them
    if a.ndim == 0 and b.ndim == 0 and num > 0:
        keep = np.ones(num, bool)
        keep[0] = False
        vals = F.where(const(keep), out, F.broadcast_to(a, (num,)))
        if endpoint and num > 1:
            last = np.zeros(num, bool)
            last[-1] = True
            vals = F.where(const(last), F.broadcast_to(b, (num,)), vals)
        out = vals
    dtype = to_dtype(dtype, "geomspace")
    return out if dtype is None or out.dtype == dtype else F.cast(out, dtype)


# ------------------------------------------------------------------ matrices
def eye(N, M=None, k=0, dtype=_dt.float32):
    """A 2-D tensor with ones on diagonal ``k`` (float32 by default)."""
    dtype = to_dtype(dtype, "eye") or _dt.float32
    return const(np.eye(N, M, k, dtype=dtype.np_dtype))


def identity(n, dtype=_dt.float32):
    """The ``n x n`` identity (float32 by default)."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=_dt.float32):
    """Ones at and below diagonal ``k``, zeros above (float32 by default)."""
    dtype = to_dtype(dtype, "tri") or _dt.float32
    return const(np.tri(N, M, k, dtype=dtype.np_dtype))


def tril(m, k=0):
    """The lower triangle of the last two axes (above diagonal ``k`` set to 0)."""
    m = to_tensor(m, name="tril")
    if m.ndim < 2:
        m = F.broadcast_to(m, (m.shape[-1] if m.ndim else 1,) * 2)
    return _ops.tril(m, k)


def triu(m, k=0):
    """The upper triangle of the last two axes (below diagonal ``k`` set to 0)."""
    m = to_tensor(m, name="triu")
    if m.ndim < 2:
        m = F.broadcast_to(m, (m.shape[-1] if m.ndim else 1,) * 2)
    return _ops.triu(m, k)


def diag(v, k=0):
    """A 1-D ``v`` on diagonal ``k`` of a square matrix, or diagonal ``k`` of a 2-D ``v``."""
    v = to_tensor(v, name="diag")
    if v.ndim == 2:
        return _ops.diagonal(v, k, 0, 1)
    if v.ndim != 1:
        raise ValueError(f"op 'diag': input must be 1-D or 2-D, got shape {list(v.shape)}")
    n = v.shape[0]
    size = n + builtins.abs(k)
    # row[j] is the value of column j: v shifted right by k (k > 0) or padded after (k < 0)
    pad = const(np.zeros(builtins.abs(k), v.dtype.np_dtype))
    row = v if not k else (F.concat((pad, v), 0) if k > 0 else F.concat((v, pad), 0))
    mask = np.eye(size, size, k, dtype=bool)
    return F.where(const(mask), F.broadcast_to(F.reshape(row, (1, size)), (size, size)),
                   const(np.zeros((), v.dtype.np_dtype)))


def diagflat(v, k=0):
    """``v`` flattened onto diagonal ``k`` of a square matrix."""
    v = to_tensor(v, name="diagflat")
    return diag(F.reshape(v, (-1,)), k)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``: columns are powers of ``x`` (highest first)."""
    x = to_tensor(x, name="vander")
    if x.ndim != 1:
        raise ValueError(f"op 'vander': x must be 1-D, got shape {list(x.shape)}")
    n = x.shape[0] if N is None else N
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    return F.pow(F.reshape(x, (-1, 1)), const(powers.astype(x.dtype.np_dtype)))


# ------------------------------------------------------------------ grids and index arrays
def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate tensors from 1-D coordinate vectors (``indexing`` 'xy' or 'ij'); a list."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"op 'meshgrid': indexing must be 'xy' or 'ij', got {indexing!r}")
    vecs = [F.reshape(to_tensor(x, name="meshgrid"), (-1,)) for x in xi]
    n = len(vecs)
    if n == 0:
        return []
    sizes = [v.shape[0] for v in vecs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, v in enumerate(vecs):
        pos = i if indexing == "ij" or n < 2 else {0: 1, 1: 0}.get(i, i)
        shape = [1] * n
        shape[pos] = v.shape[0]
        g = F.reshape(v, tuple(shape))
        out.append(g if sparse else F.broadcast_to(g, tuple(sizes)))
    return out


def indices(dimensions, dtype=_dt.int32, sparse=False):
    """One index tensor per axis of a grid of shape ``dimensions`` (a list)."""
    dtype = to_dtype(dtype, "indices") or _dt.int32
    grids = np.indices(tuple(dimensions), dtype=dtype.np_dtype, sparse=sparse)
    return [const(g) for g in grids]


class _Grid:
    """``mgrid[...]`` / ``ogrid[...]``: dense or open grids from slices (``3j`` steps count points)."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        grid = (np.ogrid if self.sparse else np.mgrid)[key]
        slices = key if isinstance(key, tuple) else (key,)

        def dtype(group):
            floats = any(isinstance(v, (builtins.float, builtins.complex)) for s in group
                         for v in (s.start, s.stop, s.step))
            return np.float32 if floats else np.int32

        if isinstance(grid, (list, tuple)):        # open grids: each axis its own dtype
            return [const(np.asarray(g).astype(dtype((s,)))) for g, s in zip(grid, slices)]
        return const(np.asarray(grid).astype(dtype(slices)))


mgrid = _Grid(False)
ogrid = _Grid(True)


def ix_(*args):
    """Open-mesh index tensors from 1-D sequences (booleans become their true positions)."""
    out = []
    n = len(args)
    for i, a in enumerate(args):
        t = to_tensor(a, name="ix_")
        if t.ndim != 1:
            raise ValueError(f"op 'ix_': each input must be 1-D, got shape {list(t.shape)}")
        if t.dtype == _dt.bool_:
            t = const(np.nonzero(t.asnumpy())[0].astype(np.int32))
        shape = [1] * n
        shape[i] = t.shape[0]
        out.append(F.reshape(t, tuple(shape)))
    return tuple(out)


def _index_pair(rows, cols):
    return const(rows.astype(np.int32)), const(cols.astype(np.int32))


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n``-sided, ``ndim``-D array (int32)."""
    idx = const(np.arange(n, dtype=np.int32))
    return tuple(idx for _ in range(ndim))


def tril_indices(n, k=0, m=None):
    """The row and column indices of the lower triangle of an ``n x m`` matrix (int32)."""
    return _index_pair(*np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """The row and column indices of the upper triangle of an ``n x m`` matrix (int32)."""
    return _index_pair(*np.triu_indices(n, k, m))


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of a 2-D ``arr``."""
    shape = to_tensor(arr, name="tril_indices_from").shape
    if len(shape) != 2:
        raise ValueError(f"op 'tril_indices_from': input must be 2-D, got shape {list(shape)}")
    return tril_indices(shape[0], k, shape[1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of a 2-D ``arr``."""
    shape = to_tensor(arr, name="triu_indices_from").shape
    if len(shape) != 2:
        raise ValueError(f"op 'triu_indices_from': input must be 2-D, got shape {list(shape)}")
    return triu_indices(shape[0], k, shape[1])


# ------------------------------------------------------------------ windows
def _window(fn, M):
    if not isinstance(M, (builtins.int, np.integer)):
        raise TypeError(f"window length must be an int, got {M!r}")
    return const(fn(builtins.int(M)).astype(np.float32))


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points (float32)."""
    return _window(np.bartlett, M)


def blackman(M):
    """The Blackman window of ``M`` points (float32)."""
    return _window(np.blackman, M)


def hamming(M):
    """The Hamming window of ``M`` points (float32)."""
    return _window(np.hamming, M)


def hanning(M):
    """The Hann window of ``M`` points (float32)."""
    return _window(np.hanning, M)

