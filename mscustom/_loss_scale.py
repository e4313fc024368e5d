"""Loss scaling for mixed precision: MindSpore's managers and scalers (``ms.amp``).

A float16 network's small gradients underflow to zero; multiplying the loss
by a scale before differentiating (and dividing the gradients by it after)
keeps them representable. When the scaled gradients overflow (inf or nan),
the step is skipped and a dynamic scale shrinks; after ``scale_window``
finite steps it grows again.

- ``LossScaleManager`` / ``FixedLossScaleManager`` / ``DynamicLossScaleManager``:
  what ``Model(loss_scale_manager=...)`` and ``build_train_network`` take;
  ``get_update_cell()`` gives the cell ``nn.TrainOneStepWithLossScaleCell``
  calls, ``update_loss_scale(overflow)`` is the host-side rule.
- ``LossScaler`` / ``StaticLossScaler`` / ``DynamicLossScaler``: for a
  hand-written step: ``scale(loss)``, ``unscale(grads)``, ``adjust(all_finite(grads))``.
- ``all_finite(tensors)``: a scalar bool Tensor, True when no element is inf or nan.

Example::

    scaler = ms.amp.DynamicLossScaler(2 ** 10, 2, 1000)
    def forward(x, y):
        return scaler.scale(loss_fn(net(x), y))
    loss, grads = ms.value_and_grad(forward, None, opt.parameters)(x, y)
    grads = scaler.unscale(grads)
    finite = ms.amp.all_finite(grads)
    scaler.adjust(finite)
    if finite:
        opt(grads)
"""

from abc import ABC, abstractmethod

import numpy as np

from . import dtype as _dt
from . import ops
from .tensor import Tensor, Parameter

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager",
           "LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite"]


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _check_positive_int(value, name):
    if not _is_int(value):
        raise TypeError(f"The '{name}' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"The '{name}' must be int and must > 0, but got '{value}' with type "
                         f"'{type(value).__name__}'.")
    return int(value)


def _check_scale_value(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"The type of 'scale_value' should be one of '['float', 'int']', but got type "
                        f"'{type(value).__name__}'.")
    if value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {value}")
    return value


# ---------------------------------------------------------------- managers

class LossScaleManager:
    """The interface of a loss-scale manager: the current scale, its update rule and the update cell."""

    def get_loss_scale(self):
        """The current loss scale (the factor the loss, hence the gradients, is multiplied by)."""

    def update_loss_scale(self, overflow):
        """Update the scale after a step; ``overflow`` says whether the gradients overflowed."""

    def get_update_cell(self):
        """The Cell ``nn.TrainOneStepWithLossScaleCell`` calls to update the scale (None: no update)."""


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale.

    With ``drop_overflow_update=True`` (default) a step whose gradients
    overflow is skipped (``get_update_cell()`` gives an
    ``nn.FixedLossScaleUpdateCell``); with False the gradients are applied
    anyway (no update cell: the optimizer's own ``loss_scale`` must equal this
    one, it divides the gradients by it).
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        """Whether a step whose gradients overflow is skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """The scale is fixed: nothing to do."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        from .nn import FixedLossScaleUpdateCell
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale that halves (``/ scale_factor``, not below 1) on every overflow and grows
    (``* scale_factor``) after ``scale_window`` steps without one.

    ``update_loss_scale(overflow)`` counts steps from 1 (``cur_iter``); the
    scale grows on a finite step when ``cur_iter - last_overflow_iter`` is a
    multiple of ``scale_window``. More than 1000 overflows in a row raise
    RuntimeError.
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}")
        self.loss_scale = init_loss_scale
        self.scale_window = _check_positive_int(scale_window, "scale_window")
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"DynamicLossScaleManager: the gradients overflowed {self.bad_step} steps in a "
                               f"row, more than the maximum {self.bad_step_max}.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        """Always True: an overflowing step is skipped."""
        return True

    def get_update_cell(self):
        from .nn import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


# ---------------------------------------------------------------- scalers

def _map(inputs, fn):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_map(x, fn) for x in inputs)
    return fn(inputs)


def _times(tensor, factor):
    """``tensor * factor`` computed in ``tensor``'s dtype (the factor cast to it first)."""
    if not isinstance(tensor, Tensor):
        tensor = Tensor(tensor)
    return ops.mul(tensor, ops.cast(factor, tensor.dtype))


class LossScaler(ABC):
    """The interface of a loss scaler: ``scale``, ``unscale`` and ``adjust``."""

    @abstractmethod
    def scale(self, inputs):
        """``inputs`` (a Tensor or a tuple of them) multiplied by the scale."""

    @abstractmethod
    def unscale(self, inputs):
        """``inputs`` multiplied by the reciprocal of the scale."""

    @abstractmethod
    def adjust(self, grads_finite):
        """Update the scale after a step whose gradients were finite or not."""


class StaticLossScaler(LossScaler):
    """A constant scale: ``scale_value`` (a float32 Parameter named "scale_value").

    ``scale``/``unscale`` compute in each input's dtype: the scale (or its
    reciprocal) is cast to it first, so an integer input is multiplied by the
    truncated reciprocal. ``adjust`` does nothing and returns False.
    """

    def __init__(self, scale_value):
        scale_value = _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(np.array(scale_value, np.float32)), name="scale_value")

    def scale(self, inputs):
        with np.errstate(over="ignore"):
            return _map(inputs, lambda x: _times(x, self.scale_value))

    def unscale(self, inputs):
        with np.errstate(over="ignore"):
            inv = ops.reciprocal(self.scale_value)
            return _map(inputs, lambda x: _times(x, inv))

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """A scale that follows the gradients: ``adjust(grads_finite)``.

    A finite step increments ``counter`` (an int32 Parameter); the
    ``scale_window``-th finite step in a row multiplies ``scale_value`` by
    ``scale_factor`` (unless the product overflows float32) and restarts the
    count. A non-finite step divides the scale by ``scale_factor`` (not below
    1) and resets the count. ``adjust`` returns True.
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        scale_value = _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(np.array(scale_value, np.float32)), name="scale_value")
        self.scale_window = _check_positive_int(scale_window, "scale_window")
        self.scale_factor = _check_positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(np.array(0, np.int32)), name="counter")

    def scale(self, inputs):
        with np.errstate(over="ignore"):
            return _map(inputs, lambda x: _times(x, self.scale_value))

    def unscale(self, inputs):
        with np.errstate(over="ignore"):
            inv = ops.reciprocal(self.scale_value)
            return _map(inputs, lambda x: _times(x, inv))

    def adjust(self, grads_finite):
        finite = grads_finite if isinstance(grads_finite, Tensor) else Tensor(np.array(bool(grads_finite)))
        finite = ops.cast(ops.reshape(finite, ()), _dt.bool_)
        scale = self.scale_value.value()
        with np.errstate(over="ignore"):
            grown = ops.mul(scale, float(self.scale_factor))
        grown_ok = ops.logical_not(ops.logical_or(ops.isinf(grown), ops.isnan(grown)))
        at_window = ops.equal(self.counter.value(), self.scale_window - 1)
        up = ops.where(ops.logical_and(at_window, grown_ok), grown, scale)
        down = ops.maximum(ops.div(scale, float(self.scale_factor)), ops.ones((), _dt.float32))
        self.scale_value.set_data(ops.where(finite, up, down))
        counter = ops.floor_mod(ops.add(self.counter.value(), 1), self.scale_window)
        self.counter.set_data(ops.mul(counter, ops.cast(finite, _dt.int32)))
        return True


# ---------------------------------------------------------------- all_finite

def all_finite(inputs):
    """A scalar bool Tensor: True when no element of the Tensors in ``inputs`` (a list or
    tuple) is inf or nan. Integer and bool Tensors are always finite."""
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f"op 'all_finite': inputs must be a list or tuple of Tensors, got "
                        f"{type(inputs).__name__}")
    if len(inputs) == 0:
        raise ValueError("op 'all_finite': inputs must hold at least one Tensor, got an empty "
                         f"{type(inputs).__name__}")
    flags = []
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"op 'all_finite': every input must be a Tensor, got {type(x).__name__}")
        if _dt.is_floating(x.dtype):
            bad = ops.logical_or(ops.isinf(x), ops.isnan(x))
            flags.append(ops.logical_not(ops.any(bad)))
    if not flags:
        return Tensor(np.array(True))
    return ops.all(ops.stack(flags))
