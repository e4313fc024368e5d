"""More of MindSpore's metrics: ConfusionMatrix, Perplexity, Dice, ROC, auc, BleuScore, CosineSimilarity,
plus ``get_metrics`` and the ``rearrange_inputs`` decorator (with ``Metric.set_indexes``).

They follow ``metrics.py``'s protocol (``clear``, ``update(*inputs)``, ``eval``) and register their
MindSpore names with ``get_metric_fn`` / ``names``.

Example::

    m = ROC(pos_label=1)
    m.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    fpr, tpr, thresholds = m.eval()
    auc(fpr, tpr)          # 0.75
"""

import functools
import math
from collections import Counter

import numpy as np

from . import metrics as _m
from .metrics import Metric, _np

__all__ = ["ConfusionMatrix", "Perplexity", "Dice", "ROC", "auc", "BleuScore", "CosineSimilarity",
           "get_metrics", "rearrange_inputs"]


def rearrange_inputs(func):
    """Decorate a Metric's ``update`` so that ``set_indexes([i, j])`` picks and orders its inputs.

    Example::

        class MyMetric(Metric):
            @rearrange_inputs
            def update(self, *inputs): ...

        m = MyMetric().set_indexes([1, 2])      # update(a, b, c) sees (b, c)
    """
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = getattr(self, "indexes", None)
        if indexes is not None:
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)
    return wrapper


def _set_indexes(self, indexes):
    """Use only the inputs at ``indexes`` (in that order) in ``update``; returns the metric."""
    if not isinstance(indexes, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                         for i in indexes):
        raise ValueError(f"{type(self).__name__}.set_indexes: indexes must be a list of ints, got {indexes!r}")
    self.indexes = list(indexes)
    return self


if not hasattr(Metric, "set_indexes"):
    Metric.set_indexes = _set_indexes
    Metric.indexes = None


def _two(self, inputs):
    if len(inputs) != 2:
        raise ValueError(f"{type(self).__name__}.update: expected 2 inputs (predicted value, true value), "
                         f"got {len(inputs)}")
    return _np(inputs[0], f"{type(self).__name__}.update"), _np(inputs[1], f"{type(self).__name__}.update")


class ConfusionMatrix(Metric):
    """The (num_classes, num_classes) confusion matrix: rows true classes, columns predicted ones.

    ``y_pred``: scores with a class axis 1 (``(N, C, ...)``, argmax taken) or values of ``y``'s shape
    (floats thresholded at ``threshold``). ``normalize``: "no_norm", "target" (rows sum to 1),
    "prediction" (columns) or "all"; empty rows/columns give 0.
    """

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"ConfusionMatrix: num_classes must be a positive int, got {num_classes!r}")
        if normalize not in ("no_norm", "target", "prediction", "all"):
            raise ValueError(f"ConfusionMatrix: normalize must be 'no_norm', 'target', 'prediction' or 'all', "
                             f"got {normalize!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise TypeError(f"ConfusionMatrix: threshold must be a float, got {threshold!r}")
        self.num_classes, self.normalize, self.threshold = num_classes, normalize, float(threshold)
        super().__init__()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(self, inputs)
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        elif y_pred.ndim != y.ndim:
            raise ValueError(f"ConfusionMatrix.update: y_pred must have y's rank or one more, got ranks "
                             f"{y_pred.ndim} and {y.ndim}")
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(int)
        k = self.num_classes
        codes = (y.reshape(-1) * k + y_pred.reshape(-1)).astype(int)
        self.confusion_matrix += np.bincount(codes, minlength=k * k)[:k * k].reshape(k, k)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("ConfusionMatrix: call update before eval")
        cm = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return cm
        with np.errstate(divide="ignore", invalid="ignore"):
            total = {"target": cm.sum(axis=1, keepdims=True), "prediction": cm.sum(axis=0, keepdims=True),
                     "all": cm.sum()}[self.normalize]
            out = cm / total
        out[np.isnan(out)] = 0
        return out


class Perplexity(Metric):
    """``exp(mean(-log p[label]))`` over all updates; probabilities below 1e-10 count as 1e-10.

    ``preds``: probabilities (N, C); ``labels``: (N,) class indices. Samples whose label is
    ``ignore_label`` are left out.
    """

    def __init__(self, ignore_label=None):
        if ignore_label is not None and (isinstance(ignore_label, bool) or not isinstance(ignore_label, int)):
            raise TypeError(f"Perplexity: ignore_label must be an int or None, got {ignore_label!r}")
        self.ignore_label = ignore_label
        super().__init__()

    def clear(self):
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        pred, label = _two(self, inputs)
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"Perplexity.update: preds of shape {list(pred.shape)} and labels of shape "
                               f"{list(label.shape)} do not match")
        label = label.reshape(-1)
        p = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label.astype(int)]
        n = p.size
        if self.ignore_label is not None:
            ignore = label == self.ignore_label
            n -= int(ignore.sum())
            p = np.where(ignore, 1.0, p)
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, p))))
        self._num_inst += n

    def eval(self):
        if self._num_inst == 0:
            raise RuntimeError("Perplexity: the number of samples is 0; call update before eval")
        return math.exp(self._sum_metric / self._num_inst)


class Dice(Metric):
    """The mean over updates of ``2 <y_pred, y> / (|y_pred|^2 + |y|^2 + smooth)``, divided by the sample count.

    As in MindSpore, each update adds one coefficient (for the whole batch) and ``y.shape[0]`` samples.
    """

    def __init__(self, smooth=1e-5):
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise ValueError(f"Dice: smooth must be a float > 0, got {smooth!r}")
        self.smooth = float(smooth)
        super().__init__()

    def clear(self):
        self._dice_coeff_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(self, inputs)
        if y_pred.shape != y.shape:
            raise ValueError(f"Dice.update: y_pred and y must have the same shape, got {list(y_pred.shape)} "
                             f"and {list(y.shape)}")
        self._samples_num += y.shape[0]
        a, b = y_pred.reshape(-1).astype(np.float64), y.reshape(-1).astype(np.float64)
        self._dice_coeff_sum += 2.0 * float(a @ b) / float(a @ a + b @ b + self.smooth)

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("Dice: the number of samples is 0; call update before eval")
        return self._dice_coeff_sum / float(self._samples_num)


def _binary_curve(score, y, pos_label):
    """False and true positive counts at each distinct score, from the highest score down."""
    order = np.argsort(score, kind="mergesort")[::-1]
    score, y = score[order], (y[order] == pos_label).astype(np.float64)
    cut = np.r_[np.where(np.diff(score))[0], y.size - 1]
    tps = np.cumsum(y)[cut]
    fps = 1 + cut - tps
    return fps, tps, score[cut]


class ROC(Metric):
    """The ROC curve ``(fpr, tpr, thresholds)``; multiclass (``y_pred`` (N, C)) gives per-class lists (one vs rest).

    Binary: ``y_pred`` and ``y`` of the same shape, positives are ``pos_label`` (default 1). The first
    threshold is the highest score + 1 (no sample predicted positive).
    """

    def __init__(self, class_num=None, pos_label=None):
        for what, v in (("class_num", class_num), ("pos_label", pos_label)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"ROC: {what} must be an int or None, got {v!r}")
        self.class_num, self.pos_label = class_num, pos_label
        super().__init__()

    def clear(self):
        self.y_pred, self.y = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _two(self, inputs)
        if y_pred.ndim == y.ndim:
            if self.class_num not in (None, 1):
                raise ValueError(f"ROC: y_pred and y of the same rank mean binary data, class_num must be 1, "
                                 f"got {self.class_num}")
            self.class_num = 1
            self.pos_label = 1 if self.pos_label is None else self.pos_label
            y_pred, y = y_pred.reshape(-1), y.reshape(-1)
        elif y_pred.ndim == y.ndim + 1:
            if self.pos_label is not None:
                raise ValueError(f"ROC: pos_label must be None for multiclass data, got {self.pos_label}")
            if self.class_num != y_pred.shape[1]:
                raise ValueError(f"ROC: class_num ({self.class_num}) must equal y_pred's classes ({y_pred.shape[1]})")
            y_pred, y = y_pred.reshape(-1, self.class_num), y.reshape(-1)
        else:
            raise ValueError(f"ROC: y_pred must have y's rank or one more, got ranks {y_pred.ndim} and {y.ndim}")
        self.y_pred, self.y = y_pred, y
        self._is_update = True

    @staticmethod
    def _one(score, y, pos_label):
        fps, tps, thr = _binary_curve(score, y, pos_label)
        fps, tps = np.r_[0.0, fps], np.r_[0.0, tps]
        thr = np.r_[thr[0] + 1, thr]
        if fps[-1] <= 0:
            raise ValueError("ROC.eval: there are no negative samples, the false positive rate is undefined")
        if tps[-1] <= 0:
            raise ValueError("ROC.eval: there are no positive samples, the true positive rate is undefined")
        return fps / fps[-1], tps / tps[-1], thr

    def eval(self):
        if not self._is_update:
            raise RuntimeError("ROC: call update before eval")
        if self.class_num == 1:
            return self._one(self.y_pred, self.y, self.pos_label)
        res = [self._one(self.y_pred[:, c], self.y, c) for c in range(self.class_num)]
        return [r[0] for r in res], [r[1] for r in res], [r[2] for r in res]


def auc(x, y, reorder=False):
    """The area under the curve through the points ``(x, y)`` (trapezoidal rule).

    ``x`` must rise or fall monotonically unless ``reorder`` sorts the points by ``x``.
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"auc: x and y must be numpy arrays, got {type(x).__name__} and {type(y).__name__}")
    for v in (x, y):
        if not (v.ndim == 1 or (v.ndim == 2 and v.shape[1] == 1)):
            raise ValueError(f"auc: x and y must be 1-D, got shape {list(v.shape)}")
    x, y = x.reshape(-1), y.reshape(-1)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"auc: x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"auc: at least 2 points are needed, got {x.shape[0]}")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"auc: x must be increasing or decreasing when reorder is False, got {x}")
            direction = -1
    return direction * float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0))


def _ngrams(words, n):
    c = Counter()
    for k in range(1, n + 1):
        for j in range(len(words) - k + 1):
            c[tuple(words[j:j + k])] += 1
    return c


class BleuScore(Metric):
    """Corpus BLEU with up to ``n_gram`` (1..4)-grams, clipped counts and the brevity penalty.

    ``update(candidates, references)``: a list of token lists, and per candidate a list of
    reference token lists. ``smooth`` adds 1 to each n-gram precision's numerator and denominator.
    """

    def __init__(self, n_gram=4, smooth=False):
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram must be an int in [1, 4], got {n_gram!r}")
        if not isinstance(smooth, bool):
            raise TypeError(f"BleuScore: smooth must be a bool, got {smooth!r}")
        self.n_gram, self.smooth = n_gram, smooth
        super().__init__()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"BleuScore.update: expected 2 inputs (candidates, references), got {len(inputs)}")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"BleuScore.update: {len(candidates)} candidates but {len(references)} reference lists")
        for cand, refs in zip(candidates, references):
            self._c += len(cand)
            lens = [len(r) for r in refs]
            diffs = [abs(len(cand) - n) for n in lens]
            self._r += lens[diffs.index(min(diffs))]
            cand_counts = _ngrams(cand, self.n_gram)
            ref_counts = Counter()
            for r in refs:
                ref_counts |= _ngrams(r, self.n_gram)
            for gram, n in (cand_counts & ref_counts).items():
                self._numerator[len(gram) - 1] += n
            for gram, n in cand_counts.items():
                self._denominator[len(gram) - 1] += n
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("BleuScore: call update before eval")
        if np.min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.log(precision)) / self.n_gram)
        brevity = np.array(1.0) if self._c > self._r else np.exp(1 - self._r / self._c)
        return brevity * geometric_mean


class CosineSimilarity(Metric):
    """The similarity matrix of the rows of the last ``update``'s matrix.

    ``similarity``: "cosine" (rows normalized first) or "dot"; ``zero_diagonal`` zeroes the
    self-similarities; ``reduction``: "none", "sum" or "mean" over the last axis.
    """

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"CosineSimilarity: similarity must be 'cosine' or 'dot', got {similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"CosineSimilarity: reduction must be 'none', 'sum' or 'mean', got {reduction!r}")
        if not isinstance(zero_diagonal, bool):
            raise TypeError(f"CosineSimilarity: zero_diagonal must be a bool, got {zero_diagonal!r}")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, zero_diagonal
        super().__init__()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    def update(self, inputs):
        data = _np(inputs, "CosineSimilarity.update")
        if self.similarity == "cosine":
            data = data / np.linalg.norm(data, ord=2, axis=1)[:, None]
        self.sqr_mtx_res = data @ data.T
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("CosineSimilarity: call update before eval")
        res = self.sqr_mtx_res
        if self.zero_diagonal:
            np.fill_diagonal(res, 0)
        if self.reduction == "mean":
            res = np.mean(res, axis=-1)
        elif self.reduction == "sum":
            res = np.sum(res, axis=-1)
        return res


def get_metrics(metrics):
    """``{name: Metric}`` from a set of metric names or a dict of Metric instances (None gives None)."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, m in metrics.items():
            if not isinstance(name, str) or not isinstance(m, Metric):
                raise TypeError(f"get_metrics: a dict must map names to Metric instances, got {name!r}: "
                                f"{type(m).__name__}")
        return dict(metrics)
    if isinstance(metrics, set):
        return {name: _m.get_metric_fn(name) for name in metrics}
    raise TypeError(f"get_metrics: metrics must be None, a dict or a set, got {type(metrics).__name__}")


_m._FACTORY.update({"confusion_matrix": ConfusionMatrix, "perplexity": Perplexity, "dice": Dice, "roc": ROC,
                    "auc": auc, "bleu_score": BleuScore, "cosine_similarity": CosineSimilarity,
                    "topk": _m.TopKCategoricalAccuracy})
