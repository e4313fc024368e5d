"""mscustom: write a custom deep-learning operator once and run it fast.

A MindSpore-style programming model on NumPy: Tensor, Parameter, nn.Cell,
grad / value_and_grad, optimizers, and ``ops.Custom`` for pyfunc, Numba-jit
and ahead-of-time compiled C/C++/CUDA kernels, all served by one operator core.
"""

from .dtype import (DType, float16, float32, float64, int8, int16, int32, int64, uint8, uint16,
                    uint32, uint64, bool_)
from .tensor import Tensor, Parameter, ParameterTuple
from .context import (GRAPH_MODE, PYNATIVE_MODE, set_context, get_context, set_device)
from . import ops
from . import nn
from .nn.init import set_seed, get_seed
from .autograd import grad, value_and_grad, GradOperation
from .graph import jit
from . import extend

__version__ = "0.1.0"

__all__ = ["DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "bool_", "Tensor", "Parameter", "ParameterTuple",
           "GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "set_device", "ops",
           "grad", "value_and_grad", "GradOperation", "nn", "set_seed", "get_seed", "jit", "extend"]

from . import common  # noqa: E402  (mindspore.common: initializer, dtype)

# Data, the training driver and checkpoints (mindspore.dataset / mindspore.train / mindspore.save_checkpoint ...).
from . import dataset, train
from .train import (Model, Callback, RunContext, LossMonitor, TimeMonitor, History, EarlyStopping, CheckpointConfig,
                    ModelCheckpoint, save_checkpoint, load_checkpoint, load_param_into_net)
__all__ += ["dataset", "train", "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History",
            "EarlyStopping", "CheckpointConfig", "ModelCheckpoint", "save_checkpoint", "load_checkpoint",
            "load_param_into_net"]

# bfloat16 (ml_dtypes), mixed precision (ms.amp, Cell.to_float) and ms.mutable
from .dtype import bfloat16, complex64, complex128  # noqa: E402
from . import amp  # noqa: E402
from ._mutable import mutable  # noqa: E402
__all__ += ["bfloat16", "complex64", "complex128", "amp", "mutable"]
from .train import export  # noqa: E402  (ms.export(net, *inputs, file_name=..., file_format="ONNX"))
__all__ += ["export"]
from .tensor import tensor  # noqa: E402  (ms.tensor(...), the function form of Tensor)
from .tensor import from_numpy  # noqa: E402  (ms.from_numpy(array): shares the array's memory)
from .dtype import dtype_to_nptype, dtype_to_pytype, pytype_to_dtype  # noqa: E402
__all__ += ["from_numpy", "dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype"]
# Data parallel over MPI (mindspore.communication, the auto-parallel context).
from . import communication
from .parallel_context import (ParallelMode, set_auto_parallel_context, get_auto_parallel_context,
                               reset_auto_parallel_context)
__all__ += ["communication", "ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
            "reset_auto_parallel_context"]
from . import parallel  # noqa: E402  (mindspore.parallel.distributed.DistributedDataParallel)
from . import device_context  # noqa: E402  (mindspore.device_context.cpu.op_tuning.threads_num)
__all__ += ["device_context"]
# MindSpore's profiler (ms.Profiler, ms.profiler.profile / schedule) and log (ms.log, set by GLOG_v).
from . import log, profiler  # noqa: E402
from .profiler import Profiler  # noqa: E402
__all__ += ["log", "profiler", "Profiler"]
