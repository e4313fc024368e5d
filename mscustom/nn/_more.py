"""nn's layers, losses, optimizers and cells beyond the everyday ones of ``nn/__init__.py``.

``mscustom.nn`` loads this module when one of its names is first looked up
(``mscustom/_core/deferred.py``): most programs use a few of its hundreds of names,
and importing them all would double ``import mscustom``'s time. nn's lazy names (the
metrics, ``DistributedGradReducer``) are not here: ``nn/__init__.py`` lists them.
"""

__all__ = []

# MindSpore layers: convolution, pooling, normalization, activations, containers, embedding
from .activation import GELU, LeakyReLU, ReLU6, SiLU
from .basic import Embedding, Identity
from .container import CellDict
from .conv import Conv1d, Conv2d, Conv2dTranspose
from .init import TruncatedNormal
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d

__all__ += ["GELU", "LeakyReLU", "ReLU6", "SiLU", "Embedding", "Identity", "CellDict", "Conv1d", "Conv2d",
            "Conv2dTranspose", "TruncatedNormal", "BatchNorm1d", "BatchNorm2d", "GroupNorm", "LayerNorm",
            "AdaptiveAvgPool2d", "AvgPool2d", "MaxPool2d"]
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, KLDivLoss, NLLLoss, SmoothL1Loss

__all__ += ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "KLDivLoss", "NLLLoss", "SmoothL1Loss"]
# Optimizers beyond SGD/Momentum/Adam, learning-rate schedules and per-step lr lists.
from .optim import AdamWeightDecay, AdamW, RMSProp, Adagrad
from .learning_rate_schedule import (LearningRateSchedule, ExponentialDecayLR, CosineDecayLR,
                                     PolynomialDecayLR, WarmUpLR)
from .dynamic_lr import piecewise_constant_lr, exponential_decay_lr, cosine_decay_lr, warmup_lr
__all__ += ["AdamWeightDecay", "AdamW", "RMSProp", "Adagrad", "LearningRateSchedule", "ExponentialDecayLR",
            "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR", "piecewise_constant_lr", "exponential_decay_lr",
            "cosine_decay_lr", "warmup_lr"]
from .eval_cell import WithEvalCell
__all__ += ["WithEvalCell"]
# More activations, 1-D and adaptive-max pooling, resizing/padding and losses (MindSpore's names)
from .activation import ELU, HSwish, HSigmoid, Mish, PReLU, Hardtanh, Softsign, Tanhshrink
from .pooling import MaxPool1d, AvgPool1d, AdaptiveMaxPool2d
from .resample import Upsample, ZeroPad2d
from .extra_losses import HuberLoss, CosineEmbeddingLoss, MarginRankingLoss
__all__ += ["ELU", "HSwish", "HSigmoid", "Mish", "PReLU", "Hardtanh", "Softsign", "Tanhshrink", "MaxPool1d",
            "AvgPool1d", "AdaptiveMaxPool2d", "Upsample", "ZeroPad2d", "HuberLoss", "CosineEmbeddingLoss",
            "MarginRankingLoss"]
from .rnns import RNN, GRU, LSTM
__all__ += ["RNN", "GRU", "LSTM"]
from .optim import Adadelta, FTRL
__all__ += ["Adadelta", "FTRL"]
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)
__all__ += ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
            "TransformerDecoder", "Transformer"]
from .constant_pad import ConstantPad1d, ConstantPad2d, ConstantPad3d
__all__ += ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d"]
from . import activation_more as _activation_more
from .activation_more import *  # noqa: F401,F403
__all__ += _activation_more.__all__

from . import basic_more as _basic_more, padding as _padding, shuffle as _shuffle
from .basic_more import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .shuffle import *  # noqa: F401,F403
__all__ += _basic_more.__all__ + _padding.__all__ + _shuffle.__all__
from .grad_cells import Jvp, Vjp  # noqa: E402  (nn.Jvp / nn.Vjp: jvp and vjp as Cells)
__all__ += ["Jvp", "Vjp"]
from . import losses_more as _losses_more
from .losses_more import *  # noqa: F401,F403
__all__ += _losses_more.__all__
from . import lr_more as _lr_more
from .lr_more import *  # noqa: F401,F403
__all__ += _lr_more.__all__
from .optim import AdaMax, ASGD, Rprop, ProximalAdagrad, LazyAdam  # noqa: E402
__all__ += ["AdaMax", "ASGD", "Rprop", "ProximalAdagrad", "LazyAdam"]
from .rnn_cells import RNNCell, GRUCell, LSTMCell  # noqa: E402
__all__ += ["RNNCell", "GRUCell", "LSTMCell"]
from . import layers_more as _layers_more
from .layers_more import *  # noqa: F401,F403
__all__ += _layers_more.__all__
from . import pooling_more as _pooling_more
from .pooling_more import *  # noqa: F401,F403
__all__ += _pooling_more.__all__
from .loss_scale_cells import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: E402
                               TrainOneStepWithLossScaleCell)
from .grad_wrappers import WithGradCell, ForwardValueAndGrad, ParameterUpdate  # noqa: E402
__all__ += ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell",
            "WithGradCell", "ForwardValueAndGrad", "ParameterUpdate"]
from .image import ImageGradients, CentralCrop, PSNR, SSIM, MSSSIM  # noqa: E402
__all__ += ["ImageGradients", "CentralCrop", "PSNR", "SSIM", "MSSSIM"]
from .conv_more import Conv3d, Conv3dTranspose, Conv1dTranspose  # noqa: E402
__all__ += ["Conv3d", "Conv3dTranspose", "Conv1dTranspose"]
from .lrn_embedding import LRN, MultiFieldEmbeddingLookup  # noqa: E402
__all__ += ["LRN", "MultiFieldEmbeddingLookup"]
from .ctc_loss import CTCLoss  # noqa: E402
__all__ += ["CTCLoss"]
from . import math_cells as _math_cells
from .math_cells import *  # noqa: F401,F403
__all__ += _math_cells.__all__
from .optim import AdamOffload  # noqa: E402
__all__ += ["AdamOffload"]
from .sampled_softmax import SampledSoftmaxLoss  # noqa: E402
__all__ += ["SampledSoftmaxLoss"]
from .fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from .optim import AdaFactor  # noqa: E402
__all__ += ["AdaFactor"]
from .micro_batch import (MicroBatchInterleaved, PipelineCell, GradAccumulationCell,  # noqa: E402
                          VirtualDatasetCellTriple)
__all__ += ["MicroBatchInterleaved", "PipelineCell", "GradAccumulationCell", "VirtualDatasetCellTriple"]
