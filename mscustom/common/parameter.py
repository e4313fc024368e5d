"""``mindspore.common.parameter``: ``Parameter`` and ``ParameterTuple``."""

from ..tensor import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]
