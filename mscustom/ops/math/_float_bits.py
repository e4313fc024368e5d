"""Signs, classification and integer bit functions with MindSpore's names: ``copysign``, ``fmax``,
``heaviside``, ``ldexp``, ``frac``, ``sgn``, ``signbit``, ``nextafter``, ``isfinite``, ``isneginf``,
``isposinf``, ``isreal``, ``isnan_ext``, ``nan_to_num``, ``clip``, ``gcd``, ``lcm``,
``bitwise_left_shift``, ``bitwise_right_shift``, ``invert``.

Dtype rules are MindSpore 2.10's (CPU): ``copysign`` gives a float tensor (float32 for integers)
and takes the sign from ``other < 0`` (so ``-0.0`` counts as positive, as MindSpore computes it);
``ldexp`` is ``x * 2 ** other`` with ``2 ** int`` in float32; ``frac`` of integers is 0;
``isneginf``/``isposinf`` take float tensors only; ``gcd``, ``lcm``, the shifts and ``invert`` take
integer tensors only. Gradients are built from ops where the function is differentiable.

Example::

    ops.copysign(x, -1.0), ops.fmax(a, b), ops.nan_to_num(x, posinf=1e4), ops.gcd(m, n)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import broadcast_shape, defop, functional, no_grad, result_dtype, tensor_arg, unary
from .elementwise_more import isnan, logical_or, trunc
from ..array.creation import clamp
from ._exp_log import exp2
from ._rules import back_to, quiet, run


# ------------------------------------------------------------------ copysign / fmax / heaviside / ldexp
def _copysign_type(attrs, dtypes):
    for i, d in enumerate(dtypes):
        if d.name == "bool":
            raise TypeError(f"op 'copysign': input {i} must be a number type, got bool")
    d = dtypes[0]
    return dtypes, [d if _dt.is_floating(d) else _dt.float32]


def _copysign_kernel(a, i):
    x, y = i
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    mag = np.abs(x.astype(dtype, copy=False))
    return np.where(np.less(y, 0), -mag, mag).astype(dtype, copy=False)


def _copysign_grad(ins, outs, g, a):
    x, y = ins
    s = F.where(F.less(y, 0), F.neg(F.ones_like(outs[0])), F.ones_like(outs[0]))
    return [back_to(F.mul(g[0], F.mul(F.sign(x), s)) if x.dtype == outs[0].dtype else None, x),
            back_to(F.zeros_like(y) if y._data.dtype.kind == "f" else None, y)]


_COPYSIGN = defop("copysign", 2, _copysign_kernel, broadcast_shape("copysign"), _copysign_type, _copysign_grad,
                  doc="|x| with the sign of other", arg_names=("x", "other"))


def copysign(x, other):
    """``|x|`` with the sign of ``other`` (negative where ``other < 0``), broadcasting; a float tensor
    (float32 for integer ``x``). ``other`` may be a Python number."""
    t = tensor_arg(x, "copysign")
    if not isinstance(other, Tensor):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            raise TypeError(f"op 'copysign': other must be an int, float or Tensor, got {type(other).__name__}")
        other = Tensor._wrap(np.asarray(other, np.float64))
    return run(_COPYSIGN, t, other)


def _number_type(name):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if d.name == "bool":
                raise TypeError(f"op '{name}': input {i} must be a number type, got bool")
        return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]
    return infer


def _fmax_kernel(a, i):
    dtype = result_dtype([i[0].dtype, i[1].dtype])
    return np.fmax(i[0].astype(dtype, copy=False), i[1].astype(dtype, copy=False))


def _fmax_grad(ins, outs, g, a):
    x, y = ins
    # the gradient goes to the operand fmax took (x on ties, and where y is NaN)
    take_x = logical_or(F.greater_equal(x, y), isnan(y))
    zero = F.zeros_like(outs[0])
    return [back_to(F.where(take_x, g[0], zero), x), back_to(F.where(take_x, zero, g[0]), y)]


_FMAX = defop("fmax", 2, _fmax_kernel, broadcast_shape("fmax"), _number_type("fmax"), _fmax_grad,
              doc="elementwise maximum ignoring NaN", arg_names=("input", "other"))


def _number_operand(x, other, name):
    """``other`` as a Tensor: a Python float next to an integer tensor is float32, else ``x``'s dtype."""
    if isinstance(other, Tensor):
        return other
    if isinstance(other, float) and x._data.dtype.kind != "f":
        return Tensor._wrap(np.asarray(other, np.float32))
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        return Tensor._wrap(np.asarray(other, x._data.dtype))
    return tensor_arg(other, name)


def fmax(input, other):  # noqa: A002 - MindSpore's names
    """Elementwise maximum where a NaN loses to a number (NaN only where both are NaN); broadcasting,
    number tensors (not bool)."""
    x = tensor_arg(input, "fmax")
    return run(_FMAX, x, _number_operand(x, other, "fmax"))


def _heaviside_type(attrs, dtypes):
    x, v = dtypes
    if x.name == "bool" or x != v:
        raise TypeError(f"op 'heaviside': input and values must be number tensors of one dtype, got "
                        f"{x.name} and {v.name}")
    return dtypes, [x]


_HEAVISIDE = defop("heaviside", 2,
                   lambda a, i: np.where(i[0] == 0, i[1], (i[0] > 0).astype(i[0].dtype)).astype(i[0].dtype),
                   broadcast_shape("heaviside"), _heaviside_type, no_grad,
                   doc="0 where input < 0, values where input == 0, 1 where input > 0",
                   arg_names=("input", "values"))


def heaviside(input, values):  # noqa: A002
    """The Heaviside step: 0 below 0, ``values`` at 0, 1 above (NaN gives 0); tensors of one dtype."""
    return run(_HEAVISIDE, tensor_arg(input, "heaviside"), tensor_arg(values, "heaviside"))


def ldexp(x, other):
    """``x * 2 ** other`` (broadcasting); ``2 ** other`` is float32 for an integer ``other``, and an
    integer ``x`` gives a float tensor."""
    t = tensor_arg(x, "ldexp")
    if not isinstance(other, Tensor):
        other = Tensor._wrap(np.asarray(other, np.float32))
    scale = exp2(other)
    if t._data.dtype.kind != "f" and scale.dtype != _dt.float32:
        t = F.cast(t, _dt.float32)
    return F.mul(t, scale)


# ------------------------------------------------------------------ frac / sgn / signbit / nextafter
def frac(x):
    """The fractional part ``x - trunc(x)`` (the sign of ``x``); integers give 0 (bool: int64 zeros)."""
    t = tensor_arg(x, "frac")
    if t._data.dtype.kind != "f":
        dtype = np.int64 if t._data.dtype == np.bool_ else t._data.dtype
        return Tensor._wrap(np.zeros(t.shape, dtype))
    return F.sub(t, trunc(t))


def sgn(input):  # noqa: A002
    """The sign of each element (-1, 0 or 1; ``x / |x|`` for complex tensors); not bool."""
    x = tensor_arg(input, "sgn")
    if x._data.dtype.kind == "c":
        z = x.asnumpy()
        a = np.abs(z)
        with np.errstate(invalid="ignore", divide="ignore"):
            return Tensor._wrap(np.where(a == 0, 0, z / np.where(a == 0, 1, a)).astype(z.dtype))
    if x._data.dtype == np.bool_:
        raise TypeError("op 'sgn': input must be a number tensor, got Bool")
    return F.sign(x)


_SIGNBIT = unary("signbit", quiet(lambda a, i: np.less(i[0], 0) if i[0].dtype != np.bool_
                                   else np.zeros(i[0].shape, bool)),
                 lambda a, d: (d, [_dt.bool_]), no_grad, "True where x < 0")
signbit = functional(_SIGNBIT, "True where an element is less than 0 (MindSpore's definition: -0.0 and NaN "
                     "give False).", arg_names=("input",))


def _same_float(name):
    def infer(attrs, dtypes):
        if not all(_dt.is_floating(d) for d in dtypes) or dtypes[0] != dtypes[1]:
            raise TypeError(f"op '{name}': inputs must be float tensors of one dtype, got "
                            f"{dtypes[0].name} and {dtypes[1].name}")
        return dtypes, [dtypes[0]]
    return infer


_NEXTAFTER = defop("nextafter", 2, lambda a, i: np.nextafter(i[0], i[1]), broadcast_shape("nextafter"),
                   _same_float("nextafter"), no_grad, doc="the next float after input towards other",
                   arg_names=("input", "other"))
nextafter = functional(_NEXTAFTER, "The next representable float after ``input`` towards ``other`` "
                       "(float tensors of one dtype).", arg_names=("input", "other"))


# ------------------------------------------------------------------ classification
def _classify(name, fn, floats_only=False, doc=""):
    def infer(attrs, dtypes):
        if floats_only and not _dt.is_floating(dtypes[0]):
            raise TypeError(f"op '{name}': input must be a float tensor, got {dtypes[0].name}")
        return dtypes, [_dt.bool_]
    op = unary(name, lambda a, i: fn(i[0]), infer, no_grad, doc)
    return functional(op, doc, arg_names=("input",))


isfinite = _classify("isfinite", lambda x: np.isfinite(x) if x.dtype.kind in "fc" else np.ones(x.shape, bool),
                     doc="True where an element is neither infinite nor NaN (always for integers).")
isneginf = _classify("isneginf", np.isneginf, True, "True where an element is -inf (float tensors).")
isposinf = _classify("isposinf", np.isposinf, True, "True where an element is +inf (float tensors).")
isreal = _classify("isreal", lambda x: np.imag(x) == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool),
                   doc="True where an element's imaginary part is 0 (always for real tensors).")


def isnan_ext(tensor):
    """True where an element is NaN (``ops.isnan``)."""
    return isnan(tensor)


# ------------------------------------------------------------------ nan_to_num / clip
def nan_to_num(input, nan=None, posinf=None, neginf=None):  # noqa: A002
    """NaN, +inf and -inf replaced by ``nan`` (default 0), ``posinf`` and ``neginf`` (default the
    dtype's largest and lowest finite values); float tensors. The gradient is 0 where a value was
    replaced."""
    x = tensor_arg(input, "nan_to_num")
    if x._data.dtype.kind != "f":
        raise TypeError(f"op 'nan_to_num': input must be a float tensor, got {x.dtype}")
    info = np.finfo(x._data.dtype)
    with np.errstate(over="ignore"):
        fill = [Tensor._wrap(np.asarray(v, x._data.dtype)) for v in
                (0.0 if nan is None else nan, info.max if posinf is None else posinf,
                 info.min if neginf is None else neginf)]
    out = F.where(isnan(x), fill[0], x)
    out = F.where(isposinf(x), fill[1], out)
    return F.where(isneginf(x), fill[2], out)


def clip(input, min=None, max=None):  # noqa: A002
    """``input`` limited to ``[min, max]`` (``ops.clamp``): numbers or Tensors, at least one given."""
    if min is None and max is None:
        raise ValueError("op 'clip': at least one of min and max must be given")
    return clamp(input, min, max)


# ------------------------------------------------------------------ integer functions
def _int_binary(name, fn, doc, same=False):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes):
            if not _dt.is_integral(d) or d.name == "bool":
                raise TypeError(f"op '{name}': input {i} must be an integer tensor, got {d.name}")
        if same and dtypes[0] != dtypes[1]:
            raise TypeError(f"op '{name}': input and other must have one dtype, got {dtypes[0].name} and "
                            f"{dtypes[1].name}")
        return dtypes, [_dt.from_numpy(np.result_type(*(d.np_dtype for d in dtypes)))]
    op = defop(name, 2, quiet(lambda a, i: fn(*np.broadcast_arrays(*i)).astype(np.result_type(*i), copy=False)),
               broadcast_shape(name), infer, no_grad, doc=doc, arg_names=("input", "other"))

    def function(input, other):  # noqa: A002
        x = tensor_arg(input, name)
        y = _number_operand(x, other, name) if isinstance(other, int) else tensor_arg(other, name)
        return run(op, x, y)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _shift(fn):
    def shift(x, s):
        bits = x.dtype.itemsize * 8
        big = (s >= bits) | (s < 0)
        out = fn(x, np.where(big, 0, s).astype(x.dtype))
        if fn is np.right_shift and x.dtype.kind == "i":
            return np.where(big, np.where(x < 0, -1, 0).astype(x.dtype), out)
        return np.where(big, np.zeros((), x.dtype), out)
    return shift


gcd = _int_binary("gcd", np.gcd, "The greatest common divisor elementwise (integer tensors; 0 for two 0s).")
lcm = _int_binary("lcm", np.lcm, "The least common multiple elementwise (integer tensors, non-negative).")
bitwise_left_shift = _int_binary("bitwise_left_shift", _shift(np.left_shift),
                                 "``input << other`` elementwise (integer tensors of one dtype).", same=True)
bitwise_right_shift = _int_binary("bitwise_right_shift", _shift(np.right_shift),
                                  "``input >> other`` elementwise, arithmetic for signed integers (integer "
                                  "tensors of one dtype).", same=True)


def _invert_type(attrs, dtypes):
    d = dtypes[0]
    if not _dt.is_integral(d) or d.name == "bool":
        raise TypeError(f"op 'invert': input must be an integer tensor, got {d.name}")
    return dtypes, [d]


_INVERT = unary("invert", lambda a, i: np.invert(i[0]), _invert_type, no_grad, "~x, bitwise not")
invert = functional(_INVERT, "Bitwise not ``~x`` elementwise (integer tensors).", arg_names=("x",))

_METHODS = ["copysign", "fmax", "heaviside", "ldexp", "frac", "sgn", "signbit", "nextafter", "isfinite",
            "isneginf", "isposinf", "isreal", "nan_to_num", "clip", "gcd", "lcm", "bitwise_left_shift",
            "bitwise_right_shift", "invert"]
__all__ = _METHODS + ["isnan_ext"]

for _name in _METHODS:
    register_function(_name, globals()[_name], method=True)
del _name
