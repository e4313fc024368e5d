"""``mx.nd``: ``NDArray``, constructors, math, ``Custom``, ``save``/``load``, ``waitall``, ``linalg``, ``random``.

Every function here runs mscustom ops on NDArrays (so results are taped
inside ``mx.autograd.record()``) and returns NDArrays. Names and defaults are
MXNet 1.x's.

Example::

    x = mx.nd.array([0.0, 1.0, 2.0]); x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid")
    y.backward()
    x.grad.asnumpy()
"""

import types

import numpy as np

from ... import ops as _ops
from ...ops.math import elementwise as _elementwise
from ...tensor import Tensor
from . import base as _base
from . import profiler as _profiler
from . import random
from . import _outputs
from . import _sparse as sparse
from ._bridge import custom_call
from ._ndarray import NDArray, array, as_nd, check_stype, restore, wrap
from ._params import load, save
from .context import current_context

__all__ = ["NDArray", "array", "empty", "zeros", "ones", "full", "zeros_like", "ones_like", "arange", "Custom",
           "waitall", "save", "load", "exp", "log", "sqrt", "square", "abs", "negative", "relu", "sigmoid",
           "tanh", "softmax", "log_softmax", "add", "subtract", "multiply", "divide", "maximum", "minimum",
           "power", "dot", "batch_dot", "sum", "mean", "max", "min", "argmax", "reshape", "transpose",
           "flatten", "Flatten", "expand_dims", "concat", "stack", "clip", "one_hot", "norm", "linalg",
           "random", "broadcast_to", "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
           "broadcast_plus", "broadcast_minus", "broadcast_maximum", "broadcast_minimum", "broadcast_power",
           "broadcast_equal", "broadcast_greater", "broadcast_lesser", "elemwise_add", "elemwise_sub",
           "elemwise_mul", "elemwise_div", "sparse", "LogisticRegressionOutput", "MAERegressionOutput",
           "SVMOutput", "MakeLoss", "BlockGrad", "stop_gradient", "Cast", "cast"]


def _t(x):
    if isinstance(x, Tensor):
        return x
    return array(x)


def _nd(fn):
    """An NDArray function from an mscustom op (NDArrays in, NDArrays out)."""
    def wrapper(*args, **kwargs):
        out = kwargs.pop("out", None)
        res = as_nd(fn(*args, **kwargs))
        if out is not None:
            np.copyto(out._data, res._data, casting="same_kind")
            return out
        return res
    wrapper.__name__ = getattr(fn, "__name__", "op")
    return wrapper


# ------------------------------------------------------------ constructors
def _ctx_dtype(ctx, dtype):
    return ctx or current_context(), np.dtype(np.float32 if dtype is None else dtype)


def empty(shape, ctx=None, dtype=None, stype=None):
    if check_stype(stype, "mx.nd.empty") != "default":
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype)
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return wrap(np.zeros(shape, dtype), ctx=ctx)


@_profiler.named("_zeros")
def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An all-zero NDArray (float32 by default; ``stype`` 'csr' / 'row_sparse' gives a sparse one)."""
    if check_stype(stype, "mx.nd.zeros") != "default":
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype)
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return wrap(np.zeros(shape, dtype), ctx=ctx)


@_profiler.named("_ones")
def ones(shape, ctx=None, dtype=None, **kwargs):
    """An all-one NDArray (float32 by default)."""
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return wrap(np.ones(shape, dtype), ctx=ctx)


@_profiler.named("_full")
def full(shape, val, ctx=None, dtype=None, **kwargs):
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return wrap(np.full(shape, val, dtype), ctx=ctx)


@_profiler.named("_arange")
def arange(start, stop=None, step=1.0, repeat=1, ctx=None, dtype=None, **kwargs):
    ctx, dtype = _ctx_dtype(ctx, dtype)
    return wrap(np.repeat(np.arange(start, stop, step, dtype=dtype), repeat), ctx=ctx)


def zeros_like(data, **kwargs):
    if sparse.is_sparse(data):
        return sparse.zeros_like(data)
    return as_nd(_ops.zeros_like(_t(data)))


def ones_like(data, **kwargs):
    return as_nd(_ops.ones_like(_t(data)))


def waitall():
    """Wait for every op; raises the first pending op error as ``MXNetError`` (clearing them all)."""
    pending = _base.take_all()
    for _, arrays in pending:
        restore(arrays)
    if pending:
        raise pending[0][0]


def Custom(*data, op_type=None, name=None, out=None, **kwargs):
    """Run the custom op registered as ``op_type`` (``mx.operator.register``) on ``data``.

    Inputs are the Prop's arguments, then its auxiliary states. ``name`` is the
    op's name (as for every MXNet op; it does not reach the Prop) and ``out``
    receives the result(s). Other keyword arguments reach the Prop's
    constructor as strings, as in MXNet. Returns one NDArray, or a list when
    the op has several outputs.
    """
    return custom_call(data, op_type, kwargs, out=out)


# ------------------------------------------------------------ elementwise math
exp, log, sqrt, square, abs = (_nd(f) for f in (_ops.exp, _ops.log, _ops.sqrt, _ops.square, _ops.abs))  # noqa: A001
negative = _nd(_ops.neg)
relu, sigmoid, tanh = _nd(_ops.relu), _nd(_ops.sigmoid), _nd(_ops.tanh)
add, subtract, multiply, divide = _nd(_ops.add), _nd(_ops.sub), _nd(_ops.mul), _nd(_ops.div)
maximum, minimum, power = _nd(_elementwise.maximum_x), _nd(_elementwise.minimum_x), _nd(_ops.pow)  # ties: lhs
broadcast_add = broadcast_plus = elemwise_add = add
broadcast_sub = broadcast_minus = elemwise_sub = subtract
broadcast_mul = elemwise_mul = multiply
broadcast_div = elemwise_div = divide
broadcast_maximum, broadcast_minimum, broadcast_power = maximum, minimum, power
broadcast_equal = _nd(lambda a, b: _ops.cast(_ops.equal(a, b), _t(a)._data.dtype))
broadcast_greater = _nd(lambda a, b: _ops.cast(_ops.greater(a, b), _t(a)._data.dtype))
broadcast_lesser = _nd(lambda a, b: _ops.cast(_ops.less(a, b), _t(a)._data.dtype))


def Cast(data, dtype, out=None, name=None, **kwargs):
    """``data`` converted to ``dtype`` (a NumPy type or its name), on the tape: the gradient is cast back."""
    res = as_nd(_ops.cast(_t(data), np.dtype(dtype)))
    if out is not None:
        np.copyto(out._data, res._data, casting="unsafe")
        return out
    return res


cast = Cast


@_nd
def softmax(data, axis=-1, temperature=None):
    x = _t(data)
    return _ops.softmax(x if temperature is None else x / float(temperature), axis=axis)


@_nd
def log_softmax(data, axis=-1):
    return _ops.log_softmax(_t(data), axis=axis)


@_nd
def broadcast_to(data, shape):
    src = _t(data)
    shape = tuple(s if d == 0 else d for s, d in zip(src._data.shape, shape)) if len(shape) == src.ndim else shape
    return _ops.broadcast_to(src, tuple(shape))


@_nd
def clip(data, a_min, a_max, **kwargs):
    """``data`` limited to [a_min, a_max] (``name=`` accepted, as MXNet's operators take it)."""
    return _ops.minimum(_ops.maximum(_t(data), float(a_min)), float(a_max))


# ------------------------------------------------------------ linear algebra and reductions
@_nd
def dot(lhs, rhs, transpose_a=False, transpose_b=False):
    """Matrix product; 1-D/2-D as MXNet (N-D: last axis of lhs with first axis of rhs)."""
    a, b = _t(lhs), _t(rhs)
    if transpose_a:
        a = _ops.transpose(a)
    if transpose_b:
        b = _ops.transpose(b)
    if a.ndim > 2 or b.ndim > 2:
        lead, tail = a._data.shape[:-1], b._data.shape[1:]
        r = _ops.matmul(_ops.reshape(a, (-1, a._data.shape[-1])), _ops.reshape(b, (b._data.shape[0], -1)))
        return _ops.reshape(r, lead + tail)
    return _ops.matmul(a, b)


@_nd
def batch_dot(lhs, rhs, transpose_a=False, transpose_b=False):
    a, b = _t(lhs), _t(rhs)
    if transpose_a:
        a = _ops.transpose(a, (0, 2, 1))
    if transpose_b:
        b = _ops.transpose(b, (0, 2, 1))
    return _ops.matmul(a, b)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _reducer(fn):
    def reduce(data, axis=None, keepdims=False, exclude=False):
        x = _t(data)
        ax = _axis(axis)
        if exclude:
            drop = {a % x.ndim for a in (ax if isinstance(ax, tuple) else (ax,))}
            ax = tuple(a for a in range(x.ndim) if a not in drop)
            if not ax:                                  # every axis excluded: nothing to reduce (as MXNet)
                return as_nd(_ops.mul(x, 1))
        return as_nd(fn(x, ax, keepdims))
    reduce.__name__ = fn.__name__
    return reduce


sum = _reducer(lambda x, a, k: _ops.reduce_sum(x, a, k))          # noqa: A001
mean = _reducer(lambda x, a, k: _ops.reduce_mean(x, a, k))
max = _reducer(lambda x, a, k: _ops.reduce_max(x, a, k))          # noqa: A001
min = _reducer(lambda x, a, k: _ops.reduce_min(x, a, k))          # noqa: A001


def norm(data, ord=2, axis=None, keepdims=False):                    # noqa: A002
    if ord != 2:
        raise ValueError(f"mx.nd.norm: only ord=2 is supported here, got {ord}")
    return sqrt(sum(square(data), axis=axis, keepdims=keepdims))


def argmax(data, axis=None, keepdims=False):
    x = _t(data).asnumpy() if isinstance(data, NDArray) else np.asarray(_t(data)._data)
    r = np.argmax(x, axis=axis)
    if keepdims and axis is not None:
        r = np.expand_dims(r, axis)
    return wrap(r.astype(np.float32))                  # MXNet returns indices as floats


# ------------------------------------------------------------ shapes
def reshape(data, shape, **kwargs):
    return _t(data).reshape(shape) if isinstance(data, NDArray) else as_nd(_ops.reshape(_t(data), shape))


@_nd
def transpose(data, axes=None):
    return _ops.transpose(_t(data), None if not axes else tuple(axes))


@_nd
def flatten(data):
    x = _t(data)
    return _ops.reshape(x, (x._data.shape[0], -1))


Flatten = flatten


@_nd
def expand_dims(data, axis):
    return _ops.expand_dims(_t(data), axis)


def concat(*data, dim=1, **kwargs):
    return as_nd(_ops.concat([_t(d) for d in data], axis=dim))


def stack(*data, axis=0, **kwargs):
    return as_nd(_ops.stack([_t(d) for d in data], axis=axis))


def one_hot(indices, depth, on_value=1.0, off_value=0.0, dtype=None):
    idx = np.asarray(_t(indices)._data).astype(np.int64)
    out = np.full(idx.shape + (int(depth),), off_value, dtype=np.dtype(dtype or np.float32))
    np.put_along_axis(out, idx[..., None], on_value, axis=-1)
    return wrap(out)


# ------------------------------------------------------------ linalg
def _gemm2(A, B, transpose_a=False, transpose_b=False, alpha=1.0, axis=-2):
    a, b = _t(A), _t(B)
    if transpose_a:
        a = _ops.transpose(a, tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2))
    if transpose_b:
        b = _ops.transpose(b, tuple(range(b.ndim - 2)) + (b.ndim - 1, b.ndim - 2))
    r = _ops.matmul(a, b)
    return as_nd(r if alpha == 1.0 else r * float(alpha))


def _gemm(A, B, C, transpose_a=False, transpose_b=False, alpha=1.0, beta=1.0, axis=-2):
    return as_nd(_gemm2(A, B, transpose_a, transpose_b, alpha) + _t(C) * float(beta))


def _syrk(A, transpose=False, alpha=1.0):
    return _gemm2(A, A, transpose_a=transpose, transpose_b=not transpose, alpha=alpha)


def _sumlogdiag(A):
    a = _t(A)
    n = a._data.shape[-1]
    mask = np.eye(n, dtype=a._data.dtype)
    return as_nd(_ops.reduce_sum(_ops.log(_ops.reduce_sum(a * mask, -1) if n else a), -1))


linalg = types.SimpleNamespace(gemm=_gemm, gemm2=_gemm2, syrk=_syrk, sumlogdiag=_sumlogdiag)
linalg.__doc__ = "mx.nd.linalg basics: gemm, gemm2, syrk, sumlogdiag (built from differentiable ops)."


# ------------------------------------------------------------ sparse inputs keep their storage (zero stays zero)
def _storage_keeping(dense_fn, sparse_fn):
    def fn(data, *args, **kwargs):
        if sparse.is_sparse(data) and not args and not kwargs:
            return sparse_fn(data)
        return dense_fn(data, *args, **kwargs)
    fn.__name__, fn.__doc__ = dense_fn.__name__, dense_fn.__doc__
    return fn


sqrt, square, abs, negative = (_storage_keeping(d, sp) for d, sp in                             # noqa: A001
                               ((sqrt, sparse.sqrt), (square, sparse.square), (abs, sparse.abs),
                                (negative, sparse.negative)))


# ------------------------------------------------------------ output layers and gradient stops
def _output_layer(fn, name):
    def layer(data, *args, out=None, name=None, **kwargs):
        res = as_nd(fn(_t(data), *(_t(a) for a in args), **kwargs))
        if out is not None:
            np.copyto(out._data, res._data, casting="same_kind")
            return out
        return res
    layer.__name__ = name
    layer.__doc__ = fn.__doc__
    return layer


LogisticRegressionOutput = _output_layer(_outputs.logistic_regression_output, "LogisticRegressionOutput")
MAERegressionOutput = _output_layer(_outputs.mae_regression_output, "MAERegressionOutput")
SVMOutput = _output_layer(_outputs.svm_output, "SVMOutput")
MakeLoss = _output_layer(_outputs.make_loss, "MakeLoss")
BlockGrad = stop_gradient = _output_layer(_outputs.block_grad, "BlockGrad")


# ------------------------------------------------------------ layer operators (what Gluon's F.<op> calls)
from ._nd_layers import BatchNorm, Activation, Convolution, Dropout, FullyConnected, Pooling, identity, pick  # noqa: E402

uniform, normal = random.uniform, random.normal
__all__ += ["FullyConnected", "Activation", "Convolution", "Pooling", "Dropout", "BatchNorm", "pick", "identity",
            "uniform", "normal"]
