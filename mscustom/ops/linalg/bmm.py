"""``ops.bmm`` and ``ops.baddbmm`` (and the Tensor methods of those names): MindSpore's batched products.

``bmm(input_x, mat2)``: ``(*B, N, C) @ (*B, C, M) -> (*B, N, M)``; both of rank
2 or more, the same batch dimensions (no broadcasting, as MindSpore's CPU
kernel) and the same dtype (bool refused). ``baddbmm(input, batch1, batch2,
beta=1, alpha=1)``: ``beta * input + alpha * bmm(batch1, batch2)``, ``input``
broadcasting with the product; ``beta``/``alpha`` are real numbers (integers for
integer tensors). Both are composed of matmul, mul and add, so they are
differentiated and replayed like those; ``beta=0`` still multiplies ``input``
(a NaN in it stays NaN, as in MindSpore).

Example::

    ops.baddbmm(c, a, b, beta=0.5, alpha=2.0)      # 0.5 * c + 2 * (a @ b)
"""

import numpy as np

from ..._core.functions import register_function
from .. import functional as F
from .._builtin import tensor_arg
from ..math.elementwise import matmul

__all__ = ["bmm", "baddbmm"]


def _check_bmm(x, y, name):
    dx, dy = x._data, y._data
    if dx.ndim < 2 or dy.ndim < 2:
        raise ValueError(f"For '{name}', the inputs must be 2-D or higher dimensional Tensors, got shapes "
                         f"{list(dx.shape)} and {list(dy.shape)}.")
    if dx.dtype != dy.dtype:
        raise TypeError(f"For '{name}', the type of 'mat2' should be same as 'input_x', but got {x.dtype} and "
                        f"{y.dtype}.")
    if dx.dtype == np.bool_:
        raise TypeError(f"For '{name}', bool inputs are not supported; got {x.dtype}.")
    if dx.shape[:-2] != dy.shape[:-2]:
        raise ValueError(f"For '{name}', the batch dimensions must be equal (no broadcasting), got shapes "
                         f"{list(dx.shape)} and {list(dy.shape)}.")
    if dx.shape[-1] != dy.shape[-2]:
        raise ValueError(f"For '{name}', the rows of 'mat2' ({dy.shape[-2]}) must equal the columns of "
                         f"'input_x' ({dx.shape[-1]}), got shapes {list(dx.shape)} and {list(dy.shape)}.")


def bmm(input_x, mat2):
    """MindSpore's ``ops.bmm``: the batched matrix product of two tensors with equal batch dimensions.

    Example::

        ops.bmm(ms.Tensor(np.ones((2, 3, 4), np.float32)), ms.Tensor(np.ones((2, 4, 5), np.float32)))  # (2, 3, 5)
    """
    x = tensor_arg(input_x, "bmm")
    y = tensor_arg(mat2, "bmm")
    _check_bmm(x, y, "bmm")
    return matmul(x, y)


def _real(v, integral, what):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"For 'baddbmm', {what} must be a real number, got {type(v).__name__}.")
    if integral and not isinstance(v, (int, np.integer)) and float(v) != int(v):
        raise TypeError(f"For 'baddbmm', inputs of an integer type take integer beta and alpha, got {what}={v!r}.")
    return int(v) if integral else float(v)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):  # noqa: A002 - MindSpore's name
    """MindSpore's ``ops.baddbmm``: ``beta * input + alpha * bmm(batch1, batch2)``.

    ``input`` broadcasts with the product; the three tensors share one dtype.

    Example::

        ops.baddbmm(ms.Tensor(np.ones((2, 3, 5), np.float32)), a, b, beta=0.5, alpha=2.0)
    """
    c = tensor_arg(input, "baddbmm")
    x = tensor_arg(batch1, "baddbmm")
    y = tensor_arg(batch2, "baddbmm")
    if not c._data.dtype == x._data.dtype == y._data.dtype:
        raise TypeError(f"For 'baddbmm', the inputs should be the same dtype, got {c.dtype}, {x.dtype} and "
                        f"{y.dtype}.")
    _check_bmm(x, y, "baddbmm")
    integral = c._data.dtype.kind in "iu"
    beta, alpha = _real(beta, integral, "beta"), _real(alpha, integral, "alpha")
    try:
        np.broadcast_shapes(c._data.shape, x._data.shape[:-1] + y._data.shape[-1:])
    except ValueError:
        raise ValueError(f"For 'baddbmm', 'input' of shape {list(c.shape)} does not broadcast with the product's "
                         f"shape {list(x.shape[:-1]) + [y.shape[-1]]}.") from None
    prod = matmul(x, y)
    if alpha != 1:
        prod = F.mul(prod, alpha)
    if beta != 1:
        c = F.mul(c, beta)
    return F.add(c, prod)


register_function("bmm", bmm)
register_function("baddbmm", baddbmm)
