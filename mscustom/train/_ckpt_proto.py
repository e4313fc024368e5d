"""MindSpore's ``checkpoint.proto`` (proto2), built in code so no protoc step is needed.

    message Checkpoint {
      message Value { required string tag = 1; oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; } }
      repeated Value value = 1;
      optional string model_type = 2;
    }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2; required bytes tensor_content = 3; }

``maptensor`` (MindSpore's sparse embedding tables) is left out: a Value
that holds one parses with no ``tensor`` and is reported as unsupported.
``tensor_type`` is MindSpore's dtype name (``str(mindspore.float32)`` is
``"Float32"``); a scalar is written with ``dims == [0]``, as MindSpore does.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["Checkpoint", "MS_TYPE_NAMES"]

_F = descriptor_pb2.FieldDescriptorProto

MS_TYPE_NAMES = {
    "float16": "Float16", "float32": "Float32", "float64": "Float64",
    "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
    "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "bool": "Bool",
}


def _field(msg, name, number, ftype, label, type_name=None, oneof=None):
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof
    return f


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(name="mscustom_checkpoint.proto", package="", syntax="proto2")
    tensor = fdp.message_type.add(name="TensorProto")
    _field(tensor, "dims", 1, _F.TYPE_INT64, _F.LABEL_REPEATED)
    _field(tensor, "tensor_type", 2, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(tensor, "tensor_content", 3, _F.TYPE_BYTES, _F.LABEL_REQUIRED)
    ckpt = fdp.message_type.add(name="Checkpoint")
    value = ckpt.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    _field(value, "tag", 1, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(value, "tensor", 2, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL, ".TensorProto", oneof=0)
    _field(ckpt, "value", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".Checkpoint.Value")
    _field(ckpt, "model_type", 2, _F.TYPE_STRING, _F.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("Checkpoint"))


Checkpoint = _build()
