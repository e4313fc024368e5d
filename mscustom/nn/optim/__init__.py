"""Optimizers with MindSpore's names and update rules; one module per family.

Example::

    opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    loss, grads = ms.value_and_grad(forward, None, weights=opt.parameters)(x, y)
    opt(grads)
"""

from .optimizer import Optimizer
from .sgd import SGD, Momentum
from .adam import Adam, AdamWeightDecay, AdamW
from .rmsprop import RMSProp
from .adagrad import Adagrad

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW", "RMSProp", "Adagrad"]
from .adadelta import Adadelta
from .ftrl import FTRL

__all__ += ["Adadelta", "FTRL"]
from .adamax import AdaMax
from .asgd import ASGD
from .rprop import Rprop
from .proximal_adagrad import ProximalAdagrad
from .lazyadam import LazyAdam

__all__ += ["AdaMax", "ASGD", "Rprop", "ProximalAdagrad", "LazyAdam"]
from .adam_offload import AdamOffload

__all__ += ["AdamOffload"]
from .adafactor import AdaFactor

__all__ += ["AdaFactor"]
