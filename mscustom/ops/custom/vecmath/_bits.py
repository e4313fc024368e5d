"""LLVM-level helpers for the vector math: fused multiply-add, rounding, exponent-bit tricks.

Each is a Numba ``@intrinsic`` for float32 and float64 alike (the LLVM type follows
the argument's), so a function built from them stays in the argument's precision and
LLVM's loop vectorizer sees plain arithmetic it can widen: nothing here calls a C function.
"""

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["inline", "vector", "div", "fma", "rint", "floor", "fabs", "copysign", "sqrt", "pow2i", "scale2", "split_exp", "float_bits",
           "bits_float", "FLOATS"]

FLOATS = (types.float32, types.float64)


def inline(fn):
    """A helper of the vector functions: inlined into them by Numba (``njit(inline="always")``)."""
    return njit(inline="always")(fn)


def vector(pyfunc):
    """A vector function: ``pyfunc`` (float arguments of one type, a result of that type) compiled
    once per type and process, and inlined by LLVM wherever it is called.

    Numba's own inlining re-types the callee at every call site (seconds for a kernel calling a
    few of these); here each call is an ordinary call of the one compiled function, marked
    ``alwaysinline``, so the caller's loop still sees straight-line code to vectorize.
    """
    nargs = pyfunc.__code__.co_argcount

    def codegen(context, builder, sig, args):
        cres = context.compile_subroutine(builder, pyfunc, sig)
        fn = context.declare_function(builder.module, cres.fndesc)
        _, res = context.call_conv.call_function(builder, fn, sig.return_type, sig.args, args,
                                                 attrs=("alwaysinline",))
        return res                           # the status is always OK: these functions cannot raise

    if nargs == 1:
        def typer(typingctx, x):
            if _float(x):
                return x(x), codegen
    elif nargs == 2:
        def typer(typingctx, x, y):
            if _float(x) and x == y:
                return x(x, y), codegen
    else:
        raise ValueError(f"vector functions take one or two arguments, {pyfunc.__name__} takes {nargs}")
    typer.__name__ = pyfunc.__name__
    typer.__qualname__ = pyfunc.__qualname__
    typer.__doc__ = pyfunc.__doc__
    return intrinsic(typer)
_MANT = {types.float32: 23, types.float64: 52}
_BIAS = {types.float32: 127, types.float64: 1023}


def _float(ty):
    return isinstance(ty, types.Float) and ty in FLOATS


def _ints(ty):
    """(LLVM integer type of the same width, mantissa bits, exponent bias) of a float type."""
    return ir.IntType(32 if ty == types.float32 else 64), _MANT[ty], _BIAS[ty]


def _call(builder, name, args):
    fnty = ir.FunctionType(args[0].type, [a.type for a in args])
    fn = cgutils.get_or_insert_function(builder.module, fnty, f"{name}.{_suffix(args[0].type)}")
    return builder.call(fn, args)


def _suffix(lty):
    return "f32" if isinstance(lty, ir.FloatType) else "f64"


@intrinsic
def div(typingctx, a, b):
    """IEEE ``a / b`` (inf or NaN for a zero ``b``): Numba's ``/`` checks for zero and raises, a branch
    that keeps LLVM from vectorizing the loop."""
    if _float(a) and a == b:
        def codegen(context, builder, sig, args):
            return builder.fdiv(args[0], args[1])
        return a(a, a), codegen


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c``, fused where the CPU has FMA (``llvm.fmuladd``), else a multiply and an add."""
    if _float(a) and a == b == c:
        def codegen(context, builder, sig, args):
            return _call(builder, "llvm.fmuladd", list(args))
        return a(a, a, a), codegen


@intrinsic
def rint(typingctx, x):
    """Round to the nearest integer, ties to even (``llvm.rint``: ``vroundps`` with SSE4.1)."""
    if _float(x):
        def codegen(context, builder, sig, args):
            return _call(builder, "llvm.rint", list(args))
        return x(x), codegen


@intrinsic
def floor(typingctx, x):
    """Round down to an integer (``llvm.floor``: ``vroundps`` with SSE4.1)."""
    if _float(x):
        def codegen(context, builder, sig, args):
            return _call(builder, "llvm.floor", list(args))
        return x(x), codegen


@intrinsic
def fabs(typingctx, x):
    """``|x|`` by clearing the sign bit (``llvm.fabs``)."""
    if _float(x):
        def codegen(context, builder, sig, args):
            return _call(builder, "llvm.fabs", list(args))
        return x(x), codegen


@intrinsic
def sqrt(typingctx, x):
    """Correctly rounded square root (``llvm.sqrt``: ``vsqrtps``); NaN below zero, ``sqrt(-0) == -0``."""
    if _float(x):
        def codegen(context, builder, sig, args):
            return _call(builder, "llvm.sqrt", list(args))
        return x(x), codegen


@intrinsic
def copysign(typingctx, x, y):
    """``|x|`` with the sign of ``y`` (``llvm.copysign``)."""
    if _float(x) and x == y:
        def codegen(context, builder, sig, args):
            return _call(builder, "llvm.copysign", list(args))
        return x(x, x), codegen


def _pow2(builder, kf):
    """``2**k`` from an integral float ``k`` with ``0 <= k + bias < 2**mantissa-bits``.

    ``k + bias + 2**m`` (``m`` mantissa bits) is exact and holds ``k + bias`` in its low bits;
    shifting them into the exponent field gives ``2**k``. Float adds and integer shifts only:
    no float-to-int conversion, which AVX2 lacks for 64-bit integers.
    """
    fty = kf.type
    ity, mant, bias = _lty_ints(fty)
    v = builder.fadd(kf, ir.Constant(fty, float(2 ** mant + bias)))
    return builder.bitcast(builder.shl(builder.bitcast(v, ity), ir.Constant(ity, mant)), fty)


def _lty_ints(fty):
    return (ir.IntType(32), 23, 127) if isinstance(fty, ir.FloatType) else (ir.IntType(64), 52, 1023)


def _int_to_float(builder, i, fty):
    """A small non-negative integer (below 2**mantissa-bits) as a float, by the same bit trick."""
    ity, mant, _ = _lty_ints(fty)
    one = ir.Constant(ity, (127 + mant) << mant if ity.width == 32 else (1023 + mant) << mant)
    v = builder.bitcast(builder.or_(i, one), fty)                  # 2**mant + i
    return builder.fsub(v, ir.Constant(fty, float(2 ** mant)))


@intrinsic
def pow2i(typingctx, k):
    """``2**k`` for an integral float ``k`` in the normal exponent range, built from its bits."""
    if _float(k):
        def codegen(context, builder, sig, args):
            return _pow2(builder, args[0])
        return k(k), codegen


@intrinsic
def scale2(typingctx, x, k):
    """``x * 2**k`` for an integral float ``k`` up to twice the normal exponent range.

    Two multiplies by ``2**floor(k/2)`` and ``2**(k - floor(k/2))``, each a normal number: a
    result that overflows gives inf and one in the subnormal range is rounded once, correctly.
    """
    if _float(x) and x == k:
        def codegen(context, builder, sig, args):
            fty = args[0].type
            half = builder.fmul(args[1], ir.Constant(fty, 0.5))
            k1 = _call(builder, "llvm.floor", [half])
            k2 = builder.fsub(args[1], k1)
            return builder.fmul(builder.fmul(args[0], _pow2(builder, k1)), _pow2(builder, k2))
        return x(x, x), codegen


@intrinsic
def split_exp(typingctx, x, lo):
    """``(m, e)`` with ``x == m * 2**e`` and ``lo <= m < 2*lo`` (``lo`` a float just below 1, ``e`` integral float).

    ``x`` must be positive and normal; its bits are shifted so the mantissa lands in
    ``[lo, 2*lo)`` rather than ``[1, 2)``: the logarithm's polynomial then sees ``m - 1``
    on an interval centred on zero. Integer adds and logical shifts only (the biased
    exponent stays non-negative), so float64 vectorizes on AVX2 too.
    """
    if _float(x) and x == lo:
        def codegen(context, builder, sig, args):
            fty = args[0].type
            ity, mant, bias = _lty_ints(fty)
            xi = builder.bitcast(args[0], ity)
            off = builder.bitcast(args[1], ity)               # the bits of lo: m's lowest pattern
            biased = ir.Constant(ity, bias << mant)
            t = builder.add(builder.sub(xi, off), biased)
            eb = builder.lshr(t, ir.Constant(ity, mant))      # exponent relative to lo's, plus bias
            mbits = builder.add(builder.sub(xi, builder.shl(eb, ir.Constant(ity, mant))), biased)
            m = builder.bitcast(mbits, fty)
            ef = builder.fsub(_int_to_float(builder, eb, fty), ir.Constant(fty, float(bias)))
            return context.make_tuple(builder, sig.return_type, (m, ef))
        return types.UniTuple(x, 2)(x, x), codegen


@intrinsic
def float_bits(typingctx, x):
    """The bits of ``x`` as a uint64 (a float32's 32 bits zero-extended)."""
    if _float(x):
        def codegen(context, builder, sig, args):
            ity, _, _ = _ints(sig.args[0])
            bits = builder.bitcast(args[0], ity)
            return bits if ity.width == 64 else builder.zext(bits, ir.IntType(64))
        return types.uint64(x), codegen


@intrinsic
def bits_float(typingctx, u, like):
    """The float of ``like``'s type whose bits are ``u``'s low bits (a uint64)."""
    if isinstance(u, types.Integer) and u.bitwidth == 64 and _float(like):
        def codegen(context, builder, sig, args):
            ity, _, _ = _ints(sig.args[1])
            bits = args[0] if ity.width == 64 else builder.trunc(args[0], ity)
            return builder.bitcast(bits, args[1].type)
        return like(u, like), codegen
