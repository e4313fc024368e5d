"""Gradient Cells with MindSpore's names: ``WithGradCell`` (weight gradients of a loss),
``ForwardValueAndGrad`` (the network's output and its gradients) and ``ParameterUpdate``
(assign a value to a Parameter).

Example::

    grads = nn.WithGradCell(net, nn.MSELoss())(x, y)          # one gradient per trainable weight
    loss, grads = nn.ForwardValueAndGrad(net_with_loss, weights=net.trainable_params(), get_by_list=True)(x, y)
"""

from ..autograd import _check_weights, _run
from ..tensor import Parameter, Tensor
from .cell import Cell
from .wrappers import WithLossCell

__all__ = ["WithGradCell", "ForwardValueAndGrad", "ParameterUpdate"]


class WithGradCell(Cell):
    """The gradients of ``loss_fn(network(data), label)`` (or of ``network``'s output when ``loss_fn`` is None)
    for ``network``'s trainable parameters, as a tuple. ``sens``: the output's sensitivity (default ones)."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"WithGradCell: network must be a Cell, got {type(network).__name__}")
        self.network, self.loss_fn, self.sens = network, loss_fn, sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()
        self.weights = tuple(network.trainable_params())

    def construct(self, *inputs):
        net = self.network_with_loss
        weights = _check_weights(net, self.weights)
        _, _, grads = _run(lambda *a: net(*a), inputs, (), weights, False, self.sens)
        return grads


class ForwardValueAndGrad(Cell):
    """``(network(*inputs), gradients)``.

    The gradients are those of the first input (default), of every input (``get_all``), of
    ``weights`` (``get_by_list``), or ``(inputs' gradients, weights' gradients)`` with both.
    ``sens_param=True``: the last call argument is the output's sensitivity.
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"ForwardValueAndGrad: network must be a Cell, got {type(network).__name__}")
        if get_by_list and weights is None:
            raise TypeError("ForwardValueAndGrad: weights must be given when get_by_list is True")
        self.network = network
        self.weights = tuple(weights) if weights is not None else None
        self.get_all, self.get_by_list, self.sens_param = bool(get_all), bool(get_by_list), bool(sens_param)

    def construct(self, *inputs):
        sens = None
        if self.sens_param:
            if not inputs:
                raise ValueError("ForwardValueAndGrad: sens_param is True, the last input must be the sensitivity")
            inputs, sens = inputs[:-1], inputs[-1]
        net = self.network
        weights = _check_weights(net, self.weights) if self.get_by_list else ()
        if self.get_all:
            positions = tuple(range(len(inputs)))
        elif self.get_by_list:
            positions = ()
        else:
            if not inputs:
                raise ValueError("ForwardValueAndGrad: no input to differentiate")
            positions = (0,)
        out, pg, wg = _run(lambda *a: net(*a), inputs, positions, weights, False, sens)
        if self.get_all and self.get_by_list:
            return out, (tuple(pg), wg)
        if self.get_by_list:
            return out, wg
        return out, (tuple(pg) if self.get_all else pg[0])


class ParameterUpdate(Cell):
    """``construct(x)`` assigns ``x`` to ``param`` (same shape) and returns ``x``."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate: param must be a Parameter, got {type(param).__name__}")
        self._param = param

    def __call__(self, x):
        return self.construct(x)             # an assignment: eager also in GRAPH_MODE, so that every call assigns

    def construct(self, x):
        if not isinstance(x, Tensor) or tuple(x.shape) != tuple(self._param.shape):
            raise ValueError(f"ParameterUpdate: x must be a Tensor of shape {list(self._param.shape)}, got "
                             f"{list(getattr(x, 'shape', [type(x).__name__]))}")
        self._param.set_data(Tensor(x._data.astype(self._param._data.dtype, copy=True)))
        return x
