"""``minpy.nn.init``: ``xavier``, ``gaussian``, ``constant``, ``uniform``, ``custom`` (``rule(shape, config)``).

Defaults are minpy's (``gaussian``: mu 0, stdvar 0.001; ``constant``: value 0).

Example::

    w = gaussian((3, 4), {"stdvar": 0.01})
"""

import numpy as _onp

from .. import numpy as np

__all__ = ["xavier", "gaussian", "constant", "uniform", "custom"]


def xavier(shape, _config=None):
    """``randn(shape) * sqrt(6 / (fan_in + fan_out))`` with fan_out = shape[0], fan_in = prod(shape[1:])."""
    fan_out = shape[0]
    fan_in = int(_onp.prod(shape[1:])) if len(shape) > 1 else 0
    return np.random.randn(*shape) * _onp.sqrt(6.0 / (fan_out + fan_in))


def gaussian(shape, config):
    config.setdefault("mu", 0.0)
    config.setdefault("stdvar", 0.001)
    return np.random.randn(*shape) * config["stdvar"] + config["mu"]


def constant(shape, config):
    config.setdefault("value", 0.0)
    return np.ones(shape) * config["value"]


def uniform(shape, config):
    config.setdefault("low", -0.1)
    config.setdefault("high", 0.1)
    return np.random.uniform(config["low"], config["high"], shape)


def custom(shape, config):
    func = config.setdefault("function", np.zeros)
    return func(shape)
