"""The translators of MINDIR export: each recorded kernel call as MindSpore 2.x operators.

``translate(g, step, ins)`` writes one recorded call (``_core/capture.py``'s
``Step``) into the builder ``g`` (``mindir_export._Export``, a
``_mindir_builder.Builder`` that also knows the capture's arrays) and returns
the value names of its outputs -- None for an output with no form here -- or
None when the op has no MindIR form. An op may carry its own translator as
its ``FMindIR`` attribute (the recurrent sequence ops, ``ops/nn/rnn_mindir.py``);
the built-in ops are translated here, one function per op or family of ops.
Every operator used was checked in MindSpore 2.10 (``bench/check_mindir.py``).
"""

import numpy as np

__all__ = ["translate"]


_UNARY = {"relu": "ReLU", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "neg": "Neg", "abs": "Abs", "erf": "Erf", "erfc": "Erfc", "sign": "Sign", "floor": "Floor", "ceil": "Ceil",
          "trunc": "Trunc", "sin": "Sin", "cos": "Cos", "tan": "Tan", "square": "Square", "softplus": "Softplus",
          "log1p": "Log1p", "expm1": "Expm1", "rsqrt": "Rsqrt", "reciprocal": "Reciprocal", "hardswish": "HSwish",
          "mish": "Mish", "selu": "SeLU"}
_PREDICATE = {"isnan": "IsNan", "isinf": "IsInf", "logical_not": "LogicalNot"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "RealDiv", "pow": "Pow", "maximum": "Maximum",
           "maximum_x": "Maximum", "minimum": "Minimum", "minimum_x": "Minimum", "floor_div": "FloorDiv",
           "floor_mod": "FloorMod"}
_COMPARE = {"equal": "Equal", "not_equal": "NotEqual", "less": "Less", "greater": "Greater",
            "less_equal": "LessEqual", "greater_equal": "GreaterEqual", "logical_and": "LogicalAnd",
            "logical_or": "LogicalOr", "logical_xor": "LogicalXor"}
_REDUCE = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
           "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd", "reduce_all": "ReduceAll",
           "reduce_any": "ReduceAny"}
_TRANSLATORS = {}


def _translator(*names):
    def register(fn):
        for n in names:
            _TRANSLATORS[n] = fn
        return fn
    return register


def _axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    return sorted(a % ndim for a in axis) if axis and ndim else list(range(ndim))


@_translator(*_UNARY)
def _unary(g, step, ins, y):
    x = g.cast(ins[0], y.dtype)
    return [g.node(_UNARY[step.op.name], [x], y.shape, y.dtype)]


@_translator(*_PREDICATE)
def _predicate(g, step, ins, y):
    return [g.node(_PREDICATE[step.op.name], [ins[0]], y.shape, y.dtype)]


@_translator("elu")
def _elu(g, step, ins, y):
    """``x`` where ``x > 0``, else ``alpha * expm1(x)`` (MindSpore's ``Elu`` takes only alpha = 1)."""
    x = g.cast(ins[0], y.dtype)
    neg = g.binary("Mul", g.unary("Expm1", g.binary("Minimum", x, g.const(np.zeros((), y.dtype)))),
                   g.const(np.asarray(step.attrs["alpha"], y.dtype)))
    positive = g.node("Greater", [x, g.const(np.zeros((), y.dtype))], y.shape, np.bool_)
    return [g.node("Select", [positive, x, neg], y.shape, y.dtype)]


@_translator(*_BINARY)
def _binary(g, step, ins, y):
    a, b = (g.cast(i, y.dtype) for i in ins)
    return [g.node(_BINARY[step.op.name], [a, b], y.shape, y.dtype)]


@_translator(*_COMPARE)
def _compare(g, step, ins, y):
    common = np.result_type(*(g.dtype(i) for i in ins))
    a, b = (g.cast(i, common) for i in ins)
    return [g.node(_COMPARE[step.op.name], [a, b], y.shape, y.dtype)]


@_translator("pow_scalar")
def _pow_scalar(g, step, ins, y):
    exponent = g.const(np.asarray(step.attrs["exponent"], y.dtype))
    return [g.node("Pow", [g.cast(ins[0], y.dtype), exponent], y.shape, y.dtype)]


@_translator("zeros_like", "ones_like")
def _fill_like(g, step, ins, y):
    return [g.node("ZerosLike" if step.op.name == "zeros_like" else "OnesLike", [g.cast(ins[0], y.dtype)],
                   y.shape, y.dtype)]


@_translator("softmax", "log_softmax")
def _softmax(g, step, ins, y):
    axis = int(step.attrs.get("axis", -1))
    if step.op.name == "softmax":
        return [g.node("Softmax", [ins[0], g.ints([axis])], y.shape, y.dtype)]
    return [g.node("LogSoftmax", [ins[0], g.scalar(axis)], y.shape, y.dtype)]


@_translator("reshape", "squeeze", "expand_dims")
def _reshape(g, step, ins, y):
    return [g.node("Reshape", [ins[0], g.ints(y.shape)], y.shape, y.dtype)]


@_translator("broadcast_to")
def _broadcast_to(g, step, ins, y):
    return [g.broadcast(ins[0], y.shape)]


@_translator("transpose")
def _transpose(g, step, ins, y):
    perm = step.attrs.get("perm")
    ndim = len(g.shape(ins[0]))
    perm = list(range(ndim))[::-1] if perm is None else [int(p) % ndim for p in perm]
    return [g.node("Transpose", [ins[0], g.ints(perm)], y.shape, y.dtype)]


@_translator("cast")
def _cast(g, step, ins, y):
    if g.dtype(ins[0]) == y.dtype:
        return [ins[0]]
    return [g.cast(ins[0], y.dtype)]


@_translator("concat")
def _concat(g, step, ins, y):
    parts = [g.cast(i, y.dtype) for i in ins]
    return [g.node("Concat", [g.make_tuple(parts), g.scalar(int(step.attrs.get("axis", 0)) % y.ndim)],
                   y.shape, y.dtype)]


@_translator("stack")
def _stack(g, step, ins, y):
    axis = int(step.attrs.get("axis", 0)) % y.ndim
    parts = []
    for i in ins:
        shape = list(g.shape(i))
        shape.insert(axis, 1)
        parts.append(g.reshape(g.cast(i, y.dtype), shape))
    if len(parts) == 1:
        return [parts[0]]
    return [g.node("Concat", [g.make_tuple(parts), g.scalar(axis)], y.shape, y.dtype)]


@_translator("where")
def _where(g, step, ins, y):
    cond = g.broadcast(g.cast(ins[0], np.bool_), y.shape)
    a, b = (g.broadcast(g.cast(i, y.dtype), y.shape) for i in ins[1:])
    return [g.node("Select", [cond, a, b], y.shape, y.dtype)]


def _matmul(g, x, w, transpose_a, transpose_b, y):
    """``op(x) @ op(w)`` as MatMul (2-D operands; a 2-D right operand takes the left's rows folded in)
    or BatchMatMul (batch axes broadcast to the result's)."""
    x, w = g.cast(x, y.dtype), g.cast(w, y.dtype)
    xs, ws = g.shape(x), g.shape(w)
    if len(xs) == 1:
        x, xs, transpose_a = g.reshape(x, (1,) + xs), (1,) + xs, False
    if len(ws) == 1:
        w, ws, transpose_b = g.reshape(w, ws + (1,)), ws + (1,), False
    if len(ws) == 2:
        if len(xs) > 2:
            if transpose_a:
                x = g.transpose(x, list(range(len(xs) - 2)) + [len(xs) - 1, len(xs) - 2])
                transpose_a = False
            x = g.reshape(x, (-1, g.shape(x)[-1]))
        rows = g.shape(x)[1 if transpose_a else 0]
        cols = ws[0 if transpose_b else 1]
        out = g.node("MatMul", [x, w, g.scalar(bool(transpose_a)), g.scalar(bool(transpose_b))], (rows, cols),
                     y.dtype)
        return g.reshape(out, y.shape)
    m = xs[-1 if transpose_a else -2] if len(xs) > 1 else 1
    n = ws[-2 if transpose_b else -1]
    batch = tuple(np.broadcast_shapes(xs[:-2], ws[:-2]))
    x = g.broadcast(x, batch + xs[-2:])
    w = g.broadcast(w, batch + ws[-2:])
    out = g.node("BatchMatMul", [x, w, g.scalar(bool(transpose_a)), g.scalar(bool(transpose_b))],
                 batch + (m, n), y.dtype)
    return g.reshape(out, y.shape)


@_translator("matmul")
def _matmul_op(g, step, ins, y):
    a = step.attrs or {}
    return [_matmul(g, ins[0], ins[1], a.get("transpose_a", False), a.get("transpose_b", False), y)]


@_translator("dense")
def _dense(g, step, ins, y):
    x = ins[0]
    xs = g.shape(x)
    flat = g.reshape(g.cast(x, y.dtype), (-1, xs[-1])) if len(xs) != 2 else g.cast(x, y.dtype)
    rows, cols = g.shape(flat)[0], g.shape(ins[1])[0]
    out = g.node("MatMul", [flat, g.cast(ins[1], y.dtype), g.scalar(False), g.scalar(True)], (rows, cols), y.dtype)
    if len(ins) == 3:
        b = g.cast(ins[2], y.dtype)
        if g.shape(b) == (cols,):
            out = g.node("BiasAdd", [out, b, g.scalar(0)], (rows, cols), y.dtype)
        else:
            out = g.binary("Add", out, b, y.dtype)
    return [g.reshape(out, y.shape)]


@_translator(*_REDUCE)
def _reduce(g, step, ins, y):
    a = step.attrs or {}
    ndim = len(g.shape(ins[0]))
    axes = _axes(a.get("axis"), ndim)
    keep = bool(a.get("keep_dims", False))
    if not ndim:
        return [g.node("Reshape", [ins[0], g.ints(())], y.shape, y.dtype)]
    settings = [g.ints(axes), g.scalar(keep)]
    if step.op.name == "reduce_sum":
        settings.append(g.scalar(False))                 # skip_mode: an empty axis tuple would keep x
    x = ins[0] if step.op.name in ("reduce_all", "reduce_any") else g.cast(ins[0], y.dtype)
    return [g.node(_REDUCE[step.op.name], [x] + settings, y.shape, y.dtype)]


@_translator("conv2d", "conv2d_bias")
def _conv2d(g, step, ins, y):
    """``Conv2D`` (a primitive holding its settings) with explicit padding; the bias as ``BiasAdd``."""
    a = step.attrs
    w_shape = g.shape(ins[1])
    pad = tuple(int(p) for p in a["pad"])
    attrs = {"kernel_size": tuple(int(k) for k in w_shape[2:]), "mode": 1, "out_channel": int(w_shape[0]),
             "pad": pad, "pad_list": pad, "pad_mode": "pad", "format": "NCHW",
             "stride": (1, 1) + tuple(int(s) for s in a["stride"]),
             "dilation": (1, 1) + tuple(int(d) for d in a["dilation"]),
             "group": int(a["groups"]), "groups": int(a["groups"])}
    out = g.node("Conv2D", [g.cast(ins[0], y.dtype), g.cast(ins[1], y.dtype)], y.shape, y.dtype, attrs=attrs)
    if step.op.name == "conv2d_bias":
        out = g.node("BiasAdd", [out, g.cast(ins[2], y.dtype), g.scalar(0)], y.shape, y.dtype)
    return [out]


def _padded(g, x, attrs, value):
    t, b, le, r = attrs["pad"]
    return g.pad(x, [(0, 0), (0, 0), (t, b), (le, r)], value)


@_translator("max_pool2d")
def _max_pool(g, step, ins, y):
    """``MaxPool`` over the input padded with -inf (the padding and ceil_mode's extra rows never win).
    The second output (each window's argmax) has no form here."""
    a = step.attrs
    x = _padded(g, ins[0], a, -np.inf if y.dtype.kind == "f" else np.iinfo(y.dtype).min)
    attrs = {"kernel_size": (1, 1) + tuple(a["kernel"]), "strides": (1, 1) + tuple(a["stride"]),
             "pad_mode": "VALID", "format": "NCHW"}
    g.missing[step.outs[1]] = "op 'max_pool2d': its argmax indices (return_indices=True) have no MindIR form"
    return [g.node("MaxPool", [x], y.shape, y.dtype, attrs=attrs), None]


@_translator("avg_pool2d")
def _avg_pool(g, step, ins, y):
    """``AvgPool`` over the zero-padded input, times kH*kW / the op's divisor where that is not kH*kW
    (padding left out of the count, ceil_mode's extra rows, ``divisor_override``)."""
    from ..ops.nn.pool import _divisor

    a = step.attrs
    x = _padded(g, ins[0], a, 0)
    kh, kw = (int(k) for k in a["kernel"])
    out = g.node("AvgPool", [x, g.ints((kh, kw)), g.ints(a["stride"]), g.scalar(2), g.scalar(0)], y.shape,
                 y.dtype)                                 # pad_mode 2: VALID; data_format 0: NCHW
    divisor = np.asarray(_divisor(a, g.shape(ins[0])[2:]), np.float64)
    factor = (kh * kw) / divisor
    if not np.all(factor == 1.0):
        out = g.binary("Mul", out, g.const(factor.astype(y.dtype)), y.dtype)
    return [out]


@_translator("conv2d_backprop_input")
def _conv_transpose(g, step, ins, y):
    """A transposed convolution (``nn.Conv2dTranspose``): ``Conv2DTranspose(dy, w, input_size)``."""
    a = step.attrs
    w_shape = g.shape(ins[1])
    pad = tuple(int(p) for p in a["pad"])
    attrs = {"kernel_size": tuple(int(k) for k in w_shape[2:]), "mode": 1, "out_channel": int(w_shape[0]),
             "pad": pad, "pad_list": pad, "pad_mode": "PAD", "format": "NCHW",
             "stride": (1, 1) + tuple(int(s) for s in a["stride"]),
             "dilation": (1, 1) + tuple(int(d) for d in a["dilation"]),
             "group": int(a["groups"]), "groups": int(a["groups"])}
    return [g.node("Conv2DTranspose", [g.cast(ins[0], y.dtype), g.cast(ins[1], y.dtype), g.ints(y.shape)], y.shape,
                   y.dtype, attrs=attrs)]


@_translator("adaptive_max_pool2d")
def _adaptive_max_pool(g, step, ins, y):
    outs = [g.array(s) for s in step.outs]
    return g.node_multi("AdaptiveMaxPool2D", [ins[0], g.ints(step.attrs["out"])],
                        [(o.shape, o.dtype) for o in outs])


@_translator("one_hot")
def _one_hot(g, step, ins, y):
    a = step.attrs
    depth = int(a["depth"])
    on, off = (g.const(np.asarray(v, y.dtype)) for v in (a["on"], a["off"]))
    return [g.node("OneHot", [ins[0], g.scalar(depth), on, off, g.scalar(int(a["axis"]))], y.shape, y.dtype)]


@_translator("pad")
def _pad(g, step, ins, y):
    """Constant padding as ``Concat`` with constant blocks; reflect, replicate, symmetric and circular
    padding as a ``Gather`` of each padded axis's source positions."""
    from ..ops.array.pad_resize import _pad_width, _source_index

    a = step.attrs
    x = ins[0]
    width = _pad_width(a, len(y.shape))
    if a["mode"] == "constant":
        return [g.pad(x, width, a["value"])]
    for axis, (lo, hi) in enumerate(width):
        if lo or hi:
            index = _source_index(g.shape(x)[axis], lo, hi, a["mode"]).astype(np.int32)
            shape = list(g.shape(x))
            shape[axis] = len(index)
            x = g.node("Gather", [x, g.const(index), g.scalar(axis), g.scalar(0)], shape, y.dtype)
    return [x]


@_translator("tile")
def _tile(g, step, ins, y):
    """``Tile`` as a broadcast: x (a, b) seen as (1, a, 1, b), broadcast to (r1, a, r2, b), then (r1*a, r2*b)."""
    from ..ops.array.pad_resize import _tile_reps

    shape = g.shape(ins[0])
    reps, n = _tile_reps(step.attrs, len(shape))
    shape = (1,) * (n - len(shape)) + tuple(shape)
    spread = [d for s in shape for d in (1, s)]
    target = [d for r, s in zip(reps, shape) for d in (r, s)]
    x = g.broadcast(g.reshape(ins[0], spread), target)
    return [g.reshape(x, y.shape)]


@_translator("resize")
def _resize(g, step, ins, y):
    """Every resize mode is a matrix per resized (trailing) axis: each applied as a ``MatMul`` on that axis
    moved last."""
    from ..ops.array.pad_resize import _resize_mats

    x = ins[0]
    k = len(step.attrs["size"])
    ndim = len(y.shape)
    for j, mat in enumerate(_resize_mats(step.attrs, g.shape(x)[-k:])):
        axis = ndim - k + j
        perm = [d for d in range(ndim) if d != axis] + [axis]
        moved = g.transpose(x, perm)
        rows = g.reshape(moved, (-1, g.shape(moved)[-1]))
        out = g.node("MatMul", [rows, g.const(mat.astype(y.dtype)), g.scalar(False), g.scalar(True)],
                     (g.shape(rows)[0], mat.shape[0]), y.dtype)
        out = g.reshape(out, g.shape(moved)[:-1] + (mat.shape[0],))
        x = g.transpose(out, np.argsort(perm))
    return [x]


@_translator("layer_norm_last")
def _layer_norm_last(g, step, ins, y):
    """The Transformer layers' fused LayerNorm (``ops/nn/layer_norm_last.py``) written out as its ops;
    outputs (y, mean, 1 / sqrt(var + eps))."""
    outs = [g.array(s) for s in step.outs]
    x, gamma, beta = (g.cast(i, y.dtype) for i in ins)
    last = len(y.shape) - 1
    mean = g.node("ReduceMean", [x, g.ints([last]), g.scalar(True)], outs[1].shape, y.dtype)
    centred = g.binary("Sub", x, mean, y.dtype)
    var = g.node("ReduceMean", [g.unary("Square", centred), g.ints([last]), g.scalar(True)], outs[1].shape,
                 y.dtype)
    std = g.unary("Sqrt", g.binary("Add", var, g.const(np.asarray(step.attrs["eps"], y.dtype)), y.dtype))
    normed = g.binary("RealDiv", centred, std, y.dtype)
    out = g.binary("Add", g.binary("Mul", normed, gamma, y.dtype), beta, y.dtype)
    rstd = g.binary("RealDiv", g.const(np.ones((), y.dtype)), std, y.dtype)
    return [out, mean, g.reshape(rstd, outs[2].shape)]


class _Like:
    """The shape and dtype of a value a translator makes (what ``_matmul`` reads of its result)."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)


@_translator("attention")
def _attention(g, step, ins, y):
    """Scaled dot-product attention (``ops/nn/attention.py``): ``softmax(Q K^T * scale + masks) V``.

    Q, K and V are column ranges of the sources, split into heads (``lne`` /
    ``nle`` layouts) or the sources themselves (``plain``); masks in mode
    ``add`` are added (a bool mask adds 0 or 1), in mode ``fill`` their
    nonzero elements set the score to -inf. Outputs: the result in the op's
    layout and the weights (batch, heads, L, S).
    """
    a = step.attrs
    n = a["nsrc"]
    layout, heads = a["layout"], a["heads"]
    dtype = y.dtype
    views = []
    for src, c0, c1 in a["cols"]:
        v = g.cast(ins[src], dtype)
        if layout != "plain":
            shape = g.shape(v)
            if (c0, c1) != (0, shape[-1]):
                v = g.slice(v, [0] * (len(shape) - 1) + [c0], list(shape[:-1]) + [c1])
            v = g.reshape(v, (shape[0], shape[1], heads, (c1 - c0) // heads))
            v = g.transpose(v, (1, 2, 0, 3) if layout == "lne" else (0, 2, 1, 3))
        views.append(v)
    q, k, v = views
    weights = g.array(step.outs[1])
    scores_shape = tuple(np.broadcast_shapes(g.shape(q)[:-2], g.shape(k)[:-2])) + (g.shape(q)[-2], g.shape(k)[-2])
    s = _matmul(g, q, k, False, True, _Like(scores_shape, dtype))
    s = g.binary("Mul", s, g.const(np.asarray(a["scale"], dtype)), dtype)
    for mask, (mode, view) in zip(ins[n:], a["masks"]):
        if view is not None:
            mask = g.reshape(mask, view)
        shape = np.broadcast_shapes(g.shape(s), g.shape(mask))
        if mode == "add":
            s = g.binary("Add", s, g.cast(mask, dtype), dtype)
        else:
            hit = mask if g.dtype(mask) == np.bool_ else g.node(
                "NotEqual", [mask, g.const(np.zeros((), g.dtype(mask)))], g.shape(mask), np.bool_)
            s = g.node("Select", [g.broadcast(hit, shape), g.const(np.full(shape, -np.inf, dtype)),
                                  g.broadcast(s, shape)], shape, dtype)
    p = g.node("Softmax", [s, g.ints([-1])], g.shape(s), dtype)
    out = _matmul(g, p, v, False, False, _Like(g.shape(p)[:-1] + g.shape(v)[-1:], dtype))
    if layout != "plain":
        out = g.transpose(out, (2, 0, 1, 3) if layout == "lne" else (0, 2, 1, 3))
    return [g.reshape(out, y.shape), g.reshape(p, weights.shape)]


@_translator("gather")
def _gather(g, step, ins, y):
    axis = int(step.attrs["axis"]) % len(g.shape(ins[0]))
    return [g.node("Gather", [ins[0], ins[1], g.scalar(axis), g.scalar(0)], y.shape, y.dtype)]


@_translator("getitem")
def _getitem(g, step, ins, y):
    """Ints and slices as one ``StridedSlice``, one integer array as a ``Gather``, then a ``Reshape``.

    A slice with a negative step reads a ``ReverseV2`` of its axis forwards
    (MindSpore 2.10's CPU StridedSlice mis-orders some negative-step slices).

    An index that NumPy would treat as one advanced index (an int beside an
    array, or two arrays) or a boolean mask has no form here.
    """
    index = step.attrs["index"]
    arrays = [g.array(s) for s in step.ins]
    x = arrays[0]
    kinds = [it[0] for it in index if type(it) is tuple]
    if "m" in kinds or kinds.count("a") > 1 or ("a" in kinds and "i" in kinds):
        return None
    begin, end, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    flipped = []
    gather = None
    axis = 0
    for it in index:
        if it is None:
            continue
        if it is Ellipsis:
            axis = x.ndim - sum(1 for later in index[index.index(it) + 1:] if type(later) is tuple)
            continue
        kind = it[0]
        if kind == "s":
            step_ = 1 if it[3] is None else it[3]
            lo, hi, st = slice(it[1], it[2], step_).indices(x.shape[axis])
            if st < 0:                                    # element i of the axis is n - 1 - i of its reverse
                flipped.append(axis)
                lo, hi, st = x.shape[axis] - 1 - lo, x.shape[axis] - 1 - hi, -st
            begin[axis], end[axis], strides[axis] = lo, max(hi, lo), st
        elif kind == "i":
            i = int(arrays[1 + it[1]]) % x.shape[axis]
            begin[axis], end[axis] = i, i + 1
        else:
            gather = (axis, np.asarray(arrays[1 + it[1]], np.int64) % x.shape[axis])
        axis += 1
    value = ins[0]
    if flipped:
        value = g.node("ReverseV2", [value, g.ints(flipped)], x.shape, x.dtype)
    if (begin, end, strides) != ([0] * x.ndim, list(x.shape), [1] * x.ndim):
        value = g.slice(value, begin, end, strides)
    if gather is not None:
        ax, idx = gather
        shape = list(g.shape(value))
        shape[ax:ax + 1] = idx.shape
        value = g.node("Gather", [value, g.const(idx.astype(np.int32)), g.scalar(ax), g.scalar(0)], shape,
                       y.dtype)
    return [g.reshape(value, y.shape)]


@_translator("stop_gradient")
def _identity(g, step, ins, y):
    return [ins[0]]


def translate(g, step, ins):
    """The value names of one recorded kernel call's outputs (None where an output has no form),
    or None when the op has none."""
    outs = [g.array(s) for s in step.outs]
    fn = _TRANSLATORS.get(step.op.name)
    if fn is not None:
        if step.op.name in _BINARY and len(ins) != 2:
            return None
        return fn(g, step, ins, outs[0])
    form = step.op.attrs.get("FMindIR")
    if form is not None:
        return form(g, step, ins, outs)
    return None
