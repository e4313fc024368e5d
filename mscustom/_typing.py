"""MindSpore's type objects beyond the tensor dtypes: ``ms.Type``, ``ms.Int``, ``ms.TensorType``,
the generic kinds (``ms.int_``, ``ms.float_``, ``ms.uint``, ``ms.number``), the Python-value types
(``ms.list_``, ``ms.tuple_``, ``ms.type_none``, ``ms.string``, ``ms.tensor_type``), NumPy-style
aliases of the dtypes (``ms.half``, ``ms.double``, ``ms.long``, ``ms.byte`` ...) and
``ms.get_py_obj_dtype``.

The dtypes (``ms.float32`` ...) are ``ms.Type`` instances, and ``isinstance(ms.int32, ms.Int)``
holds as in MindSpore. The generic kinds and the Python-value types describe values; no Tensor
holds them (``Tensor(x, dtype=ms.float_)`` is refused, as MindSpore refuses it).

Example::

    ms.get_py_obj_dtype(1.0)                   # ms.float64
    ms.get_py_obj_dtype(ms.Tensor([1, 2]))     # mscustom.tensor[int64]
    isinstance(ms.int8, ms.Int)                # True (ms.byte is ms.int8)
"""

from abc import ABCMeta

import numpy as np

from . import dtype as _dt

__all__ = ["Type", "Int", "TensorType", "int_", "float_", "uint", "number", "list_", "tuple_", "type_none",
           "string", "tensor_type", "half", "single", "double", "short", "intc", "long", "intp", "byte",
           "ubyte", "ushort", "uintc", "uintp", "cfloat", "cdouble", "get_py_obj_dtype"]


class _KindMeta(ABCMeta):
    """``isinstance(dtype, Int)``: a dtype belongs to the kinds its NumPy kind letter names."""

    def __instancecheck__(cls, obj):
        if isinstance(obj, _dt.DType) and cls._kinds is not None:
            return obj.np_dtype.kind in cls._kinds or (obj is _dt.bfloat16 and "f" in cls._kinds)
        return super().__instancecheck__(obj)


class Type(metaclass=_KindMeta):
    """The base of every type object (the dtypes included)."""

    _kinds = "biufc"            # every dtype is a Type
    _name = "type"              # repr ``mscustom.<_name>``, str ``_name`` capitalised

    def __repr__(self):
        return "mscustom." + self._name

    def __str__(self):
        return self._label

    _label = "Type"

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self).__name__)


class _Number(Type):
    _kinds = "biufc"
    _name, _label = "number", "Number"


class _Bits(_Number):
    """A number kind: ``Kind()`` is the generic kind, ``Kind(bits)`` the dtype of that width."""

    _prefix = ""

    def __new__(cls, bits=None):
        if bits is None:
            return super().__new__(cls)
        if isinstance(bits, bool) or not isinstance(bits, int):
            raise TypeError(f"{cls.__name__}: bits must be an int, got {type(bits).__name__}")
        found = _dt._BY_NAME.get(f"{cls._prefix}{bits}")
        if found is None:
            raise ValueError(f"{cls.__name__}: no {cls._prefix} dtype has {bits} bits")
        return found

    def __init__(self, bits=None):
        pass


class Int(_Bits):
    """Signed integers: ``isinstance(ms.int32, ms.Int)``; ``ms.Int(32)`` is ``ms.int32``, ``ms.Int()`` is
    ``ms.int_``."""

    _kinds = "i"
    _prefix = "int"
    _name, _label = "int", "Int"


class _UInt(_Bits):
    _kinds = "u"
    _prefix = "uint"
    _name, _label = "uint", "UInt"


class _Float(_Bits):
    _kinds = "f"
    _prefix = "float"
    _name, _label = "float", "Float"


class _Plain(Type):
    _kinds = None


class _List(_Plain):
    _name, _label = "list_", "List"


class _Tuple(_Plain):
    _name, _label = "tuple_", "Tuple"


class _TypeNone(_Plain):
    _name, _label = "type_none", "None"


class _String(_Plain):
    _name, _label = "string_", "String"


class TensorType(_Plain):
    """The type of a Tensor: ``TensorType(ms.float32)`` (``mscustom.tensor[float32]``); ``ms.tensor_type``
    is the type of a Tensor of any dtype."""

    _name, _label = "tensor", "Tensor"

    def __init__(self, element=None):
        if element is not None and not isinstance(element, _dt.DType):
            raise TypeError(f"TensorType: the element type must be a dtype such as ms.float32, got {element!r}")
        self._element = element

    def element_type(self):
        """The dtype of the elements (None for ``ms.tensor_type``)."""
        return self._element

    def __repr__(self):
        return "mscustom.tensor" + ("" if self._element is None else f"[{self._element.name}]")

    def __str__(self):
        return "Tensor" + ("" if self._element is None else f"[{self._element}]")

    def __eq__(self, other):
        return isinstance(other, TensorType) and other._element is self._element

    def __hash__(self):
        return hash(("tensor", self._element))


int_, uint, float_, number = Int(), _UInt(), _Float(), _Number()
list_, tuple_, type_none, string, tensor_type = _List(), _Tuple(), _TypeNone(), _String(), TensorType()

# NumPy's C names for the dtypes, as MindSpore exports them (``byte`` is int8: C's signed char)
half, single, double = _dt.float16, _dt.float32, _dt.float64
byte, short, intc, long, intp = _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.int64
ubyte, ushort, uintc, uintp = _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64
cfloat, cdouble = _dt.complex64, _dt.complex128


def get_py_obj_dtype(obj):
    """The type of a Python value: int -> int64, float -> float64, bool -> bool_, str -> ``string``,
    None -> ``type_none``, list -> ``list_``, tuple -> ``tuple_``, a Tensor -> ``TensorType(its dtype)``,
    a NumPy scalar -> its dtype, a dtype -> itself."""
    from .tensor import Tensor
    if isinstance(obj, Tensor):
        return TensorType(obj.dtype)
    if isinstance(obj, (_dt.DType, Type)):
        return obj
    if isinstance(obj, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(obj, int):
        return _dt.int64
    if isinstance(obj, float) and not isinstance(obj, np.floating):
        return _dt.float64
    if isinstance(obj, np.generic):
        return _dt.from_numpy(obj.dtype)
    if isinstance(obj, str):
        return string
    if obj is None:
        return type_none
    if isinstance(obj, list):
        return list_
    if isinstance(obj, tuple):
        return tuple_
    raise NotImplementedError(f"The python type {type(obj)} cannot be converted to MindSpore type.")
