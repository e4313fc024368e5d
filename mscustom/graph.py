"""``ms.jit``: MindSpore's decorator for compiling a function or a Cell's ``construct``.

Today it accepts MindSpore's whole signature and runs the decorated function
as it is (eagerly, exactly as in PYNATIVE_MODE), so programs written for
MindSpore's graph mode run unchanged and give the same results; capturing
and replaying whole steps is the graph-mode work still to come.

Example::

    @ms.jit
    def step(x):
        return ops.relu(x) * 2
"""

import functools

__all__ = ["jit"]

_CAPTURE_MODES = ("ast", "bytecode", "trace")


def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False, backend="",
        jit_config=None, input_signature=None, **options):
    """Mark ``function`` for graph compilation (MindSpore's ``mindspore.jit``).

    Usable as ``@jit`` or ``@jit(capture_mode=..., ...)``; the older
    ``jit_config`` / ``input_signature`` arguments are accepted too.
    """
    if capture_mode not in _CAPTURE_MODES:
        raise ValueError(f"jit: capture_mode must be one of {list(_CAPTURE_MODES)}, got {capture_mode!r}")
    if jit_level not in (None, "O0", "O1", "O2"):
        raise ValueError(f"jit: jit_level must be None, 'O0', 'O1' or 'O2', got {jit_level!r}")

    def decorate(fn):
        if not callable(fn):
            raise TypeError(f"jit: expected a function or a Cell method, got {type(fn).__name__}")

        @functools.wraps(fn)
        def compiled(*args, **kwargs):
            return fn(*args, **kwargs)

        compiled.__wrapped_by_jit__ = True
        return compiled

    return decorate if function is None else decorate(function)
