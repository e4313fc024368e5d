"""``mindspore.ops.operations._ms_kernel``: the Hybrid DSL decorators ``kernel`` and ``ms_kernel``.

They are looked up on first use, so importing the ops does not import the hybrid DSL.
"""

from ..._lazy import lazy_attrs as _lazy_attrs

__all__ = ["kernel", "ms_kernel"]

__getattr__, __dir__ = _lazy_attrs(__package__.rsplit(".", 1)[0] + ".custom.hybrid", globals(), {
    "kernel": ".dsl:kernel", "ms_kernel": ".dsl:ms_kernel"})
