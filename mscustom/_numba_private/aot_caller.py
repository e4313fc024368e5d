"""A Numba-compiled caller for AOT kernels: the fast path of hot CPU aot plans.

Calling a C symbol through cffi costs about 1 µs more than the kernel, most
of it spent turning each array into a pointer (``ffi.from_buffer``). This
module compiles, once per tuple of array types (cached on disk by Numba), a
tiny ``nogil`` function that reads the arrays' data pointers, writes them into
a ``void *[]`` and calls the symbol by address, for about 0.3 µs. The aot
kind's CPU runner (``ops/custom/aot/runners.py``) switches a plan to it after
the plan's first calls (see ``aot.CALLER_ENV``), when
``mscustom._numba_private.supported()``.

``meta`` (int64): ``[address, nparam, ndims*, shapes*, dtypes*, stream, extra*,
narrays, slot of array 0, ..., slot of array narrays-1, then nparam base
pointers]``; the base pointers are those that never change (the scalar
arguments' 0-d arrays; zeros where the arrays go).

Importing this module imports Numba.
"""

import numpy as np
from llvmlite import ir
from numba import from_dtype, literal_unroll, njit, types
from numba.extending import intrinsic

from . import cache as _numba_cache

__all__ = ["compile_caller", "make_meta", "NOT_CONTIGUOUS"]

NOT_CONTIGUOUS = -0x7FFF0001     # returned instead of calling when an array is not C-contiguous
_I64 = types.int64
_META = types.Array(types.int64, 1, "C")


@intrinsic
def _call_abi(typingctx, addr, nparam, params, ndims, shapes, dtypes, stream, extra):
    """``((int (*)(int, void **, int *, int64_t **, const char **, void *, void *))addr)(...)``."""
    sig = types.int32(_I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32)] + [i8p] * 6)
        fptr = builder.inttoptr(args[0], fnty.as_pointer())
        n32 = builder.trunc(args[1], ir.IntType(32))
        return builder.call(fptr, [n32] + [builder.inttoptr(a, i8p) for a in args[2:]])

    return sig, codegen


@njit(cache=True, nogil=True)
def _call(meta, arrays):
    start = 8 + meta[7]
    ptrs = meta[start:start + meta[1]].copy()
    i = 0
    for a in literal_unroll(arrays):
        if not a.flags.c_contiguous:
            return NOT_CONTIGUOUS
        ptrs[meta[8 + i]] = a.ctypes.data
        i += 1
    return _call_abi(meta[0], meta[1], ptrs.ctypes.data, meta[2], meta[3], meta[4], meta[5], meta[6])


def make_meta(address, nparam, ndims, shapes, dtypes, stream, extra, slots, base):
    """The ``meta`` array the caller reads (all pointers as ints)."""
    return np.array([address, nparam, ndims, shapes, dtypes, stream, extra, len(slots), *slots, *base],
                    np.int64)


def compile_caller(np_dtypes, ndims):
    """The compiled entry point ``caller(meta, arrays_tuple) -> int`` for these arrays.

    Raises Numba's errors when it cannot type an array (the runner then
    keeps calling through cffi).
    """
    arrays = types.Tuple([types.Array(from_dtype(np.dtype(d)), nd, "A") for d, nd in zip(np_dtypes, ndims)])
    cached = _numba_cache.load_cached(_call, (_META, arrays))     # a fresh process skips Numba's start-up
    return cached if cached is not None else _call.compile((_META, arrays))
