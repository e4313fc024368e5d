"""``FTRL``: MindSpore's ApplyFtrl (follow the regularized leader, with L1 / L2 shrinkage)."""

import numpy as np

from .optimizer import Optimizer

__all__ = ["FTRL"]


def _non_negative(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For 'FTRL', the argument '{what}' must be a float, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For 'FTRL', the argument '{what}' must >= 0.0, but got {value}.")
    return float(value)


class FTRL(Optimizer):
    """FTRL-proximal, MindSpore's ``nn.FTRL`` (ApplyFtrl), per element::

        accum_new = accum + g*g
        linear += g - (accum_new**(-lr_power) - accum**(-lr_power)) / lr * w
        w = (sign(linear) * l1 - linear) / (accum_new**(-lr_power) / lr + 2 * l2)   where |linear| > l1, else 0
        accum = accum_new

    The state is ``moments.<name>`` (starting at ``initial_accum``) and
    ``linear.<name>`` (zeros). As in MindSpore, the learning rate is a
    constant (no per-step list, schedule or group rates) and weight decay
    applies to every parameter.

    Example::

        opt = nn.FTRL(net.trainable_params(), learning_rate=0.1, l1=0.01, l2=0.01)
    """

    _decay_filter = False

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        dynamic = self._lr.kind != "const"
        if dynamic or self.is_group_lr:
            raise ValueError(f"For 'FTRL', dynamic learning rate and group learning rate are currently not "
                             f"supported in FTRL, they should all be false, but got dynamic learning rate {dynamic} "
                             f"and group learning rate {self.is_group_lr}.")
        if isinstance(lr_power, bool) or not isinstance(lr_power, (int, float)):
            raise TypeError(f"For 'FTRL', the argument 'lr_power' must be a float, but got "
                            f"{type(lr_power).__name__}.")
        if lr_power > 0:
            raise ValueError(f"For 'FTRL', the argument 'lr_power' must <= 0.0, but got {lr_power}.")
        if not isinstance(use_locking, bool):
            raise TypeError(f"For 'FTRL', the argument 'use_locking' must be a bool, but got "
                            f"{type(use_locking).__name__}.")
        self.initial_accum = _non_negative(initial_accum, "initial_accum")
        self.l1, self.l2 = _non_negative(l1, "l1"), _non_negative(l2, "l2")
        self.lr_power, self.use_locking = float(lr_power), use_locking
        self.moments = self._state("moments", fill=self.initial_accum)
        self.linear = self._state("linear")

    def _update(self, i, param, grad, lr):
        accum, linear = self.moments[i]._data, self.linear[i]._data
        dt = param.dtype.type
        power = dt(-self.lr_power)
        accum_new = accum + grad * grad
        linear += grad - (accum_new ** power - accum ** power) / dt(lr) * param
        quadratic = accum_new ** power / dt(lr) + dt(2 * self.l2)
        shrunk = (np.sign(linear) * dt(self.l1) - linear) / quadratic
        np.copyto(param, np.where(np.abs(linear) > self.l1, shrunk, dt(0)))
        np.copyto(accum, accum_new)
