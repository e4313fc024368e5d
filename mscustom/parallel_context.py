"""MindSpore's auto-parallel context: ``set_auto_parallel_context`` / ``get_...`` / ``reset_...``.

Only the data-parallel part acts here: ``parallel_mode=ParallelMode.DATA_PARALLEL``
makes ``nn.TrainOneStepCell`` (and so ``Model.train``) all-reduce the gradients
through ``nn.DistributedGradReducer``; ``gradients_mean`` divides them by the
number of ranks; ``device_num`` (default: the world's size once ``init()`` ran)
is that divisor; ``parameter_broadcast=True`` copies rank 0's parameters to
every rank when the training cell is built. The other MindSpore keys are
accepted and stored with MindSpore's defaults (nothing here shards operators).

Example::

    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
"""

import copy

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context"]


class ParallelMode:
    """The parallel modes (MindSpore's names and values)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_DEFAULTS = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 1,
    "global_rank": 0,
    "parameter_broadcast": False,
    "gradient_fp32_sync": True,
    "full_batch": False,
    "enable_parallel_optimizer": False,
    "search_mode": "recursive_programming",
    "all_reduce_fusion_config": [],
    "loss_repeated_mean": True,
}
_BOOL_KEYS = ("gradients_mean", "parameter_broadcast", "gradient_fp32_sync", "full_batch",
              "enable_parallel_optimizer", "loss_repeated_mean")
_values = copy.deepcopy(_DEFAULTS)
_explicit = set()


def set_auto_parallel_context(**kwargs):
    """Set auto-parallel keys (MindSpore's names, checks and messages)."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        if key == "parallel_mode":
            if value not in ParallelMode.MODE_LIST:
                raise ValueError("The context configuration parameter 'parallel_mode' only support 'stand_alone', "
                                 "'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' and 'auto_parallel', "
                                 f"but got the value : {value}.")
        elif key in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise TypeError(f"The parameter '{key}' must be {bool}, but got {type(value)}")
        elif key == "device_num":
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError("The context configuration parameter 'device_num' must be a positive integer, "
                                 f"but got the value of device_num : {value}.")
        elif key == "global_rank":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 4095:
                raise ValueError("The context configuration parameter 'global_rank' must be in [0, 4095], "
                                 f"but got the value of global_rank : {value}.")
    for key, value in kwargs.items():
        _values[key] = copy.deepcopy(value)
        _explicit.add(key)


def get_auto_parallel_context(attr_key):
    """The value of one auto-parallel key."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return copy.deepcopy(_values[attr_key])


def reset_auto_parallel_context():
    """Every key back to its default."""
    _values.clear()
    _values.update(copy.deepcopy(_DEFAULTS))
    _explicit.clear()


def data_parallel():
    """True in DATA_PARALLEL or HYBRID_PARALLEL mode (where MindSpore's training cells reduce gradients)."""
    return _values["parallel_mode"] in (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL)


def device_num(default):
    """``device_num`` when the user set it, else ``default`` (the group's size)."""
    return _values["device_num"] if "device_num" in _explicit else default
