"""Kernel kind "aot": ahead-of-time compiled C/C++/CUDA kernels called through cffi.

``ops.Custom("aot_kernels/build/libkernels.so:CustomAdd", ..., func_type="aot")``
calls the symbol with the MindSpore-compatible AOT ABI
(``mscustom/include/mscustom_aot.h``; C++ kernels may use MindSpore's
``custom_aot_extra.h``, shipped next to it)::

    int Func(int nparam, void **params, int *ndims, int64_t **shapes,
             const char **dtypes, void *stream, void *extra);

One module per concern:

- ``library.py``: finding, building and opening libraries, which ``extra`` they get;
- ``build.py``: the self-healing, content-keyed build cache for sources;
- ``abi.py``: marshalling of shapes, dtypes, scalar arguments, attributes, workspace;
- ``extra.py``: the C++ ``AotExtra`` shim and the ``<Func>InferShape`` trampoline;
- ``runners.py``: the per-call functions (CPU: cffi then the Numba caller; debug; GPU);
- ``kind.py``: the kind (``AotKind``), the ``make_kernel`` adapter, ``infer_shape_rule``.

GPU target: the library gets device pointers and a CUDA stream; tensors live
in host memory, so every call copies inputs to the device and outputs back
(numba-cuda). "Ascend" kernels run on the host like "CPU" ones.

fork(): GNU OpenMP's pool does not survive ``fork()``; kernels built with
``mscustom_aot.h`` end it before any fork (``pthread_atfork``), and so does
``_forksafe`` for ``os.fork()``; small calls never enter OpenMP
(``MS_PARALLEL_FOR``).
"""

from .. import _forksafe
from . import build
from .kind import KIND, AotKind, bind_signature, infer_shape_rule, make_kernel
from .library import load_library, resolve_path
from .runners import CALLER_ENV, TIER_UP_CALLS as _TIER_UP_CALLS

__all__ = ["make_kernel", "infer_shape_rule", "AotKind", "KIND", "resolve_path", "load_library",
           "CALLER_ENV", "build", "bind_signature"]

_forksafe.install()         # OpenMP kernels keep working in a forked child (see _forksafe)
