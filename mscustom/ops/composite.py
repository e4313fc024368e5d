"""``mindspore.ops.composite``: ``GradOperation`` (``import mindspore.ops.composite as C``)."""

from ..autograd import GradOperation

__all__ = ["GradOperation"]
