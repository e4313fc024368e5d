"""ABI marshalling for aot kernels: parameter descriptions, scalar arguments, attributes, workspace.

The kernel ABI (``mscustom/include/mscustom_aot.h``)::

    int Func(int nparam, void **params, int *ndims, int64_t **shapes,
             const char **dtypes, void *stream, void *extra);

``params`` holds the inputs (Python scalars that are not bound to attributes
become 0-d float64/int64/bool arrays), the outputs, then (C++ ``extra`` only)
one buffer per workspace entry; ``ndims``/``shapes``/``dtypes`` describe the
inputs and outputs. ``extra`` is the C ``MsAttrs`` struct or the C++
``AotExtra`` object (``extra.py``), see ``library.py`` for which.
"""

import numpy as np

from .. import _common
from .... import dtype as _dt

__all__ = ["CDEF_TYPES", "KERNEL_PROTO", "INIT_PROTO", "Descs", "attrs_struct", "bind_values",
           "code", "describe", "abi_name", "workspace_bytes", "check_text"]

CDEF_TYPES = """
typedef struct MsAttr {
    const char *name; int kind; int64_t i; double f; const char *s;
    const int64_t *ints; const double *floats; int64_t len;
} MsAttr;
typedef struct MsAttrs { int64_t count; const MsAttr *attrs; } MsAttrs;
"""
KERNEL_PROTO = "int {}(int, void **, int *, int64_t **, const char **, void *, void *);"
INIT_PROTO = "int {}(int *, int64_t **, const char **, void *);"
_ATTR_KIND = {"int": 0, "float": 1, "bool": 2, "str": 3, "listInt": 4, "listFloat": 5}
_CODE_NAMES = {1: "MS_ERR_DTYPE", 2: "MS_ERR_SHAPE", 3: "MS_ERR_ARGS", 4: "MS_ERR_VALUE",
               5: "MS_ERR_ALLOC", 6: "MS_ERR_CUDA"}
_BOUND = object()
WORKSPACE_ALIGN = 512          # MindSpore's memory pool rounds every block up to this; kernels rely on it


def abi_name(np_dtype):
    return _dt.from_numpy(np_dtype).name


def code(rc, c_header=True):
    """An error code for messages: the kernel's own number, with mscustom_aot.h's name where it has one."""
    name = _CODE_NAMES.get(rc) if c_header else None
    return f"{rc} ({name} in mscustom_aot.h's codes)" if name else str(rc)


def describe(descs):
    return ", ".join(f"{abi_name(d)}{list(s)}" for s, d in descs)


def check_text(value, op_name, what):
    """A string as the C side gets it: UTF-8 bytes without NUL (C strings end at the first NUL)."""
    text = str(value)
    if "\0" in text:
        raise ValueError(f"op '{op_name}': {what} contains a NUL character at position {text.index(chr(0))}; "
                         f"aot kernels receive C strings, which would end there. Remove the NUL")
    return text.encode()


class Descs:
    """The ndims/shapes/dtypes arrays of one signature (inputs, then outputs), built once per bind.

    ``slots``: the param index of each tensor input; ``scalars``: param index ->
    0-d array of the call's unbound scalar arguments; ``out_slots``: the
    outputs' param indices.
    """

    def __init__(self, ffi, sig, template, op_name):
        items, scalars, slots = [], {}, []
        k_in = 0
        for pos, item in enumerate(template):
            if item is None:
                slots.append(len(items))
                items.append((sig.in_shapes[k_in], sig.in_dtypes[k_in]))
                k_in += 1
            else:
                arr = _scalar_array(item, op_name, pos)
                scalars[len(items)] = arr
                items.append((arr.shape, arr.dtype))
        self.out_slots = list(range(len(items), len(items) + len(sig.out_shapes)))
        items += list(zip(sig.out_shapes, sig.out_dtypes))
        self.items, self.slots, self.scalars = items, slots, scalars
        self.n = len(items)
        self.ndims = ffi.new("int[]", [len(s) for s, _ in items] or [0])
        shape_bufs = [ffi.new("int64_t[]", [int(v) for v in s] or [0]) for s, _ in items]
        self.shapes = ffi.new("int64_t *[]", shape_bufs or [ffi.NULL])
        name_bufs = [ffi.new("char[]", abi_name(d).encode()) for _, d in items]
        self.dtypes = ffi.new("char *[]", name_bufs or [ffi.NULL])
        self.keep = [shape_bufs, name_bufs]


def bind_values(sig_attrs, specs, template, bind_positional):
    """``(values in spec order, template)``: the attribute values of a call.

    With ``bind_positional`` (C++ ``extra`` kernels, as MindSpore does), the
    call's scalar arguments are bound in order to the attributes that have no
    value yet, and leave the template; the rest stay 0-d params.
    """
    values = _common.attr_values(sig_attrs, specs) if specs else []
    if not bind_positional or template is None or not specs:
        return values, template
    rest = list(template)
    scalars = [k for k, v in enumerate(rest) if v is not None]
    for j, v in enumerate(values):
        if v is None and scalars:
            k = scalars.pop(0)
            values[j] = rest[k]
            rest[k] = _BOUND
    return values, tuple(v for v in rest if v is not _BOUND)


def _scalar_array(value, op_name, pos):
    """A Python scalar argument as the 0-d array the kernel receives."""
    if isinstance(value, (bool, np.bool_)):
        return np.array(value, np.bool_)
    if isinstance(value, (int, np.integer)):
        return np.array(value, np.int64)
    if isinstance(value, (float, np.floating)):
        return np.array(value, np.float64)
    raise TypeError(f"op '{op_name}': argument {pos} of an aot kernel must be a Tensor or a "
                    f"bool/int/float scalar, got {type(value).__name__}")


def workspace_bytes(size):
    """A workspace request rounded up to ``WORKSPACE_ALIGN`` bytes (never 0)."""
    size = max(int(size), 1)
    return -(-size // WORKSPACE_ALIGN) * WORKSPACE_ALIGN


def attrs_struct(ffi, specs, values, keep, op_name):
    """The C ``MsAttrs`` struct for ``extra`` (NULL when the op has no attributes); kept alive via ``keep``."""
    present = [(s, v) for s, v in zip(specs, values) if v is not None]
    if not specs:
        return ffi.NULL
    items = ffi.new("MsAttr[]", max(len(present), 1))
    for k, (spec, value) in enumerate(present):
        item = items[k]
        name = ffi.new("char[]", check_text(spec.name, op_name, "an attribute name"))
        keep.append(name)
        item.name = name
        kind = _ATTR_KIND.get(getattr(spec, "value_type", None))
        if kind is None and (getattr(spec, "value_type", None) in ("listListInt", "listListFloat") or
                             (isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in value))):
            raise TypeError(f"op '{op_name}': attribute '{spec.name}' is a 2-D list, which the C attribute "
                            f"struct (MsAttrs, mscustom_aot.h) cannot carry; read it from a C++ kernel built "
                            f"against custom_aot_extra.h: extra->Attr<std::vector<std::vector<int64_t>>>(name)")
        if kind is None:
            kind = _kind_of(value)
        item.kind = kind
        try:
            if kind in (0, 2):
                item.i = int(value)
            elif kind == 1:
                item.f = float(value)
            elif kind == 3:
                text = ffi.new("char[]", check_text(value, op_name, f"string attribute '{spec.name}'"))
                keep.append(text)
                item.s = text
            else:
                seq = list(value) if isinstance(value, (list, tuple)) else [value]
                buf = ffi.new("int64_t[]" if kind == 4 else "double[]",
                              [int(v) if kind == 4 else float(v) for v in seq] or [0])
                keep.append(buf)
                if seq:
                    if kind == 4:
                        item.ints = buf
                    else:
                        item.floats = buf
                item.len = len(seq)
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, ValueError) and "NUL" in str(exc):
                raise
            raise TypeError(f"op '{op_name}': attribute '{spec.name}' is declared "
                            f"{getattr(spec, 'value_type', None)!r} but its value {value!r} does not "
                            f"convert: {exc}") from None
    struct = ffi.new("MsAttrs *")
    struct.count = len(present)
    struct.attrs = items
    keep += [items, struct]
    return struct


def _kind_of(value):
    if isinstance(value, (bool, np.bool_)):
        return 2
    if isinstance(value, (int, np.integer)):
        return 0
    if isinstance(value, (float, np.floating)):
        return 1
    if isinstance(value, str):
        return 3
    if isinstance(value, (list, tuple)):
        return 4 if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value) else 5
    return 3
