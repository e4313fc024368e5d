"""``mindspore.ops.primitive``: the primitive base classes and ``prim_attr_register``."""

from .operations import Primitive, PrimitiveWithCheck, PrimitiveWithInfer, prim_attr_register

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register"]
