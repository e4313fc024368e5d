"""Neural-network building blocks with MindSpore's names: Cell, layers, losses, optimizers, wrappers.

Example::

    from mscustom import nn
    net = nn.SequentialCell([nn.Dense(2, 64, weight_init="he_uniform"), nn.ReLU(), nn.Dense(64, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.Adam(net.trainable_params(), 1e-2))
"""

from . import init
from .cell import Cell, CellList, SequentialCell
from .init import (Constant, HeNormal, HeUniform, Initializer, Normal, One, Uniform, XavierNormal,
                   XavierUniform, Zero, initializer, set_seed, get_seed)
from .layers import Dense, Dropout, Flatten, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh, get_activation
from .loss import L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits
from .optim import Adam, Momentum, Optimizer, SGD
from .wrappers import TrainOneStepCell, WithLossCell

_CORE_ALL = ["Cell", "CellList", "SequentialCell",
              "Dense", "Dropout", "Flatten", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
              "get_activation",
              "LossBase", "MSELoss", "L1Loss", "SoftmaxCrossEntropyWithLogits",
              "Optimizer", "SGD", "Momentum", "Adam",
              "WithLossCell", "TrainOneStepCell",
              "init", "initializer", "Initializer", "Normal", "Uniform", "Zero", "One", "Constant",
              "HeUniform", "HeNormal", "XavierUniform", "XavierNormal", "set_seed", "get_seed"]

# Everything else nn has (convolution, recurrent and Transformer layers, more losses, optimizers and
# cells: nn/_more.py) loads when one of its names is first looked up (mscustom/_core/deferred.py).
# Until then ``__all__`` is not bound: ``from mscustom.nn import *`` asks __getattr__, which loads it.
from .._lazy import lazy_attrs as _lazy_attrs  # noqa: E402
__getattr__, __dir__ = _lazy_attrs(__name__, globals(), {
    "DistributedGradReducer": ".distributed:DistributedGradReducer"})
__getattr__.targets.update({name: "..train.metrics:" + name for name in (
    "Metric", "Accuracy", "Loss", "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "TopKCategoricalAccuracy",
    "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "get_metric_fn", "names")})
__getattr__.targets.update({name: "..train.metrics_more:" + name for name in (
    "ConfusionMatrix", "Perplexity", "Dice", "ROC", "auc", "BleuScore", "CosineSimilarity", "get_metrics",
    "rearrange_inputs")})
__getattr__.targets.update({name: "..train.metrics_surface:" + name for name in (
    "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance")})     # lazy, as the metrics above
__getattr__.targets.update({"OcclusionSensitivity": "..train.metrics_occlusion:OcclusionSensitivity",
                            "ConfusionMatrixMetric": "..train.metrics_confusion:ConfusionMatrixMetric"})


def _load_more():
    """Import nn/_more.py and bind its names here (``from ._more import *``); ``__all__`` is then whole."""
    from . import _more
    namespace = globals()
    for name in _more.__all__:
        namespace[name] = getattr(_more, name)
    namespace["__all__"] = _CORE_ALL + _more.__all__ + sorted(__getattr__.targets)


from .._core import deferred as _deferred  # noqa: E402
from .._lazy import with_deferred as _with_deferred  # noqa: E402
_deferred.add_loader(_load_more)
__getattr__, __dir__ = _with_deferred(__getattr__, __dir__, globals())
