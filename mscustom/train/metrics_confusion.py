"""``ConfusionMatrixMetric``: confusion-matrix based scores (sensitivity, specificity, precision, F1, MCC ...)
of binarized one-hot predictions ``(B, C, ...)`` against one-hot labels.

Per sample and class the counts ``tp, fp, tn, fn`` are taken over the remaining axes. With
``calculation_method=False`` (the default) they are summed over every update and the metric is
computed once from the totals; with True it is computed per sample and class, reduced by
``decrease`` ("mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel", "none"; NaN
entries left out) and averaged over updates. ``skip_channel=True`` leaves out channel 0 (the
background), as documented. 2-D inputs (classification) always use the totals.

Example::

    m = ConfusionMatrixMetric(metric_name="f1 score")
    m.update(y_pred_one_hot, y_one_hot)
    m.eval()
"""

import numpy as np

from .metrics import Metric, _np
from .metrics_more import rearrange_inputs

__all__ = ["ConfusionMatrixMetric"]

_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate"),
    "tnr": ("specificity", "selectivity", "true_negative_rate"),
    "ppv": ("precision", "positive_predictive_value"),
    "npv": ("negative_predictive_value",),
    "fnr": ("miss_rate", "false_negative_rate"),
    "fpr": ("fall_out", "false_positive_rate"),
    "fdr": ("false_discovery_rate",),
    "for": ("false_omission_rate",),
    "pt": ("prevalence_threshold",),
    "ts": ("threat_score", "critical_success_index", "csi"),
    "acc": ("accuracy",),
    "ba": ("balanced_accuracy",),
    "f1": ("f1_score",),
    "mcc": ("matthews_correlation_coefficient",),
    "fm": ("fowlkes_mallows_index",),
    "bm": ("informedness", "bookmaker_informedness"),
    "mk": ("markedness", "deltap"),
}
_NAMES = {alias: key for key, names in _ALIASES.items() for alias in names + (key,)}
_DECREASES = ("mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel", "none")


def _canonical(name):
    key = _NAMES.get(name.replace(" ", "_").lower())
    if key is None:
        raise NotImplementedError(f"ConfusionMatrixMetric: metric_name {name!r} is not supported; known names are "
                                  f"{sorted(_NAMES)}")
    return key


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)


def _metric(key, cm):
    """The metric ``key`` of counts ``cm`` (..., 4) = (tp, fp, tn, fn); NaN where undefined."""
    cm = np.atleast_2d(np.asarray(cm, np.float64))
    tp, fp, tn, fn = cm[..., 0], cm[..., 1], cm[..., 2], cm[..., 3]
    p, n = tp + fn, fp + tn
    tpr, tnr = _ratio(tp, p), _ratio(tn, n)
    ppv, npv = _ratio(tp, tp + fp), _ratio(tn, tn + fn)
    with np.errstate(invalid="ignore"):
        table = {
            "tpr": lambda: tpr, "tnr": lambda: tnr, "ppv": lambda: ppv, "npv": lambda: npv,
            "fnr": lambda: _ratio(fn, p), "fpr": lambda: _ratio(fp, n), "fdr": lambda: _ratio(fp, fp + tp),
            "for": lambda: _ratio(fn, fn + tn),
            "pt": lambda: _ratio(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0),
            "ts": lambda: _ratio(tp, tp + fn + fp), "acc": lambda: _ratio(tp + tn, p + n),
            "ba": lambda: (tpr + tnr) / 2.0, "f1": lambda: _ratio(tp * 2.0, tp * 2.0 + fn + fp),
            "mcc": lambda: _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
            "fm": lambda: np.sqrt(ppv * tpr), "bm": lambda: tpr + tnr - 1.0, "mk": lambda: ppv + npv - 1.0,
        }
        return table[key]()


def _decrease(chart, mode):
    """``(value, count of non-NaN entries)`` of a (B, C) chart reduced as ``mode`` says."""
    nans = np.isnan(chart)
    ok = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "mean":
            per_sample = ok.sum(1)
            values = np.where(per_sample > 0, chart.sum(1) / np.where(per_sample > 0, per_sample, 1), 0.0)
            count = (per_sample > 0).astype(float).sum(0)
            return (values.sum(0) / count if count > 0 else 0.0), count
        if mode == "sum":
            return chart.sum((0, 1)), ok.sum((0, 1))
        if mode in ("mean_batch", "sum_batch", "mean_channel", "sum_channel"):
            axis = 0 if mode.endswith("batch") else 1
            count = ok.sum(axis)
            total = chart.sum(axis)
            if mode.startswith("mean"):
                total = np.where(count > 0, total / np.where(count > 0, count, 1), 0.0)
            return total, count
    return chart, ok


class ConfusionMatrixMetric(Metric):
    """Confusion-matrix metrics (see the module's note); ``metric_name`` takes the usual names and aliases
    ("sensitivity", "specificity", "precision", "f1 score", "mcc", "accuracy", ...)."""

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        if not isinstance(skip_channel, bool) or not isinstance(calculation_method, bool):
            raise TypeError("ConfusionMatrixMetric: skip_channel and calculation_method must be bools")
        if not isinstance(metric_name, str):
            raise TypeError(f"ConfusionMatrixMetric: metric_name must be a str, got {metric_name!r}")
        if decrease not in _DECREASES:
            raise ValueError(f"ConfusionMatrixMetric: decrease must be one of {list(_DECREASES)}, got {decrease!r}")
        self._key = _canonical(metric_name)
        self.skip_channel, self.metric_name = skip_channel, metric_name
        self.calculation_method, self.decrease = calculation_method, decrease
        super().__init__()

    def clear(self):
        self._total = np.zeros(4)
        self._total_num = 0.0
        self._class_num = 0.0

    def _counts(self, y_pred, y):
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("ConfusionMatrixMetric.update: y must be binarized one-hot labels")
        if y_pred.ndim < 2:
            raise ValueError(f"ConfusionMatrixMetric.update: y_pred must have a batch and a class axis, got shape "
                             f"{list(y_pred.shape)}")
        if y_pred.shape != y.shape:
            raise ValueError(f"ConfusionMatrixMetric.update: y_pred and y must have the same shape, got "
                             f"{list(y_pred.shape)} and {list(y.shape)}")
        if self.skip_channel and y.shape[1] > 1:
            y_pred, y = y_pred[:, 1:], y[:, 1:]
        b, c = y_pred.shape[:2]
        yp, yt = y_pred.reshape(b, c, -1).astype(float), y.reshape(b, c, -1).astype(float)
        tp = ((yp + yt) == 2).sum(2).astype(float)
        tn = ((yp + yt) == 0).sum(2).astype(float)
        p = yt.sum(2)
        n = yt.shape[-1] - p
        return np.stack([tp, n - tn, tn, p - tp], -1)            # (B, C, 4)

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"ConfusionMatrixMetric.update: expected 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred = _np(inputs[0], "ConfusionMatrixMetric.update")
        y = _np(inputs[1], "ConfusionMatrixMetric.update")
        cm = self._counts(y_pred, y)
        per_sample = self.calculation_method and not (y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        if per_sample:
            score, count = _decrease(_metric(self._key, cm), self.decrease)
            count = int(np.asarray(count).item())
            self._total_num += float(np.asarray(score).item()) * count
            self._class_num += count
        else:
            self._total += cm.sum((0, 1))

    def eval(self):
        if self.calculation_method and self._class_num:
            return self._total_num / self._class_num
        if self.calculation_method and not self._total.any():
            raise RuntimeError("ConfusionMatrixMetric: the number of samples is 0; call update before eval")
        return _metric(self._key, self._total)
