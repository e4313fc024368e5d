"""The graph builder of MINDIR export: values, constants, operator nodes and the finished ``ModelProto``.

A MindIR graph (see ``_mindir_proto.py``) is a list of nodes in execution
order. Each node names its inputs (graph inputs, parameters, outputs of
earlier nodes), its operator (``op_type = "REF::<primitive>"``, a primitive
declared once in ``ModelProto.primitives``) and carries one ``shape``
attribute: the abstract value (dims and element type) of its output, as
MindSpore's own exporter writes it. Settings reach an operator in one of two
ways, as in MindSpore 2.x:

- a *function* primitive (``PRIMITIVE_FUNCTION``) takes them as extra inputs,
  ``Constant`` nodes holding a scalar, a tuple of ints or a tensor
  (``MatMul(x, w, transpose_a, transpose_b)``);
- a *primitive* (``PRIMITIVE``) holds them as attributes of its declaration
  (``Conv2D``'s ``stride``, ``MaxPool``'s ``kernel_size``): one declaration
  per distinct set of settings.

Every value the builder makes is tracked with its shape and NumPy dtype
(``info[name]``), so the translators of ``mindir_export.py`` (and ops'
``FMindIR`` forms) can build small patterns (reshape, slice, cast) without
recomputing shapes.
"""

import numpy as np

from . import _mindir_proto as pb

__all__ = ["Builder", "MS_TYPE_ID"]

# MindSpore's TypeId numbers (the dtype argument of Cast), by NumPy dtype name
MS_TYPE_ID = {"bool": 30, "int8": 32, "int16": 33, "int32": 34, "int64": 35, "uint8": 37, "uint16": 38,
              "uint32": 39, "uint64": 40, "float16": 42, "float32": 43, "float64": 44, "bfloat16": 45}


def _tensor_type(dtype, what):
    code = pb.TENSOR_TYPE.get(np.dtype(dtype).name)
    if code is None:
        raise ValueError(f"ms.export: {what} has dtype {np.dtype(dtype).name}, which MindIR does not hold here; "
                         f"supported: {sorted(pb.TENSOR_TYPE)}")
    return code


def _value_attr(attr, value):
    """Fill ``attr`` with a Python value: bool, int, float, str, None, or a tuple/list of those."""
    if isinstance(value, (bool, np.bool_)):
        attr.type, attr.i = pb.ATTR["BOOL"], int(value)
    elif isinstance(value, (int, np.integer)):
        attr.type, attr.i = pb.ATTR["INT64"], int(value)
    elif isinstance(value, (float, np.floating)):
        attr.type, attr.f = pb.ATTR["FLOAT"], float(value)
    elif isinstance(value, str):
        attr.type, attr.s = pb.ATTR["STRING"], value.encode()
    elif value is None:
        attr.type = pb.ATTR["NONE"]
    elif isinstance(value, (tuple, list)):
        attr.type = pb.ATTR["TUPLE"] if isinstance(value, tuple) else pb.ATTR["LIST"]
        for v in value:
            _element_attr(attr.values.add(), v)
    else:
        raise TypeError(f"ms.export: no MindIR form for the setting {value!r} ({type(value).__name__})")


def _element_attr(attr, value):
    """One element of a tuple value: MindSpore writes a sequence's scalars in the repeated fields."""
    if isinstance(value, (bool, np.bool_)):
        attr.type = pb.ATTR["BOOL"]
        attr.ints.append(int(value))
    elif isinstance(value, (int, np.integer)):
        attr.type = pb.ATTR["INT64"]
        attr.ints.append(int(value))
    elif isinstance(value, (float, np.floating)):
        attr.type = pb.ATTR["FLOAT"]
        attr.floats.append(float(value))
    elif isinstance(value, str):
        attr.type = pb.ATTR["STRING"]
        attr.strings.append(value.encode())
    else:
        _value_attr(attr, value)


class Builder:
    """One MindIR graph under construction: ``node`` adds operators, ``const``/``scalar``/``ints`` constants.

    ``info[name]`` is ``(shape tuple, NumPy dtype)`` of every tensor value.
    """

    def __init__(self, graph_name):
        self.model = pb.ModelProto(ir_version="1.1", producer_name="mscustom", producer_version="0.1.0",
                                   model_version="2.10.0", little_endian=True,
                                   mind_ir_version=pb.MIND_IR_VERSION)
        self.graph = self.model.graph
        self.graph.name = graph_name
        self.info = {}
        self._prims = {}            # (op_type, attrs key) -> primitive name
        self._consts = {}           # constant key -> node name
        self._count = 0
        self._param_names = set()
        self.computed = set()       # the names operator nodes produce

    # ----------------------------------------------------------------- names
    def fresh(self, base):
        self._count += 1
        return f"{base}_{self._count}"

    # ----------------------------------------------------------------- graph inputs and weights
    def graph_input(self, name, shape, dtype):
        vi = self.graph.input.add(name=name)
        t = vi.tensor.add(data_type=_tensor_type(dtype, f"input {name!r}"))
        t.dims.extend(int(d) for d in shape)
        self.info[name] = (tuple(shape), np.dtype(dtype))
        return name

    def parameter(self, key, array):
        """A weight stored in the file under ``key`` (``ref_key``: the name ``GraphCell`` knows it by)."""
        array = np.ascontiguousarray(array)
        ref, k = key, 1
        while ref in self._param_names:
            k += 1
            ref = f"{key}_{k}"
        self._param_names.add(ref)
        name = f"{self.graph.name}:{ref}"
        p = self.graph.parameter.add(name=name, data_type=_tensor_type(array.dtype, f"parameter {key!r}"),
                                     raw_data=array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes(),
                                     ref_key=ref, compression_type=0)
        p.dims.extend(array.shape)
        self.info[name] = (array.shape, array.dtype)
        return name

    # ----------------------------------------------------------------- constants
    def _constant(self, key, fill, base="const"):
        found = self._consts.get(key)
        if found is not None:
            return found
        name = self.fresh(base)
        n = self.graph.node.add(name=name, op_type="Constant")
        n.output.append(name)
        fill(n.attribute.add(name="value"))
        self._consts[key] = name
        return name

    def const(self, array, dtype=None):
        """A tensor constant (a ``Constant`` node holding the array's bytes)."""
        array = np.ascontiguousarray(np.asarray(array, dtype))
        code = _tensor_type(array.dtype, "a constant")
        raw = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()

        def fill(attr):
            attr.type = pb.ATTR["TENSORS"]
            t = attr.tensors.add(data_type=code, name="value0", raw_data=raw)
            t.dims.extend(array.shape)

        name = self._constant(("tensor", array.dtype.str, array.shape, raw), fill, "tensor")
        self.info[name] = (array.shape, array.dtype)
        return name

    def scalar(self, value):
        """A scalar setting (bool, int or float) as a ``Constant`` node."""
        return self._constant(("scalar", type(value).__name__, value), lambda a: _value_attr(a, value), "scalar")

    def ints(self, values):
        """A tuple of ints (a shape, axes, strides) as a ``Constant`` node."""
        values = tuple(int(v) for v in values)
        return self._constant(("ints", values), lambda a: _value_attr(a, values), "tuple")

    # ----------------------------------------------------------------- operators
    def _primitive(self, op_type, attrs):
        key = (op_type, None if attrs is None else repr(sorted(attrs.items())))
        found = self._prims.get(key)
        if found is not None:
            return found
        name = f"{op_type}:{len(self._prims) + 1}"
        prim = self.model.primitives.add(name=name, op_type=op_type, instance_name="",
                                         prim_type=pb.PRIM_FUNCTION if attrs is None else pb.PRIM_PRIMITIVE)
        for k, v in (attrs or {}).items():
            _value_attr(prim.attribute.add(name=k), v)
        self._prims[key] = name
        return name

    def node(self, op_type, inputs, shape, dtype, attrs=None, out=None):
        """Add ``op_type(*inputs)`` with one tensor output of ``shape``/``dtype``; returns its name.

        ``attrs`` None: a function primitive (settings are among ``inputs``);
        a dict: a primitive declared with those attributes.
        """
        prim = self._primitive(op_type, attrs)
        name = out or self.fresh(op_type)
        n = self.graph.node.add(name=name, op_type=f"REF::{prim}")
        n.input.extend(inputs)
        n.output.append(name)
        a = n.attribute.add(name="shape", type=pb.ATTR["TENSORS"])
        t = a.tensors.add(data_type=_tensor_type(dtype, f"the output of {op_type}"))
        t.dims.extend(int(d) for d in shape)
        self.info[name] = (tuple(int(d) for d in shape), np.dtype(dtype))
        self.computed.add(name)
        return name

    def node_multi(self, op_type, inputs, outs, attrs=None):
        """Add an operator with several outputs ``outs = [(shape, dtype), ...]``; returns one name per output
        (each a ``TupleGetItem`` of the operator's tuple value)."""
        prim = self._primitive(op_type, attrs)
        name = self.fresh(op_type)
        n = self.graph.node.add(name=name, op_type=f"REF::{prim}")
        n.input.extend(inputs)
        n.output.append(name)
        a = n.attribute.add(name="shape", type=pb.ATTR["TUPLE"])
        for shape, dtype in outs:
            item = a.values.add(type=pb.ATTR["TENSORS"])
            t = item.tensors.add(data_type=_tensor_type(dtype, f"an output of {op_type}"))
            t.dims.extend(int(d) for d in shape)
        a.seq_info.is_dyn_len = False
        get = self._primitive("TupleGetItem", {})
        names = []
        for k, (shape, dtype) in enumerate(outs):
            index = self.scalar(k)                  # (a constant is a node: written before its user)
            item = self.fresh(f"{op_type}_out{k}")
            m = self.graph.node.add(name=item, op_type=f"REF::{get}")
            m.input.extend([name, index])
            m.output.append(item)
            b = m.attribute.add(name="shape", type=pb.ATTR["TENSORS"])
            t = b.tensors.add(data_type=_tensor_type(dtype, f"an output of {op_type}"))
            t.dims.extend(int(d) for d in shape)
            self.info[item] = (tuple(int(d) for d in shape), np.dtype(dtype))
            self.computed.add(item)
            names.append(item)
        return names

    def make_tuple(self, names):
        """A tuple of values (the network's several outputs): a ``MakeTuple`` node."""
        prim = self._primitive("MakeTuple", {})
        name = self.fresh("MakeTuple")
        n = self.graph.node.add(name=name, op_type=f"REF::{prim}")
        n.input.extend(names)
        n.output.append(name)
        a = n.attribute.add(name="shape", type=pb.ATTR["TUPLE"])
        for item in names:
            self._abstract(a.values.add(), item)
        a.seq_info.is_dyn_len = False
        self.info[name] = ("tuple", names)
        self.computed.add(name)
        return name

    def _abstract(self, attr, name):
        shape, dtype = self.info[name]
        if shape == "tuple":
            attr.type = pb.ATTR["TUPLE"]
            for item in dtype:
                self._abstract(attr.values.add(), item)
            attr.seq_info.is_dyn_len = False
            return
        attr.type = pb.ATTR["TENSORS"]
        t = attr.tensors.add(data_type=_tensor_type(dtype, "an output"))
        t.dims.extend(shape)

    def graph_output(self, name):
        vi = self.graph.output.add(name=name)
        shape, dtype = self.info[name]
        if shape != "tuple":
            t = vi.tensor.add(data_type=_tensor_type(dtype, "an output"))
            t.dims.extend(shape)

    # ----------------------------------------------------------------- small patterns
    def shape(self, name):
        return self.info[name][0]

    def dtype(self, name):
        return self.info[name][1]

    def reshape(self, x, shape):
        shape = tuple(int(s) for s in shape)
        if self.shape(x) == shape:
            return x
        return self.node("Reshape", [x, self.ints(shape)], shape, self.dtype(x))

    def cast(self, x, dtype):
        dtype = np.dtype(dtype)
        if self.dtype(x) == dtype:
            return x
        if dtype.name not in MS_TYPE_ID:
            raise ValueError(f"ms.export: no MindIR Cast to {dtype.name}")
        return self.node("Cast", [x, self.scalar(MS_TYPE_ID[dtype.name])], self.shape(x), dtype)

    def broadcast(self, x, shape):
        shape = tuple(int(s) for s in shape)
        if self.shape(x) == shape:
            return x
        return self.node("BroadcastTo", [x, self.ints(shape)], shape, self.dtype(x))

    def transpose(self, x, perm):
        perm = tuple(int(p) for p in perm)
        if perm == tuple(range(len(perm))):
            return x
        shape = tuple(self.shape(x)[p] for p in perm)
        return self.node("Transpose", [x, self.ints(perm)], shape, self.dtype(x))

    def unary(self, op_type, x):
        return self.node(op_type, [x], self.shape(x), self.dtype(x))

    def binary(self, op_type, x, y, dtype=None):
        shape = np.broadcast_shapes(self.shape(x), self.shape(y))
        return self.node(op_type, [x, y], shape, dtype or self.dtype(x))

    def slice(self, x, begin, end, strides=None):
        """``x[begin:end:strides]`` on every axis (a ``StridedSlice``; bounds in range, steps positive)."""
        shape = self.shape(x)
        strides = strides or [1] * len(shape)
        out = [len(range(b, e, s)) for b, e, s in zip(begin, end, strides)]
        zero = self.scalar(0)                 # begin, end, ellipsis, new-axis and shrink masks: none
        return self.node("StridedSlice", [x, self.ints(begin), self.ints(end), self.ints(strides)] + [zero] * 5, out,
                         self.dtype(x))

    def concat(self, names, axis):
        shapes = [self.shape(n) for n in names]
        shape = list(shapes[0])
        axis %= len(shape)
        shape[axis] = sum(s[axis] for s in shapes)
        return self.node("Concat", [self.make_tuple(list(names)), self.scalar(int(axis))], shape,
                         self.dtype(names[0]))

    def pad(self, x, pads, value):
        """``x`` with ``pads[k] = (before, after)`` rows of ``value`` on each axis (constant blocks, Concat)."""
        for axis, (lo, hi) in enumerate(pads):
            if not lo and not hi:
                continue
            parts = []
            shape = list(self.shape(x))
            for count in (lo, hi):
                block = None
                if count:
                    shape[axis] = count
                    block = self.const(np.full(shape, value, self.dtype(x)))
                parts.append(block)
            x = self.concat([p for p in (parts[0], x, parts[1]) if p is not None], axis)
        return x

    # ----------------------------------------------------------------- the file
    def serialize(self):
        return self.model.SerializeToString()
