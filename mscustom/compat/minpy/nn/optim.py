"""``minpy.nn.optim``: ``sgd``, ``sgd_momentum``, ``rmsprop``, ``adam`` update rules (cs231n's, as minpy).

Each takes ``(w, dw, config)`` and returns ``(next_w, config)``; state such
as velocities lives in ``config``. Defaults are minpy's.

Example::

    w, config = sgd_momentum(w, dw, {"learning_rate": 1e-2, "momentum": 0.9})
"""

from .. import numpy as np
from ..core import wraps

__all__ = ["sgd", "sgd_momentum", "rmsprop", "adam"]


@wraps("lazy")
def sgd(w, dw, config=None):
    """``w - learning_rate * dw`` (learning_rate 1e-2)."""
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-2)
    return w - config["learning_rate"] * dw, config


@wraps("lazy")
def sgd_momentum(w, dw, config=None):
    """``v = momentum * v - learning_rate * dw; w + v`` (learning_rate 1e-2, momentum 0.9)."""
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("momentum", 0.9)
    v = config.get("velocity", np.zeros_like(w))
    v = v * config["momentum"] - dw * config["learning_rate"]
    config["velocity"] = v
    return w + v, config


@wraps("lazy")
def rmsprop(x, dx, config=None):
    """RMSProp (learning_rate 1e-2, decay_rate 0.99, epsilon 1e-8)."""
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("decay_rate", 0.99)
    config.setdefault("epsilon", 1e-8)
    config.setdefault("cache", np.zeros_like(x))
    cache = config["cache"] * config["decay_rate"] + dx ** 2 * (1 - config["decay_rate"])
    config["cache"] = cache
    return x - config["learning_rate"] * dx / (np.sqrt(cache) + config["epsilon"]), config


@wraps("lazy")
def adam(x, dx, config=None):
    """Adam with bias correction (learning_rate 1e-3, beta1 0.9, beta2 0.999, epsilon 1e-8)."""
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-3)
    config.setdefault("beta1", 0.9)
    config.setdefault("beta2", 0.999)
    config.setdefault("epsilon", 1e-8)
    config.setdefault("m", np.zeros_like(x))
    config.setdefault("v", np.zeros_like(x))
    config.setdefault("t", 0)
    t = config["t"] + 1
    m = config["beta1"] * config["m"] + (1 - config["beta1"]) * dx
    v = config["beta2"] * config["v"] + (1 - config["beta2"]) * dx ** 2
    m_hat = m / (1 - config["beta1"] ** t)
    v_hat = v / (1 - config["beta2"] ** t)
    config.update(m=m, v=v, t=t)
    return x - config["learning_rate"] * m_hat / (np.sqrt(v_hat) + config["epsilon"]), config
