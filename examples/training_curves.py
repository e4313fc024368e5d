"""Per-epoch learning curves for ``Model.train``: a callback that records them and a plot of them.

``EpochCurves`` is a ``Callback``: during each epoch it averages the
losses the training steps return (``step_loss``); at the end of the epoch it calls the
evaluations it was given (for example ``lambda: model.eval(test_ds)``) and
records their metrics, then puts the training network back in training
mode (``Model.eval`` switches the shared network to inference mode).
``plot_curves`` draws the record with matplotlib on an off-screen canvas
(no display and no pyplot state) and writes a PNG.

Example::

    curves = EpochCurves({"test": lambda: model.eval(test_ds)})
    model.train(5, train_ds, callbacks=[LossMonitor(45), curves])
    curves.history["test_accuracy"]          # one value per epoch
    plot_curves(curves.history, "build/curves.png")
"""

import math
import os

import numpy as np

from mscustom.train import Callback

__all__ = ["EpochCurves", "plot_curves"]


class EpochCurves(Callback):
    """Record ``step_loss`` (the mean loss of each epoch's training steps) and ``<name>_<metric>`` per evaluation.

    ``evaluations`` maps a name ("train", "test", ...) to a function of no
    arguments returning a dict metric -> value, called once per epoch.
    ``history`` holds one list per curve, with one value per finished epoch.
    ``verbose`` prints the epoch's values (``summary()``) when it ends.
    """

    def __init__(self, evaluations=None, verbose=False):
        super().__init__()
        evaluations = dict(evaluations or {})
        for name, fn in evaluations.items():
            if name == "step":
                raise ValueError("EpochCurves: 'step' is taken by the step_loss curve; name the evaluation "
                                 "otherwise")
            if not callable(fn):
                raise TypeError(f"EpochCurves: evaluation {name!r} must be a function of no arguments "
                                f"returning a dict of metrics, got {type(fn).__name__}")
        self._evaluations = evaluations
        self.verbose = bool(verbose)
        self.history = {"epoch": [], "step_loss": []}
        self._losses = []

    def on_train_epoch_begin(self, run_context):
        self._losses = []

    def on_train_step_end(self, run_context):
        outputs = run_context.original_args().net_outputs
        if isinstance(outputs, (tuple, list)):
            outputs = outputs[0]
        self._losses.append(float(np.mean(outputs.asnumpy())))

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.history["epoch"].append(cb_params.cur_epoch_num)
        self.history["step_loss"].append(float(np.mean(self._losses)) if self._losses else math.nan)
        for name, evaluate in self._evaluations.items():
            for metric, value in sorted(evaluate().items()):
                self.history.setdefault(f"{name}_{metric}", []).append(float(value))
        if self._evaluations:
            cb_params.train_network.set_train(True)
        if self.verbose:
            print(self.summary(), flush=True)

    def summary(self, epoch_index=-1):
        """One line for an epoch, each value named for what it measures::

            epoch 3: mean training loss of the epoch 0.1234; after it: test accuracy 0.9750, test loss 0.0800

        The first value is the mean of the losses the epoch's training steps
        returned (``step_loss``), taken while the weights changed; the
        evaluations' values come after the epoch, from its final weights.
        """
        h = self.history
        line = f"epoch {h['epoch'][epoch_index]}: mean training loss of the epoch {h['step_loss'][epoch_index]:.4f}"
        after = [f"{key.replace('_', ' ')} {values[epoch_index]:.4f}" for key, values in h.items()
                 if key not in ("epoch", "step_loss") and values]
        return line + ("; after it: " + ", ".join(after) if after else "")


def plot_curves(history, path, title="training curves", target=None):
    """Write a PNG with two panels, the loss curves and the accuracy curves of ``history``; return ``path``.

    Every ``*loss`` key of ``history`` goes in the left panel, every
    ``*accuracy`` key in the right one, against ``history["epoch"]``; a
    ``target`` accuracy is drawn as a dashed line. Needs matplotlib
    (``pip install 'mscustom[demo]'``).
    """
    epochs = history.get("epoch") or []
    if not epochs:
        raise ValueError("plot_curves: the history has no finished epoch to plot")
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:
        raise ImportError("plot_curves needs matplotlib: pip install 'mscustom[demo]' (or run make demo)") from exc
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    loss_ax, acc_ax = fig.subplots(1, 2)
    for ax, suffix, label in ((loss_ax, "loss", "loss"), (acc_ax, "accuracy", "accuracy")):
        for key, values in history.items():
            if key.endswith(suffix) and len(values) == len(epochs):
                curve = "mean training loss of the epoch" if key == "step_loss" else key.replace("_", " ")
                ax.plot(epochs, values, marker="o", markersize=3, label=curve)
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend()
    if target is not None:
        acc_ax.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target:g}")
        acc_ax.legend()
    loss_ax.set_yscale("log")
    fig.suptitle(title)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100)
    return path
