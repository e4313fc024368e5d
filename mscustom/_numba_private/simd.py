"""Eight float32 lanes as one value in njit code: explicit SIMD for register-tiled loops.

LLVM's loop vectorizer turns one loop into vector code, but it keeps a
reduction's partial results in memory whenever the loop nest is deeper than
one level, and its SLP vectorizer does not pack a tile of scalar
accumulators carried through a loop. A register-tiled kernel (12 vector
accumulators summed over a long reduction, as a convolution's direct loop
needs) is out of reach of both. This module gives njit code a value type
``f32x8`` (LLVM's ``<8 x float>``) and the few operations such a kernel needs,
so the tile is written once and LLVM only allocates registers:

- ``vzero()``: eight zeros;
- ``vload(a, i)`` / ``vstore(a, i, v)``: lanes ``a.flat[i:i+8]`` of a
  C-contiguous float32 array (unaligned; no bounds check: the caller's
  indices are in range);
- ``vsplat(s)``: a float32 scalar in every lane;
- ``vfma(a, b, c)``: ``a * b + c`` per lane, one rounding (``llvm.fma``);
- ``vadd(a, b)``: lane sums.

On a CPU without AVX the same IR runs as pairs of SSE operations (and
``llvm.fma`` as a library call without FMA hardware): slower, same values.
``vfma`` always rounds once, so results do not depend on the CPU.

Built on ``numba.extending`` (a type, its data model, ``intrinsic``) with
llvmlite IR: Numba's code generation, which it does not promise to keep.
Callers check ``_numba_private.supported()`` first and keep a path without
this module. Importing it imports Numba.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

__all__ = ["f32x8", "vzero", "vload", "vstore", "vsplat", "vfma", "vadd", "LANES"]

LANES = 8
_VEC = ir.VectorType(ir.FloatType(), LANES)


class F32x8(types.Type):
    """The Numba type of eight float32 lanes held as one LLVM vector value."""

    def __init__(self):
        super().__init__(name="f32x8")


f32x8 = F32x8()


@register_model(F32x8)
class _F32x8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VEC)


def _float32_array(a):
    return isinstance(a, types.Array) and a.dtype == types.float32 and a.layout == "C"


def _lanes_pointer(context, builder, aryty, ary, idx):
    data = context.make_array(aryty)(context, builder, ary).data
    return builder.bitcast(builder.gep(data, [idx]), _VEC.as_pointer())


@intrinsic
def vzero(typingctx):
    def codegen(context, builder, signature, args):
        return ir.Constant(_VEC, [0.0] * LANES)
    return f32x8(), codegen


@intrinsic
def vload(typingctx, a, i):
    if not (_float32_array(a) and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        ary, idx = args
        idx = context.cast(builder, idx, signature.args[1], types.intp)
        return builder.load(_lanes_pointer(context, builder, signature.args[0], ary, idx), align=4)
    return f32x8(a, i), codegen


@intrinsic
def vstore(typingctx, a, i, v):
    if not (_float32_array(a) and isinstance(i, types.Integer) and v == f32x8):
        return None

    def codegen(context, builder, signature, args):
        ary, idx, val = args
        idx = context.cast(builder, idx, signature.args[1], types.intp)
        builder.store(val, _lanes_pointer(context, builder, signature.args[0], ary, idx), align=4)
        return context.get_dummy_value()
    return types.void(a, i, v), codegen


@intrinsic
def vsplat(typingctx, s):
    if not isinstance(s, types.Float):
        return None

    def codegen(context, builder, signature, args):
        x = context.cast(builder, args[0], signature.args[0], types.float32)
        one = builder.insert_element(ir.Constant(_VEC, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
        return builder.shuffle_vector(one, ir.Constant(_VEC, ir.Undefined),
                                      ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))
    return f32x8(s), codegen


@intrinsic
def vfma(typingctx, a, b, c):
    if not (a == f32x8 and b == f32x8 and c == f32x8):
        return None

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_VEC, [_VEC] * 3), "llvm.fma.v8f32")
        return builder.call(fn, args)
    return f32x8(f32x8, f32x8, f32x8), codegen


@intrinsic
def vadd(typingctx, a, b):
    if not (a == f32x8 and b == f32x8):
        return None

    def codegen(context, builder, signature, args):
        return builder.fadd(*args)
    return f32x8(f32x8, f32x8), codegen
