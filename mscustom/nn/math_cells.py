"""Math Cells with MindSpore's names: ``DiGamma``, ``LGamma``, ``IGamma``, ``LBeta`` (special functions) and the
sparse helpers ``SparseToDense`` and ``SparseTensorDenseMatmul``.

Example::

    nn.LBeta()(x, y)                 # log(|Beta(x, y)|) = lgamma(x) + lgamma(y) - lgamma(x + y)
"""

import numpy as np

from .. import dtype as _dt
from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .cell import Cell

__all__ = ["DiGamma", "LGamma", "IGamma", "LBeta", "SparseToDense", "SparseTensorDenseMatmul"]


def _float(x, what, name):
    if not isinstance(x, Tensor) or x._data.dtype.kind != "f":
        raise TypeError(f"{name}: {what} must be a float Tensor, got {getattr(x, 'dtype', type(x).__name__)}")
    return x


class DiGamma(Cell):
    """The digamma function ``d/dx log(Gamma(x))``, elementwise."""

    def construct(self, x):
        return ops.digamma(_float(x, "x", "DiGamma"))


class LGamma(Cell):
    """``log(|Gamma(x)|)``, elementwise."""

    def construct(self, x):
        return ops.lgamma(_float(x, "x", "LGamma"))


class IGamma(Cell):
    """The regularized lower incomplete gamma function ``P(a, x)`` (``a`` and ``x`` broadcast)."""

    def construct(self, a, x):
        a, x = _float(a, "a", "IGamma"), _float(x, "x", "IGamma")
        if a.dtype != x.dtype:
            raise TypeError(f"IGamma: a and x must have the same dtype, got {a.dtype.name} and {x.dtype.name}")
        return ops.igamma(a, x)


class LBeta(Cell):
    """``log(|Beta(x, y)|) = lgamma(x) + lgamma(y) - lgamma(x + y)``, computed in float64 (no cancellation
    for large arguments) and returned in the inputs' dtype."""

    def construct(self, x, y):
        x, y = _float(x, "x", "LBeta"), _float(y, "y", "LBeta")
        if x.dtype != y.dtype:
            raise TypeError(f"LBeta: x and y must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
        a, b = ops.cast(x, _dt.float64), ops.cast(y, _dt.float64)
        out = ops.sub(ops.add(ops.lgamma(a), ops.lgamma(b)), ops.lgamma(ops.add(a, b)))
        return ops.cast(out, x.dtype)


class SparseToDense(Cell):
    """The dense Tensor of a ``COOTensor`` (zeros where no index is given)."""

    def construct(self, sparse_tensor):
        if not hasattr(sparse_tensor, "to_dense") or not hasattr(sparse_tensor, "indices"):
            raise TypeError(f"SparseToDense: the input must be a COOTensor, got {type(sparse_tensor).__name__}")
        return sparse_tensor.to_dense()


class SparseTensorDenseMatmul(Cell):
    """``op(S) @ op(dense)`` for the sparse ``S`` given by ``indices`` (nnz, 2), ``values`` (nnz,) and
    ``sparse_shape``; ``adjoint_st`` / ``adjoint_dt`` transpose the sparse / dense operand first.
    Repeated indices add up."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        for what, v in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(v, bool):
                raise TypeError(f"SparseTensorDenseMatmul: {what} must be a bool, got {v!r}")
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def construct(self, indices, values, sparse_shape, dense):
        name = "SparseTensorDenseMatmul"
        if not isinstance(indices, Tensor) or indices.ndim != 2 or indices.shape[1] != 2 or \
                indices._data.dtype.kind not in "iu":
            raise ValueError(f"{name}: indices must be an int Tensor of shape (nnz, 2)")
        if not isinstance(values, Tensor) or values.shape != (indices.shape[0],):
            raise ValueError(f"{name}: values must be a Tensor of shape ({indices.shape[0]},)")
        shape = tuple(int(v) for v in (sparse_shape._data if isinstance(sparse_shape, Tensor) else sparse_shape))
        if len(shape) != 2:
            raise ValueError(f"{name}: sparse_shape must have 2 entries, got {shape}")
        dt = values._data.dtype

        def maps(ind):
            # one-hot P^T (rows, nnz) and Q (nnz, cols): dense S = P^T diag(values) Q (redone at every replay)
            idx = ind.astype(np.int64)
            if idx.size and ((idx < 0).any() or (idx[:, 0] >= shape[0]).any() or (idx[:, 1] >= shape[1]).any()):
                raise ValueError(f"{name}: indices out of range for sparse_shape {shape}")
            return np.eye(shape[0], dtype=dt)[idx[:, 0]].T.copy(), np.eye(shape[1], dtype=dt)[idx[:, 1]]
        rows, cols = _capture.host_op(maps, (indices,), Tensor._wrap)
        s = ops.matmul(ops.mul(rows, ops.reshape(values, (1, -1))), cols)
        if self.adjoint_st:
            s = ops.transpose(s, (1, 0))
        d = ops.transpose(dense, (1, 0)) if self.adjoint_dt else dense
        return ops.matmul(s, ops.cast(d, s.dtype))
