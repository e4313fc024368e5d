"""``mindspore.ops.operations._inner_ops``: the inner primitives MindSpore's own tests use (ConvertToDynamic)."""

from .._dynamic import ConvertToDynamic

__all__ = ["ConvertToDynamic"]
