"""``AdaFactor``: Adam-like steps with factored second moments (rows and columns of each matrix), relative
step sizes and update clipping, as MindSpore's ``nn.AdaFactor`` computes them."""

import math

import numpy as np

from ...tensor import Parameter, ParameterTuple, Tensor
from .optimizer import Optimizer

__all__ = ["AdaFactor"]


def _rms(a):
    return float(np.sqrt(np.mean(np.square(a, dtype=np.float64))))


class AdaFactor(Optimizer):
    """AdaFactor. At step ``t``: ``beta2t = 1 - t ** -decay_rate``; ``u = g*g + eps[0]``; for a parameter of
    2+ dimensions the running means of ``u`` over its last axis (``exp_avg_sq_row_<name>``) and second-last
    axis (``exp_avg_sq_col_<name>``) give ``v ~ row * col / mean(row)``, else ``exp_avg_sq_<name>`` is
    ``v`` itself; ``update = g / sqrt(v)``, divided by ``max(rms(update) / clip_threshold, 1)`` and scaled by
    the rate (``relative_step``: ``min(1e-2, 1/sqrt(t))``, ``1e-6 * t`` with ``warmup_init``; times
    ``max(eps[1], rms(w))`` when ``scale_parameter``). ``beta1 > 0`` averages the updates
    (``exp_avg.<name>``); ``weight_decay`` subtracts ``weight_decay * rate * w``.

    As in MindSpore, ``loss_scale`` is accepted but the gradients are used as given.
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
                 loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("AdaFactor: a manual learning_rate cannot be combined with relative_step=True")
        if warmup_init and not relative_step:
            raise ValueError("AdaFactor: warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("AdaFactor: learning_rate is needed when relative_step is False")
        super().__init__(0.0 if learning_rate is None else learning_rate, params, 0.0, 1.0)
        if not isinstance(eps, (tuple, list)) or len(eps) != 2 or not all(isinstance(e, float) and e >= 0 for e in eps):
            raise ValueError(f"AdaFactor: eps must be 2 non-negative floats, got {eps!r}")
        if not isinstance(clip_threshold, float) or clip_threshold < 0:
            raise ValueError(f"AdaFactor: clip_threshold must be a non-negative float, got {clip_threshold!r}")
        if not isinstance(decay_rate, float) or not 0 < decay_rate < 1:
            raise ValueError(f"AdaFactor: decay_rate must be a float in (0, 1), got {decay_rate!r}")
        if not 0 <= weight_decay < 1:
            raise ValueError(f"AdaFactor: weight_decay must be in [0, 1), got {weight_decay!r}")
        beta1 = 0.0 if beta1 is None else beta1
        if isinstance(beta1, bool) or not isinstance(beta1, (int, float)) or beta1 < 0:
            raise ValueError(f"AdaFactor: beta1 must be a non-negative number or None, got {beta1!r}")
        self.eps, self.clip_threshold, self.decay_rate = tuple(eps), clip_threshold, decay_rate
        self.beta1, self.ada_weight_decay = float(beta1), float(weight_decay)
        self.scale_lr = learning_rate is None or isinstance(learning_rate, (int, float))
        self.scale_parameter = bool(scale_parameter) and self.scale_lr
        self.relative_step, self.warmup_init, self.compression = bool(relative_step), bool(warmup_init), compression
        self.loss_scale_arg = loss_scale
        self.use_first_moment = self.beta1 > 0
        if self.use_first_moment:
            self.exp_avg = self._state("exp_avg")
        rows, cols, sqs = [], [], []
        for p in self.parameters:
            shape, dt = p._data.shape, p._data.dtype
            factored = len(shape) > 1
            rows.append(Parameter(Tensor(np.zeros(shape[:-1] if factored else (1,), dt)),
                                  name=f"exp_avg_sq_row_{p.name}", requires_grad=False))
            cols.append(Parameter(Tensor(np.zeros(shape[:-2] + shape[-1:] if factored else (1,), dt)),
                                  name=f"exp_avg_sq_col_{p.name}", requires_grad=False))
            sqs.append(Parameter(Tensor(np.zeros((1,) if factored else shape, dt)),
                                 name=f"exp_avg_sq_{p.name}", requires_grad=False))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(sqs)
        self.step = Parameter(Tensor(np.zeros((1,), np.float32)), name="afactor_step", requires_grad=False)

    def _update(self, i, param, grad, lr):
        t = self.global_step
        if i == 0:
            self.step._data[...] = t
        if self.scale_lr and self.relative_step:
            lr = min(1e-6 * t if self.warmup_init else 1e-2, 1.0 / math.sqrt(t))
        beta2t = 1.0 - t ** (-self.decay_rate)
        g = grad.astype(np.float32) if grad.dtype == np.float16 else grad
        rate = lr * max(self.eps[1], _rms(param)) if self.scale_parameter else lr
        u = g * g + self.eps[0]
        if g.ndim >= 2:
            row, col = self.exp_avg_sq_row[i]._data, self.exp_avg_sq_col[i]._data
            row[...] = row * beta2t + u.mean(-1) * (1.0 - beta2t)
            col[...] = col * beta2t + u.mean(-2) * (1.0 - beta2t)
            r = 1.0 / np.sqrt(row / row.mean(-1, keepdims=True))
            update = r[..., None] * (1.0 / np.sqrt(col))[..., None, :] * g
        else:
            v = self.exp_avg_sq[i]._data
            v[...] = v * beta2t + u * (1.0 - beta2t)
            update = g / np.sqrt(v)
        update = update / max(_rms(update) / self.clip_threshold, 1.0) * rate
        if self.use_first_moment:
            m = self.exp_avg[i]._data
            m[...] = m * self.beta1 + update * (1.0 - self.beta1)
            update = m
        if self.ada_weight_decay:
            param -= (param * (self.ada_weight_decay * rate)).astype(param.dtype)
        param -= update.astype(param.dtype)
