"""``mx.metric``: ``Accuracy``, ``CrossEntropy``, ``MSE``, ``CompositeEvalMetric`` and ``create``.

Example::

    acc = mx.metric.create("acc")
    acc.update([label], [probabilities])
    acc.get()                    # ('accuracy', 0.93)
"""

import numpy as np

from ...tensor import Tensor

__all__ = ["EvalMetric", "Accuracy", "CrossEntropy", "MSE", "CompositeEvalMetric", "create"]


def _np(a):
    return a.asnumpy() if isinstance(a, Tensor) else np.asarray(a)


class EvalMetric:
    """Running ``sum_metric / num_inst``; ``update(labels, preds)``, ``get``, ``reset``."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = name
        self.output_names, self.label_names = output_names, label_names
        self.reset()

    def reset(self):
        self.num_inst, self.sum_metric = 0, 0.0

    def get(self):
        return (self.name, float("nan") if self.num_inst == 0 else self.sum_metric / self.num_inst)

    def get_name_value(self):
        name, value = self.get()
        return list(zip(name, value)) if isinstance(name, list) else [(name, value)]

    def update_dict(self, labels, preds):
        self.update(list(labels.values()), list(preds.values()))

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"


def _pairs(labels, preds):
    labels = labels if isinstance(labels, (list, tuple)) else [labels]
    preds = preds if isinstance(preds, (list, tuple)) else [preds]
    if len(labels) != len(preds):
        raise ValueError(f"metric: {len(labels)} label arrays for {len(preds)} predictions")
    return zip(labels, preds)


class Accuracy(EvalMetric):
    """Fraction of argmax(pred, axis) == label."""

    def __init__(self, axis=1, name="accuracy", **kwargs):
        self.axis = axis
        super().__init__(name, **kwargs)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p, l = _np(pred), _np(label)
            if p.shape != l.shape:
                p = np.argmax(p, axis=self.axis)
            p, l = p.astype(np.int64).ravel(), l.astype(np.int64).ravel()
            if p.shape != l.shape:
                raise ValueError(f"Accuracy: {l.size} labels for {p.size} predictions")
            self.sum_metric += float((p == l).sum())
            self.num_inst += len(p)


class CrossEntropy(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` (eps 1e-12)."""

    def __init__(self, eps=1e-12, name="cross-entropy", **kwargs):
        self.eps = eps
        super().__init__(name, **kwargs)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p, l = _np(pred), _np(label).ravel().astype(np.int64)
            if p.shape[0] != l.shape[0]:
                raise ValueError(f"CrossEntropy: {l.shape[0]} labels for {p.shape[0]} predictions")
            prob = p[np.arange(l.shape[0]), l]
            self.sum_metric += float((-np.log(prob + self.eps)).sum())
            self.num_inst += l.shape[0]


class MSE(EvalMetric):
    """Mean squared error, averaged per batch as MXNet does."""

    def __init__(self, name="mse", **kwargs):
        super().__init__(name, **kwargs)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            p, l = _np(pred), _np(label)
            if l.ndim == 1 and p.ndim == 2:
                l = l.reshape(-1, 1)
            self.sum_metric += float(((l - p) ** 2.0).mean())
            self.num_inst += 1


class CompositeEvalMetric(EvalMetric):
    def __init__(self, metrics=None, name="composite", **kwargs):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, **kwargs)

    def add(self, metric):
        self.metrics.append(create(metric))

    def reset(self):
        for m in getattr(self, "metrics", []):
            m.reset()

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def get(self):
        names, values = [], []
        for m in self.metrics:
            n, v = m.get()
            names.append(n)
            values.append(v)
        return names, values


_NAMES = {"acc": Accuracy, "accuracy": Accuracy, "ce": CrossEntropy, "cross-entropy": CrossEntropy,
          "mse": MSE}


def create(metric, *args, **kwargs):
    """A metric by name ('acc', 'ce', 'mse'), a list of them (composite), or the metric itself."""
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, (list, tuple)):
        return CompositeEvalMetric(list(metric))
    if callable(metric):
        raise TypeError("mx.metric.create: custom metric functions are not supported here; subclass EvalMetric")
    key = str(metric).lower()
    if key not in _NAMES:
        raise ValueError(f"mx.metric.create: unknown metric {metric!r}; available: {sorted(_NAMES)}")
    return _NAMES[key](*args, **kwargs)
