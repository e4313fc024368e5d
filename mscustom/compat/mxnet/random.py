"""``mx.random``: ``seed``, ``uniform``, ``normal``, ``randint`` (also as ``mx.nd.random``).

One NumPy generator serves every draw here and in ``mx.init``; ``seed(s)``
makes them repeatable.

Example::

    mx.random.seed(7)
    mx.nd.random.uniform(-1, 1, shape=(2, 3))
"""

import numpy as np

from ._ndarray import wrap
from .context import current_context

__all__ = ["seed", "uniform", "normal", "randn", "randint", "generator"]

_GEN = [np.random.default_rng()]


def generator():
    """The NumPy generator behind ``mx.random`` and ``mx.init``."""
    return _GEN[0]


def seed(seed_state, ctx="all"):
    """Seed the generator (``ctx`` is accepted for MXNet's signature)."""
    if not isinstance(seed_state, (int, np.integer)):
        raise ValueError(f"mx.random.seed: seed_state must be an int, got {seed_state!r}")
    _GEN[0] = np.random.default_rng(int(seed_state))


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape or (1,))


def uniform(low=0.0, high=1.0, shape=(1,), dtype=None, ctx=None, **kwargs):
    """Samples from U[low, high)."""
    a = generator().uniform(low, high, _shape(shape)).astype(dtype or np.float32)
    return wrap(a, ctx=ctx or current_context())


def normal(loc=0.0, scale=1.0, shape=(1,), dtype=None, ctx=None, **kwargs):
    """Samples from N(loc, scale**2)."""
    a = generator().normal(loc, scale, _shape(shape)).astype(dtype or np.float32)
    return wrap(a, ctx=ctx or current_context())


def randn(*shape, loc=0.0, scale=1.0, dtype=None, ctx=None):
    return normal(loc, scale, shape, dtype, ctx)


def randint(low, high, shape=(1,), dtype=None, ctx=None, **kwargs):
    a = generator().integers(low, high, _shape(shape)).astype(dtype or np.int32)
    return wrap(a, ctx=ctx or current_context())
