"""Gluon's ``Activation`` block (its own module: the layer modules that take ``activation=`` build one)."""

from .block import HybridBlock

__all__ = ["Activation"]


class Activation(HybridBlock):
    """``F.Activation(x, act_type=activation)``: 'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type)

    def __repr__(self):
        return f"Activation({self._act_type})"
