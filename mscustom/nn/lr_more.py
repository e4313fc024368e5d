"""More learning-rate schedules: ``InverseDecayLR`` and ``NaturalExpDecayLR`` (Cells of the step), and the
per-step lists ``inverse_decay_lr``, ``natural_exp_decay_lr`` and ``polynomial_decay_lr``.

Example::

    lr = nn.InverseDecayLR(0.1, 0.9, decay_steps=4)          # 0.1 / (1 + 0.9 * step / 4)
    nn.polynomial_decay_lr(0.1, 0.01, total_step=6, step_per_epoch=2, decay_epoch=2, power=0.5)
"""

import math

from .dynamic_lr import _steps
from .learning_rate_schedule import _StairDecayLR, _float

__all__ = ["InverseDecayLR", "NaturalExpDecayLR", "inverse_decay_lr", "natural_exp_decay_lr", "polynomial_decay_lr"]


class InverseDecayLR(_StairDecayLR):
    """``learning_rate / (1 + decay_rate * p)`` with ``p = step / decay_steps`` (floored if ``is_stair``)."""

    def _rate(self, step):
        p = step / self.decay_steps
        return self.learning_rate / (1 + self.decay_rate * (math.floor(p) if self.is_stair else p))


class NaturalExpDecayLR(_StairDecayLR):
    """``learning_rate * exp(-decay_rate * p)`` with ``p = step`` (``is_stair``: rounded down to a multiple
    of ``decay_steps``)."""

    def _rate(self, step):
        p = math.floor(step / self.decay_steps) * self.decay_steps if self.is_stair else step
        return self.learning_rate * math.exp(-self.decay_rate * p)


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """Per step: ``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` (the ratio floored if ``is_stair``)."""
    who = "inverse_decay_lr"
    lr = _float(learning_rate, "learning_rate", who, positive=True)
    rate = _float(decay_rate, "decay_rate", who, positive=True)
    total, per_epoch, decay_epoch = _steps(total_step, step_per_epoch, decay_epoch, "decay_epoch", who)
    out = []
    for i in range(total):
        epoch = math.floor(i / per_epoch)
        p = math.floor(epoch / decay_epoch) if is_stair else epoch / decay_epoch
        out.append(lr / (1 + rate * p))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """Per step: ``learning_rate * exp(-decay_rate * epoch)`` (``is_stair``: the epoch rounded down to a
    multiple of ``decay_epoch``)."""
    who = "natural_exp_decay_lr"
    lr = _float(learning_rate, "learning_rate", who, positive=True)
    rate = _float(decay_rate, "decay_rate", who, positive=True)
    total, per_epoch, decay_epoch = _steps(total_step, step_per_epoch, decay_epoch, "decay_epoch", who)
    out = []
    for i in range(total):
        epoch = math.floor(i / per_epoch)
        p = math.floor(epoch / decay_epoch) * decay_epoch if is_stair else epoch
        out.append(lr * math.e ** (-rate * p))
    return out


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """Per step: ``(learning_rate - end) * (1 - e / decay_epoch) ** power + end`` with ``e = min(epoch, decay_epoch)``.

    ``update_decay_epoch``: instead of stopping at ``end``, each epoch decays over the smallest
    multiple of ``decay_epoch`` that covers it (the rate restarts after every period).
    """
    who = "polynomial_decay_lr"
    lr = _float(learning_rate, "learning_rate", who, positive=True)
    end = _float(end_learning_rate, "end_learning_rate", who)
    p = _float(power, "power", who, positive=True)
    total, per_epoch, decay = _steps(total_step, step_per_epoch, decay_epoch, "decay_epoch", who)
    out = []
    for i in range(total):
        epoch = math.floor(i / per_epoch)
        if update_decay_epoch:
            period, e = decay * max(math.ceil(epoch / decay), 1), epoch
        else:
            period, e = decay, min(epoch, decay)
        out.append((lr - end) * (1 - e / period) ** p + end)
    return out
