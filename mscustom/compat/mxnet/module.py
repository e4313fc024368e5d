"""``mx.mod.Module``: bind a symbol, initialize and train its parameters, score and predict.

MXNet 1.x's ``Module`` on one context: ``bind`` makes an ``Executor``
(``simple_bind``; data and labels get no gradient unless ``inputs_need_grad``),
``init_params`` runs an ``mx.init`` initializer by name (``Uniform(0.01)`` by
default), ``init_optimizer`` makes an ``mx.optimizer`` (``rescale_grad``
defaults to ``1 / batch_size`` as in MXNet), and ``fit`` runs the epochs with
metrics and callbacks. A batch whose size differs from the bound one rebinds
(sharing the parameters).

Example::

    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(train_iter, eval_data=val_iter, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1}, num_epoch=5)
    mod.score(val_iter, "acc")
"""

import logging
import time

import numpy as np

from . import initializer as _init
from . import metric as _metric
from . import model as _model
from . import optimizer as _opt
from .base import MXNetError
from .context import Context, cpu
from .io import DataDesc
from ._ndarray import wrap

__all__ = ["Module", "BaseModule"]


def _descs(shapes):
    if shapes is None:
        return []
    return [s if isinstance(s, DataDesc) else DataDesc(*s) for s in shapes]


class Module:
    """A symbol with its parameters, bound to one context, trained with an optimizer."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        ctx = context if context is not None else cpu()
        if isinstance(ctx, (list, tuple)):
            if len(ctx) != 1:
                raise MXNetError(f"Module: one context is supported here, got {ctx} (no multi-device training)")
            ctx = ctx[0]
        if not isinstance(ctx, Context):
            raise TypeError(f"Module: context must be an mx.Context, got {type(ctx).__name__}")
        self._symbol, self._context, self.logger = symbol, ctx, logger
        self._data_names = list(data_names or [])
        args = symbol.list_arguments()
        self._label_names = [n for n in (label_names or []) if n in args]
        for n in self._data_names:
            if n not in args:
                raise ValueError(f"Module: data name {n!r} is not an argument of the symbol; arguments are {args}")
        self._fixed = set(fixed_param_names or [])
        self._param_names = [n for n in args if n not in self._data_names and n not in self._label_names]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._exec = None
        self._arg_params = self._aux_params = None
        self.binded = self.params_initialized = self.optimizer_initialized = False
        self.for_training = False
        self.inputs_need_grad = False
        self._data_shapes = self._label_shapes = None
        self._optimizer = self._updater = None
        self._grad_req = "write"

    # ------------------------------------------------------------ properties
    @property
    def symbol(self):
        return self._symbol

    @property
    def data_names(self):
        return list(self._data_names)

    @property
    def label_names(self):
        return list(self._label_names)

    @property
    def output_names(self):
        return list(self._output_names)

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        shapes = {d.name: d.shape for d in self._data_shapes + (self._label_shapes or [])}
        return list(zip(self._output_names, self._symbol.infer_shape(**shapes)[1]))

    # ------------------------------------------------------------ bind and parameters
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Allocate the executor for these input shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self._data_shapes, self._label_shapes = _descs(data_shapes), _descs(label_shapes)
        self.for_training, self.inputs_need_grad, self._grad_req = for_training, inputs_need_grad, grad_req
        old = self._exec
        reqs = {}
        for n in self._symbol.list_arguments():
            if n in self._data_names:
                reqs[n] = grad_req if inputs_need_grad and for_training else "null"
            elif n in self._label_names or n in self._fixed or not for_training:
                reqs[n] = "null"
            else:
                reqs[n] = grad_req
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        types = {d.name: d.dtype for d in self._data_shapes + self._label_shapes}
        self._exec = self._symbol.simple_bind(self._context, grad_req=reqs, type_dict=types, **shapes)
        self.binded = True
        source = shared_module._exec if shared_module is not None else old
        if source is not None:
            self._exec.copy_params_from({n: a for n, a in source.arg_dict.items() if n in self._param_names},
                                        source.aux_dict)
        elif self.params_initialized:
            self._exec.copy_params_from(self._arg_params, self._aux_params)

    def _rebind_for(self, batch):
        shapes = [a.shape for a in batch.data]
        if shapes == [d.shape for d in self._data_shapes]:
            return
        data = [DataDesc(d.name, s) for d, s in zip(self._data_shapes, shapes)]
        label = [DataDesc(d.name, a.shape) for d, a in zip(self._label_shapes, batch.label or [])]
        self.bind(data, label or None, self.for_training, self.inputs_need_grad, force_rebind=True,
                  grad_req=self._grad_req)

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialize parameters: from ``arg_params`` / ``aux_params`` where given, else the initializer."""
        if self.params_initialized and not force_init:
            return
        if not self.binded:
            raise MXNetError("Module.init_params: call bind() first")
        initializer = _init.Uniform(0.01) if initializer is None else initializer
        args, aux = self._exec.arg_dict, self._exec.aux_dict
        for names, given, arrays in ((self._param_names, arg_params, args), (self._aux_names, aux_params, aux)):
            for n in names:
                if given is not None and n in given:
                    v = given[n]
                    val = v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)
                    if val.shape != arrays[n].shape:
                        raise MXNetError(f"Module.init_params: '{n}' has shape {arrays[n].shape}, the given value "
                                         f"{val.shape}")
                    arrays[n][:] = val
                elif given is not None and not allow_missing:
                    raise MXNetError(f"Module.init_params: {n!r} is missing from the given parameters "
                                     "(pass allow_missing=True to initialize it)")
                else:
                    initializer(_init.InitDesc(n), arrays[n])
            if given is not None and not allow_extra:
                extra = [k for k in given if k not in names]
                if extra:
                    raise MXNetError(f"Module.init_params: unknown parameter(s) {extra} (allow_extra=True to ignore)")
        self.params_initialized = True
        self._sync_params()

    def _sync_params(self):
        self._arg_params = {n: wrap(self._exec.arg_dict[n].asnumpy()) for n in self._param_names}
        self._aux_params = {n: wrap(a.asnumpy()) for n, a in self._exec.aux_dict.items()}

    def get_params(self):
        """``(arg_params, aux_params)``: copies of the current parameters."""
        if not self.params_initialized:
            raise MXNetError("Module.get_params: parameters are not initialized (call init_params)")
        self._sync_params()
        return self._arg_params, self._aux_params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        self.init_params(None, arg_params, aux_params, allow_missing, force_init, allow_extra)

    # ------------------------------------------------------------ optimizer
    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """Make the optimizer; ``rescale_grad`` defaults to 1 / batch size, as in MXNet."""
        if self.optimizer_initialized and not force_init:
            return
        if kvstore not in (None, "local", "device"):
            raise MXNetError(f"Module.init_optimizer: kvstore {kvstore!r} is not supported here (one process, "
                             "one context); use 'local'")
        params = dict(optimizer_params)
        batch = self._data_shapes[0].shape[0]
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            params.setdefault("rescale_grad", 1.0 / batch)
            optimizer = _opt.create(optimizer, param_idx2name=idx2name, **params)
        self._optimizer = optimizer
        self._updater = _opt.get_updater(optimizer)
        self.optimizer_initialized = True

    # ------------------------------------------------------------ computation
    def forward(self, data_batch, is_train=None):
        if not (self.binded and self.params_initialized):
            raise MXNetError("Module.forward: call bind() and init_params() first")
        self._rebind_for(data_batch)
        is_train = self.for_training if is_train is None else is_train
        feed = dict(zip(self._data_names, data_batch.data))
        if data_batch.label is not None:
            feed.update(zip(self._label_names, data_batch.label))
        self._exec.forward(is_train=is_train, **feed)

    def backward(self, out_grads=None):
        self._exec.backward(out_grads)

    def update(self):
        if not self.optimizer_initialized:
            raise MXNetError("Module.update: call init_optimizer() first")
        grads, args = self._exec.grad_dict, self._exec.arg_dict
        for i, n in enumerate(self._param_names):
            if n in grads and n not in self._fixed:
                self._updater(i, grads[n], args[n])

    def forward_backward(self, data_batch):
        self.forward(data_batch, is_train=True)
        self.backward()

    def get_outputs(self, merge_multi_context=True):
        return list(self._exec.outputs)

    def get_input_grads(self, merge_multi_context=True):
        return [self._exec.grad_dict[n] for n in self._data_names]

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        eval_metric.update(labels, self.get_outputs())

    # ------------------------------------------------------------ loops
    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None):
        """Run ``eval_metric`` over ``eval_data``; returns its ``get_name_value()``."""
        eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(batch, is_train=False)
            outs = self.get_outputs()
            if batch.pad:
                keep = batch.data[0].shape[0] - batch.pad
                outs = [o[:keep] for o in outs]
                labels = [lab[:keep] for lab in batch.label]
            else:
                labels = batch.label
            eval_metric.update(labels, outs)
            for cb in _list(batch_end_callback):
                cb(_model.BatchEndParam(epoch, nbatch, eval_metric, locals()))
        return eval_metric.get_name_value()

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None):
        """The outputs over ``eval_data`` (padding removed), concatenated per output."""
        if reset:
            eval_data.reset()
        per_batch = []
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(batch, is_train=False)
            keep = batch.data[0].shape[0] - (batch.pad or 0)
            per_batch.append([o.asnumpy()[:keep] for o in self.get_outputs()])
        if not merge_batches:
            return [[wrap(o) for o in outs] for outs in per_batch]
        merged = [wrap(np.concatenate([b[i] for b in per_batch])) for i in range(len(per_batch[0]))] if per_batch else []
        return merged[0] if len(merged) == 1 and not always_output_list else merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None,
            kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None, aux_params=None,
            allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0, num_epoch=None,
            validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """Train for ``num_epoch`` epochs over ``train_data`` (MXNet's ``BaseModule.fit``)."""
        if num_epoch is None:
            raise ValueError("Module.fit: please specify number of epochs (num_epoch)")
        self.bind(train_data.provide_data, train_data.provide_label, for_training=True, force_rebind=force_rebind)
        self.init_params(initializer=_init.Uniform(0.01) if initializer is None else initializer,
                         arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        validation_metric = eval_metric if validation_metric is None else validation_metric
        eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            train_data.reset()
            for nbatch, batch in enumerate(train_data):
                self.forward_backward(batch)
                self.update()
                self.update_metric(eval_metric, batch.label)
                for cb in _list(batch_end_callback):
                    cb(_model.BatchEndParam(epoch, nbatch, eval_metric, locals()))
            for name, val in eval_metric.get_name_value():
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg, aux = self.get_params()
            for cb in _list(epoch_end_callback):
                cb(epoch, self._symbol, arg, aux)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric, batch_end_callback=eval_batch_end_callback,
                                 score_end_callback=eval_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)

    # ------------------------------------------------------------ checkpoints
    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        arg, aux = self.get_params()
        _model.save_checkpoint(prefix, epoch, self._symbol, arg, aux)

    def save_params(self, fname):
        from . import _params
        arg, aux = self.get_params()
        blob = {f"arg:{k}": v for k, v in arg.items()}
        blob.update({f"aux:{k}": v for k, v in aux.items()})
        _params.save(fname, blob)

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        sym, arg, aux = _model.load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._preloaded = (arg, aux)
        original = mod.init_params

        def init_params(initializer=None, arg_params=None, aux_params=None, **kw):
            original(initializer, arg_params if arg_params is not None else arg,
                     aux_params if aux_params is not None else aux, **kw)
        mod.init_params = init_params
        return mod


BaseModule = Module


def _list(cb):
    if cb is None:
        return []
    return cb if isinstance(cb, (list, tuple)) else [cb]
