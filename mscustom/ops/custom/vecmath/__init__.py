"""Vectorizable math for jit kernels: exp, expm1, log, log1p, tanh, sigmoid, erf, sin, cos, pow, sqrt, rsqrt.

LLVM cannot vectorize a loop that calls libm's scalar ``tanhf`` or ``expf`` once
per element, and Numba's SVML path is not there with the published llvmlite
wheels. These functions are written for Numba instead: range reduction and a
minimax polynomial in the argument's own precision (float32 stays float32),
exponent bits built with integer operations, special values (NaN, infinities,
signed zeros, subnormals) chosen with selects -- no branches and no calls. Each
call emits its arithmetic straight into the caller's LLVM code (``_trace``), so
a loop that calls them is vectorized (``vfmadd...ps ymm`` on AVX2) like one that
only adds and multiplies, and compiles about as fast.

Use them in any njit function or jit kernel (float32 or float64 arguments;
integers compute in float64)::

    from mscustom.ops.custom import vecmath

    def gelu_kernel(x, b, out):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                z = x[i, j] + b[j]
                out[i, j] = 0.5 * z * (1 + vecmath.tanh(0.7978846 * (z + 0.044715 * z * z * z)))

Jit kernels need not name them: ``math.tanh``, ``np.exp``, ``from math import
erf`` ... are lowered to them by default (``lowering``; ``ops.Custom(...,
func_type="jit", vector_math=False)`` turns that off).

Accuracy: within ``ULP_BOUND[name]`` ulps of the exact result, (float32,
float64), over the whole range -- float32 measured on every 11th bit pattern (exp on all 2**32), float64
sampled (``bench/vecmath_accuracy.py``; docs/vecmath.md has the table). ``sin``/``cos`` reduce their argument
exactly, so they hold for ``1e30`` as for ``1``. CPU only (Numba's CPU target);
an x86 CPU with AVX2 and FMA runs them 8 (float32) or 4 (float64) at a time.

Outside compiled code the functions compute with NumPy.
"""

from ._api import cos, erf, exp, expm1, log, log1p, pow, rsqrt, sigmoid, sin, sqrt, tanh
from ._impls import NAMES

__all__ = ["exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "pow", "sqrt", "rsqrt",
           "NAMES", "ULP_BOUND"]

# documented bound in ulps of the exact result, (float32, float64); docs/vecmath.md has the
# measured maxima (bench/vecmath_accuracy.py). The tests assert these.
ULP_BOUND = {"exp": (1.0, 1.5), "expm1": (1.0, 1.5), "log": (1.0, 1.5), "log1p": (1.0, 1.5),
             "tanh": (1.5, 1.5), "sigmoid": (1.0, 1.5), "erf": (1.5, 1.5), "sin": (1.0, 1.5),
             "cos": (1.0, 1.5), "pow": (1.5, 1.5), "sqrt": (0.5, 0.5), "rsqrt": (1.0, 1.0)}
