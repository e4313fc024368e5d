"""``gluon.Trainer``: an optimizer applied to a set of Parameters, ``step(batch_size)``.

As MXNet 1.9.1 on one device: the optimizer (``'sgd'``, ``'adam'`` or an
``mx.optimizer.Optimizer``) is made with ``optimizer_params`` and
``rescale_grad`` (1 by default); ``step(batch_size)`` sets the optimizer's
``rescale_grad`` to ``rescale_grad / batch_size`` and updates every Parameter
whose ``grad_req`` is not ``'null'``, with its ``lr_mult`` / ``wd_mult`` (weight
decay applies to every Parameter, biases included, as in Gluon). A Parameter
whose gradient no backward wrote since the last step is an error, or skipped
with ``ignore_stale_grad=True``. ``kvstore`` is accepted and has no effect
(one process, one device).

Example::

    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(x.shape[0])
"""

from .. import optimizer as _opt
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer:
    """Applies ``optimizer`` to ``params`` (a ParameterDict, a dict or a list of Parameters)."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"First argument must be a list or dict of Parameters, got {type(params)}.")
        self._params = []
        for p in params:
            if not isinstance(p, Parameter):
                raise ValueError(f"First argument must be a list or dict of Parameters, got list of {type(p)}.")
            if any(p is q for q in self._params):
                raise ValueError(f"Trainer: Parameter '{p.name}' is given twice")
            self._params.append(p)
        optimizer_params = dict(optimizer_params or {})
        self._scale = float(optimizer_params.get("rescale_grad", 1.0))
        if isinstance(optimizer, _opt.Optimizer):
            if optimizer_params:
                raise ValueError("optimizer_params must be None if optimizer is an instance of Optimizer instead "
                                 "of str")
            self._optimizer = optimizer
        else:
            self._optimizer = _opt.create(optimizer, **optimizer_params)
        for i, p in enumerate(self._params):
            self._optimizer.lr_mult[i] = p.lr_mult
            self._optimizer.wd_mult[i] = p.wd_mult
        self._updater = _opt.get_updater(self._optimizer)
        self._kvstore = kvstore

    @property
    def learning_rate(self):
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        return self._optimizer

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    def allreduce_grads(self):
        """Nothing to reduce on one device."""

    def step(self, batch_size, ignore_stale_grad=False):
        """One update of every Parameter with gradients scaled by ``1 / batch_size``."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self.update(batch_size, ignore_stale_grad, _rescaled=True)

    def update(self, batch_size, ignore_stale_grad=False, _rescaled=False):
        """The update half of ``step`` (``allreduce_grads`` is a no-op here)."""
        if not _rescaled:
            self._optimizer.rescale_grad = self._scale / batch_size
        todo = []
        for i, p in enumerate(self._params):
            if p.grad_req == "null":
                continue
            data = p.data()
            if not data._fresh_grad:
                if ignore_stale_grad:
                    continue
                raise UserWarning(f"Gradient of Parameter `{p.name}` on context {p.list_ctx()[0]} has not been "
                                  "updated by backward since last `step`. This could mean a bug in your model that "
                                  "made it only use a subset of the Parameters (Blocks) for this iteration. If you "
                                  "are intentionally only using a subset, call step with ignore_stale_grad=True to "
                                  "suppress this warning and skip updating of Parameters with stale gradient")
            todo.append((i, p, data))
        for i, p, data in todo:
            self._updater(i, p.grad(), data)
            data._fresh_grad = False
