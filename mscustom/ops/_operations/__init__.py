"""Modules that MindSpore keeps under ``mindspore.ops.operations.<name>``, installed as
``mscustom.ops.operations.<name>`` (``operations`` is a module here, so ``install`` registers them in
``sys.modules`` and as its attributes): ``_inner_ops`` (ConvertToDynamic), ``custom_ops`` (Custom) and
``_ms_kernel`` (kernel, ms_kernel), the private paths MindSpore's own Custom-op tests import.

Example::

    from mscustom.ops.operations import _inner_ops as inner
    x = inner.ConvertToDynamic(is_dynamic_rank=True)(x)
"""

import importlib
import sys

__all__ = ["install"]

_NAMES = ("_inner_ops", "custom_ops", "_ms_kernel")


def install(operations):
    """Make each module importable as ``<operations.__name__>.<name>`` and reachable as an attribute."""
    for name in _NAMES:
        module = importlib.import_module(f"{__name__}.{name}")
        sys.modules[f"{operations.__name__}.{name}"] = module
        setattr(operations, name, module)
