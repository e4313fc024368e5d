"""Callbacks: ``Callback``, ``RunContext`` and the stock monitors, with MindSpore 2.x's hooks and output.

Model calls ``on_train_begin``, ``on_train_epoch_begin``, ``on_train_step_begin``,
``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end`` (and the
``on_eval_*`` ones in ``eval``). By default each calls the older hook of the
same moment (``begin``, ``epoch_begin``, ``step_begin``, ``step_end``,
``epoch_end``, ``end``), as in MindSpore, so either style works.

Example::

    class StopAtLoss(Callback):
        def on_train_step_end(self, run_context):
            cb_params = run_context.original_args()
            if float(cb_params.net_outputs) < 0.05:
                run_context.request_stop()
"""

import time
import warnings

import numpy as np

from ..tensor import Tensor

__all__ = ["Callback", "RunContext", "CallbackParams", "LossMonitor", "TimeMonitor", "History", "EarlyStopping"]


class CallbackParams(dict):
    """``run_context.original_args()``: a dict whose keys also read as attributes
    (``cb_params.cur_epoch_num``, ``cb_params.net_outputs``, ...)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"cb_params has no '{name}'; it holds {sorted(self)}") from None

    def __setattr__(self, name, value):
        self[name] = value


class RunContext:
    """What callbacks see of a run: ``original_args()`` and ``request_stop()``."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict, got {type(original_args).__name__}")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        """The run's parameters (a ``CallbackParams``)."""
        return self._original_args

    def request_stop(self):
        """Stop training after the current step (the epoch-end and end hooks still run)."""
        self._stop_requested = True

    def get_stop_requested(self):
        """Whether a callback asked to stop."""
        return self._stop_requested


class Callback:
    """Base class of training and evaluation callbacks; override the hooks you need."""

    def begin(self, run_context):
        """Called once before training (older name)."""

    def epoch_begin(self, run_context):
        """Called before each epoch (older name)."""

    def step_begin(self, run_context):
        """Called before each step (older name)."""

    def step_end(self, run_context):
        """Called after each step (older name)."""

    def epoch_end(self, run_context):
        """Called after each epoch (older name)."""

    def end(self, run_context):
        """Called once after training (older name)."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class CallbackList(Callback):
    """Several callbacks called in order, as one."""

    def __init__(self, callbacks):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        elif isinstance(callbacks, (list, tuple)):
            callbacks = list(callbacks)
        else:
            raise TypeError(f"callbacks must be a Callback or a list of them, got {type(callbacks).__name__}")
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks must be Callback instances, got {type(cb).__name__} among them")
        self.callbacks = callbacks

    def _each(hook):
        def call(self, run_context):
            for cb in self.callbacks:
                getattr(cb, hook)(run_context)
        call.__name__ = hook
        return call

    for _hook in ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
                  "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
                  "on_eval_step_begin", "on_eval_step_end", "on_eval_epoch_end", "on_eval_end"):
        locals()[_hook] = _each(_hook)
    del _hook, _each


def _loss_value(outputs):
    """The mean of the loss output (the first of a tuple), as a float; None when there is none."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs._data))
    if isinstance(outputs, (np.ndarray, np.generic, float, int)):
        return float(np.mean(outputs))
    return None


class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (0: never), S counted within
    the epoch; a NaN or infinite loss stops training with a ValueError. In ``Model.fit`` it also prints the
    evaluation results at the end of each evaluated epoch.

    Example::

        model.train(2, dataset, callbacks=[LossMonitor(per_print_times=10)])
    """

    def __init__(self, per_print_times=1):
        super().__init__()
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_begin(self, run_context):
        self._last_print_time = 0

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        loss = _loss_value(cb_params.net_outputs)
        batch_num = cb_params.get("batch_num") or 0
        cur_step_in_epoch = (cb_params.cur_step_num - 1) % batch_num + 1 if batch_num else cb_params.cur_step_num
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            raise ValueError(f"epoch: {cb_params.cur_epoch_num} step: {cur_step_in_epoch}. "
                             "Invalid loss, terminating training.")
        if self._per_print_times and cb_params.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {cb_params.cur_epoch_num} step: {cur_step_in_epoch}, loss is {loss}", flush=True)

    def on_eval_step_end(self, run_context):
        """Evaluation outputs are not training losses: nothing to print."""

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        results = cb_params.get("eval_results")
        if results is not None and cb_params.get("eval_this_epoch"):
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {results}", flush=True)


class TimeMonitor(Callback):
    """Print each epoch's wall time and the time per step:
    ``Train epoch time: 123.456 ms, per step time: 1.234 ms``.

    Example::

        model.train(2, dataset, callbacks=[TimeMonitor()])
    """

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int)
                                      or data_size <= 0):
            raise ValueError(f"TimeMonitor: data_size must be a positive int or None, got {data_size!r}")
        self.data_size = data_size
        self.data_time = bool(data_time)
        self.epoch_time = None
        self._steps = 0

    def epoch_begin(self, run_context):
        self.epoch_time = time.perf_counter()
        self._steps = 0

    def on_eval_begin(self, run_context):
        """Evaluation inside ``Model.fit`` keeps the training epoch's clock running."""

    def on_eval_epoch_begin(self, run_context):
        pass

    def on_eval_step_end(self, run_context):
        pass

    def on_eval_epoch_end(self, run_context):
        pass

    def on_eval_end(self, run_context):
        pass

    def step_end(self, run_context):
        self._steps += 1

    def epoch_end(self, run_context):
        if self.epoch_time is None:
            return
        ms_ = (time.perf_counter() - self.epoch_time) * 1000.0
        steps = self.data_size or self._steps or run_context.original_args().get("batch_num") or 1
        print(f"Train epoch time: {ms_:5.3f} ms, per step time: {ms_ / steps:5.3f} ms", flush=True)


class History(Callback):
    """Record each epoch's number in ``epoch`` and, in ``history``, the epoch's last loss
    (``"net_output"``) and any evaluation results of ``Model.fit`` (one list per metric).

    Example::

        history = History()
        model.fit(3, train_data, valid_data, callbacks=[history])
        print(history.epoch, history.history)
    """

    def __init__(self):
        super().__init__()
        self.epoch = []
        self.history = {}

    def on_train_begin(self, run_context):
        self.epoch = []
        self.history = {}

    def on_eval_begin(self, run_context):
        pass

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.get("mode", "train") != "train":
            return
        self.epoch.append(cb_params.cur_epoch_num)
        loss = _loss_value(cb_params.get("net_outputs"))
        if loss is not None:
            self.history.setdefault("net_output", []).append(loss)
        if cb_params.get("eval_this_epoch"):
            for k, v in (cb_params.get("eval_results") or {}).items():
                self.history.setdefault(k, []).append(v)


class EarlyStopping(Callback):
    """Stop training when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs.

    ``monitor`` is ``"loss"`` (the training loss) or a metric name from
    ``Model.fit``'s evaluation (``"eval_loss"`` reads the ``Loss`` metric,
    as in MindSpore). ``mode`` "min"/"max"/"auto" (max when the name
    contains "acc"). ``baseline``: stop unless the value beats it within
    ``patience`` epochs. ``restore_best_weights`` puts back the parameters of
    the best epoch when stopping.

    Example::

        model.fit(50, train, valid, callbacks=[EarlyStopping(monitor="accuracy", patience=3)])
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping: patience must be an int >= 0, got {patience!r}")
        self.monitor = monitor
        self.min_delta = abs(float(min_delta))
        self.patience = patience
        self.verbose = bool(verbose)
        self.baseline = None if baseline is None else float(baseline)
        self.restore_best_weights = bool(restore_best_weights)
        if mode == "auto":
            mode = "max" if "acc" in monitor.lower() else "min"
        self.mode = mode
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def _better(self, value, ref):
        if self.mode == "min":
            return value < ref - self.min_delta
        return value > ref + self.min_delta

    def on_train_begin(self, run_context):
        self.wait, self.stopped_epoch, self.best_weights, self.best_epoch = 0, 0, None, 0
        self.best = self.baseline if self.baseline is not None else (np.inf if self.mode == "min" else -np.inf)

    def _value(self, cb_params):
        results = dict(cb_params.get("eval_results") or {})
        if "Loss" in results or "loss" in results:
            results.setdefault("eval_loss", results.get("Loss", results.get("loss")))
        results["loss"] = _loss_value(cb_params.get("net_outputs"))
        value = results.get(self.monitor)
        if value is None:
            warnings.warn(f"EarlyStopping: monitor '{self.monitor}' is not available this epoch; available: "
                          f"{sorted(k for k, v in results.items() if v is not None)}", stacklevel=2)
        return value

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if self.monitor != "loss" and not cb_params.get("eval_this_epoch"):
            return
        value = self._value(cb_params)
        if value is None:
            return
        value = float(np.mean(value))
        if self._better(value, self.best):
            self.best, self.wait, self.best_epoch = value, 0, cb_params.cur_epoch_num
            if self.restore_best_weights:
                net = cb_params.train_network
                self.best_weights = {id(p): p._data.copy() for p in net.get_parameters()}
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights is not None:
                for p in cb_params.train_network.get_parameters():
                    if id(p) in self.best_weights:
                        np.copyto(p._data, self.best_weights[id(p)])

    def on_train_end(self, run_context):
        if self.stopped_epoch and self.verbose:
            print(f"Epoch {self.stopped_epoch}: early stopping; best {self.monitor} {self.best} at epoch "
                  f"{self.best_epoch}", flush=True)
