"""Metrics with ``clear()``, ``update(*inputs)`` and ``eval()``, as ``mindspore.train`` defines them.

Inputs may be Tensors, NumPy arrays or lists. ``names()`` and
``get_metric_fn(name)`` map MindSpore's metric names ("accuracy", "loss",
"precision", "recall", "F1", "mae", "mse", "top_1_accuracy", "top_5_accuracy")
to instances, for ``Model(metrics={"accuracy"})``.

Example::

    m = Accuracy()
    m.update(ms.Tensor([[0.2, 0.8], [0.9, 0.1]]), ms.Tensor([1, 1]))
    m.eval()        # 0.5
"""

import sys

import numpy as np

from ..tensor import Tensor

__all__ = ["Metric", "Accuracy", "Loss", "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "get_metric_fn", "names"]


def _np(x, who):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (np.ndarray, list, tuple, int, float, np.generic)):
        return np.asarray(x)
    raise TypeError(f"{who}: inputs must be Tensors, NumPy arrays or lists, got {type(x).__name__}")


class Metric:
    """Base class: subclasses define ``clear``, ``update`` and ``eval``."""

    def __init__(self):
        self.clear()

    def _check_inputs(self, inputs, n):
        if len(inputs) != n:
            raise ValueError(f"{type(self).__name__}.update: expected {n} input(s), got {len(inputs)}")
        return [_np(x, f"{type(self).__name__}.update") for x in inputs]

    def clear(self):
        raise TypeError(f"{type(self).__name__} is a Metric without clear()")

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()


def _class_labels(y_pred, y, who):
    """Predicted and true class indices, from scores (N, C) and indices (N,) or one-hot (N, C)."""
    if y_pred.ndim != 2:
        raise ValueError(f"{who}: y_pred must be scores of shape (N, C), got shape {list(y_pred.shape)}")
    if y.ndim == 2 and y.shape == y_pred.shape:
        y = y.argmax(axis=1)
    y = y.reshape(-1)
    if y.shape[0] != y_pred.shape[0]:
        raise ValueError(f"{who}: y_pred has {y_pred.shape[0]} sample(s) but y has {y.shape[0]}")
    return y_pred.argmax(axis=1), y.astype(np.int64)


class Accuracy(Metric):
    """The fraction of samples classified correctly.

    ``eval_type="classification"``: ``y_pred`` scores (N, C), ``y`` indices
    (N,) or one-hot (N, C). ``"multilabel"``: ``y_pred`` and ``y`` 0/1 of shape
    (N, C); a sample counts when all its labels match.
    """

    def __init__(self, eval_type="classification"):
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', got {eval_type!r}")
        self.eval_type = eval_type
        super().__init__()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0

    def update(self, *inputs):
        y_pred, y = self._check_inputs(inputs, 2)
        if self.eval_type == "classification":
            pred, true = _class_labels(y_pred, y, "Accuracy")
            self._correct_num += int(np.sum(pred == true))
            self._total_num += pred.shape[0]
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"Accuracy: multilabel y_pred and y must have the same shape, got "
                                 f"{list(y_pred.shape)} and {list(y.shape)}")
            match = np.all((y_pred >= 0.5) == (y >= 0.5), axis=tuple(range(1, y.ndim)))
            self._correct_num += int(np.sum(match))
            self._total_num += y.shape[0]

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("Accuracy can not be calculated, because the number of samples is 0.")
        return self._correct_num / self._total_num


class Loss(Metric):
    """The mean of the loss values given to ``update`` (each a scalar, or the mean of a 1-D loss)."""

    def clear(self):
        self._sum_loss = 0.0
        self._total_num = 0

    def update(self, *inputs):
        (loss,) = self._check_inputs(inputs, 1)
        if loss.ndim > 1:
            raise ValueError(f"Loss.update: the loss must be a scalar or 1-D, got shape {list(loss.shape)}")
        self._sum_loss += float(np.mean(loss))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("Total number can not be 0.")
        return self._sum_loss / self._total_num


class _Confusion(Metric):
    """Per-class true positives, predicted positives and actual positives (classification)."""

    eps = sys.float_info.min

    def __init__(self, eval_type="classification"):
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"{type(self).__name__}: eval_type must be 'classification' or 'multilabel', "
                             f"got {eval_type!r}")
        self.eval_type = eval_type
        super().__init__()

    def clear(self):
        self._true_positives = 0
        self._positives = 0
        self._actual_positives = 0
        self._class_num = None

    def update(self, *inputs):
        y_pred, y = self._check_inputs(inputs, 2)
        who = type(self).__name__
        if self.eval_type == "classification":
            pred, true = _class_labels(y_pred, y, who)
            c = y_pred.shape[1]
            if true.size and (true.min() < 0 or true.max() >= c):
                raise ValueError(f"{who}: labels must be in [0, {c}), got values from {true.min()} to {true.max()}")
            p1, t1 = np.eye(c)[pred], np.eye(c)[true]
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"{who}: multilabel y_pred and y must have the same shape")
            p1, t1 = (y_pred >= 0.5).astype(float), (y >= 0.5).astype(float)
            c = y.shape[1]
        if self._class_num is not None and c != self._class_num:
            raise ValueError(f"{who}: {c} classes in this update, {self._class_num} before")
        self._class_num = c
        self._true_positives = self._true_positives + (p1 * t1).sum(axis=0)
        self._positives = self._positives + p1.sum(axis=0)
        self._actual_positives = self._actual_positives + t1.sum(axis=0)

    def _need_samples(self):
        if self._class_num is None:
            raise RuntimeError(f"{type(self).__name__} can not be calculated, because the number of samples is 0.")


class Precision(_Confusion):
    """Per-class ``TP / predicted positives``; ``eval(average=True)`` gives their mean."""

    def eval(self, average=False):
        self._need_samples()
        result = self._true_positives / (self._positives + self.eps)
        return float(np.mean(result)) if average else result


class Recall(_Confusion):
    """Per-class ``TP / actual positives``; ``eval(average=True)`` gives their mean."""

    def eval(self, average=False):
        self._need_samples()
        result = self._true_positives / (self._actual_positives + self.eps)
        return float(np.mean(result)) if average else result


class Fbeta(_Confusion):
    """Per-class ``(1 + b^2) * TP / (b^2 * actual positives + predicted positives)`` (classification)."""

    def __init__(self, beta):
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"Fbeta: beta must be a number > 0, got {beta!r}")
        self.beta = float(beta)
        super().__init__()

    def eval(self, average=False):
        self._need_samples()
        b2 = self.beta ** 2
        result = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + self.eps)
        return float(np.mean(result)) if average else result


class F1(Fbeta):
    """Per-class F1 score (Fbeta with beta = 1)."""

    def __init__(self):
        super().__init__(1.0)


class _Regression(Metric):
    def clear(self):
        self._error_sum = 0.0
        self._samples_num = 0

    def update(self, *inputs):
        y_pred, y = self._check_inputs(inputs, 2)
        if y.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: y_pred has {y_pred.size} value(s) but y has {y.size}")
        diff = y.reshape(y_pred.shape).astype(np.float64) - y_pred
        self._error_sum += float(self._error(diff).sum())
        self._samples_num += y_pred.shape[0] if y_pred.ndim else 1

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError(f"The number of input samples for {type(self).__name__} must not be 0.")
        return self._error_sum / self._samples_num


class MAE(_Regression):
    """Summed absolute error divided by the number of samples (rows), as MindSpore computes it."""

    @staticmethod
    def _error(diff):
        return np.abs(diff)


class MSE(_Regression):
    """Summed squared error divided by the number of samples (rows), as MindSpore computes it."""

    @staticmethod
    def _error(diff):
        return diff * diff


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose true class is among the ``k`` highest scores."""

    def __init__(self, k):
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be a positive int, got {k!r}")
        self.k = k
        super().__init__()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    def update(self, *inputs):
        y_pred, y = self._check_inputs(inputs, 2)
        if y_pred.ndim != 2:
            raise ValueError(f"{type(self).__name__}: y_pred must be scores of shape (N, C), got {list(y_pred.shape)}")
        if y.ndim == 2 and y.shape == y_pred.shape:
            y = y.argmax(axis=1)
        y = y.reshape(-1).astype(np.int64)
        true_score = y_pred[np.arange(y.shape[0]), y]
        rank = np.sum(y_pred > true_score[:, None], axis=1)       # classes scored strictly higher
        self._correct_num += int(np.sum(rank < self.k))
        self._samples_num += y.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("The 'TopKCategoricalAccuracy' can not be calculated, because the number of "
                               "samples is 0.")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(5)


_FACTORY = {
    "accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "precision": Precision, "recall": Recall, "F1": F1,
    "mae": MAE, "mse": MSE, "top_1_accuracy": Top1CategoricalAccuracy, "top_5_accuracy": Top5CategoricalAccuracy,
}


def names():
    """The metric names ``get_metric_fn`` knows."""
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs):
    """A new metric instance by MindSpore's name (``"accuracy"``, ``"loss"``, ``"F1"``, ...)."""
    if name not in _FACTORY:
        raise KeyError(f"Unknown Metric name: {name!r}; known names are {names()}")
    return _FACTORY[name](*args, **kwargs)
