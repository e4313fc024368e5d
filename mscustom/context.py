"""Execution context: mode (PYNATIVE/GRAPH) and device target.

``set_context`` and ``set_device`` change process-wide settings, as in
MindSpore. In GRAPH_MODE every top-level Cell call (and every gradient
function's call) is captured once per input signature and replayed after
(``mscustom/graph.py``, docs/graph_mode.md); results are the same as in
PYNATIVE_MODE.
"""

PYNATIVE_MODE = 1
GRAPH_MODE = 0

TARGETS = ("CPU", "GPU", "Ascend")      # the one table of device targets


def target_suffix(target):
    """The attribute-key suffix of a target: "CPU" -> "<cpu>" (as in ``FCompute<cpu>``)."""
    return f"<{target.lower()}>"

_settings = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0}
_listeners = []


def on_change(callback):
    """Call ``callback()`` whenever the device target changes (the dispatcher drops its plans)."""
    _listeners.append(callback)


def _set_target(target):
    target = _check_target(target)
    if target != _settings["device_target"]:
        _settings["device_target"] = target
        for callback in _listeners:
            callback()


def _check_target(target):
    if not isinstance(target, str):
        raise TypeError(f"set_context: device_target must be a string, got {type(target).__name__}")
    canonical = {t.lower(): t for t in TARGETS}.get(target.lower())
    if canonical is None:
        raise ValueError(f"set_context: device_target must be one of {list(TARGETS)}, got {target!r}")
    return canonical


# MindSpore 2.x set_context keys that mean nothing here (graph compilation, device memory, dumps, Ascend
# tuning): accepted so that scripts run unchanged, stored for get_context, and otherwise ignored.
_IGNORED_KEYS = frozenset({
    "save_graphs", "save_graphs_path", "enable_dump", "save_dump_path", "deterministic", "print_file_path",
    "env_config_path", "precompile_only", "reserve_class_name_in_scope", "pynative_synchronize", "debug_level",
    "max_device_memory", "variable_memory_max_size", "mempool_block_size", "op_timeout", "enable_graph_kernel",
    "graph_kernel_flags", "enable_reduce_precision", "aoe_tune_mode", "aoe_config", "check_bprop",
    "max_call_depth", "grad_for_scalar", "enable_compile_cache", "compile_cache_path", "inter_op_parallel_num",
    "runtime_num_threads", "disable_format_transform", "support_binary", "memory_optimize_level",
    "memory_offload", "ascend_config", "gpu_config", "jit_syntax_level", "jit_config", "jit_level",
    "infer_boost", "auto_tune_mode", "enable_auto_mixed_precision", "enable_sparse", "exec_order",
})
_KEYS = frozenset({"mode", "device_target", "device_id", "debug"}) | _IGNORED_KEYS


def _check_ignored(key, value):
    """Type checks for the accepted-and-ignored keys whose documented type is simple."""
    if key in ("pynative_synchronize", "enable_graph_kernel", "check_bprop", "grad_for_scalar",
               "enable_compile_cache", "enable_reduce_precision", "precompile_only", "enable_dump",
               "reserve_class_name_in_scope", "support_binary") and not isinstance(value, bool):
        raise TypeError(f"set_context: {key} must be a bool, got {type(value).__name__}")
    if key in ("max_call_depth", "runtime_num_threads", "inter_op_parallel_num", "op_timeout") and \
            (isinstance(value, bool) or not isinstance(value, int) or value < 0 or
             (key == "max_call_depth" and value == 0)):
        raise ValueError(f"set_context: {key} must be a {'positive' if key == 'max_call_depth' else 'non-negative'}"
                         f" int, got {value!r}")
    if key == "save_graphs" and (not isinstance(value, (bool, int)) or not 0 <= int(value) <= 3):
        raise ValueError(f"set_context: save_graphs must be a bool or an int in [0, 3], got {value!r}")


def set_context(**kwargs):
    """Set ``mode`` (GRAPH_MODE or PYNATIVE_MODE), ``device_target``, ``device_id`` and ``debug``.

    ``debug=True`` (mscustom's own key, like ``MSCUSTOM_DEBUG=1``) turns on the
    bounds checks and guard zones of custom kernels bound after it is set.

    The other keys MindSpore 2.x documents (``save_graphs``, ``max_call_depth``,
    ``pynative_synchronize``, ``max_device_memory``, ``jit_config``, ... - see
    ``_IGNORED_KEYS``) are accepted and stored so ``get_context`` returns them,
    but have no effect: ops run eagerly on the host, with no graph, dump or
    device-memory settings to apply. Any other key is an error naming it.

    Example::

        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    """
    unknown = sorted(k for k in kwargs if k not in _KEYS)
    if unknown:
        raise ValueError(f"set_context: unknown key(s) {unknown}; the accepted keys are {sorted(_KEYS)}")
    for key, value in kwargs.items():
        if key == "mode":
            if value not in (PYNATIVE_MODE, GRAPH_MODE):
                raise ValueError(f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), got {value!r}")
            _settings["mode"] = value
        elif key == "device_target":
            _set_target(value)
        elif key == "device_id":
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"set_context: device_id must be a non-negative int, got {value!r}")
            _settings["device_id"] = value
        elif key == "debug":
            if not isinstance(value, bool):
                raise ValueError(f"set_context: debug must be True or False, got {value!r}")
            _settings["debug"] = value
        elif key == "runtime_num_threads":
            _check_ignored(key, value)
            from . import _threads
            _threads.set_num_threads(value or None, "set_context")
            _settings[key] = value
        else:
            _check_ignored(key, value)
            _settings[key] = value


def set_device(device_target, device_id=None):
    """Choose the device target ("CPU", "GPU" or "Ascend") that kernel selection uses."""
    _set_target(device_target)
    if device_id is not None:
        set_context(device_id=device_id)


def get_context(key):
    """Return one setting (``"mode"``, ``"device_target"``, ``"device_id"``, ...)."""
    if key not in _settings:
        raise ValueError(f"get_context: unknown key {key!r}; known keys are {sorted(_settings)}")
    return _settings[key]


def device_target():
    """The current device target; read on every op call, so kept trivial."""
    return _settings["device_target"]


DEBUG_ENV = "MSCUSTOM_DEBUG"


def debug_enabled():
    """Whether debug checks are on: ``MSCUSTOM_DEBUG=1`` in the environment or ``set_context(debug=True)``.

    In debug mode jit kernels are compiled with bounds checking, and jit and
    CPU aot outputs are surrounded by guard zones checked after every call. Read when a
    kernel is bound for a signature, not on every call.
    """
    if _settings.get("debug"):
        return True
    import os
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")
