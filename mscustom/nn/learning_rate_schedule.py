"""Learning-rate schedules as Cells: ``schedule(global_step)`` gives the rate of that step.

An optimizer given a schedule as ``learning_rate`` calls it with its step
counter (0 for the first update). Each returns a float32 scalar Tensor, as
MindSpore's do.

Example::

    lr = nn.CosineDecayLR(min_lr=0.01, max_lr=0.1, decay_steps=100)
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
"""

import math

import numpy as np

from ..tensor import Tensor
from .cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


def _float(value, what, who, positive=False):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{who}: {what} must be a float, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{who}: {what} must be {'> 0' if positive else '>= 0'}, got {value!r}")
    return value


def _int(value, what, who):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{who}: {what} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{who}: {what} must be a positive int, got {value!r}")
    return int(value)


class LearningRateSchedule(Cell):
    """Base class: ``construct(global_step)`` returns the learning rate of that step (a scalar Tensor).

    Subclasses define ``_rate(step) -> float``; ``global_step`` may be an int
    or a one-element Tensor.
    """

    def construct(self, global_step):
        if isinstance(global_step, Tensor):
            if global_step._data.size != 1:
                raise ValueError(f"{type(self).__name__}: global_step must be a scalar, got a Tensor of "
                                 f"shape {list(global_step.shape)}")
            global_step = global_step._data.item()
        if isinstance(global_step, (bool, np.bool_)) or not isinstance(global_step, (int, np.integer, float)) \
                or global_step < 0:
            raise ValueError(f"{type(self).__name__}: global_step must be a non-negative step number, "
                             f"got {global_step!r}")
        return Tensor._wrap(np.asarray(self._rate(float(global_step)), dtype=np.float32))

    def _rate(self, step):
        raise TypeError(f"{type(self).__name__} is a LearningRateSchedule without _rate(step)")


class _StairDecayLR(LearningRateSchedule):
    """The arguments the decaying schedules share: ``learning_rate``, ``decay_rate`` (both > 0),
    ``decay_steps`` and ``is_stair``, checked with the class's name in the errors."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        who = type(self).__name__
        self.learning_rate = _float(learning_rate, "learning_rate", who, positive=True)
        self.decay_rate = _float(decay_rate, "decay_rate", who, positive=True)
        self.decay_steps = _int(decay_steps, "decay_steps", who)
        self.is_stair = bool(is_stair)


class ExponentialDecayLR(_StairDecayLR):
    """``learning_rate * decay_rate ** p`` with ``p = step / decay_steps`` (``floor`` of it if ``is_stair``).

    Example::

        lr = nn.ExponentialDecayLR(0.1, 0.9, decay_steps=4)
        float(lr(ms.Tensor(2, ms.int32)))           # 0.1 * 0.9 ** 0.5
    """

    def _rate(self, step):
        p = step / self.decay_steps
        if self.is_stair:
            p = math.floor(p)
        return self.learning_rate * self.decay_rate ** p


class CosineDecayLR(LearningRateSchedule):
    """``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps))``.

    Example::

        lr = nn.CosineDecayLR(0.01, 0.1, decay_steps=4)
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        who = "CosineDecayLR"
        self.min_lr = _float(min_lr, "min_lr", who)
        self.max_lr = _float(max_lr, "max_lr", who, positive=True)
        if self.min_lr >= self.max_lr:
            raise ValueError(f"{who}: min_lr must be below max_lr, got min_lr {self.min_lr} and max_lr {self.max_lr}")
        self.decay_steps = _int(decay_steps, "decay_steps", who)

    def _rate(self, step):
        p = min(step, self.decay_steps) / self.decay_steps
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1.0 + math.cos(math.pi * p))


class PolynomialDecayLR(LearningRateSchedule):
    """``(learning_rate - end_learning_rate) * (1 - p) ** power + end_learning_rate``.

    ``p = min(step, decay_steps) / decay_steps``; with ``update_decay_steps``
    the horizon grows instead, ``decay_steps * max(ceil(step / decay_steps), 1)``,
    so the decay restarts every ``decay_steps``.

    Example::

        lr = nn.PolynomialDecayLR(0.1, 0.01, decay_steps=4, power=0.5)
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        who = "PolynomialDecayLR"
        self.learning_rate = _float(learning_rate, "learning_rate", who, positive=True)
        self.end_learning_rate = _float(end_learning_rate, "end_learning_rate", who)
        self.decay_steps = _int(decay_steps, "decay_steps", who)
        self.power = _float(power, "power", who, positive=True)
        self.update_decay_steps = bool(update_decay_steps)

    def _rate(self, step):
        if self.update_decay_steps:
            horizon = self.decay_steps * max(math.ceil(step / self.decay_steps), 1)
            p = step / horizon
        else:
            p = min(step, self.decay_steps) / self.decay_steps
        return (self.learning_rate - self.end_learning_rate) * (1.0 - p) ** self.power + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``: a linear ramp, then constant.

    Example::

        lr = nn.WarmUpLR(0.1, warmup_steps=10)
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate = _float(learning_rate, "learning_rate", "WarmUpLR", positive=True)
        self.warmup_steps = _int(warmup_steps, "warmup_steps", "WarmUpLR")

    def _rate(self, step):
        return self.learning_rate * min(step, self.warmup_steps) / self.warmup_steps
