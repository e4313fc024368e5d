"""More of MindSpore's training callbacks: ``LambdaCallback``, ``LearningRateScheduler``,
``ReduceLROnPlateau`` and ``BackupAndRestore``.

Example::

    model.train(5, ds, callbacks=[ms.LearningRateScheduler(lambda lr, step: lr * 0.9 if step % 10 == 0 else lr),
                                  ms.LambdaCallback(on_train_epoch_end=lambda rc: print("epoch done"))])
"""

import math
import os

import numpy as np

from ..tensor import Tensor
from .callback import Callback

__all__ = ["LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau", "BackupAndRestore"]

_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_begin", "on_eval_end")


class LambdaCallback(Callback):
    """A callback made of functions: each given hook is called with the ``run_context``."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
                 on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
                 on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        given = locals()
        for hook in _HOOKS:
            fn = given[hook]
            setattr(self, hook, fn if fn else (lambda run_context: None))


def _fixed_lr(optimizer, who):
    lr = optimizer.learning_rate
    if isinstance(lr, Tensor) and lr.ndim == 0:
        lr = float(lr.asnumpy())
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating)):
        raise ValueError(f"{who} does not support dynamic learning rate and group learning rate now.")
    return float(lr)


class LearningRateScheduler(Callback):
    """After every training step, sets the optimizer's learning rate to
    ``learning_rate_function(lr, cur_step_num)`` (when it differs)."""

    def __init__(self, learning_rate_function):
        super().__init__()
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        lr = float(np.float32(_fixed_lr(cb_params.optimizer, "LearningRateScheduler")))
        new_lr = self.learning_rate_function(lr, cb_params.cur_step_num)
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            cb_params.optimizer.learning_rate = float(np.float32(new_lr))


_SMALLER_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity", "mean_surface_distance",
                   "root_mean_square_distance", "eval_loss")


def _check_number(name, value, kinds=(int, float)):
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"ReduceLROnPlateau: {name} must be {' or '.join(k.__name__ for k in kinds)}, got "
                        f"{type(value).__name__}")
    return value


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by ``factor`` (not below ``min_lr``) when ``monitor`` ("loss": the
    training loss, or an entry of the epoch's evaluation results such as "eval_loss" or a metric) has
    not improved by ``min_delta`` for ``patience`` epochs; then wait ``cooldown`` epochs. ``mode``
    "min"/"max"/"auto" (auto: smaller is better for losses and distances)."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"ReduceLROnPlateau: monitor must be a str, got {type(monitor).__name__}")
        _check_number("factor", factor)
        if not 0.0 < factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0.0, 1.0), got {factor}")
        for name, value in (("patience", patience), ("cooldown", cooldown)):
            if _check_number(name, value, (int,)) < 0:
                raise ValueError(f"ReduceLROnPlateau: {name} must be a non-negative int, got {value}")
        if not isinstance(verbose, bool):
            raise TypeError(f"ReduceLROnPlateau: verbose must be a bool, got {type(verbose).__name__}")
        if not isinstance(mode, str):
            raise TypeError(f"ReduceLROnPlateau: mode must be a str, got {type(mode).__name__}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
        self.monitor, self.factor, self.patience, self.verbose, self.mode = monitor, factor, patience, verbose, mode
        self.min_delta = abs(_check_number("min_delta", min_delta))
        self.cooldown = cooldown
        self.min_lr = _check_number("min_lr", min_lr)
        self._smaller = mode == "min" or (mode == "auto" and monitor in _SMALLER_BETTER)
        self._reset()

    def _reset(self):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = np.inf if self._smaller else -np.inf

    def _improved(self, value):
        if self._smaller:
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def on_train_begin(self, run_context):
        self._reset()

    def _monitor_value(self, cb_params):
        if self.monitor == "loss":
            loss = cb_params.get("net_outputs")
            if isinstance(loss, (tuple, list)):
                loss = loss[0]
            if isinstance(loss, Tensor):
                loss = float(np.mean(loss.asnumpy()))
            value = loss
        else:
            value = (cb_params.get("eval_results") or {}).get(self.monitor)
        if value is None:
            return None
        value = np.asarray(value)
        if value.shape != ():
            raise ValueError("ReduceLROnPlateau only supports scalar monitor now.")
        return float(value)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        cur_lr = _fixed_lr(cb_params.optimizer, "ReduceLROnPlateau")
        value = self._monitor_value(cb_params)
        if value is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(value):
            self.best = value
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                if cur_lr > self.min_lr:
                    new_lr = max(float(np.float32(cur_lr * self.factor)), self.min_lr)
                    cb_params.optimizer.learning_rate = new_lr
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning rate "
                              f"to {new_lr}.")
                self.cooldown_counter = self.cooldown
                self.wait = 0


class BackupAndRestore(Callback):
    """Back the training network (parameters and optimizer state) up to ``backup_dir/backup.ckpt``
    every ``save_freq`` epochs ("epoch": every epoch), restore it at the start of training when the
    file exists (a run that was interrupted resumes from it), and delete it at the end of training
    when ``delete_checkpoint``."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        if not isinstance(backup_dir, str) or not backup_dir:
            raise TypeError(f"BackupAndRestore: backup_dir must be a non-empty str, got {backup_dir!r}")
        os.makedirs(backup_dir, exist_ok=True)
        self.backup_file = os.path.join(os.path.realpath(backup_dir), "backup.ckpt")
        if save_freq == "epoch":
            self.save_freq = 1
        elif isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0:
            raise ValueError(f"BackupAndRestore: save_freq must be 'epoch' or a positive int, got {save_freq!r}")
        else:
            self.save_freq = save_freq
        if not isinstance(delete_checkpoint, bool):
            raise TypeError(f"BackupAndRestore: delete_checkpoint must be a bool, got "
                            f"{type(delete_checkpoint).__name__}")
        self.delete_checkpoint = delete_checkpoint

    def on_train_begin(self, run_context):
        if os.path.exists(self.backup_file):
            from .serialization import load_checkpoint
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.cur_epoch_num % self.save_freq == 0:
            from .serialization import save_checkpoint
            save_checkpoint(cb_params.train_network, self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
