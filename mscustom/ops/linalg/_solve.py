"""Solves, powers and matrix structure with MindSpore 2.10's names: ``matrix_solve``, ``cholesky_solve``,
``cholesky_inverse``, ``lu_solve``, ``lu_unpack``, ``lstsq``, ``matrix_power``, ``cond``,
``matrix_band_part``, ``matrix_diag``, ``matrix_diag_part``, ``matrix_set_diag``, ``renorm``.

``matrix_solve`` is an op whose gradient is two more solves; the rest are compositions (of it,
``inverse``, ``svd``, indexing and arithmetic), so their gradients come from those ops.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.dispatch import call
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, tensor_arg
from ... import dtype as _dt
from ._common import const, mT, square_matrices, tensor_of_rank
from ._decompositions import inverse, svd


# ================================================================== matrix_solve
def _solve_compute(a, ins):
    m, b = ins
    if a["adjoint"]:
        m = np.conj(np.swapaxes(m, -1, -2))
    try:
        x = np.linalg.solve(m, b)
    except np.linalg.LinAlgError:
        raise ValueError("op 'matrix_solve': the matrix is singular") from None
    return np.ascontiguousarray(x, dtype=ins[1].dtype)


def _solve_shape(a, shapes):
    m, b = shapes
    if len(m) < 2 or m[-1] != m[-2] or len(b) != len(m) or b[-2] != m[-1] or list(b[:-2]) != list(m[:-2]):
        raise ValueError(f"op 'matrix_solve': matrix (..., n, n) and rhs (..., n, k) expected, got shapes "
                         f"{list(m)} and {list(b)}")
    return shapes, [list(b)]


def _solve_type(a, dtypes):
    m, b = dtypes
    if m != b or not (_dt.is_floating(m) or m.np_dtype.kind == "c"):
        raise TypeError(f"op 'matrix_solve': matrix and rhs must be float or complex tensors of one dtype, got "
                        f"{m.name} and {b.name}")
    return dtypes, [b]


def _solve_grad(ins, outs, g, a):
    m, x = ins[0], outs[0]
    gb = call(_SOLVE, (m, g[0]), {"adjoint": not a["adjoint"]})
    gm = F.neg(F.matmul(gb, mT(x)))
    return [mT(gm) if a["adjoint"] else gm, gb]


_SOLVE = defop("matrix_solve", 2, _solve_compute, _solve_shape, _solve_type, _solve_grad,
               doc="X with matrix @ X = rhs (or matrix^H @ X = rhs when adjoint)", arg_names=("matrix", "rhs"))


def matrix_solve(matrix, rhs, adjoint=False):
    """``X`` with ``matrix @ X = rhs`` for (..., n, n) and (..., n, k) (``matrix^H`` when ``adjoint``)."""
    m = tensor_arg(matrix, "matrix_solve")
    b = tensor_arg(rhs, "matrix_solve")
    return call(_SOLVE, (m, b), {"adjoint": bool(adjoint)})


# ================================================================== cholesky solve / inverse
def _lower(l, upper):
    return mT(l) if upper else l


def cholesky_solve(input, input2, upper=False):  # noqa: A002 - MindSpore's names
    """``X`` with ``A X = input`` given ``A``'s Cholesky factor ``input2`` (lower, or upper when ``upper``)."""
    b = tensor_of_rank(input, "cholesky_solve", "input", min_rank=2, float_only=True)
    L = _lower(square_matrices(input2, "cholesky_solve", "input2"), upper)
    if b.ndim != L.ndim or b.shape[-2] != L.shape[-1]:
        raise ValueError(f"op 'cholesky_solve': input (..., n, k) and input2 (..., n, n) expected, got shapes "
                         f"{list(b.shape)} and {list(L.shape)}")
    return matrix_solve(L, matrix_solve(L, b), adjoint=True)


def cholesky_inverse(input_x, upper=False):
    """``inverse(L L^T)`` (``inverse(U^T U)`` when ``upper``) from a Cholesky factor."""
    L = _lower(square_matrices(input_x, "cholesky_inverse", "input_x"), upper)
    if L.ndim != 2:
        raise ValueError(f"op 'cholesky_inverse': input_x must be 2-D, got shape {list(L.shape)}")
    return inverse(F.matmul(L, mT(L)))


# ================================================================== LU
def _permutation(pivots, n, dtype):
    """The permutation matrices P (A = P L U) of LAPACK's 1-based row swaps."""
    piv = np.asarray(pivots).astype(np.int64) - 1
    batch = piv.shape[:-1]
    flat = piv.reshape((-1, piv.shape[-1]))
    out = np.zeros((flat.shape[0], n, n), dtype)
    for b, swaps in enumerate(flat):
        perm = np.arange(n)
        for i, j in enumerate(swaps):
            if not 0 <= j < n:
                raise ValueError(f"op 'lu_unpack': pivots must be in [1, {n}], got {j + 1}")
            perm[i], perm[j] = perm[j], perm[i]
        out[b, perm, np.arange(n)] = 1
    return out.reshape(batch + (n, n))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803 - MindSpore's names
    """``(P, L, U)`` from a packed LU factorization (``A = P L U``; ``L`` unit lower triangular);
    ``unpack_data``/``unpack_pivots`` False give None for ``L, U`` / ``P``."""
    lu = tensor_of_rank(LU_data, "lu_unpack", "LU_data", min_rank=2)
    piv = tensor_arg(LU_pivots, "lu_unpack")
    m, n = lu.shape[-2:]
    k = min(m, n)
    if piv._data.dtype.kind not in "iu" or tuple(piv.shape) != tuple(lu.shape[:-2]) + (k,):
        raise ValueError(f"op 'lu_unpack': LU_pivots must be integers of shape {list(lu.shape[:-2]) + [k]}, got "
                         f"{piv.dtype} {list(piv.shape)}")
    low = up = p = None
    if unpack_data:
        low = F.mul(lu[..., :, :k], const(np.tril(np.ones((m, k)), -1), lu))
        low = F.add(low, const(np.eye(m, k), lu))
        up = F.mul(lu[..., :k, :], const(np.triu(np.ones((k, n))), lu))
    if unpack_pivots:
        p = const(_permutation(_capture.read_values(piv), m, lu._data.dtype))
    return p, low, up


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    """``X`` with ``A X = b`` given ``A``'s packed LU factorization (``lu_factor``'s data and pivots)."""
    rhs = tensor_of_rank(b, "lu_solve", "b", min_rank=2, float_only=True)
    p, low, up = lu_unpack(square_matrices(LU_data, "lu_solve", "LU_data"), LU_pivots)
    return matrix_solve(up, matrix_solve(low, F.matmul(mT(p), rhs)))


def lstsq(input, A):  # noqa: A002, N803
    """The least-squares solution ``X`` of ``input @ X = A`` (input (m, n), A (m, k)): ``pinv(input) @ A``."""
    x = tensor_of_rank(input, "lstsq", "input", 2, float_only=True)
    a = tensor_arg(A, "lstsq")
    if a.ndim not in (1, 2) or a.shape[0] != x.shape[0]:
        raise ValueError(f"op 'lstsq': input (m, n) and A (m, k) expected, got shapes {list(x.shape)} and "
                         f"{list(a.shape)}")
    from ._decompositions import pinv
    return F.matmul(pinv(x), a)


# ================================================================== powers, condition numbers
def matrix_power(input, n):  # noqa: A002
    """``input`` multiplied by itself ``n`` times (identity for 0; the inverse's power for ``n < 0``)."""
    x = tensor_arg(input, "matrix_power")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"op 'matrix_power': n must be an int, got {n!r}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"op 'matrix_power': input must be square matrices (..., n, n), got shape {list(x.shape)}")
    if n < 0:
        x, n = inverse(x), -n
    if n == 0:
        return F.broadcast_to(const(np.eye(x.shape[-1]), x), tuple(x.shape))
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else F.matmul(result, base)
        n >>= 1
        if n:
            base = F.matmul(base, base)
    return result


def _norm2(a, ord):  # noqa: A002
    from ._norms import matrix_norm
    return matrix_norm(a, ord)


def cond(A, p=None):  # noqa: N803
    """The condition number of each matrix: ``s_max / s_min`` for ``p`` None or 2 (``s_min / s_max`` for
    -2), else ``norm(A, p) * norm(inverse(A), p)`` (``p`` 'fro', 'nuc', inf, -inf, 1, -1)."""
    a = square_matrices(A, "cond", "A")
    if p is None or p in (2, -2):
        s = svd(a, compute_uv=False)
        big, small = F.amax(s, -1), F.amin(s, -1)
        return F.div(small, big) if p == -2 else F.div(big, small)
    if p not in ("fro", "nuc", np.inf, -np.inf, 1, -1):
        raise ValueError(f"op 'cond': p must be None, 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got {p!r}")
    return F.mul(_norm2(a, p), _norm2(inverse(a), p))


# ================================================================== band and diagonal structure
def matrix_band_part(x, lower, upper):
    """``x`` with the elements outside the band ``lower`` below and ``upper`` above the diagonal set to
    0 (a negative bound keeps the whole triangle)."""
    t = tensor_of_rank(x, "matrix_band_part", "x", min_rank=2)
    lo = int(lower.item() if isinstance(lower, Tensor) else lower)
    up = int(upper.item() if isinstance(upper, Tensor) else upper)
    m, n = t.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    return F.where(const(keep), t, F.zeros_like(t))


def _diag_range(k, name):
    if isinstance(k, Tensor):
        k = _capture.read_values(k).reshape(-1).tolist()
    if isinstance(k, (list, tuple)):
        if len(k) == 1:
            k = (int(k[0]), int(k[0]))
        elif len(k) == 2:
            k = (int(k[0]), int(k[1]))
        else:
            raise ValueError(f"op '{name}': k must be an int or a pair, got {k!r}")
    else:
        k = (int(k), int(k))
    if k[0] > k[1]:
        raise ValueError(f"op '{name}': k[0] must not exceed k[1], got {k!r}")
    return k


_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_offset(d, m, n, max_len, align):
    """Where diagonal ``d``'s elements start in its padded row of length ``max_len``."""
    length = min(m + min(0, d), n - max(0, d))
    right = (align in ("RIGHT_LEFT", "RIGHT_RIGHT") and d >= 0) or (align in ("LEFT_RIGHT", "RIGHT_RIGHT")
                                                                    and d <= 0)
    if align == "RIGHT_LEFT":
        right = d >= 0
    elif align == "LEFT_RIGHT":
        right = d <= 0
    return (max_len - length if right else 0), length


def _diag_maps(m, n, k, align):
    """For the diagonals k[0]..k[1] of an (m, n) matrix: row/col of each packed slot (or -1 for padding)."""
    max_len = max(min(m + min(0, d), n - max(0, d)) for d in range(k[0], k[1] + 1))
    nd = k[1] - k[0] + 1
    rows = -np.ones((nd, max_len), np.int64)
    cols = -np.ones((nd, max_len), np.int64)
    for r, d in enumerate(range(k[1], k[0] - 1, -1)):
        off, length = _diag_offset(d, m, n, max_len, align)
        for e in range(max(length, 0)):
            rows[r, off + e] = e + max(0, -d)
            cols[r, off + e] = e + max(0, d)
    return rows, cols, max_len


def _check_align(align, name):
    if align not in _ALIGNS:
        raise ValueError(f"op '{name}': align must be one of {list(_ALIGNS)}, got {align!r}")


def _flat_with_pad(x, value):
    """``x`` flattened over its last two axes with ``value`` appended (index m * n)."""
    lead = tuple(x.shape[:-2])
    flat = F.reshape(x, lead + (-1,))
    padv = F.broadcast_to(F.cast(tensor_arg(value, "matrix_diag"), x.dtype), lead + (1,)) \
        if isinstance(value, Tensor) else F.broadcast_to(const(value, x), lead + (1,))
    return F.concat((flat, padv), -1)


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals ``k`` (an int or a range pair) of the last two axes, packed into rows padded with
    ``padding_value`` (``align`` places the shorter diagonals)."""
    t = tensor_of_rank(x, "matrix_diag_part", "x", min_rank=2)
    _check_align(align, "matrix_diag_part")
    kr = _diag_range(k, "matrix_diag_part")
    m, n = t.shape[-2:]
    rows, cols, _ = _diag_maps(m, n, kr, align)
    idx = np.where(rows >= 0, rows * n + cols, m * n)
    out = _flat_with_pad(t, padding_value)[..., const(idx.reshape(-1))]
    shape = tuple(t.shape[:-2]) + (idx.shape if kr[0] != kr[1] else idx.shape[1:])
    return F.reshape(out, shape)


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with the diagonals ``k`` taken from ``x`` (its last axis, or its last two for a range of
    diagonals) and ``padding_value`` elsewhere; ``num_rows``/``num_cols`` default to the smallest fit."""
    t = tensor_arg(x, "matrix_diag")
    _check_align(align, "matrix_diag")
    kr = _diag_range(k, "matrix_diag")
    nr, nc = (int(v.item()) if isinstance(v, Tensor) else int(v) for v in (num_rows, num_cols))
    diags = t if kr[0] != kr[1] else F.expand_dims(t, -2)
    max_len = diags.shape[-1]
    min_rows, min_cols = max_len - min(kr[1], 0), max_len + max(kr[0], 0)
    if nr < 0 and nc < 0:               # neither given: the smallest square matrix that fits
        nr = nc = max(min_rows, min_cols)
    elif nr < 0:
        nr = min_rows
    elif nc < 0:
        nc = min_cols
    rows, cols, _ = _diag_maps(nr, nc, kr, align)
    # each output element's packed source (or the padding slot)
    src = np.full((nr, nc), rows.size, np.int64)
    valid = rows >= 0
    src[rows[valid], cols[valid]] = np.flatnonzero(valid.reshape(-1))
    lead = tuple(diags.shape[:-2])
    if rows.shape[1] != max_len:
        raise ValueError(f"op 'matrix_diag': x's last axis has {max_len} elements, the diagonals need "
                         f"{rows.shape[1]}")
    flat = F.reshape(diags, lead + (-1,))
    padv = F.broadcast_to(F.cast(padding_value, t.dtype) if isinstance(padding_value, Tensor)
                          else const(padding_value, t), lead + (1,))
    out = F.concat((flat, F.reshape(padv, lead + (1,))), -1)[..., const(src.reshape(-1))]
    return F.reshape(out, lead + (nr, nc))


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """``x`` with the diagonals ``k`` replaced by ``diagonal`` (packed as ``matrix_diag_part`` gives them)."""
    t = tensor_of_rank(x, "matrix_set_diag", "x", min_rank=2)
    d = tensor_arg(diagonal, "matrix_set_diag")
    _check_align(align, "matrix_set_diag")
    kr = _diag_range(k, "matrix_set_diag")
    m, n = t.shape[-2:]
    rows, cols, _ = _diag_maps(m, n, kr, align)
    src = np.arange(m * n, dtype=np.int64).reshape(m, n)
    valid = rows >= 0
    src[rows[valid], cols[valid]] = m * n + np.flatnonzero(valid.reshape(-1))
    lead = tuple(t.shape[:-2])
    dd = F.reshape(F.cast(d, t.dtype) if d.dtype != t.dtype else d, lead + (-1,))
    if dd.shape[-1] != rows.size:
        raise ValueError(f"op 'matrix_set_diag': diagonal must have shape {list(lead) + list(rows.shape if kr[0] != kr[1] else rows.shape[1:])}, "
                         f"got {list(d.shape)}")
    both = F.concat((F.reshape(t, lead + (-1,)), dd), -1)
    return F.reshape(both[..., const(src.reshape(-1))], tuple(t.shape))


def renorm(input, p, axis, maxnorm):  # noqa: A002
    """``input`` with each slice along ``axis`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it."""
    x = tensor_arg(input, "renorm")
    if x._data.dtype.kind not in "fc":
        raise TypeError(f"op 'renorm': input must be a float tensor, got {x.dtype}")
    if not isinstance(p, (int, float)) or isinstance(p, bool) or p <= 0:
        raise ValueError(f"op 'renorm': p must be a positive number, got {p!r}")
    axis = int(axis) % x.ndim
    others = tuple(i for i in range(x.ndim) if i != axis)
    norm = F.pow(F.sum(F.pow(F.abs(x), float(p)), others, keepdim=True), 1.0 / p)
    scale = F.where(F.greater(norm, const(maxnorm, norm)), F.div(float(maxnorm), F.add(norm, 1e-7)),
                    F.ones_like(norm))
    return F.mul(x, scale)


__all__ = ["matrix_solve", "cholesky_solve", "cholesky_inverse", "lu_solve", "lu_unpack", "lstsq", "matrix_power",
           "cond", "matrix_band_part", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "renorm"]

_METHODS = ("cholesky_solve", "cholesky_inverse", "lu_solve", "lstsq", "matrix_power", "renorm")
for _name in __all__:
    register_function(_name, globals()[_name], method=_name in _METHODS)
del _name
