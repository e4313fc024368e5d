"""The protobuf messages of a MindIR file (MindSpore's ``.mindir`` model format), built in code.

The field numbers below follow MindSpore's MindIR format (its ``mind_ir``
proto2 schema); only the fields mscustom writes or checks are declared, and
the messages are built here with ``google.protobuf``'s descriptor API, so no
protoc step and no MindSpore file is needed. A parser that knows the full
schema reads these messages as they are: undeclared fields are just absent.

Enumerations are declared as plain ``int32`` fields (the same varint on the
wire); their values are the constants of this module.

Messages (field number: name):

- ``ModelProto``: 1 ir_version, 2 producer_name, 3 producer_version,
  5 model_version, 6 doc_string, 7 graph, 10 little_endian, 12 primitives,
  13 mind_ir_version;
- ``GraphProto``: 1 node, 2 name, 3 parameter (initialized weights, as
  ``TensorProto``), 5 input, 6 output (``ValueInfoProto``);
- ``NodeProto``: 1 input, 2 output, 3 name, 4 op_type (``"Constant"`` or
  ``"REF::<primitive name>"``), 5 attribute, 7 domain;
- ``AttributeProto``: 1 name, 2 f, 3 i, 4 d, 5 s, 8 floats, 10 ints,
  11 strings, 12 tensors, 16 type, 17 values, 18 seq_info;
- ``SeqInfoProto``: 1 is_dyn_len (nested in AttributeProto in MindSpore's
  schema; declared at top level here, the bytes are the same);
- ``TensorProto``: 1 dims, 2 data_type, 7 name, 9 raw_data, 13 ref_key,
  16 compression_type;
- ``ValueInfoProto``: 1 name, 2 tensor;
- ``PrimitiveProto``: 1 name, 2 op_type, 3 attribute, 4 instance_name,
  5 prim_type.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["ModelProto", "GraphProto", "NodeProto", "AttributeProto", "TensorProto", "ValueInfoProto",
           "PrimitiveProto", "ATTR", "TENSOR_TYPE", "PRIM_PRIMITIVE", "PRIM_FUNCTION", "MIND_IR_VERSION"]

# AttributeProto.type values
ATTR = {"FLOAT": 1, "INT32": 6, "INT64": 7, "STRING": 8, "BOOL": 9, "DOUBLE": 11, "TENSORS": 19, "TUPLE": 20,
        "LIST": 21, "NONE": 25}
# TensorProto.data_type values, by NumPy dtype name
TENSOR_TYPE = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "bool": 9,
               "float16": 10, "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16}
# PrimitiveProto.prim_type: an operator whose settings are attributes (PRIMITIVE), or one that takes them as inputs
PRIM_PRIMITIVE, PRIM_FUNCTION = 1, 2
MIND_IR_VERSION = 3       # the format revision of MindSpore 2.x files (primitives as functions, scalar graphs)

_F = descriptor_pb2.FieldDescriptorProto
_OPT, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED

# message name -> [(field number, field name, type, label, message type or None)]
_FIELDS = {
    "ModelProto": [(1, "ir_version", _F.TYPE_STRING, _OPT, None),
                   (2, "producer_name", _F.TYPE_STRING, _OPT, None),
                   (3, "producer_version", _F.TYPE_STRING, _OPT, None),
                   (5, "model_version", _F.TYPE_STRING, _OPT, None),
                   (6, "doc_string", _F.TYPE_STRING, _OPT, None),
                   (7, "graph", _F.TYPE_MESSAGE, _OPT, "GraphProto"),
                   (10, "little_endian", _F.TYPE_BOOL, _OPT, None),
                   (12, "primitives", _F.TYPE_MESSAGE, _REP, "PrimitiveProto"),
                   (13, "mind_ir_version", _F.TYPE_INT64, _OPT, None)],
    "GraphProto": [(1, "node", _F.TYPE_MESSAGE, _REP, "NodeProto"),
                   (2, "name", _F.TYPE_STRING, _OPT, None),
                   (3, "parameter", _F.TYPE_MESSAGE, _REP, "TensorProto"),
                   (5, "input", _F.TYPE_MESSAGE, _REP, "ValueInfoProto"),
                   (6, "output", _F.TYPE_MESSAGE, _REP, "ValueInfoProto")],
    "NodeProto": [(1, "input", _F.TYPE_STRING, _REP, None),
                  (2, "output", _F.TYPE_STRING, _REP, None),
                  (3, "name", _F.TYPE_STRING, _OPT, None),
                  (4, "op_type", _F.TYPE_STRING, _OPT, None),
                  (5, "attribute", _F.TYPE_MESSAGE, _REP, "AttributeProto"),
                  (7, "domain", _F.TYPE_STRING, _OPT, None)],
    "AttributeProto": [(1, "name", _F.TYPE_STRING, _OPT, None),
                       (2, "f", _F.TYPE_FLOAT, _OPT, None),
                       (3, "i", _F.TYPE_INT64, _OPT, None),
                       (4, "d", _F.TYPE_DOUBLE, _OPT, None),
                       (5, "s", _F.TYPE_BYTES, _OPT, None),
                       (8, "floats", _F.TYPE_FLOAT, _REP, None),
                       (10, "ints", _F.TYPE_INT64, _REP, None),
                       (11, "strings", _F.TYPE_BYTES, _REP, None),
                       (12, "tensors", _F.TYPE_MESSAGE, _REP, "TensorProto"),
                       (16, "type", _F.TYPE_INT32, _OPT, None),
                       (17, "values", _F.TYPE_MESSAGE, _REP, "AttributeProto"),
                       (18, "seq_info", _F.TYPE_MESSAGE, _OPT, "SeqInfoProto")],
    "SeqInfoProto": [(1, "is_dyn_len", _F.TYPE_BOOL, _OPT, None)],
    "TensorProto": [(1, "dims", _F.TYPE_INT64, _REP, None),
                    (2, "data_type", _F.TYPE_INT32, _OPT, None),
                    (7, "name", _F.TYPE_STRING, _OPT, None),
                    (9, "raw_data", _F.TYPE_BYTES, _OPT, None),
                    (13, "ref_key", _F.TYPE_STRING, _OPT, None),
                    (16, "compression_type", _F.TYPE_INT32, _OPT, None)],
    "ValueInfoProto": [(1, "name", _F.TYPE_STRING, _OPT, None),
                       (2, "tensor", _F.TYPE_MESSAGE, _REP, "TensorProto")],
    "PrimitiveProto": [(1, "name", _F.TYPE_STRING, _OPT, None),
                       (2, "op_type", _F.TYPE_STRING, _OPT, None),
                       (3, "attribute", _F.TYPE_MESSAGE, _REP, "AttributeProto"),
                       (4, "instance_name", _F.TYPE_STRING, _OPT, None),
                       (5, "prim_type", _F.TYPE_INT32, _OPT, None)],
}
_PACKAGE = "mscustom_mindir"


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(name="mscustom_mindir.proto", package=_PACKAGE, syntax="proto2")
    for message, fields in _FIELDS.items():
        msg = fdp.message_type.add(name=message)
        for number, name, ftype, label, type_name in fields:
            f = msg.field.add(name=name, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = f".{_PACKAGE}.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{m}")) for m in _FIELDS}


_CLASSES = _build()
ModelProto = _CLASSES["ModelProto"]
GraphProto = _CLASSES["GraphProto"]
NodeProto = _CLASSES["NodeProto"]
AttributeProto = _CLASSES["AttributeProto"]
TensorProto = _CLASSES["TensorProto"]
ValueInfoProto = _CLASSES["ValueInfoProto"]
PrimitiveProto = _CLASSES["PrimitiveProto"]
