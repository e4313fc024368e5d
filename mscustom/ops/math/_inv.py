"""``ops.inv`` (the elementwise reciprocal, MindSpore 2.10's name; ``ops.inverse`` is the matrix inverse)
and ``ops.is_tensor_bool_cond`` (the truth value of a one-element Tensor)."""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg


def inv(x):
    """``1 / x`` elementwise. Float inputs keep their dtype (1/0 is inf); integer inputs give the truncated
    reciprocal (0 for |x| > 1) and the dtype's smallest value for 0, as MindSpore's kernel does."""
    t = tensor_arg(x, "inv")
    kind = t._data.dtype.kind
    if kind in "fc":
        with np.errstate(divide="ignore"):          # 1/0 is inf, as intended
            return F.div(Tensor._wrap(np.ones((), t._data.dtype)), t)
    if kind not in "iu":
        raise TypeError(f"op 'inv': x must be a number tensor, got {t.dtype}")
    a = _capture.read_values(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(a == 0, np.iinfo(a.dtype).min, np.trunc(1.0 / np.where(a == 0, 1, a)))
    return Tensor._wrap(np.array(r, a.dtype, order="C"))


def is_tensor_bool_cond(*args):
    """The truth value of a Tensor of shape () or (1,) (a condition in control flow)."""
    if len(args) != 1 or not isinstance(args[0], Tensor):
        raise TypeError(f"op 'is_tensor_bool_cond': expected one Tensor, got {args!r}")
    t = args[0]
    if t.shape not in ((), (1,)):
        raise ValueError(f"op 'is_tensor_bool_cond': only a Tensor of shape () or (1,) converts to bool, got shape "
                         f"{list(t.shape)}")
    return True


__all__ = ["inv", "is_tensor_bool_cond"]

register_function("inv", inv, method=True)
register_function("is_tensor_bool_cond", is_tensor_bool_cond)
