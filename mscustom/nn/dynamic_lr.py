"""Per-step learning-rate lists (MindSpore's ``nn.dynamic_lr``), to pass as an optimizer's ``learning_rate``.

Step ``i`` belongs to epoch ``floor(i / step_per_epoch)``; each helper
returns a list of ``total_step`` floats.

Example::

    lr = nn.cosine_decay_lr(0.01, 0.1, total_step=6, step_per_epoch=2, decay_epoch=2)
    # [0.1, 0.1, 0.055, 0.055, 0.01, 0.01]
"""

import math

from .learning_rate_schedule import _float, _int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "cosine_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone, learning_rates):
    """``learning_rates[k]`` for the steps in ``[milestone[k-1], milestone[k])``; ``milestone[-1]`` steps in all.

    Example::

        nn.piecewise_constant_lr([2, 5], [0.1, 0.05])     # [0.1, 0.1, 0.05, 0.05, 0.05]
    """
    who = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"{who}: milestone and learning_rates must be lists, got "
                        f"{type(milestone).__name__} and {type(learning_rates).__name__}")
    if len(milestone) != len(learning_rates) or not milestone:
        raise ValueError(f"{who}: milestone and learning_rates must be non-empty and of the same length, got "
                         f"{len(milestone)} and {len(learning_rates)}")
    lrs, last = [], 0
    for k, (m, lr) in enumerate(zip(milestone, learning_rates)):
        m = _int(m, f"milestone[{k}]", who)
        if m <= last:
            raise ValueError(f"{who}: milestone must be strictly increasing, got {list(milestone)}")
        lrs += [_float(lr, f"learning_rates[{k}]", who)] * (m - last)
        last = m
    return lrs


def _steps(total_step, step_per_epoch, epochs, epochs_name, who):
    return (_int(total_step, "total_step", who), _int(step_per_epoch, "step_per_epoch", who),
            _int(epochs, epochs_name, who))


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate * decay_rate ** (epoch / decay_epoch)`` (the exponent floored if ``is_stair``).

    Example::

        nn.exponential_decay_lr(0.1, 0.9, total_step=6, step_per_epoch=2, decay_epoch=1)
    """
    who = "exponential_decay_lr"
    lr = _float(learning_rate, "learning_rate", who, positive=True)
    rate = _float(decay_rate, "decay_rate", who, positive=True)
    total, per_epoch, decay_epoch = _steps(total_step, step_per_epoch, decay_epoch, "decay_epoch", who)
    out = []
    for i in range(total):
        p = math.floor(i / per_epoch) / decay_epoch
        out.append(lr * rate ** (math.floor(p) if is_stair else p))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch))``.

    Example::

        nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2)      # [0.1, 0.1, 0.055, 0.055, 0.01, 0.01]
    """
    who = "cosine_decay_lr"
    lo = _float(min_lr, "min_lr", who)
    hi = _float(max_lr, "max_lr", who, positive=True)
    if lo >= hi:
        raise ValueError(f"{who}: min_lr must be below max_lr, got min_lr {lo} and max_lr {hi}")
    total, per_epoch, decay_epoch = _steps(total_step, step_per_epoch, decay_epoch, "decay_epoch", who)
    delta = 0.5 * (hi - lo)
    return [lo + delta * (1.0 + math.cos(math.pi * min(math.floor(i / per_epoch), decay_epoch) / decay_epoch))
            for i in range(total)]


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """``learning_rate * min(epoch, warmup_epoch) / warmup_epoch``.

    Example::

        nn.warmup_lr(0.1, 6, 2, 2)                  # [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    """
    who = "warmup_lr"
    lr = _float(learning_rate, "learning_rate", who)
    total, per_epoch, warm = _steps(total_step, step_per_epoch, warmup_epoch, "warmup_epoch", who)
    return [lr * min(math.floor(i / per_epoch), warm) / warm for i in range(total)]
