"""Kernels that write into given buffers, for graph-mode replays of the built-in ops.

Eager calls use each built-in op's allocating NumPy kernel. A graph-mode
replay (``_core/replay.py``) can do better when it owns the output memory:

- ``FUfunc``: the op is exactly this NumPy ufunc on its inputs (no
  attributes), so the replay calls ``ufunc(*inputs, out=buffer)``, one call
  with no Python frame of ours in between;
- ``FComputeInto``: ``fn(attrs, inputs, outputs)`` writes the op's outputs
  into preallocated arrays of the inferred shapes and dtypes;
- ``FView``: ``fn(attrs, inputs)`` returns a view instead of a copy (a
  transpose); the replay uses it only when every reader of the value is a
  NumPy kernel, which handles strided arrays (BLAS takes transposed operands).
- ``FFuseInto``: ``(partner, n_shared, fn)``: a later call of the op
  ``partner`` on the same first ``n_shared`` inputs (same attributes) runs
  together with this one as ``fn(attrs, inputs + partner's other inputs,
  outputs + partner's outputs)``. The sparse softmax cross entropy and its
  gradient compute the shifted exponentials once this way.
- ``FFuseConsumer``: ``{consumer: (accept, fn)}``: a later call of the op
  ``consumer`` whose first input is this call's first output runs together
  with this one as ``fn(attrs, inputs + consumer's other inputs, outputs +
  consumer's outputs)``. A Dense layer and the ReLU after it, and relu's
  gradient and the bias gradient summing it, each become one pass over
  memory this way (Numba loops, ``loops.py``); so do a convolution's
  bias add and the ReLU after it (``conv2d_bias``, ``nn/cnn_loops.py``), and
  a convolution and the inference BatchNorm of its output (a rule ``(accept,
  fn, True)``: ``fn`` also gets ``consumer_attrs``, here the BatchNorm's eps).

Convolution, its input gradient, max pooling (both outputs) and its gradient
write into the replay's buffers with the eager kernels' Numba loops.

Each kernel here gives exactly the eager kernel's result (tests compare them).
Most also carry ``as_calls`` (``_core/calls.py``): the same work as direct
NumPy calls for given shapes and dtypes, which a replay writes inline.
"""

import operator

import numpy as np

from ..._core.calls import IN, IN_T, OUT
from ..._core.registry import get_op
from .. import _products
from . import fusion_exprs as _fusion_exprs, loops as _loops
from ..nn import activation as _activation, cnn_loops as _cnn_loops, conv as _conv, loss_fused as _loss_fused
from ..nn import batch_norm as _batch_norm, batch_norm_infer as _bn_infer, pool as _pool

__all__ = ["install"]

_UFUNCS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "neg": np.negative,
    "square": np.square, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "matmul": _products.matmul,
    "maximum": np.maximum, "minimum": np.minimum, "tanh": np.tanh, "accumulate": np.add,
    "equal": np.equal, "greater": np.greater, "less": np.less, "greater_equal": np.greater_equal,
    "less_equal": np.less_equal, "not_equal": np.not_equal,
}


def _as_calls(spec):
    """Give an into-kernel its call list ``spec(attrs, ins, outs)`` (see ``_core/calls.py``)."""
    def attach(fn):
        fn.as_calls = spec
        return fn
    return attach


def _relu_zero(a):
    """``np.maximum``'s zero operand for ReLU of ``a`` (``_activation.relu_zero``; a typed zero otherwise)."""
    z = _activation.relu_zero(a.shape, a.dtype)
    return a.dtype.type(0) if type(z) is int else z


@_as_calls(lambda attrs, ins, outs: [(np.maximum, (IN(0), _relu_zero(outs[0])), {"out": OUT(0)})])
def _relu_into(attrs, ins, outs):
    o = outs[0]
    np.maximum(ins[0], _activation.relu_zero(o.shape, o.dtype), out=o)


def _relu_grad_calls(attrs, ins, outs):
    if outs[0].nbytes >= _loops.SPLIT_BYTES and outs[0].dtype in _loops.FLOATS:
        return None                     # the kernel decides per call (layout, thread budget)
    return [(np.greater, (IN(1), 0), {"out": OUT(0)}), (np.multiply, (OUT(0), IN(0)), {"out": OUT(0)})]


@_as_calls(_relu_grad_calls)
def _relu_grad_into(attrs, ins, outs):
    dy, x = ins
    o = outs[0]
    if o.nbytes >= _loops.SPLIT_BYTES and dy.shape == o.shape and _loops.fits(o, dy, x) \
            and _loops.relu_grad_flat(dy.reshape(-1), x.reshape(-1), o.reshape(-1)):
        return
    np.greater(x, 0, out=o)             # 1.0 where x > 0, else 0.0 (as eager's dy * (x > 0))
    np.multiply(o, dy, out=o)


_add_reduce = np.add.reduce


def _sum_dtype(x, o):
    """The ``dtype`` argument of ``add.reduce`` summing ``x`` into ``o``: None (NumPy's default, taken
    faster) where that is ``o``'s dtype already."""
    return None if x.dtype == o.dtype and o.dtype in _loops.FLOATS else o.dtype


@_as_calls(lambda attrs, ins, outs: [(_add_reduce, (IN(0), attrs["axis"], _sum_dtype(ins[0], outs[0]), OUT(0),
                                                    attrs["keep_dims"]))])
def _reduce_sum_into(attrs, ins, outs):
    o = outs[0]
    _add_reduce(ins[0], attrs["axis"], o.dtype, o, attrs["keep_dims"])


def _reduce_mean_into(attrs, ins, outs):
    x, o = ins[0], outs[0]
    if x.dtype.kind == "f" and x.size:  # what np.mean does: the sum, then a true division by the count
        _add_reduce(x, attrs["axis"], None, o, attrs["keep_dims"])
        np.true_divide(o, max(x.size // max(o.size, 1), 1), out=o)
    elif x.dtype.kind == "f":
        np.copyto(o, np.mean(x, axis=attrs["axis"], keepdims=attrs["keep_dims"], dtype=np.float64),
                  casting="unsafe")
    else:                               # MindSpore's integer mean: in the input's dtype, truncated
        from ..math.reduce import int_mean
        np.copyto(o, int_mean(x, attrs["axis"], attrs["keep_dims"]))


@_as_calls(lambda attrs, ins, outs: [(np.copyto, (OUT(0), IN(0), "unsafe"))])
def _copy_into(attrs, ins, outs):
    np.copyto(outs[0], ins[0], casting="unsafe")


@_as_calls(lambda attrs, ins, outs: [(operator.setitem, (OUT(0), Ellipsis, IN(0)))])
def _broadcast_to_into(attrs, ins, outs):
    outs[0][...] = ins[0]


def _log_softmax_into(attrs, ins, outs):
    x, o, axis = ins[0], outs[0], attrs["axis"]
    if x.size == 0:
        return
    m = x.max(axis=axis, keepdims=True)
    np.subtract(x, m, out=o)
    np.exp(o, out=o)
    s = np.log(o.sum(axis=axis, keepdims=True))
    np.subtract(x, m, out=o)            # the shifted values again (no full-size temporary)
    o -= s


def _softmax_into(attrs, ins, outs):
    x, o, axis = ins[0], outs[0], attrs["axis"]
    if x.size == 0:
        return
    np.subtract(x, x.max(axis=axis, keepdims=True), out=o)
    np.exp(o, out=o)
    o /= o.sum(axis=axis, keepdims=True)


_ARANGE = {}


def _one_hot_into(attrs, ins, outs):
    idx, o, depth = ins[0], outs[0], attrs["depth"]
    axis = attrs["axis"]
    if axis != -1 and axis != idx.ndim:
        np.copyto(o, _one_hot_compute(attrs, ins))
        return
    ar = _ARANGE.get(depth)
    if ar is None:
        ar = _ARANGE[depth] = np.arange(depth)
    np.equal(idx[..., None], ar, out=o, casting="unsafe")
    on, off = attrs["on"], attrs["off"]
    if on != 1 or off != 0:
        o *= on - off
        o += off


def _matmul_calls(attrs, ins, outs):
    ta, tb = attrs.get("transpose_a"), attrs.get("transpose_b")
    if (ta and ins[0].ndim != 2) or (tb and ins[1].ndim != 2):
        return None                     # swapaxes of N-D operands: the kernel's own call
    return [(_products.matmul, (IN_T(0) if ta else IN(0), IN_T(1) if tb else IN(1)), {"out": OUT(0)})]


@_as_calls(_matmul_calls)
def _matmul_into(attrs, ins, outs):
    """``matmul`` with its ``transpose_a``/``transpose_b`` flags (transposed views, as the eager kernel)."""
    x, y = ins
    if attrs.get("transpose_a"):
        x = np.swapaxes(x, -1, -2)
    if attrs.get("transpose_b"):
        y = np.swapaxes(y, -1, -2)
    _products.matmul(x, y, out=outs[0])


def _dense_calls(attrs, ins, outs):
    if ins[1].ndim != 2 or not _loops.rows_never(outs[0], ins[2]):
        return None
    calls = [(_products.matmul, (IN(0), IN_T(1)), {"out": OUT(0)}), (np.add, (OUT(0), IN(2)), {"out": OUT(0)})]
    if len(outs) == 2:                  # with the ReLU of _dense_relu_into
        calls.append((np.maximum, (OUT(0), _relu_zero(outs[1])), {"out": OUT(1)}))
    return calls


@_as_calls(_dense_calls)
def _dense_into(attrs, ins, outs):
    x, w, b = ins
    o = outs[0]
    _products.matmul(x, w.T, out=o)
    if _loops.rows_fit(o, b) and _loops.ready():
        _loops.get()[0](o, b)     # o += b in one pass (NumPy's broadcast add goes row by row)
    else:
        o += b


@_as_calls(_dense_calls)
def _dense_relu_into(attrs, ins, outs):
    """``dense`` and the ``relu`` of its output: ``o = x @ w.T + b``, ``a = maximum(o, 0)``."""
    x, w, b = ins
    o, a = outs
    _products.matmul(x, w.T, out=o)
    if _loops.rows_fit(o, b, a) and _loops.ready():
        _loops.get()[1](o, b, a)
    else:
        o += b
        np.maximum(o, _activation.relu_zero(a.shape, a.dtype), out=a)


def _sums_rows(attrs, cattrs, out):
    """A ``reduce_sum`` over axis 0 of a 2-D value, without keep_dims (a Dense layer's bias gradient)."""
    return out.ndim == 2 and cattrs["axis"] in (0, (0,), [0]) and not cattrs["keep_dims"]


def _relu_grad_sum_calls(attrs, ins, outs):
    relu = _relu_grad_calls(attrs, ins, outs)
    if relu is None or not _loops.rows_never(outs[0], outs[1]):
        return None
    return relu + [(_add_reduce, (OUT(0), 0, _sum_dtype(outs[0], outs[1]), OUT(1), False))]


@_as_calls(_relu_grad_sum_calls)
def _relu_grad_sum_into(attrs, ins, outs):
    """``relu_grad`` and the sum of its output over axis 0: ``o = dy * (x > 0)``, ``db = o.sum(0)``."""
    dy, x = ins
    o, db = outs
    if _loops.rows_fit(o, db, dy, x) and _loops.ready():
        _loops.get()[2](dy, x, o, db, o.dtype.type(0))
    else:
        _relu_grad_into(attrs, ins, (o,))
        _add_reduce(o, 0, db.dtype, db, False)


def _transpose_view(attrs, ins):
    return np.transpose(ins[0], attrs["perm"])


def _sparse_ce_into(attrs, ins, outs):
    o = outs[0]
    if attrs["reduction"] == "none":
        _loss_fused.loss_into(attrs, ins, o)
    else:
        o[...] = _loss_fused.loss_into(attrs, ins)


def _sparse_ce_grad_into(attrs, ins, outs):
    _loss_fused.grad_into(attrs, ins, outs[0])


def _sparse_ce_and_grad_into(attrs, ins, outs):
    _loss_fused.loss_and_grad_into(attrs, ins, outs[0], outs[1])


def _one_hot_compute(attrs, ins):
    return get_op("one_hot").attrs["FComputeAlloc<cpu>"](attrs, ins)


# ------------------------------------------------------------------ convolution and pooling
def _conv2d_into(attrs, ins, outs):
    x, w = ins
    y = outs[0]
    if _conv._fast(x, w) and y.flags.c_contiguous:
        _conv.conv2d_products_into(attrs, x, w, y)
    else:
        np.copyto(y, _conv._conv2d_compute(attrs, ins))


def _conv2d_bias_relu_into(attrs, ins, outs):
    """``conv2d_bias`` and the ``relu`` of its output: the products into ``y``, then ``y += b`` and
    ``a = maximum(y, 0)`` in one Numba pass (both values kept: relu's gradient reads ``y``)."""
    x, w, b = ins
    y, a = outs
    if _conv._fast(x, w) and _cnn_loops.fits(y, b, a):
        if _conv.direct_forward(attrs, x, w, y, bias=b, act=a):      # the bias and the ReLU as the loops write y
            return
        _conv.conv2d_products_into(attrs, x, w, y)
        n, o = y.shape[:2]
        _cnn_loops.get("bias_relu")(y.reshape(n, o, -1), b, a.reshape(n, o, -1))
    else:
        _conv.conv2d_bias_into(attrs, ins, (y,))
        np.maximum(y, _activation.relu_zero(a.shape, a.dtype), out=a)


def _conv2d_bn_infer_into(attrs, ins, outs, consumer_attrs):
    """``conv2d`` and the inference BatchNorm of its output (``batch_norm_infer``): the direct loops write
    the normalized values as they copy the products out (one pass for both outputs; the conv output
    is kept, a gradient may read it); otherwise the products, then the BatchNorm's own pass. Both
    give ``batch_norm_infer``'s bits."""
    x, w, gamma, beta, mean, var = ins
    y, out = outs
    eps = consumer_attrs["eps"]
    if _cnn_loops.fits(y, gamma, beta, mean, var, out) and _conv.direct_forward(
            attrs, x, w, y, act=out, bn=(mean, _bn_infer.channel_scale(var, eps), gamma, beta)):
        return
    _conv2d_into(attrs, (x, w), (y,))
    _bn_infer.into({"eps": eps}, (y, gamma, beta, mean, var), (out,))


def _max_pool_into(attrs, ins, outs):
    x = ins[0]
    out, idx = outs
    if x.dtype in _cnn_loops.FLOATS and out.flags.c_contiguous and idx.flags.c_contiguous:
        (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
        _cnn_loops.get("max_pool")(np.ascontiguousarray(x), out, idx, kh, kw, sh, sw, attrs["pad"][0],
                                   attrs["pad"][2], x.dtype.type(-np.inf))
    else:
        got = _pool._max_pool_compute(attrs, ins)
        np.copyto(out, got[0])
        np.copyto(idx, got[1])


def _max_pool_grad_into(attrs, ins, outs):
    dy, idx = ins
    dx = outs[0]
    if dy.dtype in _cnn_loops.FLOATS and dx.flags.c_contiguous:
        _cnn_loops.get("max_pool_scatter")(np.ascontiguousarray(dy), np.ascontiguousarray(idx), dx,
                                           dy.dtype.type(0))
    else:
        np.copyto(dx, _pool._max_pool_grad_compute(attrs, ins))


def _backprop_input_into(attrs, ins, outs):
    dx = outs[0]
    if dx.flags.c_contiguous:
        _conv._backprop_input_compute(attrs, ins, dx)
    else:
        np.copyto(dx, _conv._backprop_input_compute(attrs, ins))


_INTO = {
    "relu": _relu_into, "relu_grad": _relu_grad_into, "reduce_sum": _reduce_sum_into,
    "reduce_mean": _reduce_mean_into, "cast": _copy_into, "broadcast_to": _broadcast_to_into,
    "log_softmax": _log_softmax_into, "softmax": _softmax_into, "one_hot": _one_hot_into,
    "matmul": _matmul_into, "sparse_softmax_cross_entropy": _sparse_ce_into,
    "sparse_softmax_cross_entropy_grad": _sparse_ce_grad_into, "dense": _dense_into,
    "conv2d": _conv2d_into, "conv2d_bias": _conv.conv2d_bias_into, "max_pool2d": _max_pool_into,
    "max_pool2d_grad": _max_pool_grad_into, "conv2d_backprop_input": _backprop_input_into,
    "batch_norm_train": _batch_norm.forward_into, "batch_norm_infer": _bn_infer.into,
}

_VIEWS = {"transpose": _transpose_view}

_FUSED = {"sparse_softmax_cross_entropy": ("sparse_softmax_cross_entropy_grad", 2, _sparse_ce_and_grad_into)}

_CONSUMERS = {"dense": {"relu": (None, _dense_relu_into)},
              "conv2d": {"batch_norm_infer": (None, _conv2d_bn_infer_into, True)},    # eps: the consumer's
              "conv2d_bias": {"relu": (None, _conv2d_bias_relu_into)},
              "batch_norm_train": {"relu": (None, _batch_norm.forward_into)},      # the ReLU in its last pass
              "relu_grad": {"reduce_sum": (_sums_rows, _relu_grad_sum_into)}}


def install():
    """Give the built-in ops their graph-mode kernels (called once when mscustom.ops is imported)."""
    for name, ufunc in _UFUNCS.items():
        get_op(name).attrs["FUfunc"] = ufunc
    for name, fn in _INTO.items():
        get_op(name).attrs["FComputeInto"] = fn
    for name, fn in _VIEWS.items():
        get_op(name).attrs["FView"] = fn
    for name, rule in _FUSED.items():
        get_op(name).attrs["FFuseInto"] = rule
    for name, rules in _CONSUMERS.items():
        get_op(name).attrs["FFuseConsumer"] = rules
    _fusion_exprs.install()             # FElementwiseExpr: chains of these become one fused kernel
