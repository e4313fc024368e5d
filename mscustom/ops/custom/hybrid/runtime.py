"""The hybrid DSL's names as Python runs them: buffers, loops, scopes, casts and scalar intrinsics.

``dsl`` injects them into a kernel's globals when it runs as Python; ``check``
and ``shapes`` read the same tables to know which names are the DSL's. This
module is the bottom of the hybrid package: it imports nothing of it.
"""

import itertools
import math

import numpy as np

__all__ = ["RUNTIME", "LOOPS", "BUFFERS", "SCOPES", "UNARY", "BINARY", "CASTS", "KEYWORDS"]


def _buffer(shape, dtype="float32", scope="global"):
    """``allocate``/``output_tensor`` at run time: a zero-filled array (as MindSpore's Python run)."""
    del scope
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    return np.zeros(tuple(int(s) for s in shape), dtype=np.dtype(dtype))


def _grid(extents):
    """Every index tuple of ``extents`` in row-major order."""
    return itertools.product(*(range(int(e)) for e in extents))


def _rsqrt(x):
    return np.ones_like(x) / np.sqrt(x)


def _erf(x):
    return math.erf(x) if np.ndim(x) == 0 else np.vectorize(math.erf)(x)


class _Scope:
    """``with attr(...)`` / ``with block_realize(...)``: scheduling hints, no effect when run."""

    def __call__(self, *args, **kwargs):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


BUFFERS = {"allocate": _buffer, "output_tensor": _buffer}
LOOPS = {"range": range, "serial": range, "vectorize": range, "parallel": range, "reduce": range,
         "grid": _grid}
SCOPES = {"attr": _Scope(), "block_realize": _Scope()}
CASTS = {name: getattr(np, name) for name in ("float16", "float32", "float64", "int8", "int16", "int32",
                                              "int64", "uint8", "uint16", "uint32", "uint64")}
UNARY = {"sqrt": np.sqrt, "rsqrt": _rsqrt, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
         "tanh": np.tanh, "abs": np.abs, "sign": np.sign, "floor": np.floor, "ceil": np.ceil,
         "trunc": np.trunc, "round": np.round, "erf": _erf, "isnan": np.isnan, "isinf": np.isinf,
         "isfinite": np.isfinite, "atan": np.arctan, "expm1": np.expm1, **CASTS}
BINARY = {"power": np.power, "atan2": np.arctan2, "ceil_div": lambda a, b: (a + b - 1) // b,
          "max": max, "min": min}
RUNTIME = {**BUFFERS, **LOOPS, **SCOPES, **UNARY, **BINARY}
KEYWORDS = set(RUNTIME) | {"len", "kernel", "ms_kernel"}
