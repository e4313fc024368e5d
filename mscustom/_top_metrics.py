"""The metrics MindSpore exports at its top level (``ms.Accuracy``, ``ms.HausdorffDistance`` ...),
found where mscustom defines them (``mscustom.train``, its ``metrics_more``, ``mscustom.nn``): one
definition each; a name none of them defines is absent (AttributeError)."""

import importlib

NAMES = ("Metric", "Accuracy", "Loss", "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "TopKCategoricalAccuracy",
         "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "get_metric_fn", "names", "ConfusionMatrix",
         "ConfusionMatrixMetric", "Perplexity", "Dice", "ROC", "auc", "BleuScore", "CosineSimilarity",
         "rearrange_inputs", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
         "OcclusionSensitivity")
_HOMES = ("..train", "..train.metrics_more", "..nn")


def __getattr__(name):
    if name in NAMES:
        for home in _HOMES:
            value = getattr(importlib.import_module(home, __name__), name, None)
            if value is not None:
                globals()[name] = value
                return value
    raise AttributeError(f"module 'mscustom' has no attribute {name!r}")
