"""``mindspore.ops.operations._ms_kernel``: the Hybrid DSL decorators ``kernel`` and ``ms_kernel``."""

from ..custom.hybrid import kernel, ms_kernel

__all__ = ["kernel", "ms_kernel"]
