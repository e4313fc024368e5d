"""mscustom: write a custom deep-learning operator once and run it fast.

A MindSpore-style programming model on NumPy: Tensor, Parameter, nn.Cell,
grad / value_and_grad, optimizers, and ``ops.Custom`` for pyfunc, Numba-jit
and ahead-of-time compiled C/C++/CUDA kernels, all served by one operator core.
"""

import os as _os
import sys as _sys

# Before NumPy loads OpenBLAS (it reads the variable then): its workers stop spinning a few
# microseconds after a threaded product instead of 0.1 s, so they leave the cores to the parallel
# kernels that follow (mscustom/_threads.py). A value already set is kept.
if "numpy" not in _sys.modules and "OPENBLAS_THREAD_TIMEOUT" not in _os.environ:
    _os.environ["OPENBLAS_THREAD_TIMEOUT"] = "14"
del _os, _sys

from .dtype import (DType, float16, float32, float64, int8, int16, int32, int64, uint8, uint16,
                    uint32, uint64, bool_)
from ._malloc import apply as _keep_freed_memory      # eager steps reuse freed arrays' pages (_malloc.py)
_keep_freed_memory()
del _keep_freed_memory
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
# These, MPI communication, the profiler and mixed precision are imported on first use (mscustom/_lazy.py):
# most programs never touch them, and importing them costs more than the rest of the package.
__all__ += ["dataset", "train", "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History",
            "EarlyStopping", "CheckpointConfig", "ModelCheckpoint", "save_checkpoint", "load_checkpoint",
            "load_param_into_net"]

# bfloat16 (ml_dtypes), mixed precision (ms.amp, Cell.to_float) and ms.mutable
from ._mutable import mutable  # noqa: E402
__all__ += ["bfloat16", "amp", "mutable"]
__all__ += ["export"]  # ms.export(net, *inputs, file_name=..., file_format="ONNX")
from .tensor import tensor  # noqa: E402  (ms.tensor(...), the function form of Tensor)
from .tensor import from_numpy  # noqa: E402  (ms.from_numpy(array): shares the array's memory)
from .dtype import dtype_to_nptype, dtype_to_pytype, pytype_to_dtype  # noqa: E402
__all__ += ["from_numpy", "dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype"]
# Data parallel over MPI (mindspore.communication, the auto-parallel context).
from .parallel_context import (ParallelMode, set_auto_parallel_context, get_auto_parallel_context,  # noqa: E402
                               reset_auto_parallel_context)
__all__ += ["communication", "ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
            "reset_auto_parallel_context"]
# mindspore.parallel.distributed.DistributedDataParallel, mindspore.device_context.cpu.op_tuning.threads_num
__all__ += ["device_context"]
# MindSpore's profiler (ms.Profiler, ms.profiler.profile / schedule) and log (ms.log, set by GLOG_v).
from . import log  # noqa: E402
__all__ += ["log", "profiler", "Profiler"]

from ._lazy import lazy_attrs as _lazy_attrs  # noqa: E402
__getattr__, __dir__ = _lazy_attrs(__name__, globals(), {
    "dataset": ".dataset", "train": ".train", "communication": ".communication", "parallel": ".parallel",
    "device_context": ".device_context", "profiler": ".profiler", "amp": ".amp",
    "bfloat16": ".dtype:bfloat16", "export": ".train:export", "Profiler": ".profiler:Profiler",
    **{name: ".train:" + name for name in ("Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor",
                                           "History", "EarlyStopping", "CheckpointConfig", "ModelCheckpoint",
                                           "save_checkpoint", "load_checkpoint", "load_param_into_net")},
})
# Loss scaling (ms.FixedLossScaleManager ... ms.build_train_network, also in ms.amp).
__getattr__.targets.update({name: ".amp:" + name for name in (   # imported on first use, as ms.amp is
    "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network")})
__all__ += ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network"]
__getattr__.targets["numpy"] = ".numpy"   # mindspore.numpy: ms.numpy loads mscustom.numpy on first use

# sparse tensors (COO, CSR, rows); their functions are in mscustom.ops (coo_*, csr_* ...)
from .ops.sparse.tensors import COOTensor, CSRTensor, RowTensor, SparseTensor  # noqa: E402
__all__ += ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor"]
# Function transforms MindSpore also exports at the top level (ms.vjp, ms.jvp, ms.vmap, ms.jacrev, ms.jacfwd).
from .autograd_transforms import vjp, jvp, vmap, jacrev, jacfwd  # noqa: E402
__all__ += ["vjp", "jvp", "vmap", "jacrev", "jacfwd"]
# MindSpore's other top-level names, imported on first use: type objects and dtype aliases, random
# generators, runtime/memory queries, compilation hints, checkpoint conversions, metrics.
__getattr__.targets.update({
    **{name: "._typing:" + name for name in (
        "Type", "Int", "TensorType", "int_", "float_", "uint", "number", "list_", "tuple_", "type_none", "string",
        "tensor_type", "half", "single", "double", "short", "intc", "long", "intp", "byte", "ubyte", "ushort",
        "uintc", "uintp", "cfloat", "cdouble", "get_py_obj_dtype")},
    "complex64": ".dtype:complex64", "complex128": ".dtype:complex128",
    **{name: ".random_state:" + name for name in (
        "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state")},
    **{name: ".runtime:" + name for name in (
        "synchronize", "empty_cache", "memory_stats", "memory_summary", "memory_allocated", "max_memory_allocated",
        "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
        "reset_max_memory_reserved", "launch_blocking", "dispatch_threads_num", "set_deterministic",
        "get_current_device", "run_check")},
    **{name: "._jit_names:" + name for name in (
        "recompute", "lazy_inline", "no_inline", "jit_class", "JitConfig", "enable_dynamic", "set_recursion_limit",
        "STRICT", "COMPATIBLE", "LAX")},
    **{name: ".train.serialization_more:" + name for name in (
        "ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "async_ckpt_thread_status",
        "merge_sliced_parameter", "load_mindir", "save_mindir")},
    "get_level": ".log:get_level", "get_log_config": ".log:get_log_config",
    "is_tensor": "._tensor_funcs:is_tensor", "frombuffer": "._tensor_funcs:frombuffer",
    **{name: ".train:" + name for name in (
        "Metric", "Accuracy", "Loss", "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "TopKCategoricalAccuracy",
        "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "get_metric_fn", "names", "ConfusionMatrix",
        "Perplexity", "Dice", "ROC", "auc", "BleuScore", "CosineSimilarity", "rearrange_inputs")},
})
__getattr__.targets.update({name: ".train.callback_more:" + name for name in (
    "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau")})
__getattr__.targets["DatasetHelper"] = ".train.dataset_helper:DatasetHelper"
from . import _tensor_methods_more  # noqa: E402,F401  (Tensor.new_zeros, .add_, .mT ...: binds onto Tensor)
__getattr__.targets["BackupAndRestore"] = ".train.callback_more:BackupAndRestore"
__getattr__.targets.update({name: "._top_metrics:" + name for name in (   # MindSpore's metrics, where defined
    "ConfusionMatrixMetric", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
    "OcclusionSensitivity")})
__getattr__.targets["shard"] = "._jit_names:shard"   # fn itself in one process, as MindSpore
