"""Training with MindSpore's ``mindspore.train`` names: Model, callbacks, metrics and checkpoints.

Example::

    from mscustom.train import Model, LossMonitor, Accuracy
    model = Model(net, loss_fn, optimizer, metrics={"accuracy": Accuracy()})
    model.train(2, dataset, callbacks=[LossMonitor()])
"""

from .callback import Callback, RunContext, LossMonitor, TimeMonitor, History, EarlyStopping
from .checkpoint_callback import CheckpointConfig, ModelCheckpoint
from .metrics import (Metric, Accuracy, Loss, Precision, Recall, Fbeta, F1, MAE, MSE, TopKCategoricalAccuracy,
                      Top1CategoricalAccuracy, Top5CategoricalAccuracy, get_metric_fn, names)
from .model import Model
from .serialization import save_checkpoint, load_checkpoint, load_param_into_net
from . import metrics

__all__ = ["Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History", "EarlyStopping",
           "CheckpointConfig", "ModelCheckpoint", "Metric", "Accuracy", "Loss", "Precision", "Recall", "Fbeta",
           "F1", "MAE", "MSE", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "get_metric_fn", "names", "metrics", "save_checkpoint", "load_checkpoint", "load_param_into_net"]
from .onnx_export import export

__all__ += ["export"]
from . import metrics_more as _metrics_more
from .metrics_more import *  # noqa: F401,F403
__all__ += _metrics_more.__all__
from .metrics_surface import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance  # noqa: E402
from . import metrics as _metrics_mod  # noqa: E402
_metrics_mod._FACTORY.update({"hausdorff_distance": HausdorffDistance, "mean_surface_distance": MeanSurfaceDistance,
                              "root_mean_square_distance": RootMeanSquareDistance})
__all__ += ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]
from .metrics_occlusion import OcclusionSensitivity  # noqa: E402
_metrics_mod._FACTORY["occlusion_sensitivity"] = OcclusionSensitivity
__all__ += ["OcclusionSensitivity"]
from .metrics_confusion import ConfusionMatrixMetric  # noqa: E402
_metrics_mod._FACTORY["confusion_matrix_metric"] = ConfusionMatrixMetric
__all__ += ["ConfusionMatrixMetric"]
