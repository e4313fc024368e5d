"""More rows of the primitive table (``operations._TABLE``): MindSpore's classes for the ops of
``math/elementwise_more``, ``array/shape_more`` and the layers' ops (``Conv2D``, ``MaxPool``, ``BatchNorm``,
``LayerNorm`` ...), with MindSpore 2.10's constructor arguments and defaults.

Each row is ``name: (constructor parameters with defaults, compute(prim, *call_args))``; the
compute calls the functional ops, so every primitive differentiates and replays as they do.
"""

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor, as_tensor


class _Required:
    """The default of a constructor argument MindSpore requires (``Conv2D(out_channel, kernel_size)``)."""

    def __repr__(self):
        return "<required>"


REQUIRED = _Required()


def _ops():
    from .. import ops
    return ops


def _fn(name):
    return getattr(_ops(), name)


def _direct(fname):
    return lambda p, *args: _fn(fname)(*args)


def _axis_arg(axis):
    return None if axis == () or axis == [] else axis


def _who(p):
    return f"primitive '{p.name}'"


# ------------------------------------------------------------------ index ops
def _arg_with_value(fname):
    def compute(p, x):
        return _fn(fname)(x, p.attrs["axis"], p.attrs["keep_dims"], p.name)
    return compute


def _argext(fname):
    """Argmax / Argmin: the int32 (``output_type``) index along ``axis`` (an op, so replays recompute it)."""
    def compute(p, x):
        x = as_tensor(x)
        if x.dtype.name == "bool":
            raise TypeError(f"primitive '{p.name}': input must be a number type, got bool")
        index = _fn(fname)(x, p.attrs.get("axis", -1), False, p.name)[0]
        return _fn("cast")(index, _dt.dtype_from_any(p.attrs.get("output_type", _dt.int32)))
    return compute


def _gather(p, params, indices, axis=0):
    return _fn("gather")(params, indices, axis, p.attrs.get("batch_dims", 0))


def _strided_slice(p, x, begin, end, strides):
    """MindSpore's StridedSlice: begin/end/strides per dim, with the five bit masks."""
    x = as_tensor(x)
    begin, end, strides = (tuple(int(v) for v in (t.asnumpy() if isinstance(t, Tensor) else t))
                           for t in (begin, end, strides))
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"{_who(p)}: begin, end and strides must have the same length, got {len(begin)}, "
                         f"{len(end)} and {len(strides)}")
    if any(s == 0 for s in strides):
        raise ValueError(f"{_who(p)}: strides must not be 0, got {list(strides)}")
    a = p.attrs
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if a["ellipsis_mask"] & bit:
            index.append(Ellipsis)
        elif a["new_axis_mask"] & bit:
            index.append(None)
        elif a["shrink_axis_mask"] & bit:
            index.append(b)
        else:
            index.append(slice(None if a["begin_mask"] & bit else b, None if a["end_mask"] & bit else e, s))
    return _fn("getitem")(x, tuple(index))


def _slice(p, x, begin, size):
    x = as_tensor(x)
    begin = tuple(int(v) for v in (begin.asnumpy() if isinstance(begin, Tensor) else begin))
    size = tuple(int(v) for v in (size.asnumpy() if isinstance(size, Tensor) else size))
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"{_who(p)}: begin and size need one value per dim of the input (rank {x.ndim}), "
                         f"got {list(begin)} and {list(size)}")
    index = []
    for d, (b, s, n) in enumerate(zip(begin, size, x.shape)):
        stop = n if s == -1 else b + s
        if b < 0 or s < -1 or stop > n:
            raise ValueError(f"{_who(p)}: begin {b} and size {s} do not fit dim {d} of size {n}")
        index.append(slice(b, stop))
    return _fn("getitem")(x, tuple(index))


def _split(p, x):
    x = as_tensor(x)
    axis, n = p.attrs["axis"], p.attrs["output_num"]
    size = x.shape[axis % x.ndim]
    if n < 1 or size % n:
        raise ValueError(f"{_who(p)}: dim {axis} of size {size} must be divisible by output_num = {n}")
    return _fn("split")(x, size // n, axis)


# ------------------------------------------------------------------ layers
def _conv2d(p, x, w):
    x, w = as_tensor(x), as_tensor(w)
    a = p.attrs
    if a["data_format"] != "NCHW":
        raise ValueError(f"{_who(p)}: only data_format='NCHW' is supported here, got {a['data_format']!r}")
    k = a["kernel_size"]
    k = (k, k) if isinstance(k, int) else tuple(k)
    if w.ndim != 4 or w.shape[0] != a["out_channel"] or tuple(w.shape[2:]) != k:
        raise ValueError(f"{_who(p)}: the weight must have shape [{a['out_channel']}, C/group, {k[0]}, {k[1]}] "
                         f"(out_channel, kernel_size), got {list(w.shape)}")
    return _fn("conv2d")(x, w, None, a["stride"], a["pad_mode"].lower(), a["pad"], a["dilation"], a["group"])


def _pool(fname):
    def compute(p, x):
        a = p.attrs
        if a["data_format"] != "NCHW":
            raise ValueError(f"{_who(p)}: only data_format='NCHW' is supported here, got {a['data_format']!r}")
        mode = a["pad_mode"].lower()
        if mode not in ("valid", "same"):
            raise ValueError(f"{_who(p)}: pad_mode must be 'valid' or 'same', got {a['pad_mode']!r}")
        return _fn(fname)(x, a["kernel_size"], a["strides"], 0, pad_mode=mode)
    return compute


def _batch_norm(p, x, scale, bias, mean, variance):
    ops = _ops()
    x = as_tensor(x)
    a = p.attrs
    if a["data_format"] != "NCHW":
        raise ValueError(f"{_who(p)}: only data_format='NCHW' is supported here, got {a['data_format']!r}")
    y = ops.batch_norm(x, mean, variance, scale, bias, training=a["is_training"], momentum=a["momentum"],
                       eps=a["epsilon"])
    zeros = ops.zeros_like(as_tensor(mean))
    if not a["is_training"]:
        return y, zeros, zeros, zeros, zeros
    axes = (0,) + tuple(range(2, x.ndim))
    batch_mean = ops.reduce_mean(x, axes)
    centered = ops.sub(x, ops.reshape(batch_mean, (1, -1) + (1,) * (x.ndim - 2)))
    batch_var = ops.reduce_mean(ops.square(centered), axes)
    # MindSpore 2.10 (CPU) returns zeros as outputs 1 and 2 and the batch statistics as 3 and 4
    return y, zeros, zeros, ops.stop_gradient(batch_mean), ops.stop_gradient(batch_var)


def _layer_norm(p, x, gamma, beta):
    from .nn.norm import _check_float, _normalize
    ops = _ops()
    x = as_tensor(x)
    _check_float(x, p.name)
    a = p.attrs
    begin = a["begin_norm_axis"] % x.ndim
    y, mean, var = _normalize(x, tuple(range(begin, x.ndim)), a["epsilon"])
    pbegin = a["begin_params_axis"] % x.ndim
    want = tuple(x.shape[pbegin:])
    for what, t in (("gamma", gamma), ("beta", beta)):
        if tuple(as_tensor(t).shape) != want:
            raise ValueError(f"{_who(p)}: {what} must have shape {list(want)} (the input's dims from "
                             f"begin_params_axis), got {list(as_tensor(t).shape)}")
    return ops.add(ops.mul(y, gamma), beta), mean, var


def _bias_add(p, x, b):
    ops = _ops()
    x, b = as_tensor(x), as_tensor(b)
    fmt = p.attrs["data_format"]
    if fmt not in ("NCHW", "NHWC", "NCDHW"):
        raise ValueError(f"{_who(p)}: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got {fmt!r}")
    axis = x.ndim - 1 if fmt == "NHWC" else 1
    if x.ndim < 2 or b.ndim != 1 or b.shape[0] != x.shape[axis]:
        raise ValueError(f"{_who(p)}: bias must have shape [{x.shape[axis] if x.ndim >= 2 else 'C'}] (dim {axis} "
                         f"of the input), got {list(b.shape)} for an input of shape {list(x.shape)}")
    shape = [1] * x.ndim
    shape[axis] = b.shape[0]
    return ops.add(x, ops.reshape(b, tuple(shape)))


def _pad(p, x):
    x = as_tensor(x)
    paddings = tuple(tuple(int(v) for v in pair) for pair in p.attrs["paddings"])
    if len(paddings) != x.ndim or any(len(pair) != 2 for pair in paddings):
        raise ValueError(f"{_who(p)}: paddings must hold one (before, after) pair per dim of the input (rank "
                         f"{x.ndim}), got {list(paddings)}")
    flat = tuple(v for pair in reversed(paddings) for v in pair)
    return _fn("pad")(x, flat)


def _mirror_pad(p, x, paddings):
    from .array.shape_more import pad_mode_op
    x = as_tensor(x)
    pads = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings).astype(np.int64)
    if pads.shape != (x.ndim, 2):
        raise ValueError(f"{_who(p)}: paddings must have shape [{x.ndim}, 2], got {list(pads.shape)}")
    mode = {"REFLECT": "reflect", "SYMMETRIC": "symmetric"}.get(p.attrs["mode"])
    if mode is None:
        raise ValueError(f"{_who(p)}: mode must be 'REFLECT' or 'SYMMETRIC', got {p.attrs['mode']!r}")
    return pad_mode_op(x, tuple(int(v) for pair in pads[::-1] for v in pair), mode)


def _resize_nearest(p, x):
    from .array.shape_more import resize_nearest_neighbor
    x = as_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"{_who(p)}: the input must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    return resize_nearest_neighbor(x, tuple(p.attrs["size"]), p.attrs["align_corners"])


def _resize_bilinear(p, x, size):
    from .array.shape_more import resize_bilinear
    x = as_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"{_who(p)}: the input must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    size = tuple(int(v) for v in (size.asnumpy() if isinstance(size, Tensor) else size))
    return resize_bilinear(x, size, p.attrs["align_corners"], p.attrs["half_pixel_centers"])


def _lp_norm(p, x):
    from .array.shape_more import vector_norm
    ops = _ops()
    a = p.attrs
    axis = a["axis"]
    axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    out = vector_norm(as_tensor(x), a["p"], axis, a["keep_dims"])
    return ops.maximum(out, a["epsilon"])


def _reduce_std(p, x):
    ops = _ops()
    a = p.attrs
    axis = _axis_arg(a["axis"])
    axis = tuple(axis) if isinstance(axis, list) else axis
    std = ops.std(x, axis, 1 if a["unbiased"] else 0, a["keep_dims"])
    return std, ops.reduce_mean(x, axis, a["keep_dims"])


# name: (constructor parameters with MindSpore's defaults, compute(prim, *call_args))
TABLE = {
    **{name: ((), _direct(f)) for name, f in {
        "Floor": "floor", "Ceil": "ceil", "Round": "round", "Trunc": "trunc", "Sin": "sin", "Cos": "cos",
        "Tan": "tan", "Log1p": "log1p", "Expm1": "expm1", "Softplus": "softplus", "HSwish": "hardswish",
        "Mish": "mish", "SeLU": "selu", "Erf": "erf", "Erfc": "erfc", "IsNan": "isnan", "IsInf": "isinf",
        "LogicalNot": "logical_not", "Rsqrt": "rsqrt", "Reciprocal": "reciprocal",
        "ReLU6": "relu6", "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "LogicalXor": "logical_xor",
        "FloorDiv": "floor_div", "FloorMod": "floor_mod", "Mod": "fmod", "BitwiseAnd": "bitwise_and",
        "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor", "GatherNd": "gather_nd", "AddN": "addn",
        "Depend": "depend", "Tile": "tile"}.items()},
    "GeLU": ((), lambda p, x: _fn("gelu")(x, approximate="tanh")),     # MindSpore's GeLU kernel: tanh form
    "Elu": ((("alpha", 1.0),), lambda p, x: _fn("elu")(x, p.attrs["alpha"])),
    "IsFinite": ((), lambda p, x: _fn("logical_not")(_fn("logical_or")(_fn("isnan")(x), _fn("isinf")(x)))),
    "Flatten": ((), lambda p, x: _fn("flatten")(x)),
    "GatherD": ((), lambda p, x, dim, index: _fn("gather_elements")(x, dim, index)),
    "ReduceAll": ((("keep_dims", False),), lambda p, x, axis=(): _fn("all")(x, _axis_arg(axis), p.attrs["keep_dims"])),
    "ReduceAny": ((("keep_dims", False),), lambda p, x, axis=(): _fn("any")(x, _axis_arg(axis), p.attrs["keep_dims"])),
    "ReduceProd": ((("keep_dims", False),),
                   lambda p, x, axis=(): _fn("prod")(x, _axis_arg(axis), p.attrs["keep_dims"])),
    "CumSum": ((("exclusive", False), ("reverse", False)),
               lambda p, x, axis: _cumulative("cumsum", p, x, axis)),
    "CumProd": ((("exclusive", False), ("reverse", False)),
                lambda p, x, axis: _cumulative("cumprod", p, x, axis)),
    "TopK": ((("sorted", True),), lambda p, x, k: _fn("topk")(x, k, None, True, p.attrs["sorted"])),
    "Sort": ((("axis", -1), ("descending", False)),
             lambda p, x: _fn("sort")(x, p.attrs["axis"], p.attrs["descending"])),
    "ArgMaxWithValue": ((("axis", 0), ("keep_dims", False)), _arg_with_value("argmax_with_value")),
    "ArgMinWithValue": ((("axis", 0), ("keep_dims", False)), _arg_with_value("argmin_with_value")),
    "Argmax": ((("axis", -1), ("output_type", _dt.int32)), _argext("argmax_with_value")),
    "Argmin": ((("axis", -1), ("output_type", _dt.int32)), _argext("argmin_with_value")),
    "Gather": ((("batch_dims", 0),), _gather),
    "Split": ((("axis", 0), ("output_num", 1)), _split),
    "StridedSlice": ((("begin_mask", 0), ("end_mask", 0), ("ellipsis_mask", 0), ("new_axis_mask", 0),
                      ("shrink_axis_mask", 0)), _strided_slice),
    "Slice": ((), _slice),
    "Conv2D": ((("out_channel", REQUIRED), ("kernel_size", REQUIRED), ("mode", 1), ("pad_mode", "valid"), ("pad", 0),
                ("stride", 1), ("dilation", 1), ("group", 1), ("data_format", "NCHW")), _conv2d),
    "MaxPool": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "valid"), ("data_format", "NCHW")),
                _pool("max_pool2d")),
    "AvgPool": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "VALID"), ("data_format", "NCHW")),
                _pool("avg_pool2d")),
    "BatchNorm": ((("is_training", False), ("epsilon", 1e-5), ("momentum", 0.1), ("data_format", "NCHW")),
                  _batch_norm),
    "LayerNorm": ((("begin_norm_axis", 1), ("begin_params_axis", 1), ("epsilon", 1e-7)), _layer_norm),
    "BiasAdd": ((("data_format", "NCHW"),), _bias_add),
    "Pad": ((("paddings", REQUIRED),), _pad),
    "MirrorPad": ((("mode", "REFLECT"),), _mirror_pad),
    "ResizeNearestNeighbor": ((("size", REQUIRED), ("align_corners", False), ("half_pixel_centers", False)),
                              _resize_nearest),
    "MaskedFill": ((), lambda p, x, mask, value: _fn("masked_fill")(x, mask, value)),
    "ResizeBilinearV2": ((("align_corners", False), ("half_pixel_centers", False)), _resize_bilinear),
    "LpNorm": ((("axis", REQUIRED), ("p", 2), ("keep_dims", False), ("epsilon", 1e-12)), _lp_norm),
    "ReduceStd": ((("axis", []), ("unbiased", True), ("keep_dims", False)), _reduce_std),
}


def _cumulative(fname, p, x, axis):
    from .array.shape_more import scan
    return scan(fname, x, axis, p.attrs["exclusive"], p.attrs["reverse"])
