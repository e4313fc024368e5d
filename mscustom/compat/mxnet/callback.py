"""``mx.callback``: ``Speedometer`` (batch end) and ``do_checkpoint`` (epoch end).

Example::

    mod.fit(it, num_epoch=2, batch_end_callback=mx.callback.Speedometer(32, 10),
            epoch_end_callback=mx.callback.do_checkpoint("mlp"))
"""

import logging
import time

from . import model as _model

__all__ = ["Speedometer", "do_checkpoint", "log_train_metric"]


class Speedometer:
    """Log samples/sec and the training metric every ``frequent`` batches."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size, self.frequent, self.auto_reset = batch_size, frequent, auto_reset
        self.init, self.tic, self.last_count = False, 0.0, 0

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if self.init:
            if count % self.frequent == 0:
                speed = self.frequent * self.batch_size / max(time.time() - self.tic, 1e-9)
                if param.eval_metric is not None:
                    pairs = param.eval_metric.get_name_value()
                    if self.auto_reset:
                        param.eval_metric.reset()
                    msg = "\t".join(f"Train-{n}={v:f}" for n, v in pairs)
                    logging.info("Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec\t%s", param.epoch, count, speed, msg)
                else:
                    logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
                self.tic = time.time()
        else:
            self.init = True
            self.tic = time.time()


def do_checkpoint(prefix, period=1):
    """An epoch-end callback saving ``prefix-symbol.json`` and ``prefix-%04d.params`` every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            _model.save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value)
            if auto_reset:
                param.eval_metric.reset()
    return _callback
