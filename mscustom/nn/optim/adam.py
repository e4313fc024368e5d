"""The Adam family: ``Adam``, ``AdamWeightDecay`` (decoupled decay, no bias correction) and ``AdamW``."""

import math

import numpy as np

from . import _adam_pass
from .optimizer import Optimizer, _number

__all__ = ["Adam", "AdamWeightDecay", "AdamW"]


class Adam(Optimizer):
    """Adam with MindSpore's update (the bias corrections folded into the step size).

    ``m = b1*m + (1-b1)*g``; ``v = b2*v + (1-b2)*g*g``;
    ``lr_t = lr * sqrt(1 - b2**t) / (1 - b1**t)``; ``p -= lr_t * m / (sqrt(v) + eps)``.
    With ``use_nesterov=True`` the numerator is ``b1*m + (1-b1)*g``. With
    ``use_amsgrad=True`` the denominator uses ``vhat``, the running maximum of
    ``v`` (state ``vhat.<name>``), as MindSpore's ApplyAdamWithAmsgrad. Weight
    decay is L2 (added to the gradient), as in MindSpore's Adam.

    Example::

        opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(use_amsgrad, bool):
            raise TypeError(f"For 'Adam', the type of 'use_amsgrad' should be 'bool', but got type "
                            f"'{type(use_amsgrad).__name__}'.")
        self.use_amsgrad = use_amsgrad
        self.beta1 = _number(beta1, "beta1", "Adam", low=0, high=1, high_open=True)
        self.beta2 = _number(beta2, "beta2", "Adam", low=0, high=1, high_open=True)
        self.eps = _number(eps, "eps", "Adam", low=0, low_open=True)
        self.use_nesterov = bool(use_nesterov)
        self.use_locking = bool(use_locking)
        self._ckpt_powers = (("beta1_power", "beta1"), ("beta2_power", "beta2"))
        self.moment1 = self._state("moment1")
        self.moment2 = self._state("moment2")
        if use_amsgrad:
            self.vhat = self._state("vhat")
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        b1, b2, t = self.beta1, self.beta2, self.global_step
        m, v, s = self.moment1[i]._data, self.moment2[i]._data, self._scratch[i]
        np.multiply(grad, grad, out=s)
        s *= 1.0 - b2
        v *= b2
        v += s
        if self.use_amsgrad:
            vhat = self.vhat[i]._data
            np.maximum(vhat, v, out=vhat)
            v = vhat                            # the denominator uses the running maximum
        grad *= 1.0 - b1                        # grad now holds (1 - b1) * g
        m *= b1
        m += grad
        if self.use_nesterov:
            np.multiply(m, b1, out=s)
            grad += s                           # b1 * m + (1 - b1) * g
            num = grad
        else:
            num = m
        np.sqrt(v, out=s)
        s += self.eps
        np.divide(num, s, out=s)
        s *= lr * math.sqrt(1.0 - b2 ** t) / (1.0 - b1 ** t)
        np.subtract(param, s, out=param)


class AdamWeightDecay(Optimizer):
    """Adam with decoupled weight decay, MindSpore's ``nn.AdamWeightDecay`` (no bias correction).

    ``m = b1*m + (1-b1)*g``; ``v = b2*v + (1-b2)*g*g``;
    ``update = m / (sqrt(v) + eps) + weight_decay * w``; ``w -= lr * update``.

    Example::

        opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3, weight_decay=0.01)
    """

    _decay_in_grad = False

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        who = "AdamWeightDecay"
        self.beta1 = _number(beta1, "beta1", who, low=0, high=1, low_open=True, high_open=True)
        self.beta2 = _number(beta2, "beta2", who, low=0, high=1, low_open=True, high_open=True)
        self.eps = _number(eps, "eps", who, low=0, low_open=True)
        self.moments1 = self._state("adam_m")
        self.moments2 = self._state("adam_v")
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        b1, b2 = self.beta1, self.beta2
        m, v, s = self.moments1[i]._data, self.moments2[i]._data, self._scratch[i]
        np.multiply(grad, grad, out=s)
        s *= 1.0 - b2
        v *= b2
        v += s
        grad *= 1.0 - b1
        m *= b1
        m += grad
        np.sqrt(v, out=s)
        s += self.eps
        np.divide(m, s, out=s)
        wd = self._weight_decay[i]
        if wd:
            s += wd * param
        s *= lr
        np.subtract(param, s, out=param)


class AdamW(Optimizer):
    """AdamW as MindSpore's ``mint.optim.AdamW`` / ``experimental.optim.AdamW`` defines it.

    ``w -= lr * weight_decay * w``; ``m = b1*m + (1-b1)*g``; ``v = b2*v + (1-b2)*g*g``;
    ``m_hat = m / (1 - b1**t)``; ``v_hat = v / (1 - b2**t)`` (with ``amsgrad`` the
    running maximum of ``v_hat``); ``w -= lr * m_hat / (sqrt(v_hat) + eps)``.
    ``maximize=True`` ascends instead. Decay applies to every parameter (no
    "beta"/"gamma" filter), as there. MindSpore keeps this class in
    ``mindspore.mint.optim``; here it is ``nn.AdamW`` and also takes groups
    with "lr" and "weight_decay".

    Example::

        opt = nn.AdamW(net.trainable_params(), lr=1e-3, weight_decay=1e-2)
    """

    _decay_in_grad = False
    _decay_filter = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(lr, params, weight_decay)
        who = "AdamW"
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"{who}: betas must be a pair (beta1, beta2), got {betas!r}")
        self.beta1 = _number(betas[0], "betas[0]", who, low=0, high=1, high_open=True)
        self.beta2 = _number(betas[1], "betas[1]", who, low=0, high=1, high_open=True)
        self.eps = _number(eps, "eps", who, low=0, low_open=True)
        self.amsgrad = bool(amsgrad)
        self.maximize = bool(maximize)
        self.exp_avg = self._state("exp_avg")
        self.exp_avg_sq = self._state("exp_avg_sq")
        self.max_exp_avg_sq = self._state("max_exp_avg_sq") if self.amsgrad else None
        self._scratch = [np.empty_like(p._data) for p in self.parameters]

    def _update(self, i, param, grad, lr):
        b1, b2, t = self.beta1, self.beta2, self.global_step
        wd = self._weight_decay[i]
        m, v, s = self.exp_avg[i]._data, self.exp_avg_sq[i]._data, self._scratch[i]
        if not self.amsgrad and _adam_pass.update(param, grad, m, v, lr, wd, b1, b2, t, self.eps, self.maximize):
            return              # one pass (Numba), NumPy's bits
        if self.maximize:
            np.negative(grad, out=grad)
        if wd:
            param *= 1.0 - lr * wd
        np.multiply(grad, grad, out=s)
        s *= 1.0 - b2
        v *= b2
        v += s
        grad *= 1.0 - b1
        m *= b1
        m += grad
        np.divide(v, 1.0 - b2 ** t, out=s)     # v_hat
        if self.amsgrad:
            vmax = self.max_exp_avg_sq[i]._data
            np.maximum(vmax, s, out=vmax)       # running max of v_hat
            np.copyto(s, vmax)
        np.sqrt(s, out=s)
        s += self.eps
        np.divide(m, s, out=s)
        s *= lr / (1.0 - b1 ** t)
        np.subtract(param, s, out=param)
