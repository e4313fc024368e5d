"""Determinants, inverses and decompositions with MindSpore 2.10's names: ``det``/``matrix_determinant``,
``slogdet``/``log_matrix_determinant``, ``logdet``, ``inverse``, ``cholesky``, ``qr``, ``svd``, ``eig``,
``eigvals``, ``pinv``, ``geqrf``, ``orgqr``.

Each decomposition is an op (``defop``) on NumPy's LAPACK routines, batched over leading axes, with the
standard adjoint formula as its gradient (real inputs; ``eig``/``geqrf``/``orgqr`` have none). ``pinv``
is composed from ``svd``, so its gradient comes from ``svd``'s.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.dispatch import call
from ..._core.registry import register_function
from ... import dtype as _dt
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, same_type, tensor_arg
from ._common import const, mT, square_matrices, tensor_of_rank

_wrap = Tensor._wrap


def _c(a, dtype):
    return np.array(a, dtype, order="C")         # (ascontiguousarray would make 0-d results 1-d)


def _square_shape(name):
    def infer(attrs, shapes):
        s = shapes[0]
        if len(s) < 2 or s[-1] != s[-2]:
            raise ValueError(f"op '{name}': input must be square matrices (..., n, n), got shape {list(s)}")
        return shapes, [list(s[:-2])]
    return infer


def _float_in(name, complex_ok=True):
    def infer(attrs, dtypes):
        d = dtypes[0]
        if not (_dt.is_floating(d) or (complex_ok and d.np_dtype.kind == "c")):
            raise TypeError(f"op '{name}': input must be a float or complex tensor, got {d.name}")
        return dtypes, [d]
    return infer


def _inv_t(x):
    """inverse(x)^T as an op expression (differentiable)."""
    return mT(inverse(x))


# ================================================================== det / slogdet / logdet
def _det_grad(ins, outs, g, a):
    scale = F.expand_dims(F.expand_dims(F.mul(g[0], outs[0]), -1), -1)
    return [F.mul(scale, _inv_t(ins[0]))]


_DET = defop("matrix_determinant", 1, lambda a, i: _c(np.linalg.det(i[0]), i[0].dtype), _square_shape("det"),
             _float_in("det"), _det_grad, doc="the determinant of each square matrix", arg_names=("input",))


def det(input):  # noqa: A002 - MindSpore's names
    """The determinant of each matrix of ``input`` (..., n, n)."""
    return call(_DET, (square_matrices(input, "det"),), {})


def matrix_determinant(input):  # noqa: A002
    """``det`` under its older name."""
    return det(input)


def _slogdet_compute(a, ins):
    sign, logabs = np.linalg.slogdet(ins[0])
    return _c(sign, ins[0].dtype), _c(logabs, np.abs(ins[0]).dtype)


def _slogdet_grad(ins, outs, g, a):
    if g[1] is None:
        return [None]
    return [F.mul(F.expand_dims(F.expand_dims(g[1], -1), -1), _inv_t(ins[0]))]


_SLOGDET = defop("log_matrix_determinant", 1, _slogdet_compute,
                 lambda a, s: (s, [list(_square_shape("slogdet")(a, s)[1][0])] * 2),
                 lambda a, d: (d, [d[0], d[0]]), _slogdet_grad, num_outputs=2,
                 doc="the sign and the log of the absolute determinant of each square matrix", arg_names=("input",))


def slogdet(input):  # noqa: A002
    """``(sign, log|det|)`` of each matrix of ``input`` (..., n, n); the log's gradient is ``inverse^T``."""
    return tuple(call(_SLOGDET, (square_matrices(input, "slogdet"),), {}))


def log_matrix_determinant(input):  # noqa: A002
    """``slogdet`` under its older name."""
    return slogdet(input)


def logdet(input):  # noqa: A002
    """``log(det(input))``: NaN where the determinant is negative, -inf where it is 0."""
    sign, logabs = slogdet(input)
    return F.add(logabs, F.log(sign))


# ================================================================== inverse
def _inverse_grad(ins, outs, g, a):
    yt = mT(outs[0])
    return [F.neg(F.matmul(F.matmul(yt, g[0]), yt))]


def _inverse_compute(a, ins):
    with np.errstate(all="ignore"):
        try:
            return _c(np.linalg.inv(ins[0]), ins[0].dtype)
        except np.linalg.LinAlgError:
            raise ValueError("op 'inverse': the matrix is singular") from None


_INVERSE = defop("matrix_inverse", 1, _inverse_compute, lambda a, s: (s, [list(s[0])]), _float_in("inverse"),
                 _inverse_grad, doc="the inverse of each square matrix", arg_names=("input",))


def inverse(input):  # noqa: A002
    """The inverse of each matrix of ``input`` (..., n, n)."""
    return call(_INVERSE, (square_matrices(input, "inverse"),), {})


# ================================================================== cholesky
def _phi(x):
    """The lower triangle with the diagonal halved."""
    n = x.shape[-1]
    mask = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return F.mul(x, const(mask, x))


def _cholesky_grad(ins, outs, g, a):
    L, gl = outs[0], g[0]
    if a["upper"]:                      # U = L^T
        L, gl = mT(L), mT(gl)
    linv = inverse(L)
    s = F.matmul(F.matmul(mT(linv), _phi(F.matmul(mT(L), gl))), linv)
    return [F.mul(F.add(s, mT(s)), 0.5)]


def _cholesky_compute(a, ins):
    try:
        L = np.linalg.cholesky(ins[0])
    except np.linalg.LinAlgError:
        raise ValueError("op 'cholesky': the matrix is not symmetric positive definite") from None
    return _c(np.swapaxes(L, -1, -2) if a["upper"] else L, ins[0].dtype)


_CHOLESKY = defop("cholesky", 1, _cholesky_compute, lambda a, s: (s, [list(s[0])]), _float_in("cholesky", False),
                  _cholesky_grad, doc="the Cholesky factor of each symmetric positive definite matrix",
                  arg_names=("input_x",))


def cholesky(input_x, upper=False):
    """The Cholesky factor ``L`` (``A = L L^T``; ``U`` with ``A = U^T U`` when ``upper``) of each
    symmetric positive definite matrix (only the lower triangle of ``input_x`` is read)."""
    if not isinstance(upper, bool):
        raise TypeError(f"op 'cholesky': upper must be a bool, got {upper!r}")
    return call(_CHOLESKY, (square_matrices(input_x, "cholesky"),), {"upper": upper})


# ================================================================== qr
def _qr_compute(a, ins):
    q, r = np.linalg.qr(ins[0], mode=a["mode"])
    return _c(q, ins[0].dtype), _c(r, ins[0].dtype)


def _qr_shape(a, shapes):
    s = list(shapes[0])
    m, n = s[-2:]
    k = min(m, n)
    qc, rr = (m, m) if a["mode"] == "complete" else (k, k)
    return shapes, [s[:-2] + [m, qc], s[:-2] + [rr, n]]


def _copyltu(m):
    """tril(m) + tril(m, -1)^T."""
    n = m.shape[-1]
    lower = F.mul(m, const(np.tril(np.ones((n, n))), m))
    strict = F.mul(m, const(np.tril(np.ones((n, n)), -1), m))
    return F.add(lower, mT(strict))


def _qr_grad(ins, outs, g, a):
    x = ins[0]
    m, n = x.shape[-2:]
    if a["mode"] == "complete" and m > n or m < n:
        raise ValueError(f"op 'qr': the gradient needs mode 'reduced' with rows >= columns, got shape "
                         f"{list(x.shape)} and mode {a['mode']!r}")
    q, r = outs
    gq = g[0] if g[0] is not None else F.zeros_like(q)
    gr = g[1] if g[1] is not None else F.zeros_like(r)
    mm = F.sub(F.matmul(r, mT(gr)), F.matmul(mT(gq), q))
    b = F.add(gq, F.matmul(q, _copyltu(mm)))
    return [mT(solve_triangular_upper(r, mT(b)))]       # b R^{-T}


def solve_triangular_upper(r, b):
    """``R^{-1} b`` for upper triangular ``R`` (differentiable)."""
    from ._solve import matrix_solve
    return matrix_solve(r, b)


_QR = defop("qr", 1, _qr_compute, _qr_shape, lambda a, d: (d, [d[0], d[0]]), _qr_grad, num_outputs=2,
            doc="the QR decomposition of each matrix", arg_names=("input",))


def qr(input, mode="reduced"):  # noqa: A002
    """``(Q, R)`` with ``input = Q R``, ``Q`` orthonormal columns and ``R`` upper triangular; ``mode``
    ``'reduced'`` (k = min(m, n) columns) or ``'complete'`` (``Q`` square)."""
    x = tensor_of_rank(input, "qr", "input", min_rank=2, float_only=True)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"op 'qr': mode must be 'reduced' or 'complete', got {mode!r}")
    return tuple(call(_QR, (x,), {"mode": mode}))


def tensor_qr(input, some=True):  # noqa: A002
    """``Tensor.qr(some=True)``: ``some`` picks the reduced decomposition."""
    return qr(input, "reduced" if some else "complete")


# ================================================================== svd
def _svd_compute(a, ins):
    x = ins[0]
    u, s, vh = np.linalg.svd(x, full_matrices=a["full_matrices"])
    return _c(s, np.abs(x).dtype), _c(u, x.dtype), _c(np.conj(np.swapaxes(vh, -1, -2)), x.dtype)


def _svd_shape(a, shapes):
    s = list(shapes[0])
    m, n = s[-2:]
    k = min(m, n)
    uc, vc = (m, n) if a["full_matrices"] else (k, k)
    return shapes, [s[:-2] + [k], s[:-2] + [m, uc], s[:-2] + [n, vc]]


def _svdvals_shape(a, shapes):
    s = list(shapes[0])
    return shapes, [s[:-2] + [min(s[-2:])]]


def _svd_type(a, dtypes):
    d = dtypes[0]
    if not (_dt.is_floating(d) or d.np_dtype.kind == "c"):
        raise TypeError(f"op 'svd': input must be a float or complex tensor, got {d.name}")
    return dtypes, [d] * 3


def _svd_grad_compute(a, ins):
    x, s, u, v, gs, gu, gv = ins
    m, n = x.shape[-2:]
    k = s.shape[-1]
    u, v = u[..., :, :k], v[..., :, :k]
    gu, gv = gu[..., :, :k], gv[..., :, :k]
    t = lambda z: np.swapaxes(z, -1, -2)   # noqa: E731
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2          # F_ij = 1 / (s_j^2 - s_i^2)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(np.eye(k, dtype=bool), 0, 1 / np.where(s2 == 0, np.inf, s2))
    utgu, vtgv = t(u) @ gu, t(v) @ gv
    inner = (f * (utgu - t(utgu))) * s[..., None, :] + s[..., :, None] * (f * (vtgv - t(vtgv)))
    inner = inner + gs[..., :, None] * np.eye(k)
    out = u @ inner @ t(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        sinv = np.where(s == 0, 0, 1 / s)
    if m > k:
        out = out + (gu - u @ utgu) * sinv[..., None, :] @ t(v)
    if n > k:
        out = out + (u * sinv[..., None, :]) @ t(gv - v @ vtgv)
    return _c(out, x.dtype)


_SVD_GRAD = defop("svd_grad", 7, _svd_grad_compute, lambda a, s: (s, [list(s[0])]), same_type, None,
                  doc="the gradient of the reduced SVD (distinct singular values)",
                  arg_names=("x", "s", "u", "v", "ds", "du", "dv"))


def _svd_grad(ins, outs, g, a):
    x = ins[0]
    if a["full_matrices"] and x.shape[-1] != x.shape[-2]:
        raise ValueError("op 'svd': the gradient needs full_matrices=False for non-square inputs")
    s, u, v = outs
    gs, gu, gv = (gi if gi is not None else F.zeros_like(o) for gi, o in zip(g, outs))
    return [call(_SVD_GRAD, (x, s, u, v, gs, gu, gv), {})]


_SVD = defop("svd", 1, _svd_compute, _svd_shape, _svd_type, _svd_grad, num_outputs=3,
             doc="the singular value decomposition of each matrix", arg_names=("input",))


def _svdvals_grad(ins, outs, g, a):
    _, u, v = svd(ins[0])
    return [F.matmul(F.mul(u, F.expand_dims(g[0], -2)), mT(v))]


_SVDVALS = defop("svdvals", 1, lambda a, i: _c(np.linalg.svd(i[0], compute_uv=False), np.abs(i[0]).dtype),
                 _svdvals_shape, lambda a, d: (_svd_type(a, d)[0], [d[0]]), _svdvals_grad,
                 doc="the singular values of each matrix", arg_names=("input",))


def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002
    """``(S, U, V)`` with ``input = U diag(S) V^H`` (singular values descending); only ``S`` when
    ``compute_uv`` is False. ``full_matrices`` makes ``U`` and ``V`` square."""
    x = tensor_of_rank(input, "svd", "input", min_rank=2, float_only=True)
    if not compute_uv:
        return call(_SVDVALS, (x,), {})
    return tuple(call(_SVD, (x,), {"full_matrices": bool(full_matrices)}))


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse: singular values at or below ``max(atol, rtol * s_max)``
    count as 0 (``rtol`` defaults to ``eps * max(m, n)`` when neither is given)."""
    a = tensor_of_rank(x, "pinv", "x", min_rank=2, float_only=True)
    s, u, v = svd(a)
    m, n = a.shape[-2:]
    sv = s.asnumpy()                 # the cutoff is chosen from the values: a graph capture runs this eagerly
    smax = np.max(sv, axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    if atol is None and rtol is None:
        rtol_v = np.finfo(a._data.dtype).eps * max(m, n)
        cutoff = rtol_v * smax
    else:
        at = 0.0 if atol is None else (_capture.read_values(atol) if isinstance(atol, Tensor) else atol)
        rt = 0.0 if rtol is None else (_capture.read_values(rtol) if isinstance(rtol, Tensor) else rtol)
        cutoff = np.maximum(np.asarray(at)[..., None] if np.ndim(at) else at, np.asarray(rt) * smax)
    keep = const(sv > cutoff)
    safe = F.where(keep, s, F.ones_like(s))
    sinv = F.where(keep, F.div(F.ones_like(s), safe), F.zeros_like(s))
    return F.matmul(F.mul(v, F.expand_dims(sinv, -2)), mT(u))


# ================================================================== eig
def _ctype(x):
    return np.complex128 if x.dtype in (np.float64, np.complex128) else np.complex64


def _eig_compute(a, ins):
    w, v = np.linalg.eig(ins[0])
    return _c(w, _ctype(ins[0])), _c(v, _ctype(ins[0]))


def _eig_type(a, dtypes):
    d = dtypes[0]
    if not (_dt.is_floating(d) or d.np_dtype.kind == "c"):
        raise TypeError(f"op 'eig': input must be a float or complex tensor, got {d.name}")
    c = _dt.complex128 if d.np_dtype in (np.float64, np.complex128) else _dt.complex64
    return dtypes, [c] * (2 if a.get("vectors", True) else 1)


def _eig_shape(a, shapes):
    s = list(shapes[0])
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"op 'eig': input must be square matrices (..., n, n), got shape {s}")
    return shapes, [s[:-1]] + ([s] if a.get("vectors", True) else [])


_EIG = defop("eig", 1, _eig_compute, _eig_shape, _eig_type, None, num_outputs=2,
             doc="the eigenvalues and right eigenvectors of each square matrix", arg_names=("A",))
_EIGVALS = defop("eigvals", 1, lambda a, i: _c(np.linalg.eigvals(i[0]), _ctype(i[0])), _eig_shape, _eig_type,
                 None, doc="the eigenvalues of each square matrix", arg_names=("A",))


def eig(A):  # noqa: N803 - MindSpore's name
    """``(eigenvalues, eigenvectors)`` of each square matrix, complex (unit-norm eigenvector columns;
    their order is LAPACK's)."""
    return tuple(call(_EIG, (square_matrices(A, "eig", "A"),), {}))


def eigvals(A):  # noqa: N803
    """The (complex) eigenvalues of each square matrix."""
    return call(_EIGVALS, (square_matrices(A, "eigvals", "A"),), {"vectors": False})


# ================================================================== geqrf / orgqr (Householder form)
def _geqrf_compute(a, ins):
    x = ins[0]
    batch = x.shape[:-2]
    m, n = x.shape[-2:]
    flat = x.reshape((-1, m, n))
    ys, taus = [], []
    for mat in flat:
        h, tau = np.linalg.qr(mat.astype(np.float64 if x.dtype.kind == "f" else np.complex128), mode="raw")
        ys.append(h.T)
        taus.append(tau)
    y = np.stack(ys).reshape(x.shape) if flat.shape[0] else np.zeros(x.shape)
    tau = np.stack(taus).reshape(batch + (min(m, n),)) if flat.shape[0] else np.zeros(batch + (min(m, n),))
    return _c(y, x.dtype), _c(tau, x.dtype)


_GEQRF = defop("geqrf", 1, _geqrf_compute, lambda a, s: (s, [list(s[0]), list(s[0][:-2]) + [min(s[0][-2:])]]),
               lambda a, d: (d, [d[0], d[0]]), None, num_outputs=2,
               doc="the QR decomposition in LAPACK's Householder form", arg_names=("input",))


def geqrf(input):  # noqa: A002
    """``(y, tau)``: ``R`` in ``y``'s upper triangle, the Householder vectors below it (LAPACK's geqrf)."""
    x = tensor_of_rank(input, "geqrf", "input", min_rank=2, float_only=True)
    return tuple(call(_GEQRF, (x,), {}))


def _orgqr_compute(a, ins):
    x, tau = ins
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    flat_x, flat_t = x.reshape((-1, m, n)), tau.reshape((-1, k))
    out = []
    for mat, ts in zip(flat_x, flat_t):
        q = np.eye(m, n, dtype=np.result_type(mat, np.float64))
        for i in range(k - 1, -1, -1):
            v = np.concatenate([np.zeros(i), [1.0], mat[i + 1:, i]])
            q = q - ts[i] * np.outer(v, np.conj(v) @ q)
        out.append(q)
    res = np.stack(out).reshape(x.shape) if out else np.zeros(x.shape)
    return _c(res, x.dtype)


def _orgqr_shape(a, shapes):
    x, t = shapes
    if len(x) < 2 or x[-2] < x[-1] or len(t) != len(x) - 1 or t[-1] > x[-1] or list(t[:-1]) != list(x[:-2]):
        raise ValueError(f"op 'orgqr': input (..., m, n) with m >= n and input2 (..., k) with k <= n expected, "
                         f"got shapes {list(x)} and {list(t)}")
    return shapes, [list(x)]


_ORGQR = defop("orgqr", 2, _orgqr_compute, _orgqr_shape, same_type, None,
               doc="the first n columns of the product of Householder reflectors", arg_names=("input", "input2"))


def orgqr(input, input2):  # noqa: A002
    """The orthonormal ``Q`` (its first n columns) from ``geqrf``'s reflectors ``input`` and ``tau``."""
    x = tensor_of_rank(input, "orgqr", "input", min_rank=2, float_only=True)
    return call(_ORGQR, (x, tensor_arg(input2, "orgqr")), {})


__all__ = ["det", "matrix_determinant", "slogdet", "log_matrix_determinant", "logdet", "inverse", "cholesky",
           "qr", "svd", "pinv", "eig", "eigvals", "geqrf", "orgqr"]

_METHODS = ("det", "matrix_determinant", "slogdet", "log_matrix_determinant", "logdet", "inverse", "cholesky",
            "svd", "eigvals", "geqrf", "orgqr")
for _name in __all__:
    register_function(_name, globals()[_name], method=_name in _METHODS)
register_function("tensor_qr", tensor_qr, method="qr")
del _name
