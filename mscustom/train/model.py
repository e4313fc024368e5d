"""``Model``: the high-level training driver (``train``, ``eval``, ``predict``, ``fit``), as in MindSpore 2.x.

``Model(network, loss_fn, optimizer)`` trains ``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)``
on each row of a dataset (the columns are the cell's inputs: data, label);
with ``loss_fn=None`` the network must return the loss itself. ``eval``
runs ``WithEvalCell(network, loss_fn)`` (or ``eval_network``) and feeds the
metrics: ``Loss`` gets the loss, the others ``(outputs, label)``.

``amp_level``, ``loss_scale_manager`` and ``keep_batchnorm_fp32`` build the
training step with ``ms.amp.build_train_network``, as MindSpore does (a
manager with an update cell gives a ``TrainOneStepWithLossScaleCell`` that
skips overflowing steps; MindSpore's CPU target refuses that one).

Where this differs from MindSpore: every mode runs op by op, so
``dataset_sink_mode=True`` runs the same loop as False.

Example::

    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"accuracy"})
    model.train(2, train_data, callbacks=[LossMonitor(10)])
    print(model.eval(test_data))         # {'accuracy': 0.97}
"""

from ..nn.cell import Cell
from ..nn.eval_cell import WithEvalCell
from ..nn.optim import Optimizer
from ..nn.wrappers import TrainOneStepCell, WithLossCell
from ._progress import progress_bar
from .callback import CallbackList, CallbackParams, RunContext
from .metrics import Loss, Metric, get_metric_fn

__all__ = ["Model"]


def _metrics(metrics):
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for k, m in metrics.items():
            if not isinstance(m, Metric):
                raise TypeError(f"Model: metrics['{k}'] must be a Metric, got {type(m).__name__}")
        return dict(metrics)
    if isinstance(metrics, (set, list, tuple)):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"Model: metrics must be a dict name -> Metric or a set of metric names, got "
                    f"{type(metrics).__name__}")


def _check_dataset(dataset, who):
    if not hasattr(dataset, "create_tuple_iterator") or not hasattr(dataset, "get_dataset_size"):
        raise TypeError(f"Model.{who}: the dataset must be an mscustom.dataset Dataset (GeneratorDataset, "
                        f"NumpySlicesDataset, ...), got {type(dataset).__name__}")


def _check_epoch(epoch, initial_epoch, who):
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise ValueError(f"Model.{who}: epoch must be a positive int, got {epoch!r}")
    if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int) or not 0 <= initial_epoch < epoch:
        raise ValueError(f"Model.{who}: initial_epoch must be an int in [0, epoch), got {initial_epoch!r}")


class Model:
    """Train, evaluate and predict with a network, a loss, an optimizer and metrics."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"Model: optimizer must be an nn optimizer (SGD, Momentum, Adam, ...), got "
                            f"{type(optimizer).__name__}")
        amp_kwargs = {k: kwargs.pop(k) for k in ("loss_scale_manager", "keep_batchnorm_fp32") if k in kwargs}
        unsupported = sorted(k for k, v in kwargs.items() if v is not None)
        if unsupported:
            raise ValueError(f"Model: argument(s) {unsupported} are not supported here (loss scaling lives in "
                             "the optimizer's loss_scale)")
        if eval_indexes is not None and (not isinstance(eval_indexes, (list, tuple)) or len(eval_indexes) != 3):
            raise ValueError(f"Model: eval_indexes must be a list of 3 indexes (loss, outputs, label), got "
                             f"{eval_indexes!r}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_fns = _metrics(metrics)
        self._amp_level = amp_level
        self._train_network = None
        if optimizer is not None and (amp_level != "O0" or amp_kwargs):
            from ..amp import build_train_network
            self._train_network = build_train_network(network, optimizer, loss_fn, amp_level, boost_level,
                                                      **amp_kwargs)
            network.set_train(False)
        elif optimizer is not None:
            body = WithLossCell(network, loss_fn) if loss_fn is not None else network
            self._train_network = TrainOneStepCell(body, optimizer)
            network.set_train(False)                     # train() switches it on when it runs
        if eval_network is not None:
            if not isinstance(eval_network, Cell):
                raise TypeError(f"Model: eval_network must be a Cell, got {type(eval_network).__name__}")
            self._eval_network, self._eval_indexes = eval_network, eval_indexes
        elif loss_fn is not None:
            self._eval_network, self._eval_indexes = WithEvalCell(network, loss_fn), [0, 1, 2]
        else:
            self._eval_network, self._eval_indexes = None, None
        self._predict_network = network

    # ------------------------------------------------------------------ accessors
    @property
    def train_network(self):
        """The Cell one training step calls (``TrainOneStepCell``)."""
        return self._train_network

    @property
    def predict_network(self):
        return self._predict_network

    @property
    def eval_network(self):
        return self._eval_network

    # ------------------------------------------------------------------ training
    def _params(self, **extra):
        p = CallbackParams(network=self._network, train_network=self._train_network, loss_fn=self._loss_fn,
                           optimizer=self._optimizer, eval_network=self._eval_network, parallel_mode="stand_alone",
                           device_number=1, dataset_sink_mode=False, net_outputs=None, cur_epoch_num=0,
                           cur_step_num=0, metrics=self._metric_fns)
        p.update(extra)
        return p

    def _run_train(self, epoch, train_dataset, callbacks, initial_epoch, valid=None):
        if self._train_network is None:
            raise RuntimeError("Model.train: no optimizer was given to Model, so it cannot train; pass "
                               "optimizer=... (and loss_fn=..., unless the network returns the loss)")
        _check_epoch(epoch, initial_epoch, "train")
        _check_dataset(train_dataset, "train")
        cbs = CallbackList(callbacks)
        batch_num = train_dataset.get_dataset_size()
        cb_params = self._params(mode="train", epoch_num=epoch, batch_num=batch_num, train_dataset=train_dataset,
                                 list_callback=cbs, cur_epoch_num=initial_epoch,
                                 cur_step_num=initial_epoch * (batch_num or 0), eval_results=None,
                                 eval_this_epoch=False)
        run_context = RunContext(cb_params)
        iterator = train_dataset.create_tuple_iterator(num_epochs=epoch - initial_epoch)
        try:
            self._train_network.set_train(True)
            cbs.on_train_begin(run_context)
            for e in range(initial_epoch, epoch):
                cb_params.cur_epoch_num = e + 1
                cb_params.eval_this_epoch = False
                cbs.on_train_epoch_begin(run_context)
                bar = progress_bar(batch_num, f"epoch {e + 1}/{epoch}")
                try:
                    for row in iterator:
                        cb_params.train_dataset_element = row
                        cb_params.cur_step_num += 1
                        cbs.on_train_step_begin(run_context)
                        cb_params.net_outputs = self._train_network(*row)
                        cbs.on_train_step_end(run_context)
                        bar.step(cb_params.net_outputs)
                        if run_context.get_stop_requested():
                            break
                finally:
                    bar.close()
                if valid is not None and valid[1](e + 1):
                    cb_params.eval_results = self._run_eval(valid[0], cbs, cb_params)
                    cb_params.eval_this_epoch = True
                    self._train_network.set_train(True)
                cbs.on_train_epoch_end(run_context)
                if run_context.get_stop_requested():
                    break
            cbs.on_train_end(run_context)
        finally:
            iterator.stop()

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train for ``epoch`` epochs over ``train_dataset``, calling ``callbacks`` at each hook.

        Example::

            model.train(3, dataset, callbacks=[LossMonitor(per_print_times=20), TimeMonitor()])
        """
        self._run_train(epoch, train_dataset, callbacks, initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train, evaluating on ``valid_dataset`` every ``valid_frequency`` epochs (an int, or a list of
        epoch numbers); the results reach callbacks as ``cb_params.eval_results`` at epoch end.

        Example::

            model.fit(5, train_data, valid_data, callbacks=[LossMonitor(), History()])
        """
        valid = None
        if valid_dataset is not None:
            _check_dataset(valid_dataset, "fit")
            if not self._metric_fns:
                raise ValueError("Model.fit: valid_dataset needs metrics; pass metrics=... to Model")
            if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
                raise ValueError(f"Model.fit: valid_frequency must be an int or a list of epochs, got "
                                 f"{valid_frequency!r}")
            if isinstance(valid_frequency, int):
                if valid_frequency < 1:
                    raise ValueError(f"Model.fit: valid_frequency must be >= 1, got {valid_frequency}")
                due = lambda e, f=valid_frequency: e % f == 0          # noqa: E731
            else:
                epochs = set(valid_frequency)
                due = lambda e: e in epochs                            # noqa: E731
            valid = (valid_dataset, due)
        self._run_train(epoch, train_dataset, callbacks, initial_epoch, valid)

    # ------------------------------------------------------------------ evaluation
    def _update_metrics(self, outputs):
        if not isinstance(outputs, (tuple, list)):
            outputs = (outputs,)
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def _run_eval(self, valid_dataset, cbs, train_params=None):
        if not self._metric_fns:
            raise ValueError("Model.eval: no metrics were given to Model; pass metrics={'accuracy'} or a dict "
                             "name -> Metric")
        if self._eval_network is None:
            raise ValueError("Model.eval: evaluation needs loss_fn or eval_network; pass one to Model")
        _check_dataset(valid_dataset, "eval")
        cb_params = self._params(mode="eval", batch_num=valid_dataset.get_dataset_size(), valid_dataset=valid_dataset,
                                 list_callback=cbs, cur_epoch_num=train_params.cur_epoch_num if train_params else 1)
        run_context = RunContext(cb_params)
        for m in self._metric_fns.values():
            m.clear()
        self._eval_network.set_train(False)
        cbs.on_eval_begin(run_context)
        cbs.on_eval_epoch_begin(run_context)
        iterator = valid_dataset.create_tuple_iterator(num_epochs=1)
        try:
            for row in iterator:
                cb_params.cur_step_num += 1
                cbs.on_eval_step_begin(run_context)
                outputs = self._eval_network(*row)
                cb_params.net_outputs = outputs
                self._update_metrics(outputs)
                cbs.on_eval_step_end(run_context)
                if run_context.get_stop_requested():
                    break
        finally:
            iterator.stop()
        results = {name: m.eval() for name, m in self._metric_fns.items()}
        cb_params.metrics = results
        cbs.on_eval_epoch_end(run_context)
        cbs.on_eval_end(run_context)
        return results

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run the evaluation network over one epoch of ``valid_dataset``; a dict metric name -> value.

        Example::

            print(model.eval(test_data))         # {'accuracy': 0.97, 'loss': 0.11}
        """
        return self._run_eval(valid_dataset, CallbackList(callbacks))

    # ------------------------------------------------------------------ inference
    def predict(self, *predict_data, backend=None, config=None):
        """The network's output on ``predict_data`` (Tensors), in inference mode.

        Example::

            logits = model.predict(ms.Tensor(x))
        """
        self._predict_network.set_train(False)
        return self._predict_network(*predict_data)
