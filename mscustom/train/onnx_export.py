"""``ms.export(net, *inputs, file_name=..., file_format="ONNX")``: a network of built-in ops as an ONNX model.

The network runs once on ``inputs`` while graph mode's recorder
(``_core/capture.py``) writes down every kernel call; each recorded call is
then written as ONNX nodes with the ``onnx`` package (opset 17). Parameters
and constants become initializers, the tensor arguments the graph inputs (their
shapes fixed as given, as MindSpore's export does), and the outputs what the
network returned. The network should be in inference mode (``set_train(False)``):
a step that changes state in place (BatchNorm's moving statistics, an optimizer
update) or draws random numbers (Dropout in training) has no ONNX form.

A Custom op or any op without an ONNX form is refused by name. ``"MINDIR"``
goes to ``mindir_export.py`` (MindSpore's own model file); ``"AIR"``
(MindSpore's Ascend format) is refused with a pointer to the other two.

Example::

    net.set_train(False)
    ms.export(net, ms.Tensor(np.ones((1, 3, 32, 32), np.float32)), file_name="lenet", file_format="ONNX")
    # writes lenet.onnx
"""

import os

import numpy as np

from .. import context as _context
from .._core import capture as _capture
from ..tensor import Tensor

__all__ = ["export"]

OPSET = 17
_FORMATS = ["AIR", "ONNX", "MINDIR"]


class _Graph:
    """The ONNX nodes, initializers and names built from one capture."""

    def __init__(self, onnx, cap):
        self.onnx, self.helper, self.cap = onnx, onnx.helper, cap
        self.nodes, self.inits, self.names = [], [], {}
        self.count = 0

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, array, base="const"):
        name = self.fresh(base)
        self.inits.append(self.onnx.numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def name(self, slot):
        """The ONNX value name of a capture slot (an initializer for an outside tensor)."""
        found = self.names.get(slot)
        if found is not None:
            return found
        desc = self.cap.slots[slot]
        if desc[0] == "same":
            return self.name(desc[1])
        if desc[0] == "ext":
            tensor = desc[1]
            base = getattr(tensor, "name", None) or "const"
            found = self.const(np.asarray(tensor._data), str(base).replace(".", "_"))
        else:
            raise RuntimeError(f"ms.export: slot {slot} ({desc[0]}) was read before it was written")
        self.names[slot] = found
        return found

    def node(self, op_type, inputs, outputs=None, **attrs):
        outputs = outputs or [self.fresh(op_type.lower())]
        self.nodes.append(self.helper.make_node(op_type, list(inputs), list(outputs), **attrs))
        return outputs[0]

    def shape_const(self, shape):
        return self.const(np.asarray(shape, np.int64), "shape")


def _dtype_code(onnx, np_dtype):
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))


# ------------------------------------------------------------------ one translator per op
_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "neg": "Neg", "abs": "Abs", "erf": "Erf", "sign": "Sign", "stop_gradient": "Identity",
          "floor": "Floor", "ceil": "Ceil", "sin": "Sin", "cos": "Cos"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max",
           "minimum": "Min", "equal": "Equal", "less": "Less", "greater": "Greater", "less_equal": "LessOrEqual",
           "greater_equal": "GreaterOrEqual"}
_REDUCE = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
           "reduce_min": "ReduceMin"}


def _axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    return [a % ndim if ndim else 0 for a in axis] if axis else list(range(ndim))


def _translate(g, step, ins, outs):
    """Write the ONNX nodes of one recorded kernel call; False when the op has no ONNX form here."""
    name, a = step.op.name, step.attrs or {}
    cap = g.cap
    in_arrays = [cap.arrays[s] for s in step.ins]
    out_arrays = [cap.arrays[s] for s in step.outs]
    if name in _UNARY:
        g.node(_UNARY[name], ins, outs)
    elif name in _BINARY:
        if in_arrays[0].dtype != in_arrays[1].dtype:
            return False
        g.node(_BINARY[name], ins, outs)
    elif name == "not_equal":
        g.node("Not", [g.node("Equal", ins)], outs)
    elif name == "square":
        g.node("Mul", [ins[0], ins[0]], outs)
    elif name == "pow_scalar":
        g.node("Pow", [ins[0], g.const(np.asarray(a["exponent"], in_arrays[0].dtype))], outs)
    elif name in ("zeros_like", "ones_like"):
        value = 0 if name == "zeros_like" else 1
        g.node("Identity", [g.const(np.full(out_arrays[0].shape, value, out_arrays[0].dtype))], outs)
    elif name in ("softmax", "log_softmax"):
        g.node("Softmax" if name == "softmax" else "LogSoftmax", ins, outs, axis=int(a.get("axis", -1)))
    elif name in ("reshape", "squeeze", "expand_dims", "flatten"):
        g.node("Reshape", [ins[0], g.shape_const(out_arrays[0].shape)], outs)
    elif name == "broadcast_to":
        g.node("Expand", [ins[0], g.shape_const(out_arrays[0].shape)], outs)
    elif name == "transpose":
        perm = a.get("perm")
        perm = list(range(in_arrays[0].ndim))[::-1] if perm is None else [int(p) for p in perm]
        g.node("Transpose", ins, outs, perm=perm)
    elif name == "cast":
        g.node("Cast", ins, outs, to=_dtype_code(g.onnx, out_arrays[0].dtype))
    elif name == "concat":
        g.node("Concat", ins, outs, axis=int(a.get("axis", 0)))
    elif name == "stack":
        axis = int(a.get("axis", 0)) % out_arrays[0].ndim
        expanded = [g.node("Unsqueeze", [i, g.shape_const([axis])]) for i in ins]
        g.node("Concat", expanded, outs, axis=axis)
    elif name == "where":
        g.node("Where", ins, outs)
    elif name == "matmul":
        g.node("MatMul", ins, outs)
    elif name == "dense":
        w_t = g.node("Transpose", [ins[1]], perm=[1, 0])
        if len(ins) == 3 and in_arrays[0].ndim == 2:
            g.node("Gemm", [ins[0], w_t, ins[2]], outs)
        elif len(ins) == 3:
            g.node("Add", [g.node("MatMul", [ins[0], w_t]), ins[2]], outs)
        else:
            g.node("MatMul", [ins[0], w_t], outs)
    elif name in _REDUCE:
        axes = _axes(a.get("axis"), in_arrays[0].ndim)
        keep = int(bool(a.get("keep_dims", False)))
        if name == "reduce_sum":
            g.node("ReduceSum", [ins[0], g.shape_const(axes)], outs, keepdims=keep)
        else:
            g.node(_REDUCE[name], ins, outs, axes=axes, keepdims=keep)
    elif name in ("conv2d", "conv2d_bias"):          # conv2d_bias: (x, w, bias), ONNX Conv's optional B
        t, b, le, r = a["pad"]
        g.node("Conv", ins, outs, strides=list(a["stride"]), pads=[t, le, b, r], dilations=list(a["dilation"]),
               group=int(a["groups"]))
    elif name in ("max_pool2d", "avg_pool2d"):
        t, b, le, r = a.get("real_pad", a["pad"])
        kw = dict(kernel_shape=list(a["kernel"]), strides=list(a["stride"]), pads=[t, le, b, r],
                  ceil_mode=int("real_pad" in a))
        if name == "max_pool2d":
            # the op's second output is each window's winner, row * W + column of its (H, W) plane, int32;
            # ONNX numbers the maxima over the whole (N, C, H, W) input, in int64
            flat, plane_index = g.fresh("maxpool_indices"), g.fresh("maxpool_plane_indices")
            g.node("MaxPool", ins, [outs[0], flat], **kw)
            plane = int(in_arrays[0].shape[2] * in_arrays[0].shape[3])
            g.node("Mod", [flat, g.const(np.asarray(plane, np.int64))], [plane_index])
            g.node("Cast", [plane_index], [outs[1]], to=int(g.onnx.TensorProto.INT32))
        else:
            if a.get("divisor_override"):
                return False
            g.node("AveragePool", ins, outs, count_include_pad=int(bool(a["count_include_pad"])), **kw)
    elif name == "getitem":
        return _getitem(g, a["index"], in_arrays, out_arrays[0], ins, outs)
    elif "FOnnx" in step.op.attrs:              # an op that writes its own nodes (the recurrent sequence ops)
        return step.op.attrs["FOnnx"](g, step, ins, outs)
    else:
        return False
    return True


def _getitem(g, index, in_arrays, y, ins, outs):
    """Ints and slices as one Slice, one integer array as a Gather, then a Reshape to the result's shape.

    An index whose ints and arrays NumPy would combine into one advanced index
    (both present), or a boolean mask, has no form here.
    """
    x = in_arrays[0]
    kinds = [it[0] for it in index if type(it) is tuple]
    if "m" in kinds or kinds.count("a") > 1 or ("a" in kinds and "i" in kinds):
        return False
    starts, ends, axes, steps = [], [], [], []
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
            step = 1 if it[3] is None else it[3]
            lo, hi, st = slice(it[1], it[2], step).indices(x.shape[axis])
            if st < 0 and hi < 0:
                hi = -x.shape[axis] - 1                   # up to and including the first element
            starts.append(lo), ends.append(hi), axes.append(axis), steps.append(st)
        elif kind == "i":
            i = int(in_arrays[1 + it[1]]) % x.shape[axis]
            starts.append(i), ends.append(i + 1), axes.append(axis), steps.append(1)
        else:
            gather = (axis, np.asarray(in_arrays[1 + it[1]], np.int64) % x.shape[axis])
        axis += 1
    value = ins[0]
    if starts:
        value = g.node("Slice", [value, g.shape_const(starts), g.shape_const(ends), g.shape_const(axes),
                                 g.shape_const(steps)])
    if gather is not None:
        value = g.node("Gather", [value, g.const(gather[1], "index")], axis=gather[0])
    g.node("Reshape", [value, g.shape_const(y.shape)], outs)
    return True


# ------------------------------------------------------------------ export
def _record(net, inputs):
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    cap = _capture.Capture(tensors)
    saved = _context._settings["mode"]
    _context._settings["mode"] = _context.PYNATIVE_MODE      # record the calls themselves, not a replay
    try:
        with _capture.capturing(cap):
            out = net(*inputs)
    finally:
        _context._settings["mode"] = saved
    return cap, out


def _flat(out):
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    raise TypeError(f"ms.export: the network must return Tensors (or tuples of them), got {type(out).__name__}")


def export(net, *inputs, file_name, file_format, **kwargs):
    """Write ``net`` run on ``inputs`` as ``file_name`` + ".onnx" (``file_format="ONNX"``) or + ".mindir"
    (``file_format="MINDIR"``, see ``mindir_export.py``); returns the path written.

    Example::

        ms.export(net, x, file_name="model", file_format="ONNX")      # model.onnx
        ms.export(net, x, file_name="model", file_format="MINDIR")    # model.mindir
    """
    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {_FORMATS}, but got {file_format}.")
    if file_format == "AIR":
        raise ValueError("ms.export: file_format 'AIR' is MindSpore's Ascend format, which mscustom does not "
                         "write; use file_format=\"MINDIR\" (loads in MindSpore) or \"ONNX\" (runs in "
                         "onnxruntime and converts to most runtimes)")
    if kwargs:
        raise TypeError(f"ms.export: unsupported keyword argument(s) {sorted(kwargs)} (mscustom writes plain "
                        f"{file_format}: no encryption, no dataset preprocessing)")
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"ms.export: file_name must be a non-empty str, got {file_name!r}")
    if not inputs or not all(isinstance(t, Tensor) for t in inputs):
        raise TypeError("ms.export: give the network's example inputs as Tensors after net, e.g. "
                        f"ms.export(net, ms.Tensor(x), file_name=..., file_format=\"{file_format}\")")
    if file_format == "MINDIR":
        from .mindir_export import export_mindir
        return export_mindir(net, inputs, file_name)
    try:
        import onnx
    except ImportError:
        raise ImportError("ms.export(file_format=\"ONNX\") needs the 'onnx' package: pip install "
                          "'mscustom[export]' (or pip install onnx)") from None
    cap, out = _record(net, inputs)
    if cap.unusable is not None:
        reason, where, line = cap.unusable
        raise ValueError(f"ms.export: the network cannot be written as a graph: {reason} ({where}:{line})")
    g = _Graph(onnx, cap)
    graph_inputs = []
    for k, t in enumerate(inputs):
        slot = cap.slot_of[id(t._data)]
        if cap.slots[slot][0] != "arg":
            continue
        name = f"input_{k}"
        g.names[slot] = name
        graph_inputs.append(onnx.helper.make_tensor_value_info(name, _dtype_code(onnx, t._data.dtype),
                                                               list(t.shape)))
    for step in cap.steps:
        if step.kind == "check":
            continue                        # a validation of values: nothing to compute
        if step.kind != "kernel":
            what = {"effect": "changes a tensor in place (BatchNorm's moving statistics or an optimizer step; "
                              "call net.set_train(False) first)",
                    "host": "runs Python code on tensor values (random numbers such as Dropout in training; "
                            "call net.set_train(False) first)",
                    "guard": "turns a tensor value into a Python value that decides what runs next"}[step.kind]
            raise ValueError(f"ms.export: the network {what}; ONNX has no form for that")
        if step.op.attrs.get("FRandom"):
            raise ValueError(f"ms.export: the network draws random numbers (op '{step.op.name}', such as Dropout "
                             "in training; call net.set_train(False) first); ONNX has no form for that")
        outs = []
        for s in step.outs:
            g.names[s] = g.fresh(step.op.name)
            outs.append(g.names[s])
        ins = [g.name(s) for s in step.ins]
        if not _translate(g, step, ins, outs):
            frontend = getattr(step.op, "frontend", None)
            if frontend not in ("builtin", None):
                raise ValueError(f"ms.export: op '{step.op.name}' is a Custom op ({frontend} front end) and has no "
                                 "ONNX form; ONNX export supports networks of built-in ops")
            raise ValueError(f"ms.export: op '{step.op.name}' with attributes {step.attrs} has no ONNX form here")
    graph_outputs = []
    for k, t in enumerate(_flat(out)):
        slot = cap.slot_of.get(id(t._data))
        if slot is None:
            raise ValueError("ms.export: an output of the network is not computed from its inputs")
        name = f"output_{k}"
        g.nodes.append(onnx.helper.make_node("Identity", [g.name(slot)], [name]))
        graph_outputs.append(onnx.helper.make_tensor_value_info(name, _dtype_code(onnx, t._data.dtype),
                                                                list(t.shape)))
    graph = onnx.helper.make_graph(g.nodes, type(net).__name__, graph_inputs, graph_outputs, g.inits)
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)],
                                   producer_name="mscustom")
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = file_name if file_name.endswith(".onnx") else file_name + ".onnx"
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    onnx.save(model, path)
    return path
