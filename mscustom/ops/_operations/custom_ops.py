"""``mindspore.ops.operations.custom_ops``: where MindSpore defines ``Custom``."""

from ..custom import Custom

__all__ = ["Custom"]
