"""Arithmetic, elementwise math, comparisons and matmul.

Example::

    ops.matmul(x, y) + ops.exp(x) ** 2
"""

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import PROFILER as _PROFILER, TIMING as _TIMING, call, wrap_unrecorded
from ..._core.tape import STATE as _STATE
from ...tensor import Tensor
from ..._core.functions import functions as F  # the published functional ops, looked up at call time
from .. import _products
from .._builtin import (NOATTR, functional, broadcast_shape, compare_type, defop, float_only, is_float, no_grad,
                       numeric_only, numeric_promote, pair_named, promote_types, result_dtype,
                       same_shape, unary)

_new_tensor = object.__new__

# Gradients are built from ops that may live in the other op modules; they
# reach them through ``F`` (mscustom.ops.functional), looked up at call time.


# ================================================================== arithmetic
_ADD = defop("add", 2, lambda a, i: np.add(i[0], i[1]), broadcast_shape("add"), promote_types("add"),
             lambda ins, outs, g, a: [F.sum_to(g[0], ins[0]._data.shape), F.sum_to(g[0], ins[1]._data.shape)],
             doc="x + y with broadcasting", arg_names=("x", "y"))
_SUB = defop("sub", 2, lambda a, i: np.subtract(i[0], i[1]), broadcast_shape("sub"), numeric_promote("sub"),
             lambda ins, outs, g, a: [F.sum_to(g[0], ins[0]._data.shape),
                                      F.sum_to(neg(g[0]), ins[1]._data.shape)],
             doc="x - y with broadcasting", arg_names=("x", "y"))


def _mul_grad(ins, outs, g, a, needs=(True, True)):
    """Only the sides some target needs (a loss's mask or one-hot labels need none). ``x * x``: the
    product ``g * x`` once, given for both inputs (the walk sums the two, as it would two equal products)."""
    x, y = ins
    g0 = g[0]
    st = _STATE
    if type(g0) is Tensor and type(x) is Tensor and type(y) is Tensor and not st.depth and \
            st.capture is None and _PROFILER[0] is None and not _TIMING[0]:    # dispatch.unrecorded()
        dg, dx, dy = g0._data, x._data, y._data
        if dg.shape == dx.shape == dy.shape and dg.dtype == dx.dtype == dy.dtype:
            # nobody records this backward: the kernel's np.multiply on the arrays, no op calls
            if x is y:                  # one product for both sides (the walk adds them in its order)
                if dx.ndim:             # Tensor._wrap of an array (wrap_unrecorded, inline)
                    gx = _new_tensor(Tensor)
                    gx._data = np.multiply(dg, dx)
                    gx._format = "DefaultFormat"
                    gx._node = None
                    gx._oidx = 0
                else:
                    gx = wrap_unrecorded(np.multiply(dg, dx))
                return [gx, gx]
            return [wrap_unrecorded(np.multiply(dg, dy)) if needs[0] else None,
                    wrap_unrecorded(np.multiply(dg, dx)) if needs[1] else None]
    if x is y and needs[0] and needs[1]:
        g0 = g[0]
        gx = call(_MUL, (g0, x), NOATTR) if type(g0) is Tensor and type(x) is Tensor else mul(g0, x)
        if gx._data.shape != x._data.shape:
            gx = F.sum_to(gx, x._data.shape)
        return [gx, gx]
    return [F.sum_to(mul(g[0], ins[1]), ins[0]._data.shape) if needs[0] else None,
            F.sum_to(mul(g[0], ins[0]), ins[1]._data.shape) if needs[1] else None]


_MUL = defop("mul", 2, lambda a, i: np.multiply(i[0], i[1]), broadcast_shape("mul"), promote_types("mul"),
             _mul_grad, doc="x * y with broadcasting", arg_names=("x", "y"))
_MUL.set_attr("FGradientNeeds", True)


def _div_type(attrs, dtypes):
    out = result_dtype([d.np_dtype for d in dtypes])
    if out.kind != "f":                 # true division of integers gives float32, as in MindSpore
        out = np.dtype(np.float32)
    return dtypes, [_dt.from_numpy(out)]


def _div_grad(ins, outs, g, a):
    x, y = ins
    gx = F.sum_to(div(g[0], y), x.shape)
    gy = F.sum_to(neg(mul(g[0], div(outs[0], y))), y.shape) if is_float(y) else None
    return [gx, gy]


_DIV = defop("div", 2, lambda a, i: np.true_divide(i[0], i[1]), broadcast_shape("div"), _div_type,
             _div_grad, doc="x / y with broadcasting", arg_names=("x", "y"))
_NEG = defop("neg", 1, lambda a, i: np.negative(i[0]), same_shape, numeric_only("neg"),
             lambda ins, outs, g, a: [neg(g[0])], doc="-x", arg_names=("x",))
_SQUARE = defop("square", 1, lambda a, i: np.square(i[0]), same_shape, numeric_only("square"),
                lambda ins, outs, g, a: [mul(g[0], mul(ins[0], 2))], doc="x * x", arg_names=("x",))


add = functional(_ADD, '``x + y`` with NumPy broadcasting.')
sub = functional(_SUB, '``x - y`` with NumPy broadcasting.')
mul = functional(_MUL, '``x * y`` with NumPy broadcasting.')
div = functional(_DIV, '``x / y`` (true division) with NumPy broadcasting; integers divide to float32.')
neg = functional(_NEG, '``-x``.')
square = functional(_SQUARE, '``x * x`` elementwise.')


# ------------------------------------------------------------------ pow
def int_power(base, exponent, dtype):
    """``base ** exponent`` for integers, negative exponents as MindSpore computes them: the power
    truncated toward zero (0, or +-1 for a base of +-1), and the dtype's minimum for ``0 ** negative``."""
    base, exponent = np.broadcast_arrays(np.asarray(base, dtype), np.asarray(exponent))
    negative = exponent < 0
    if not negative.any():
        return np.power(base, exponent).astype(dtype, copy=False)
    out = np.power(base, np.where(negative, 0, exponent)).astype(dtype, copy=False)
    odd = (exponent % 2) != 0
    special = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1),
                                              np.where(base == 0, np.iinfo(dtype).min, 0)))
    return np.where(negative, special, out).astype(dtype, copy=False)


def _pow_compute(attrs, ins):
    x, y = ins
    if x.dtype.kind in "iu" and y.dtype.kind in "iu":
        return int_power(x, y, np.result_type(x, y))
    return np.power(x, y)


def _pow_grad(ins, outs, g, a):
    x, y = ins
    gx = gy = None
    if is_float(x):
        gx = F.sum_to(mul(g[0], mul(y, pow(x, sub(y, 1)))), x.shape)
    if is_float(y):
        # d/dy x**y = x**y * log(x); defined here for x > 0 and taken as 0 elsewhere
        positive = greater(x, 0)
        base = x if is_float(x) else F.cast(x, y.dtype)
        safe_log = log(F.where(positive, base, F.ones_like(base)))
        gy = F.sum_to(mul(g[0], mul(outs[0], safe_log)), y.shape)
    return [gx, gy]


_POW = defop("pow", 2, _pow_compute, broadcast_shape("pow"), numeric_promote("pow"), _pow_grad,
             doc="x ** y with broadcasting", arg_names=("x", "y"))


def _pow_scalar_type(attrs, dtypes):
    d = dtypes[0]
    if d.name == "bool":
        raise TypeError("op 'pow': the base must be a number type, got bool")
    if _dt.is_floating(d):
        return dtypes, [d]
    if attrs["float_exponent"]:
        return dtypes, [_dt.float32]
    return dtypes, [d]                  # a negative power of an integer tensor truncates, as in MindSpore


def _pow_scalar_grad(ins, outs, g, a):
    x, e = ins[0], a["exponent"]
    if not is_float(x):
        return [None]
    if e == 0:                          # constant: no log(x), no 0 * inf at x == 0
        return [F.zeros_like(x)]
    if e == 1:
        return [g[0]]
    if e == 2:
        return [mul(g[0], mul(x, 2))]
    return [mul(g[0], mul(pow(x, e - 1), e))]


def _pow_scalar_compute(attrs, ins):
    x, e = ins[0], attrs["exponent"]
    if x.dtype.kind in "iu" and not attrs["float_exponent"]:
        return int_power(x, e, x.dtype)
    return np.power(x, e)


_POW_SCALAR = defop("pow_scalar", 1, _pow_scalar_compute, same_shape,
                    _pow_scalar_type, _pow_scalar_grad,
                    doc="x ** exponent for a constant Python number exponent", arg_names=("x",))


def pow(x, y):  # noqa: A001 - MindSpore's name
    """``x ** y`` elementwise with broadcasting.

    A Python number exponent is an attribute of the op (``pow_scalar``), so its
    gradient never takes ``log(x)`` and stays finite for negative bases. For a
    tensor exponent, the exponent's gradient ``x**y * log(x)`` is taken as 0 where
    ``x <= 0``.

    Example::

        ops.pow(ms.Tensor([-2.0, 3.0]), 2)      # [4., 9.]
    """
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        if isinstance(y, np.number):
            y = y.item()
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            return call(_POW_SCALAR, (x,), {"exponent": y, "float_exponent": isinstance(y, float)})
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = pair_named(x, y, "pow")
    return call(_POW, (x, y), NOATTR)


# ================================================================== elementwise math
_EXP = unary("exp", lambda a, i: np.exp(i[0]), float_only("exp"),
             lambda ins, outs, g, a: [mul(g[0], outs[0])], "e ** x")
_LOG = unary("log", lambda a, i: np.log(i[0]), float_only("log"),
             lambda ins, outs, g, a: [div(g[0], ins[0])], "natural logarithm")
def _sqrt_type(attrs, dtypes):
    """Floats keep their dtype; integer and bool tensors compute in float32, as in MindSpore."""
    d = dtypes[0]
    return dtypes, [d if _dt.is_floating(d) else _dt.float32]


_SQRT = unary("sqrt", lambda a, i: np.sqrt(i[0] if i[0].dtype.kind == "f" else i[0].astype(np.float32)),
              _sqrt_type, lambda ins, outs, g, a: [div(g[0], mul(outs[0], 2)) if is_float(ins[0]) else None],
              "square root")
_SIGN = unary("sign", lambda a, i: np.sign(i[0]), numeric_only("sign"),
              lambda ins, outs, g, a: [None], "-1, 0 or 1 by the sign of x (no gradient)")
_ABS = unary("abs", lambda a, i: np.abs(i[0]), numeric_only("abs"),
             lambda ins, outs, g, a: [mul(g[0], sign(ins[0]))], "|x| (gradient 0 at 0)")


exp = functional(_EXP, '``e ** x`` elementwise (float tensors only).')
log = functional(_LOG, 'Natural logarithm elementwise (float tensors only).')
sqrt = functional(_SQRT, 'Square root elementwise; integer and bool tensors give float32.')
sign = functional(_SIGN, '-1, 0 or 1 by the sign of each element; not differentiable (gradient None).')
abs = functional(_ABS, '``|x|`` elementwise; the gradient at 0 is 0.')  # noqa: A001 - MindSpore's name


def _minmax_grad(pick_first, ties=0.5):
    """Gradient of maximum/minimum: to the input that wins; where they are equal ``x`` takes ``ties``
    of it and ``y`` the rest (MindSpore splits 0.5/0.5)."""
    def gradient(ins, outs, g, a):
        x, y = ins
        mask = F.add(F.cast(pick_first(x, y), g[0].dtype), mul(F.cast(equal(x, y), g[0].dtype), ties))
        gx = mul(g[0], mask)
        return [F.sum_to(gx, x.shape) if is_float(x) else None,
                F.sum_to(sub(g[0], gx), y.shape) if is_float(y) else None]
    return gradient


_MAXIMUM = defop("maximum", 2, lambda a, i: np.maximum(i[0], i[1]), broadcast_shape("maximum"),
                 promote_types("maximum"), _minmax_grad(lambda x, y: greater(x, y)),
                 doc="elementwise maximum; where x == y the gradient is split 0.5/0.5",
                 arg_names=("x", "y"))
_MINIMUM = defop("minimum", 2, lambda a, i: np.minimum(i[0], i[1]), broadcast_shape("minimum"),
                 promote_types("minimum"), _minmax_grad(lambda x, y: less(x, y)),
                 doc="elementwise minimum; where x == y the gradient is split 0.5/0.5",
                 arg_names=("x", "y"))


_MAXIMUM_X = defop("maximum_x", 2, lambda a, i: np.maximum(i[0], i[1]), broadcast_shape("maximum_x"),
                   promote_types("maximum_x"), _minmax_grad(lambda x, y: greater(x, y), ties=1.0),
                   doc="elementwise maximum; where x == y the gradient goes to x (MXNet's rule, and clamp's)",
                   arg_names=("x", "y"))
_MINIMUM_X = defop("minimum_x", 2, lambda a, i: np.minimum(i[0], i[1]), broadcast_shape("minimum_x"),
                   promote_types("minimum_x"), _minmax_grad(lambda x, y: less(x, y), ties=1.0),
                   doc="elementwise minimum; where x == y the gradient goes to x (MXNet's rule, and clamp's)",
                   arg_names=("x", "y"))
maximum_x = functional(_MAXIMUM_X, 'Elementwise maximum; at ties the gradient goes to ``x`` (MXNet, ``clamp``).')
minimum_x = functional(_MINIMUM_X, 'Elementwise minimum; at ties the gradient goes to ``x`` (MXNet, ``clamp``).')


maximum = functional(_MAXIMUM, 'Elementwise maximum with broadcasting; at ties the gradient is split 0.5/0.5.')
minimum = functional(_MINIMUM, 'Elementwise minimum with broadcasting; at ties the gradient is split 0.5/0.5.')


# ================================================================== comparisons
def _comparison(name, ufunc, doc):
    return defop(name, 2, lambda a, i: ufunc(i[0], i[1]), broadcast_shape(name), compare_type(name),
                 no_grad, doc=doc, arg_names=("x", "y"))


_EQUAL = _comparison("equal", np.equal, "x == y (bool, no gradient)")
_NOT_EQUAL = _comparison("not_equal", np.not_equal, "x != y (bool, no gradient)")
_LESS = _comparison("less", np.less, "x < y (bool, no gradient)")
_LESS_EQUAL = _comparison("less_equal", np.less_equal, "x <= y (bool, no gradient)")
_GREATER = _comparison("greater", np.greater, "x > y (bool, no gradient)")
_GREATER_EQUAL = _comparison("greater_equal", np.greater_equal, "x >= y (bool, no gradient)")


equal = functional(_EQUAL, '``x == y`` elementwise with broadcasting; a bool tensor.')
not_equal = functional(_NOT_EQUAL, '``x != y`` elementwise with broadcasting; a bool tensor.')
less = functional(_LESS, '``x < y`` elementwise with broadcasting; a bool tensor.')
less_equal = functional(_LESS_EQUAL, '``x <= y`` elementwise with broadcasting; a bool tensor.')
greater = functional(_GREATER, '``x > y`` elementwise with broadcasting; a bool tensor.')
greater_equal = functional(_GREATER_EQUAL, '``x >= y`` elementwise with broadcasting; a bool tensor.')


# ================================================================== matmul
# ``transpose_a``/``transpose_b`` (MindSpore's MatMul attributes) swap the last two axes of an
# operand inside the kernel: np.matmul gets a transposed *view*, which BLAS reads as it is, so
# neither ``MatMul(transpose_b=True)`` (nn.Dense) nor matmul's gradient copies a transpose.
def _swap(a):
    return np.swapaxes(a, -1, -2)


def _matmul_compute(attrs, ins):
    x, y = ins
    if attrs:
        if attrs.get("transpose_a"):
            x = _swap(x)
        if attrs.get("transpose_b"):
            y = _swap(y)
    return _products.matmul(x, y)


def _matmul_shape(attrs, shapes):
    a, b = shapes
    if not a or not b:
        raise ValueError(f"op 'matmul': inputs must have at least 1 dimension, got shapes {list(a)} "
                         f"and {list(b)}")
    a, b = list(a), list(b)
    for flag, s, name in (("transpose_a", a, "x"), ("transpose_b", b, "y")):
        if attrs.get(flag):
            if len(s) < 2:
                raise ValueError(f"op 'matmul': {flag}=True needs {name} with at least 2 dimensions, "
                                 f"got shape {s}")
            s[-1], s[-2] = s[-2], s[-1]
    a2 = [1] + a if len(a) == 1 else a
    b2 = b + [1] if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"op 'matmul': shapes {list(shapes[0])} and {list(shapes[1])} do not match: the "
                         f"contracted dimension of x is {a2[-1]}, of y {b2[-2]}"
                         + (" (after transpose_a/transpose_b)" if attrs else ""))
    try:
        batch = list(np.broadcast_shapes(tuple(a2[:-2]), tuple(b2[:-2])))
    except ValueError:
        raise ValueError(f"op 'matmul': the batch dimensions of shapes {list(shapes[0])} and "
                         f"{list(shapes[1])} cannot be broadcast together") from None
    out = batch + ([a2[-2]] if len(a) > 1 else []) + ([b2[-1]] if len(b) > 1 else [])
    return shapes, [out]


def matmul_t(x, y, transpose_a=False, transpose_b=False):
    """``op(x) @ op(y)`` where ``op`` swaps the last two axes when its flag is set (no copy is made).

    What ``ops.MatMul(transpose_a=..., transpose_b=...)`` and ``nn.Dense`` call; both flags
    False is ``matmul`` itself (the same cached plans).
    """
    attrs = _FLAGS[bool(transpose_a), bool(transpose_b)]
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):      # Parameters pass as they are
        x, y = pair_named(x, y, "matmul")
    return call(_MATMUL, (x, y), attrs)


# one attrs dict per flag pair, shared by every call (both False: matmul's own empty attrs)
_FLAGS = {(ta, tb): {"transpose_a": ta, "transpose_b": tb} if ta or tb else NOATTR
          for ta in (False, True) for tb in (False, True)}


def _matmul_grad(ins, outs, g, a, needs=None):
    """dx = G @ op(y)^T and dy = op(x)^T @ G, written with the flags instead of transposes.

    ``needs`` (the backward pass gives it, see ``FGradientNeeds``) skips the product of an
    input no target depends on, such as the data batch of a training step.
    """
    x, y = ins
    up = g[0]
    ta, tb = bool(a.get("transpose_a")), bool(a.get("transpose_b"))
    xd, yd = x._data, y._data
    # work on 2-D+ forms: a 1-D x is a row (1, k), a 1-D y a column (k, 1) (flags need 2-D+);
    # sum_to then folds broadcast batch dimensions back into each input
    x2 = F.expand_dims(x, 0) if xd.ndim == 1 else x
    y2 = F.expand_dims(y, -1) if yd.ndim == 1 else y
    if yd.ndim == 1:
        up = F.expand_dims(up, -1)
    if xd.ndim == 1:
        up = F.expand_dims(up, -2)
    gx = gy = None
    if xd.dtype.kind == "f" and (needs is None or needs[0]):
        gx = matmul_t(y2, up, True, True) if ta and tb else matmul_t(y2, up, False, True) if ta \
            else matmul_t(up, y2, False, not tb)
        gx = F.sum_to(gx, x2._data.shape)
        if xd.ndim == 1:
            gx = F.reshape(gx, xd.shape)
    if yd.dtype.kind == "f" and (needs is None or needs[1]):
        gy = matmul_t(up, x2, True, True) if ta and tb else matmul_t(up, x2, True, False) if tb \
            else matmul_t(x2, up, not ta, False)
        gy = F.sum_to(gy, y2._data.shape)
        if yd.ndim == 1:
            gy = F.reshape(gy, yd.shape)
    return [gx, gy]


_MATMUL = defop("matmul", 2, _matmul_compute, _matmul_shape, numeric_promote("matmul"),
                _matmul_grad, doc="matrix product with NumPy's 1-D and batch rules",
                arg_names=("x", "y"))
_MATMUL.set_attr("FGradientNeeds", True)


matmul = functional(_MATMUL, """Matrix product as ``np.matmul``: 1-D operands are vectors, leading dims broadcast.

Example::

    ops.matmul(ms.Tensor(np.ones((2, 3, 4), np.float32)), ms.Tensor(np.ones((4, 5), np.float32)))
""")
