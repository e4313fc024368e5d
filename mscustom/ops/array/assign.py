"""In-place updates of Parameters and tensors: MindSpore's ``ops.assign`` / ``assign_add`` / ``assign_sub``.

Each writes into ``variable``'s own memory and returns ``variable``. The
value is converted to the variable's dtype (a Parameter's dtype never
changes), within the same kind of number or towards a wider kind (int into
float); anything else is refused naming the op. A Python number is spread
over the whole variable; a tensor must have the variable's shape.

They are not differentiated (as ``Tensor.__setitem__``), and in graph mode
each is an *effect* that every replay repeats at the same point
(``_core/capture.py``), so an exponential moving average or a step counter
kept in a Parameter advances on every call of a compiled step.

Example::

    step = ms.Parameter(ms.Tensor(np.array([0], np.int32)), name="global_step")
    ops.assign_add(step, ms.Tensor(np.array([1], np.int32)))     # step: [1]
"""

import numbers

import numpy as np

from ..._core import capture as _capture
from ...tensor import Tensor

__all__ = ["assign", "assign_add", "assign_sub"]


def _operands(name, variable, value):
    if not isinstance(variable, Tensor):
        raise TypeError(f"{name}: variable must be a Parameter or a Tensor, got {type(variable).__name__}")
    if isinstance(value, Tensor):
        if value.shape != variable.shape:
            raise ValueError(f"{name}: value must have the variable's shape {tuple(variable.shape)}, "
                             f"got shape {tuple(value.shape)}")
        src = value._data.dtype
    elif isinstance(value, numbers.Number):      # Python numbers take the variable's dtype where they fit
        dst = variable._data.dtype
        if isinstance(value, int) and dst.kind in "iu" and not np.iinfo(dst).min <= value <= np.iinfo(dst).max:
            raise OverflowError(f"{name}: the value {value!r} does not fit the variable's dtype {dst}")
        src = np.result_type(dst, value)
    else:
        raise TypeError(f"{name}: value must be a Tensor or a number, got {type(value).__name__}")
    dst = variable._data.dtype
    if not np.can_cast(src, dst, casting="same_kind"):
        raise RuntimeError(f"{name}: a value of dtype {src} cannot be converted to the variable's dtype {dst} "
                           f"(only within a kind of number, or from a narrower kind: int into float)")
    return value


class _Update:
    """The in-place update, on arrays: run now and, in graph mode, on every replay."""

    def __init__(self, ufunc, number=None):
        self.ufunc = ufunc
        self.number = number

    def __call__(self, dst, src=None):
        value = self.number if src is None else src
        if self.ufunc is None:
            np.copyto(dst, value, casting="unsafe")
        else:
            self.ufunc(dst, value, out=dst, casting="unsafe")


def _apply(name, ufunc, variable, value):
    value = _operands(name, variable, value)
    if isinstance(value, Tensor):
        _capture.effect(_Update(ufunc), variable, value)
    else:
        _capture.effect(_Update(ufunc, value), variable)
    return variable


def assign(variable, value):
    """Write ``value`` into ``variable`` (a Parameter or Tensor) in place; returns ``variable``."""
    return _apply("assign", None, variable, value)


def assign_add(variable, value):
    """``variable += value`` in place (MindSpore's ``ops.assign_add``); returns ``variable``."""
    return _apply("assign_add", np.add, variable, value)


def assign_sub(variable, value):
    """``variable -= value`` in place (MindSpore's ``ops.assign_sub``); returns ``variable``."""
    return _apply("assign_sub", np.subtract, variable, value)
