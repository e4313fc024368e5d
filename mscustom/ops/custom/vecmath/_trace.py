"""The vector functions' code generator: plain Python run on symbolic values that emit LLVM IR.

A vector function is written once, as Python over ``V`` values (``+ - * /``,
comparisons, ``&`` ``|`` ``~`` on their results, ``select``, ``fma`` ...). Numba
calls it through an ``@intrinsic``: the Python runs at compile time with the
call's arguments as ``V`` values and the instructions it emits land straight in
the caller's LLVM function -- no call, no Numba typing of the body, so a kernel
that uses ten of them compiles in about the time of one that uses none, and
LLVM's loop vectorizer sees the arithmetic itself.

Every float value has the type of the arguments (``Ty``): a Python number
mixed in becomes a constant of that type (rounded to float32 for float32), so
nothing is silently computed in float64. ``/`` is IEEE division (no zero check),
comparisons are IEEE (false with a NaN operand, ``!=`` true), ``select(c, a, b)``
is LLVM's ``select``.

Example::

    def cube_plus_one(x):
        return fma(x * x, x, 1.0)

    cube_plus_one_nb = vector(cube_plus_one)      # callable in njit code on float32 or float64
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils

from ...._numba_private.intrinsics import intrinsic

__all__ = ["V", "Ty", "vector", "select", "fma", "mad", "rint", "floor", "fabs", "copysign", "with_sign_of", "sqrt", "pow2",
           "scale2", "split_exp", "exponent_mantissa", "lookup", "int_to_float"]


class Ty:
    """A float type's LLVM types and layout."""

    def __init__(self, nbtype):
        self.nb = nbtype
        self.bits = nbtype.bitwidth
        self.fty = ir.FloatType() if self.bits == 32 else ir.DoubleType()
        self.ity = ir.IntType(self.bits)
        self.mant = 23 if self.bits == 32 else 52
        self.bias = 127 if self.bits == 32 else 1023

    @property
    def is32(self):
        return self.bits == 32


_TYS = {}


def _ty(nbtype):
    t = _TYS.get(nbtype)
    if t is None:
        t = _TYS[nbtype] = Ty(nbtype)
    return t


def _opaque(b, c):
    """``c`` passed through an empty inline asm: LLVM no longer sees a constant-pool constant, so in a
    loop short of vector registers it spills the hoisted, broadcast value once and folds the stack
    slot into the arithmetic, instead of re-loading the constant's address and broadcasting it at
    every use (two instructions each under the JIT's large code model)."""
    if not b.module.triple.startswith(("x86_64", "i386", "i686")):
        return c                                     # the "x" (SSE register) constraint is x86's
    fnty = ir.FunctionType(c.type, [c.type])
    call = b.asm(fnty, "", "=x,0", [c], False)
    call.attributes.add("readnone")                  # no memory, no unwinding: hoisted out of loops
    call.attributes.add("nounwind")
    return call


class V:
    """A symbolic value: ``kind`` "f" (a float of ``t``), "b" (a boolean) or "i" (an integer of ``t``'s width)."""

    __slots__ = ("b", "v", "t", "kind")

    def __init__(self, b, v, t, kind="f"):
        self.b, self.v, self.t, self.kind = b, v, t, kind

    # ------------------------------------------------------------ operands
    def _o(self, other):
        if isinstance(other, V):
            if other.kind != self.kind:
                raise TypeError(f"vecmath: mixing {self.kind} and {other.kind} values")
            return other.v
        if self.kind == "f":
            return _opaque(self.b, ir.Constant(self.t.fty, float(other)))
        if self.kind == "i":
            return ir.Constant(self.t.ity, int(other) & ((1 << self.t.bits) - 1))
        return ir.Constant(ir.IntType(1), bool(other))

    def _new(self, v, kind=None):
        return V(self.b, v, self.t, kind or self.kind)

    def const(self, value):
        """A constant of this value's kind and type."""
        return self._new(self._o(value))

    # ------------------------------------------------------------ arithmetic
    def __add__(self, o):
        b = self.b
        return self._new(b.fadd(self.v, self._o(o)) if self.kind == "f" else b.add(self.v, self._o(o)))

    def __radd__(self, o):
        return self.const(o) + self

    def __sub__(self, o):
        b = self.b
        return self._new(b.fsub(self.v, self._o(o)) if self.kind == "f" else b.sub(self.v, self._o(o)))

    def __rsub__(self, o):
        return self.const(o) - self

    def __mul__(self, o):
        b = self.b
        return self._new(b.fmul(self.v, self._o(o)) if self.kind == "f" else b.mul(self.v, self._o(o)))

    def __rmul__(self, o):
        return self.const(o) * self

    def __truediv__(self, o):
        return self._new(self.b.fdiv(self.v, self._o(o)))

    def __rtruediv__(self, o):
        return self.const(o) / self

    def __neg__(self):
        return self._new(self.b.fneg(self.v))

    # ------------------------------------------------------------ comparisons (IEEE)
    def _cmp(self, op, o):
        if self.kind == "f":
            v = self.b.fcmp_unordered(op, self.v, self._o(o)) if op == "!=" else \
                self.b.fcmp_ordered(op, self.v, self._o(o))
        else:
            v = self.b.icmp_unsigned(op, self.v, self._o(o))
        return self._new(v, "b")

    def __lt__(self, o):
        return self._cmp("<", o)

    def __le__(self, o):
        return self._cmp("<=", o)

    def __gt__(self, o):
        return self._cmp(">", o)

    def __ge__(self, o):
        return self._cmp(">=", o)

    def __eq__(self, o):
        return self._cmp("==", o)

    def __ne__(self, o):
        return self._cmp("!=", o)

    __hash__ = None

    # ------------------------------------------------------------ booleans and integer bits
    def __and__(self, o):
        return self._new(self.b.and_(self.v, self._o(o)))

    def __or__(self, o):
        return self._new(self.b.or_(self.v, self._o(o)))

    def __invert__(self):
        return self._new(self.b.not_(self.v))

    def __lshift__(self, n):
        return self._new(self.b.shl(self.v, self._o(n)))

    def __rshift__(self, n):                       # logical
        return self._new(self.b.lshr(self.v, self._o(n)))

    def __bool__(self):
        raise TypeError("vecmath: a traced comparison has no Python truth value; use select()")


# ---------------------------------------------------------------- helpers
def _intr(x, name, *args):
    vals = [x.v] + [x._o(a) for a in args]
    fnty = ir.FunctionType(x.t.fty, [x.t.fty] * len(vals))
    fn = cgutils.get_or_insert_function(x.b.module, fnty, f"llvm.{name}.{'f32' if x.t.is32 else 'f64'}")
    return x._new(x.b.call(fn, vals))


def select(c, a, b):
    """``a`` where ``c`` is true, else ``b`` (one of ``a``, ``b`` may be a Python number)."""
    like = a if isinstance(a, V) else b
    if not isinstance(like, V):                      # two numbers: float constants of c's type
        like = V(c.b, ir.Constant(c.t.fty, float(a)), c.t, "f")
    return like._new(c.b.select(c.v, like._o(a), like._o(b)))


def fma(a, b, c):
    """``a * b + c`` rounded once (``llvm.fma``): exact error terms such as ``fma(a, b, -a*b)`` rely on
    it. One ``vfmadd`` where the CPU has FMA; elsewhere a correct but scalar library call."""
    return _intr(a, "fma", b, c)


def mad(a, b, c):
    """``a * b + c``, fused where the CPU has FMA, a multiply and an add elsewhere (``llvm.fmuladd``):
    for polynomial steps, whose error bound holds either way."""
    return _intr(a, "fmuladd", b, c)


def rint(x):
    """Round to the nearest integer, ties to even (``vroundps``)."""
    return _intr(x, "rint")


def floor(x):
    return _intr(x, "floor")


def fabs(x):
    return _intr(x, "fabs")


def copysign(x, y):
    """``|x|`` with the sign of ``y``."""
    return _intr(x, "copysign", y)


def with_sign_of(x, y):
    """``x``, whose sign bit is clear (a result known to be >= 0 or NaN), with the sign of ``y``: one
    and, one or (``copysign`` also clears ``x``'s sign bit: one more)."""
    sign = bits(y) & (1 << (y.t.bits - 1))
    return from_bits(bits(x) | sign)


def sqrt(x):
    """Correctly rounded square root (``vsqrtps``)."""
    return _intr(x, "sqrt")


def bits(x):
    """The bits of a float as an integer value of its width."""
    return x._new(x.b.bitcast(x.v, x.t.ity), "i")


def from_bits(i):
    return i._new(i.b.bitcast(i.v, i.t.fty), "f")


def pow2(k):
    """``2**k`` for an integral float ``k`` with ``2**k`` normal.

    ``k + bias + 2**m`` (``m`` mantissa bits) is exact and holds ``k + bias`` in its low bits;
    shifted into the exponent field they give ``2**k``: float adds and integer shifts only,
    no float-to-int conversion (which AVX2 lacks for 64-bit integers).
    """
    t = k.t
    return from_bits(bits(k + float(2 ** t.mant + t.bias)) << t.mant)


def scale2(x, k):
    """``x * 2**k`` for an integral float ``k`` up to twice the normal exponent range: two
    multiplies by normal powers of two, so overflow gives inf and a subnormal result is
    rounded once."""
    k1 = floor(k * 0.5)
    return x * pow2(k1) * pow2(k - k1)


def int_to_float(i):
    """A non-negative integer value below ``2**mantissa-bits`` as a float, exactly."""
    t = i.t
    return from_bits(i | ((t.bias + t.mant) << t.mant)) - float(2 ** t.mant)


def split_exp(x, lo):
    """``(m, e)``: ``x == m * 2**e``, ``lo <= m < 2*lo``, ``e`` an integral float (``x`` positive, normal).

    With ``lo`` just below 1 the logarithm's polynomial sees ``m - 1`` on an interval around
    zero. Integer adds and logical shifts only: the biased exponent stays non-negative.
    """
    t = x.t
    xi = bits(x)
    off = bits(x.const(lo))
    biased = t.bias << t.mant
    eb = (xi - off + biased) >> t.mant
    m = from_bits(xi - (eb << t.mant) + biased)
    return m, int_to_float(eb) - float(t.bias)


def exponent_mantissa(a):
    """``(be, m)``: the biased exponent field of ``a`` (an integer value) and ``m`` in [1, 2) with
    ``a = m * 2**(be - bias)`` (``a`` positive and normal)."""
    t = a.t
    ai = bits(a)
    be = (ai >> t.mant) & ((1 << (t.bits - 1 - t.mant)) - 1)
    m = from_bits((ai & ((1 << t.mant) - 1)) | (t.bias << t.mant))
    return be, m


_TABLES = {}


def lookup(name, values, index):
    """``values[index]`` from a constant table of floats of ``index``'s type (a module global)."""
    b, t = index.b, index.t
    mod = b.module
    gname = f"vecmath.{name}.{'f32' if t.is32 else 'f64'}"
    gv = mod.globals.get(gname)
    if gv is None:
        arrty = ir.ArrayType(t.fty, len(values))
        gv = ir.GlobalVariable(mod, arrty, gname)
        gv.linkage = "internal"
        gv.global_constant = True
        gv.initializer = ir.Constant(arrty, [float(v) for v in values])
    ptr = b.gep(gv, [ir.Constant(index.v.type, 0), index.v], inbounds=True)   # index: non-negative
    return V(b, b.load(ptr), t, "f")


# ---------------------------------------------------------------- Numba entry point
def vector(build, name=None):
    """An ``@intrinsic`` for njit code: ``build(*V args) -> V`` traced into the caller, for float32
    and float64 arguments (all of one type; the result has that type)."""
    nargs = build.__code__.co_argcount

    def codegen(context, builder, sig, args):
        t = _ty(sig.return_type)
        out = build(*[V(builder, a, t) for a in args])
        if not isinstance(out, V) or out.kind != "f":
            raise TypeError(f"vecmath: {build.__name__} must return a float value")
        return out.v

    def ok(*tys):
        return all(isinstance(a, types.Float) and a in (types.float32, types.float64) for a in tys) and \
            len(set(tys)) == 1

    if nargs == 1:
        def typer(typingctx, x):
            if ok(x):
                return x(x), codegen
    elif nargs == 2:
        def typer(typingctx, x, y):
            if ok(x, y):
                return x(x, y), codegen
    else:
        raise ValueError(f"vector functions take one or two arguments, {build.__name__} takes {nargs}")
    typer.__name__ = typer.__qualname__ = name or build.__name__
    typer.__doc__ = build.__doc__
    return intrinsic(typer)
