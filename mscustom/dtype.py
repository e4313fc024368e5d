"""Data types: mscustom dtype objects, their NumPy dtypes and their ABI names.

Every dtype has one object (``ms.float32`` ...), one NumPy dtype and one ABI
name (the string that AOT kernels receive, e.g. ``"float32"``). Conversions in
all directions go through the tables below, so the three views never disagree.
"""

import numpy as np

__all__ = [
    "DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool_", "to_numpy", "from_numpy",
    "abi_name", "dtype_from_any", "is_floating", "is_integral",
]


class DType:
    """A tensor element type; compares equal to itself and to its NumPy dtype."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)

    def __repr__(self):
        return "mscustom." + ("bool_" if self.name == "bool" else self.name)

    def __str__(self):
        """MindSpore's name: ``Float32``, ``Int64``, ``UInt8``, ``Bool``."""
        if self.name == "bool":
            return "Bool"
        if self.name.startswith("uint"):
            return "UInt" + self.name[4:]
        if self.name == "bfloat16":
            return "BFloat16"
        return self.name[0].upper() + self.name[1:]

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        try:
            return self.np_dtype == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (dtype_from_any, (self.name,))


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool_ = DType("bool", np.bool_)

_ALL = (float16, float32, float64, int8, int16, int32, int64,
        uint8, uint16, uint32, uint64, bool_)
_BY_NUMPY = {d.np_dtype: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"bool_": bool_, "float": float32, "half": float16, "double": float64,
                 "int": int32, "long": int64})


def _supported():
    return ", ".join(d.name for d in _ALL)


def from_numpy(np_dtype):
    """The mscustom dtype of a NumPy dtype; TypeError for one mscustom has not."""
    try:
        np_dtype = np.dtype(np_dtype)
        return bfloat16 if _is_bfloat16(np_dtype) else _BY_NUMPY[np_dtype]
    except (KeyError, TypeError, ValueError):       # NumPy raises ValueError for some non-dtypes (a dict)
        raise TypeError(f"unsupported dtype {np_dtype!r}: mscustom supports {_supported()}") from None


def dtype_from_any(value):
    """Turn an mscustom dtype, a NumPy dtype/type, or a name into an mscustom dtype."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is None:
            raise TypeError(f"unknown dtype name {value!r}: expected one of {_supported()}")
        return found
    return from_numpy(value)


def to_numpy(value):
    """The NumPy dtype of anything ``dtype_from_any`` accepts."""
    return dtype_from_any(value).np_dtype


def abi_name(value):
    """The ABI name ("float32", "int64", "bool", ...) of a dtype."""
    return dtype_from_any(value).name


def is_floating(value):
    if value is bfloat16:           # without loading its NumPy dtype
        return True
    np_dtype = to_numpy(value)
    return np.issubdtype(np_dtype, np.floating) or _is_bfloat16(np_dtype)


def is_integral(value):
    """True for integer and bool dtypes: they carry no gradient."""
    kind = to_numpy(value).kind
    return kind in "iub"


# ------------------------------------------------------------------ bfloat16 (through ml_dtypes)
# MindSpore's ``mstype.bfloat16``; the NumPy dtype comes from ``ml_dtypes``, the well-kept package for it
# (the one JAX uses). It is not in ``_ALL`` (kept as the list every error message names); NumPy's
# element-wise ufuncs and casts work on it, ops whose rules ask for a float kind refuse it by name.
# ``ml_dtypes`` is imported when the NumPy dtype is first needed (it costs ~10 ms of ``import mscustom``,
# and most programs never use bfloat16); a NumPy bfloat16 array means it is imported already.
class _BFloat16(DType):
    """``ms.bfloat16``: a DType whose NumPy dtype is loaded from ``ml_dtypes`` on first use."""

    __slots__ = ()

    def __init__(self):
        self.name = "bfloat16"

    @property
    def np_dtype(self):
        np_dtype = _BFLOAT16_NUMPY.get("dtype")
        if np_dtype is None:
            try:
                import ml_dtypes
            except ImportError:         # a virtual environment made before the dependency was added
                raise ImportError("mscustom needs the 'ml_dtypes' package for ms.bfloat16: pip install ml_dtypes "
                                  "(or reinstall mscustom: pip install -e .)") from None
            np_dtype = _BFLOAT16_NUMPY["dtype"] = np.dtype(ml_dtypes.bfloat16)
            _BY_NUMPY[np_dtype] = self
        return np_dtype


_BFLOAT16_NUMPY = {}
bfloat16 = _BFloat16()
_BY_NAME["bfloat16"] = bfloat16
__all__.append("bfloat16")


def _is_bfloat16(np_dtype):
    """True for ml_dtypes' bfloat16 (without importing ml_dtypes: an array of it means it is loaded)."""
    return np_dtype.kind == "V" and np_dtype.name == "bfloat16"


# ------------------------------------------------------------------ MindSpore's conversion functions
_PYTYPES = {bool: bool_, int: int64, float: float64}


def dtype_to_nptype(type_):
    """``ms.dtype_to_nptype``: the NumPy scalar type of an mscustom dtype (``ms.float16`` -> ``np.float16``)."""
    if not isinstance(type_, DType):
        raise TypeError(f"dtype_to_nptype: expected an mscustom dtype such as ms.float32, got {type_!r}")
    return type_.np_dtype.type


def pytype_to_dtype(obj):
    """``ms.pytype_to_dtype``: the dtype of a Python type (int -> int64, float -> float64, bool -> bool_),
    of a NumPy type or dtype, or an mscustom dtype itself."""
    if isinstance(obj, DType):
        return obj
    if obj in _PYTYPES:
        return _PYTYPES[obj]
    try:
        return from_numpy(obj)
    except TypeError:
        raise TypeError(f"pytype_to_dtype: expected int, float, bool, a NumPy type or an mscustom dtype, "
                        f"got {obj!r}") from None


def dtype_to_pytype(type_):
    """``ms.dtype_to_pytype``: the Python type of a dtype's values (floats -> float, integers -> int,
    bool_ -> bool)."""
    if not isinstance(type_, DType):
        raise TypeError(f"dtype_to_pytype: expected an mscustom dtype such as ms.float32, got {type_!r}")
    kind = type_.np_dtype.kind
    return bool if kind == "b" else int if kind in "iu" else float


__all__ += ["dtype_to_nptype", "pytype_to_dtype", "dtype_to_pytype"]


# ------------------------------------------------------------------ complex64 / complex128
# MindSpore's ``mstype.complex64`` / ``complex128`` (``ops.fft`` & co. return them). Like bfloat16 they are
# not in ``_ALL``; ops whose rules ask for a float or integer kind refuse them by name.
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
for _c in (complex64, complex128):
    _BY_NUMPY[_c.np_dtype] = _c
    _BY_NAME[_c.name] = _c
del _c
__all__ += ["complex64", "complex128"]
