"""Execution context: mode (PYNATIVE/GRAPH) and device target.

``set_context`` and ``set_device`` change process-wide settings, as in
MindSpore. GRAPH_MODE is accepted and gives the same results as PYNATIVE_MODE:
every op runs eagerly in both (graph compilation does not exist yet).
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


def set_context(**kwargs):
    """Set ``mode`` (GRAPH_MODE or PYNATIVE_MODE), ``device_target`` and ``device_id``.

    Example::

        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    """
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
        else:
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
