"""What the COO and CSR functions share: argument checks, constant index tensors, the element-wise
functions applied to the stored values (zero stays zero under all of them), scatter-add into rows."""

import numpy as np

from .tensors import COOTensor, CSRTensor
from ...tensor import Tensor
from .. import functional as F


def const(array):
    """A constant Tensor (indices, masks) from a NumPy array."""
    return Tensor._wrap(np.ascontiguousarray(array))


def coo_arg(x, name):
    if not isinstance(x, COOTensor):
        raise TypeError(f"op '{name}': input must be a COOTensor, got {type(x).__name__}")
    return x


def csr_arg(x, name):
    if not isinstance(x, CSRTensor):
        raise TypeError(f"op '{name}': input must be a CSRTensor, got {type(x).__name__}")
    return x


def two_d(x, name):
    if len(x.shape) != 2:
        raise ValueError(f"op '{name}': only 2-D sparse tensors are supported, got shape {x.shape}")


def csr_rows(csr):
    """The row of each stored value of a CSRTensor (NumPy, the indptr's dtype)."""
    indptr = csr.indptr.asnumpy()
    return np.repeat(np.arange(len(indptr) - 1, dtype=indptr.dtype), np.diff(indptr))


def csr_coords(csr):
    """The ``(nnz, 2)`` row/column pairs of a CSRTensor (NumPy)."""
    cols = csr.indices.asnumpy()
    return np.stack([csr_rows(csr).astype(cols.dtype, copy=False), cols], axis=1)


def scalar(value, name, what):
    """A Python number from a number or a one-element Tensor."""
    if isinstance(value, Tensor):
        data = value.asnumpy()
        if data.size != 1:
            raise ValueError(f"op '{name}': {what} must hold one value, got shape {tuple(data.shape)}")
        return data.reshape(()).item()
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return value
    raise TypeError(f"op '{name}': {what} must be a Tensor or a number, got {type(value).__name__}")


def row_sum(rows, values, n_rows):
    """``out[r] = sum of values[i] with rows[i] == r`` (differentiable in ``values``)."""
    from .._ms_names_ops import scatter_nd
    shape = (n_rows,) + tuple(values.shape[1:])
    return scatter_nd(const(np.asarray(rows).reshape(-1, 1).astype(np.int64)), values, shape)


# ------------------------------------------------------------------ element-wise maps of the values
def _ops():
    from ... import ops
    return ops


def _op(name):
    """The public op ``name`` when ops has it, else None (then a composition below is used)."""
    return getattr(_ops(), name, None)


def _exp(x):
    return F.exp(x)


_COMPOSED = {
    "acos": lambda x: _ops().atan2(F.sqrt((1 - x) * (1 + x)), x),
    "asin": lambda x: _ops().atan2(x, F.sqrt((1 - x) * (1 + x))),
    "atan": lambda x: _ops().atan2(x, F.ones_like(x)),
    "acosh": lambda x: F.log(x + F.sqrt((x - 1) * (x + 1))),
    "asinh": lambda x: F.sign(x) * F.log(F.abs(x) + F.sqrt(x * x + 1)),
    "atanh": lambda x: 0.5 * (_ops().log1p(x) - _ops().log1p(-x)),
    "cosh": lambda x: 0.5 * (_exp(x) + _exp(-x)),
    "sinh": lambda x: 0.5 * (_ops().expm1(x) - _ops().expm1(-x)),
    "inv": lambda x: _ops().reciprocal(x),
    "isfinite": lambda x: const(np.isfinite(x.asnumpy())),
    "softsign": lambda x: x / (1 + F.abs(x)),
}


def value_map(name):
    """The element-wise function ``name`` (``ops.<name>`` or its composition from ops)."""
    fn = _op(name)
    if fn is None:
        fn = _COMPOSED[name]
    return fn


UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1", "floor",
         "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round", "sigmoid", "sin",
         "sinh", "softsign", "sqrt", "square", "tan", "tanh")
