"""Products with MindSpore 2.10's names: ``mm``, ``mv``, ``addmv``, ``addr``, ``addbmm``, ``batch_dot``,
``inner``, ``ger``, ``kron``, ``cross``, ``einsum``, ``tensor_dot``, ``block_diag``, ``vander``, ``cov``,
``adjoint``.

All but ``einsum`` are compositions of existing ops (gradients come from theirs); ``einsum`` is an op
whose gradient for each operand is another ``einsum`` (so it differentiates again).
"""

import string

import numpy as np

from ..._core.dispatch import call
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, result_dtype, tensor_arg
from ..array.pad_resize import pad
from ... import dtype as _dt
from ._common import const, mT, tensor_of_rank


def _scaled(x, k):
    return x if k == 1 else F.mul(x, k)


def mm(input, mat2):  # noqa: A002 - MindSpore's names
    """The product of two 2-D matrices."""
    a = tensor_of_rank(input, "mm", "input", 2)
    b = tensor_of_rank(mat2, "mm", "mat2", 2)
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"op 'mm': input (n, m) and mat2 (m, p) must share m, got shapes {list(a.shape)} "
                         f"and {list(b.shape)}")
    return F.matmul(a, b)


def mv(mat, vec):
    """The product of a matrix (n, m) and a vector (m,): shape (n,)."""
    a = tensor_of_rank(mat, "mv", "mat", 2)
    v = tensor_of_rank(vec, "mv", "vec", 1)
    if a.shape[1] != v.shape[0]:
        raise ValueError(f"op 'mv': mat (n, m) and vec (m,) must share m, got shapes {list(a.shape)} and "
                         f"{list(v.shape)}")
    return F.reshape(F.matmul(a, F.reshape(v, (-1, 1))), (a.shape[0],))


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (mat @ vec)``."""
    return F.add(_scaled(tensor_arg(input, "addmv"), beta), _scaled(mv(mat, vec), alpha))


def ger(input, vec2):  # noqa: A002
    """The outer product of two 1-D tensors (n,) and (m,): shape (n, m)."""
    a = tensor_of_rank(input, "ger", "input", 1, float_only=True)
    b = tensor_of_rank(vec2, "ger", "vec2", 1, float_only=True)
    return F.mul(F.reshape(a, (-1, 1)), F.reshape(b, (1, -1)))


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``beta * x + alpha * outer(vec1, vec2)``."""
    return F.add(_scaled(tensor_arg(x, "addr"), beta), _scaled(ger(vec1, vec2), alpha))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``."""
    b1 = tensor_of_rank(batch1, "addbmm", "batch1", 3)
    b2 = tensor_of_rank(batch2, "addbmm", "batch2", 3)
    if b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
        raise ValueError(f"op 'addbmm': batch1 (b, n, m) and batch2 (b, m, p) do not match: shapes "
                         f"{list(b1.shape)} and {list(b2.shape)}")
    prod = F.sum(F.matmul(b1, b2), 0)
    return F.add(_scaled(tensor_arg(input, "addbmm"), beta), _scaled(prod, alpha))


def inner(input, other):  # noqa: A002
    """The sum of products over the last axes (a 0-d operand scales the other)."""
    a, b = tensor_arg(input, "inner"), tensor_arg(other, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"op 'inner': the last dimensions must match, got shapes {list(a.shape)} and "
                         f"{list(b.shape)}")
    return tensor_dot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def _axes_pair(axes, a, b, name):
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        k = int(axes)
        if not 0 <= k <= min(a.ndim, b.ndim):
            raise ValueError(f"op '{name}': axes must be in [0, {min(a.ndim, b.ndim)}], got {k}")
        return tuple(range(a.ndim - k, a.ndim)), tuple(range(k))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise TypeError(f"op '{name}': axes must be an int or a pair of axis lists, got {axes!r}")
    xa, xb = ((ax,) if isinstance(ax, int) else tuple(ax) for ax in axes)
    if len(xa) != len(xb):
        raise ValueError(f"op '{name}': the two axis lists must have the same length, got {axes!r}")
    xa = tuple(int(v) % a.ndim for v in xa)
    xb = tuple(int(v) % b.ndim for v in xb)
    for i, j in zip(xa, xb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"op '{name}': contracted axes {i} and {j} differ in size ({a.shape[i]} and "
                             f"{b.shape[j]}) for shapes {list(a.shape)} and {list(b.shape)}")
    return xa, xb


def tensor_dot(x1, x2, axes):
    """The sum of products of ``x1`` and ``x2`` over ``axes``: an int ``k`` (the last ``k`` of ``x1`` with
    the first ``k`` of ``x2``) or a pair of axis lists."""
    a, b = tensor_arg(x1, "tensor_dot"), tensor_arg(x2, "tensor_dot")
    xa, xb = _axes_pair(axes, a, b, "tensor_dot")
    free_a = [i for i in range(a.ndim) if i not in xa]
    free_b = [i for i in range(b.ndim) if i not in xb]
    k = int(np.prod([a.shape[i] for i in xa], dtype=np.int64))
    am = F.reshape(F.transpose(a, tuple(free_a) + xa), (-1, k))
    bm = F.reshape(F.transpose(b, xb + tuple(free_b)), (k, -1))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return F.reshape(F.matmul(am, bm), out_shape)


def batch_dot(x1, x2, axes=None):
    """Per-sample ``tensor_dot`` over axis 0: ``axes`` (an int or a pair of axes) picks the contracted
    axes (default: the last of ``x1`` with the last of ``x2``, or its second to last when 3-D+).
    1-D... are not accepted; the result gets a trailing axis when it would be 1-D."""
    a, b = tensor_arg(x1, "batch_dot"), tensor_arg(x2, "batch_dot")
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"op 'batch_dot': inputs must be at least 2-D, got shapes {list(a.shape)} and "
                         f"{list(b.shape)}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"op 'batch_dot': the batch sizes differ: shapes {list(a.shape)} and {list(b.shape)}")
    if axes is None:
        axes = (a.ndim - 1, b.ndim - 1 if b.ndim == 2 else b.ndim - 2)
    if isinstance(axes, (int, np.integer)):
        axes = (a.ndim - 1 if axes == 0 else int(axes), b.ndim - 1 if axes == 0 else int(axes))
    ia, ib = (int(v) % n for v, n in zip(axes, (a.ndim, b.ndim)))
    if ia == 0 or ib == 0:
        raise ValueError(f"op 'batch_dot': axes must not contract the batch axis 0, got {axes!r}")
    if a.shape[ia] != b.shape[ib]:
        raise ValueError(f"op 'batch_dot': contracted axes differ in size: shapes {list(a.shape)} and "
                         f"{list(b.shape)}, axes {axes!r}")
    letters = iter(string.ascii_letters[1:])
    sa = "a" + "".join(next(letters) for _ in range(a.ndim - 1))
    sb = ["a"] + [next(letters) for _ in range(b.ndim - 1)]
    sb[ib] = sa[ia]
    out = "a" + "".join(c for i, c in enumerate(sa) if i not in (0, ia)) + \
          "".join(c for i, c in enumerate(sb) if i not in (0, ib))
    r = einsum(f"{sa},{''.join(sb)}->{out}", a, b)
    return F.expand_dims(r, -1) if r.ndim == 1 else r


def kron(input, other):  # noqa: A002
    """The Kronecker product (the lower-rank operand gets leading size-1 axes)."""
    a, b = tensor_arg(input, "kron"), tensor_arg(other, "kron")
    n = max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (n - a.ndim) + tuple(a.shape))
    b = F.reshape(b, (1,) * (n - b.ndim) + tuple(b.shape))
    ea = F.reshape(a, tuple(s for d in a.shape for s in (d, 1)))
    eb = F.reshape(b, tuple(s for d in b.shape for s in (1, d)))
    return F.reshape(F.mul(ea, eb), tuple(p * q for p, q in zip(a.shape, b.shape)))


def cross(input, other, dim=None):  # noqa: A002
    """The 3-D cross product along ``dim`` (default: the first axis of size 3)."""
    a, b = tensor_arg(input, "cross"), tensor_arg(other, "cross")
    if tuple(a.shape) != tuple(b.shape):
        shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
        a, b = F.broadcast_to(a, shape), F.broadcast_to(b, shape)
    if dim is None:
        dims = [i for i, s in enumerate(a.shape) if s == 3]
        if not dims:
            raise ValueError(f"op 'cross': no axis of size 3 in shape {list(a.shape)}")
        dim = dims[0]
    dim = int(dim) % max(a.ndim, 1)
    if a.shape[dim] != 3:
        raise ValueError(f"op 'cross': axis {dim} must have size 3, got shape {list(a.shape)}")

    def part(t, i):
        idx = [slice(None)] * t.ndim
        idx[dim] = slice(i, i + 1)
        return t[tuple(idx)]
    a0, a1, a2 = (part(a, i) for i in range(3))
    b0, b1, b2 = (part(b, i) for i in range(3))
    return F.concat((F.sub(F.mul(a1, b2), F.mul(a2, b1)), F.sub(F.mul(a2, b0), F.mul(a0, b2)),
                     F.sub(F.mul(a0, b1), F.mul(a1, b0))), dim)


# ================================================================== einsum
def _parse_einsum(equation, shapes):
    """The equation with '...' replaced by explicit letters and the output made explicit."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"op 'einsum': the equation {equation!r} names {len(terms)} operands, got {len(shapes)}")
    used = set(c for c in eq if c.isalpha())
    spare = [c for c in string.ascii_letters if c not in used]
    ell = max((len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes) if "..." in t), default=0)
    ell_letters = "".join(spare[:ell])
    out_terms = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            n = len(s) - len(t.replace("...", ""))
            t = t.replace("...", ell_letters[ell - n:] if n else "")
        if len(t) != len(s) or not all(c.isalpha() for c in t):
            raise ValueError(f"op 'einsum': subscripts {t!r} do not fit an operand of shape {list(s)}")
        out_terms.append(t)
    if arrow:
        out = rhs.replace("...", ell_letters)
    else:
        counts = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell_letters + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell_letters))
    return out_terms, out


def _einsum_compute(attrs, ins):
    out = np.einsum(attrs["equation"], *ins, optimize=len(ins) > 2)
    return np.array(out, dtype=result_dtype([a.dtype for a in ins]), order="C")


def _einsum_shape(attrs, shapes):
    terms, out = attrs["terms"], attrs["out"]
    sizes = {}
    for t, s in zip(terms, shapes):
        for c, n in zip(t, s):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"op 'einsum': subscript {c!r} has sizes {sizes[c]} and {n} in "
                                 f"{attrs['equation']!r} (shapes {[list(x) for x in shapes]})")
    return shapes, [[sizes[c] for c in out]]


def _einsum_type(attrs, dtypes):
    out = result_dtype([d.np_dtype for d in dtypes])
    return dtypes, [_dt.from_numpy(out)]


def _einsum_grad(ins, outs, g, attrs):
    terms, out = attrs["terms"], attrs["out"]
    sizes = {c: n for t, x in zip(terms, ins) for c, n in zip(t, x.shape)}
    grads = []
    for i, (t, x) in enumerate(zip(terms, ins)):
        if x._data.dtype.kind not in "fc":
            grads.append(None)
            continue
        spare = iter(c for c in string.ascii_letters if c not in sizes)
        operands, subs = [g[0]], [out]
        for j, (tj, xj) in enumerate(zip(terms, ins)):
            if j != i:
                operands.append(xj)
                subs.append(tj)
        target, seen = [], set()
        for c in t:
            if c in seen:                   # a repeated subscript (a diagonal): a fresh letter tied by eye
                fresh = next(spare)
                operands.append(const(np.eye(sizes[c], dtype=x._data.dtype)))
                subs.append(c + fresh)
                target.append(fresh)
            else:
                seen.add(c)
                target.append(c)
        present = set("".join(subs))
        for c in seen - present:            # summed over in this operand only: the gradient is constant along it
            operands.append(const(np.ones(sizes[c], x._data.dtype)))
            subs.append(c)
        eq = ",".join(subs) + "->" + "".join(target)
        grads.append(F.cast(_einsum_call(eq, operands), x.dtype))
    return grads


_EINSUM = defop("einsum", None, _einsum_compute, _einsum_shape, _einsum_type, _einsum_grad,
                doc="Einstein summation over the operands' subscripts")


def _einsum_call(equation, operands):
    terms, out = _parse_einsum(equation, [tuple(o.shape) for o in operands])
    explicit = ",".join(terms) + "->" + out
    return call(_EINSUM, tuple(operands), {"equation": explicit, "terms": tuple(terms), "out": out})


def einsum(equation, *operands):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; ``...`` stands for broadcast axes
    and an equation without ``->`` sums the repeated subscripts (the output's are sorted)."""
    if not isinstance(equation, str):
        raise TypeError(f"op 'einsum': equation must be a str, got {equation!r}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ts = [tensor_arg(o, "einsum") for o in operands]
    return _einsum_call(equation, ts)


# ================================================================== block_diag / vander / cov / adjoint
def block_diag(*inputs):
    """A block-diagonal matrix of the inputs (0-D and 1-D ones count as rows)."""
    mats = []
    for t in inputs:
        t = tensor_arg(t, "block_diag")
        if t.ndim > 2:
            raise ValueError(f"op 'block_diag': inputs must be at most 2-D, got shape {list(t.shape)}")
        mats.append(F.reshape(t, (1, -1) if t.ndim < 2 else tuple(t.shape)) if t.ndim < 2 else t)
    if not mats:
        raise ValueError("op 'block_diag': expected at least one input")
    dtype = _dt.from_numpy(result_dtype([m._data.dtype for m in mats]))
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        m = F.cast(m, dtype) if m.dtype != dtype else m
        rows.append(pad(m, (left, width - left - m.shape[1])))
        left += m.shape[1]
    return F.concat(rows, 0)


def vander(x, N=None):  # noqa: N803 - MindSpore's name
    """The Vandermonde matrix of the 1-D ``x``: columns ``x^(N-1), ..., x^1, x^0`` (``N`` defaults to len(x))."""
    v = tensor_of_rank(x, "vander", "x", 1)
    if N is None:
        N = v.shape[0]
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 0:
        raise ValueError(f"op 'vander': N must be a non-negative int, got {N!r}")
    powers = np.arange(N - 1, -1, -1)
    if v._data.dtype.kind in "iu":
        v = F.cast(v, "int64")                  # MindSpore's integer Vandermonde matrix is int64
        return F.pow(F.reshape(v, (-1, 1)), const(powers.astype(np.int64)))
    # x^0 is 1 even for x == 0: build the columns by repeated products
    ones = F.ones_like(F.reshape(v, (-1, 1)))
    cols = [ones]
    for _ in range(N - 1):
        cols.append(F.mul(cols[-1], F.reshape(v, (-1, 1))))
    return F.concat(cols[::-1], 1) if N else F.reshape(ones, (-1, 1))[:, :0]


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """The covariance of the rows of ``input`` (variables) over its columns (observations), with
    frequency weights ``fweights`` (ints) and observation weights ``aweights``."""
    x = tensor_arg(input, "cov")
    if x.ndim > 2:
        raise ValueError(f"op 'cov': input must be at most 2-D, got shape {list(x.shape)}")
    if x.ndim < 2:
        x = F.reshape(x, (1, -1))
    if x._data.dtype.kind not in "fc":
        x = F.cast(x, "float32")
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = F.cast(tensor_arg(fweights, "cov"), x.dtype)
    if aweights is not None:
        aw = F.cast(tensor_arg(aweights, "cov"), x.dtype)
        w = aw if w is None else F.mul(w, aw)
    if w is None:
        wsum = const(float(n), x)
        mean = F.mean(x, 1, True)
        xc = F.sub(x, mean)
        norm = F.sub(wsum, float(correction))
        prod = F.matmul(xc, mT(xc))
    else:
        wsum = F.sum(w)
        mean = F.div(F.sum(F.mul(x, w), 1, keepdims=True), wsum)
        xc = F.sub(x, mean)
        if correction == 0:
            norm = wsum
        elif aweights is None:
            norm = F.sub(wsum, float(correction))
        else:
            aw = F.cast(tensor_arg(aweights, "cov"), x.dtype)
            norm = F.sub(wsum, F.mul(F.div(F.sum(F.mul(w, aw)), wsum), float(correction)))
        prod = F.matmul(F.mul(xc, w), mT(xc))
    norm = F.maximum(norm, const(0, norm))
    out = F.div(prod, norm)
    return F.reshape(out, ()) if tensor_arg(input, "cov").ndim < 2 or out.shape == (1, 1) and x.shape[0] == 1 \
        else out


def adjoint(x):
    """The conjugate transpose of the last two axes."""
    t = tensor_of_rank(x, "adjoint", "x", min_rank=2)
    out = mT(t)
    if t._data.dtype.kind == "c":
        out = Tensor._wrap(np.array(np.conj(out._data), order="C"))
    return out


__all__ = ["mm", "mv", "addmv", "addr", "addbmm", "batch_dot", "inner", "ger", "kron", "cross", "einsum",
           "tensor_dot", "block_diag", "vander", "cov", "adjoint"]

def tensor_addmv(input, mat, vec, beta=1, alpha=1):  # noqa: A002
    """``Tensor.addmv``: ``beta`` and ``alpha`` may also be given by position."""
    return addmv(input, mat, vec, beta=beta, alpha=alpha)


def tensor_addr(x, vec1, vec2, beta=1, alpha=1):
    """``Tensor.addr``: ``beta`` and ``alpha`` may also be given by position."""
    return addr(x, vec1, vec2, beta=beta, alpha=alpha)


_METHODS = ("mm", "addbmm", "inner", "ger", "cross", "cov", "adjoint")
for _name in __all__:
    register_function(_name, globals()[_name], method=_name in _METHODS)
register_function("tensor_addmv", tensor_addmv, method="addmv")
register_function("tensor_addr", tensor_addr, method="addr")
del _name
