"""``minpy.nn.model.ModelBase``: a model declares its parameters; the Solver initializes and trains them.

Example::

    class TwoLayerNet(ModelBase):
        def __init__(self):
            super().__init__()
            self.add_param("w1", (64, 32)).add_param("b1", (32,))
        def forward(self, X, mode):
            return layers.affine(X, self.params["w1"], self.params["b1"])
        def loss(self, predict, y):
            return layers.softmax_loss(predict, y)
"""

__all__ = ["ModelBase", "ParamsNameNotFoundError"]


class ParamsNameNotFoundError(ValueError):
    """A parameter name the model does not have."""


class ModelBase:
    """Parameters (``params``: name -> array, filled by ``Solver.init``) and their configs."""

    def __init__(self):
        self.params = {}
        self.param_configs = {}
        self.aux_params = {}
        self.aux_param_configs = {}

    def add_param(self, name, shape, **kwargs):
        """Declare a trainable parameter (``kwargs`` may set ``init_rule`` / ``init_config``); returns self."""
        if name in self.param_configs:
            raise ValueError(f"ModelBase.add_param: duplicate parameter name {name!r}")
        self.param_configs[name] = dict(kwargs, shape=tuple(shape))
        return self

    def add_params(self, param_dict):
        """Declare several parameters from ``{name: {'shape': ...}}`` (e.g. ``Function.get_params()``)."""
        for name, config in param_dict.items():
            if name in self.param_configs:
                raise ValueError(f"ModelBase.add_params: duplicate parameter name {name!r}")
            self.param_configs[name] = dict(config)
        return self

    def add_aux_param(self, name, value):
        if name in self.aux_param_configs:
            raise ValueError(f"ModelBase.add_aux_param: duplicate auxiliary parameter name {name!r}")
        self.aux_param_configs[name] = value
        return self

    def forward_batch(self, batch, mode):
        return self.forward(batch.data[0], mode)

    def loss_batch(self, batch, forward_outputs):
        return self.loss(forward_outputs, batch.label[0])

    def forward(self, X, mode):
        raise NotImplementedError(f"{type(self).__name__}.forward(X, mode) must be written by the model")

    def loss(self, predict, y):
        raise NotImplementedError(f"{type(self).__name__}.loss(predict, y) must be written by the model")
