"""MindSpore's hybrid DSL as a kernel kind: ``@kernel`` functions run as Python, compiled by Numba, differentiated.

Modules, one job each: ``dsl`` (the DSL's names, ``kernel``, direct
execution), ``check`` (static checks), ``shapes`` (output inference from the
declarations), ``lower`` (grid expansion and normalisation), ``codegen``
(Numba source), ``compile`` (loading and compiling it), ``grad`` (reverse-mode
gradient kernels), ``kind`` (the kernel kind ``ops.Custom`` uses).

Example::

    from mscustom.ops import kernel
    @kernel
    def double(a):
        c = output_tensor(a.shape, a.dtype)
        for i in range(a.shape[0]):
            c[i] = a[i] * 2.0
        return c
"""

from .check import HybridSyntaxError
from .dsl import HybridFunction, kernel, ms_kernel

__all__ = ["kernel", "ms_kernel", "HybridFunction", "HybridSyntaxError"]
