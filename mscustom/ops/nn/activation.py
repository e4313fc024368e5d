"""Activations, softmax / log_softmax and one_hot.

Example::

    ops.log_softmax(logits, axis=-1) * ops.one_hot(labels, 10, 1.0, 0.0)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ...tensor import Tensor
from ..._core.functions import functions as F  # the published functional ops, looked up at call time
from .. import _products
from ..graph_mode import loops as _loops
from .._builtin import (NOATTR, axis_attr, defop, float_only, functional, insert_axis, no_grad, normalize_axis,
                       numeric_only, result_dtype, same_shape, same_type, tensor_arg, unary)
from ..math.elementwise import add as _add, matmul as _matmul, matmul_t as _matmul_t

# Gradients are built from ops that may live in the other op modules; they
# reach them through ``F`` (mscustom.ops.functional), looked up at call time.


# ================================================================== activations
_ZEROS = {}                 # (shape, dtype) -> a read-only array of zeros (see relu_zero)
_ZEROS_KEPT = 8
_ZEROS_SIZES = (1024, 1 << 22)


def relu_zero(shape, dtype):
    """The second operand of ``np.maximum`` in a ReLU of a ``shape``/``dtype`` array.

    For float32/float64 arrays of 1024 elements and more, a whole read-only
    array of zeros: NumPy then runs its vectorised loop, 3-4x faster than
    against the number 0, with the same values (NaN kept, ``-0.0`` kept as
    ``maximum(-0.0, 0)`` keeps it). A few are kept, by shape; pages of zeros
    from ``np.zeros`` cost little memory. Anything else: the number 0.
    """
    size = 1
    for n in shape:
        size *= n
    if not _ZEROS_SIZES[0] <= size <= _ZEROS_SIZES[1] or dtype not in _loops.FLOATS:
        return 0
    key = (shape, dtype)
    z = _ZEROS.get(key)
    if z is None:
        if len(_ZEROS) >= _ZEROS_KEPT:
            _ZEROS.clear()
        z = np.zeros(shape, dtype)
        z.flags.writeable = False
        _ZEROS[key] = z
    return z


def _relu_compute(attrs, ins):
    x = ins[0]
    return np.maximum(x, relu_zero(x.shape, x.dtype))


def _relu_grad_compute(attrs, ins):
    """``dy * (x > 0)``; one Numba pass instead of two NumPy ones where the loops are loaded."""
    dy, x = ins
    if dy.size >= _loops.MIN_SIZE and dy.shape == x.shape and _loops.fits(dy, x) \
            and _loops.ready():
        o = np.empty(dy.shape, dy.dtype)
        _loops.relu_grad_flat(dy.reshape(-1), x.reshape(-1), o.reshape(-1))
        return o
    return np.multiply(dy, x > 0)


_RELU_GRAD = defop("relu_grad", 2, _relu_grad_compute, same_shape, same_type,
                   lambda ins, outs, g, a: [relu_grad(g[0], ins[1]), None],
                   doc="dy * (x > 0): the gradient of relu", arg_names=("dy", "x"))
_RELU = unary("relu", _relu_compute, numeric_only("relu"),
              lambda ins, outs, g, a: [relu_grad(g[0], ins[0])], "max(x, 0)")


relu_grad = functional(_RELU_GRAD, "``dy * (x > 0)``: relu's gradient as an op, so it is differentiable again.",
                       arg_names=("dy", "x"))


def _sigmoid_compute(attrs, ins):
    x = ins[0]
    e = np.exp(-np.abs(x))              # never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


_SIGMOID = unary("sigmoid", _sigmoid_compute, float_only("sigmoid"),
                 lambda ins, outs, g, a: [F.mul(g[0], F.mul(outs[0], F.sub(1, outs[0])))],
                 "1 / (1 + exp(-x)), computed without overflow")
_TANH = unary("tanh", lambda a, i: np.tanh(i[0]), float_only("tanh"),
              lambda ins, outs, g, a: [F.mul(g[0], F.sub(1, F.square(outs[0])))], "hyperbolic tangent")


relu = functional(_RELU, "``max(x, 0)`` elementwise; the gradient at 0 is 0.")
sigmoid = functional(_SIGMOID, "``1 / (1 + exp(-x))`` elementwise (float tensors only).")
tanh = functional(_TANH, "Hyperbolic tangent elementwise (float tensors only).")


def _axis_shape(name):
    """FInferShape for ops that keep the shape and work along ``attrs['axis']``."""
    def infer(attrs, shapes):
        normalize_axis(name, attrs["axis"], len(shapes[0]))
        return shapes, [list(shapes[0])]
    return infer


def _softmax_compute(attrs, ins):
    x, axis = ins[0], attrs["axis"]
    if x.size == 0:
        return x.copy()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_compute(attrs, ins):
    x, axis = ins[0], attrs["axis"]
    if x.size == 0:
        return x.copy()
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _softmax_grad(ins, outs, g, a):
    y = outs[0]
    return [F.mul(y, F.sub(g[0], F.reduce_sum(F.mul(g[0], y), a["axis"], True)))]


def _log_softmax_grad(ins, outs, g, a):
    return [F.sub(g[0], F.mul(F.exp(outs[0]), F.reduce_sum(g[0], a["axis"], True)))]


_SOFTMAX = defop("softmax", 1, _softmax_compute, _axis_shape("softmax"), float_only("softmax"),
                 _softmax_grad, doc="exp(x) / sum(exp(x)) along axis", arg_names=("x",))
_LOG_SOFTMAX = defop("log_softmax", 1, _log_softmax_compute, _axis_shape("log_softmax"),
                     float_only("log_softmax"), _log_softmax_grad,
                     doc="x - log(sum(exp(x))) along axis", arg_names=("x",))


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)``, computed stably (float tensors only).

    Example::

        ops.softmax(ms.Tensor([1.0, 2.0, 3.0]))     # [0.090, 0.245, 0.665]
    """
    if type(x) is not Tensor:
        x = tensor_arg(x, "softmax")
    return call(_SOFTMAX, (x,), {"axis": axis_attr(axis)})


def log_softmax(x, axis=-1):
    """``x - log(sum(exp(x), axis))``, computed stably (float tensors only)."""
    if type(x) is not Tensor:
        x = tensor_arg(x, "log_softmax")
    return call(_LOG_SOFTMAX, (x,), {"axis": axis_attr(axis)})


# ================================================================== one_hot
def _one_hot_shape(attrs, shapes):
    depth = attrs["depth"]
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"op 'one_hot': depth must be a non-negative int, got {depth!r}")
    out = list(shapes[0])
    out.insert(insert_axis("one_hot", attrs["axis"], len(out)), depth)
    return shapes, [out]


def _one_hot_type(attrs, dtypes):
    if not _dt.is_integral(dtypes[0]) or dtypes[0].name == "bool":
        raise TypeError(f"op 'one_hot': indices must be an integer tensor, got {dtypes[0].name}")
    return dtypes, [attrs["dtype"]]


def _one_hot_compute(attrs, ins):
    idx, depth = ins[0], attrs["depth"]
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, attrs["on"], attrs["off"]).astype(attrs["dtype"].np_dtype, copy=False)
    axis = attrs["axis"]
    if axis != -1 and axis != idx.ndim:
        out = np.ascontiguousarray(np.moveaxis(out, -1, axis))
    return out


_ONE_HOT = defop("one_hot", 1, _one_hot_compute, _one_hot_shape, _one_hot_type, no_grad,
                 doc="one-hot encoding of integer indices", arg_names=("indices",))


def _scalar_value(v, name):
    if isinstance(v, Tensor):
        if v._data.size != 1:
            raise ValueError(f"op 'one_hot': {name} must hold one value, got shape {list(v.shape)}")
        return v.item(), v.dtype              # item(): a graph-mode guard when v is traced
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
        raise TypeError(f"op 'one_hot': {name} must be a number or a one-element Tensor, got {v!r}")
    v = v.item() if isinstance(v, np.number) else v
    return v, (_dt.float32 if isinstance(v, float) else _dt.int64)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding: ``on_value`` where the index equals the position, ``off_value`` elsewhere.

    The new axis of size ``depth`` goes at ``axis``. Indices outside ``[0, depth)``
    give a row of ``off_value``. The output dtype is ``on_value``'s (a Tensor's
    dtype; float32 for a Python float, int64 for a Python int, float32 if either
    value is a float).

    Example::

        ops.one_hot(ms.Tensor([0, 2]), 3, 1.0, 0.0)    # [[1, 0, 0], [0, 0, 1]] float32
    """
    indices = tensor_arg(indices, "one_hot")
    on, on_dt = _scalar_value(on_value, "on_value")
    off, off_dt = _scalar_value(off_value, "off_value")
    dtype = on_dt if isinstance(on_value, Tensor) else (
        _dt.float32 if _dt.is_floating(on_dt) or _dt.is_floating(off_dt) else on_dt)
    if isinstance(depth, (Tensor, np.integer)):
        depth = int(depth)
    return call(_ONE_HOT, (indices,), {"depth": depth, "on": on, "off": off, "axis": axis,
                                       "dtype": dtype})


# ================================================================== dense
# ``input @ weight.T + bias`` as one op: nn.Dense's forward is one call instead of matmul + add,
# and its backward one gradient (dx, dW with transpose flags, db as one reduction) instead of two.
def _dense_compute(attrs, ins):
    x, w, b = ins
    y = _products.matmul(x, w.T)
    if _loops.rows_fit(y, b) and _loops.ready():
        _loops.get()[0](y, b)     # y += b in one pass (NumPy's broadcast add goes row by row)
    else:
        y += b
    return y


def _dense_shape(attrs, shapes):
    x, w, b = shapes
    if len(w) != 2 or not x or x[-1] != w[1]:
        raise ValueError(f"op 'dense': input of shape {list(x)} does not match weight of shape {list(w)} "
                         "(expected weight (out_channels, in_channels) and input (*, in_channels))")
    if list(b) not in ([], [w[0]]):
        raise ValueError(f"op 'dense': bias must have shape [{w[0]}] (out_channels) or [], got {list(b)}")
    return shapes, [list(x[:-1]) + [w[0]]]


def _dense_type(attrs, dtypes):
    for i, d in enumerate(dtypes):
        if d.name == "bool" or not _dt.is_floating(d) and not _dt.is_integral(d):
            raise TypeError(f"op 'dense': input {i} must be a number type, got {d.name}")
    return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]


def _dense_grad(ins, outs, g, a, needs=None):
    """dx = dy @ W, dW = dy^T @ x (batch axes folded into rows), db = dy summed over the rows."""
    x, w, b = ins
    dy = g[0]
    out_ch, in_ch = w._data.shape
    gx = gw = gb = None
    if needs is None or needs[0]:
        gx = _matmul_t(dy, w)
    if needs is None or needs[1] or needs[2]:
        dy2 = dy if dy._data.ndim == 2 else F.reshape(dy, (-1, out_ch))
        if needs is None or needs[1]:
            x2 = x if x._data.ndim == 2 else F.reshape(x, (-1, in_ch))
            gw = _matmul_t(dy2, x2, True, False)
        if needs is None or needs[2]:
            gb = F.reduce_sum(dy2, 0 if b._data.ndim else None)
    return [gx, gw, gb]


_DENSE = defop("dense", 3, _dense_compute, _dense_shape, _dense_type, _dense_grad,
               doc="input @ weight.T + bias", arg_names=("input", "weight", "bias"))
_DENSE.set_attr("FGradientNeeds", True)


def dense(input, weight, bias=None):  # noqa: A002 - MindSpore's argument name
    """``input @ weight.T + bias``: a fully connected layer (MindSpore's ``ops.dense``).

    ``input``: (*, in_channels); ``weight``: (out_channels, in_channels) or
    (in_channels,); ``bias``: (out_channels,), () or None.

    Example::

        ops.dense(ms.Tensor([[-1.0, 1.0, 2.0]]), ms.Tensor([[-2.0, -2.0, -2.0], [0.0, -1.0, 0.0]]),
                  ms.Tensor([0.0, 1.0]))      # [[-4.0, 0.0]]
    """
    if type(bias) is not Tensor or not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        for name, t in (("input", input), ("weight", weight), ("bias", bias)):
            if not isinstance(t, Tensor) and not (name == "bias" and t is None):
                raise TypeError(f"op 'dense': {name} must be a Tensor, got {type(t).__name__}")
    if weight._data.ndim != 2:
        y = _matmul(input, weight)
        return y if bias is None else _add(y, bias)
    if bias is None:
        return _matmul_t(input, weight, transpose_b=True)
    return call(_DENSE, (input, weight, bias), NOATTR)
