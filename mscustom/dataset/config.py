"""Pipeline settings, as ``mindspore.dataset.config``: the shuffle seed and the prefetch depth.

Example::

    import mscustom.dataset as ds
    ds.config.set_seed(58)            # reproducible shuffles
    ds.config.set_prefetch_size(4)    # rows (or batches) loaded ahead of the consumer
"""

import random

import numpy as np

__all__ = ["set_seed", "get_seed", "set_prefetch_size", "get_prefetch_size"]

_STATE = {"seed": None, "prefetch_size": 16}


def set_seed(seed):
    """Seed every shuffle of the pipeline (epoch ``e`` of a node draws from ``(seed, e, node)``, where
    ``node`` is the node's place in its own pipeline: the same seed gives the same order), and, as in
    MindSpore, Python's ``random`` and ``numpy.random``."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"dataset.config.set_seed: seed must be an int, got {type(seed).__name__} {seed!r}")
    if not 0 <= seed < 2 ** 32:
        raise ValueError(f"dataset.config.set_seed: seed must be an int in [0, 2**32), got {seed!r}")
    _STATE["seed"] = int(seed)
    random.seed(int(seed))
    np.random.seed(int(seed))


def get_seed():
    """The seed given to ``set_seed``, or None when shuffles draw fresh entropy."""
    return _STATE["seed"]


def set_prefetch_size(size):
    """How many rows (or batches) the background loader may hold ahead of the consumer (default 16)."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"dataset.config.set_prefetch_size: size must be a positive int, got {size!r}")
    _STATE["prefetch_size"] = int(size)


def get_prefetch_size():
    """The prefetch depth (rows or batches held ahead of the consumer)."""
    return _STATE["prefetch_size"]


def rng_for(node_id, epoch):
    """The random generator one pipeline node uses in one epoch."""
    seed = _STATE["seed"]
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng([seed, epoch, node_id])
