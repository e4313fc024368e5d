"""Registration info for ``ops.Custom``: the ``CustomRegOp`` builder, ``DataType`` and parsing.

A reg info says which inputs, outputs and attributes a custom kernel has,
which (dtype, format) combinations it supports and which device it targets.
``CustomRegOp(...).get_op_info()`` builds one in MindSpore's dict shape;
``parse_reg_info`` checks and normalizes a dict, a JSON string, a builder or a
list of them into ``RegInfo`` records, the one form the kernel kinds see.

Example::

    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("scale", "required", "float", value=2.0)
            .dtype_format(DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())
    parse_reg_info(info, op_name="scale")[0].rows
    # [(('float32', 'DefaultFormat'), ('float32', 'DefaultFormat'))]
"""

import math
from dataclasses import dataclass, field

from ... import dtype as _dt

__all__ = ["CustomRegOp", "DataType", "custom_info_register", "parse_reg_info", "RegInfo", "AttrSpec",
           "TARGETS", "VALUE_TYPES", "LIST_TYPES", "LIST2D_TYPES", "FORMATS", "as_python_list"]

TARGETS = ("CPU", "GPU", "Ascend")
VALUE_TYPES = ("int", "float", "bool", "str", "listInt", "listFloat", "listBool", "listStr", "listListInt",
               "listListFloat", "all")
LIST_TYPES = ("listInt", "listFloat", "listBool", "listStr")
LIST2D_TYPES = ("listListInt", "listListFloat")
INT64_RANGE = (-(1 << 63), (1 << 63) - 1)
FORMATS = ("DefaultFormat", "NCHW", "NHWC", "ND")
PARAM_TYPES = ("required", "optional", "dynamic")
_NO_TARGET = (None, "", "UnKnown", "Unknown")


@dataclass(frozen=True)
class AttrSpec:
    """One attribute of a custom op: its name, "required"/"optional", its value type and default.

    ``fixed``: the reg info gave it ``value=`` (MindSpore's way of setting an
    attribute for this op), so it is not bound to positional call arguments.
    """

    name: str
    param_type: str
    value_type: str
    default_value: object = None
    fixed: bool = False


@dataclass(frozen=True)
class RegInfo:
    """A checked, normalized reg info (what every kernel kind receives).

    ``rows``: one tuple per supported combination, each holding a
    ``(dtype_abi_name_or_None, format)`` pair per input then per output.
    ``fixed_inputs``: False when an input is "optional" or "dynamic", so the
    number of tensors a call passes may differ from ``len(inputs)``.
    """

    target: str
    inputs: list
    outputs: list
    attrs: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    fixed_inputs: bool = True


def _json():
    """The json module, imported when a JSON text is first parsed (not by ``import mscustom``)."""
    import json
    return json


# ---------------------------------------------------------------- DataType
class DataType:
    """(dtype, format) pairs for ``CustomRegOp.dtype_format`` rows, as in MindSpore.

    Example::

        CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F16_NCHW, DataType.F16_NCHW)
    """

    None_None = ("", "")
    None_Default = ("", "DefaultFormat")
    # X_None members (empty format: unspecified) are added below, as MindSpore has them


_PREFIXES = {"F16": "float16", "F32": "float32", "F64": "float64", "I8": "int8", "I16": "int16",
             "I32": "int32", "I64": "int64", "U8": "uint8", "U16": "uint16", "U32": "uint32",
             "U64": "uint64", "BOOL": "bool"}
for _prefix, _abi in _PREFIXES.items():
    for _fmt in ("Default", "NCHW", "NHWC"):
        setattr(DataType, f"{_prefix}_{_fmt}", (_abi, "DefaultFormat" if _fmt == "Default" else _fmt))
    setattr(DataType, f"{_prefix}_None", (_abi, ""))
del _prefix, _abi, _fmt


# ---------------------------------------------------------------- CustomRegOp
class CustomRegOp:
    """Builder of a custom op's reg info; every method returns the builder.

    ``get_op_info()`` returns a dict in MindSpore's shape: ``op_name``,
    ``inputs``/``outputs`` (``{"index", "name", "paramType"}``), ``attr``
    (``{"name", "paramType", "type", "defaultValue"}`` plus extra keywords such
    as ``value``), ``dtype_format`` (list of rows) and ``target``.

    Example::

        info = (CustomRegOp().input(0, "a").input(1, "b").output(0, "y")
                .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
                .target("CPU").get_op_info())
    """

    def __init__(self, op_name="Custom"):
        self.op_name = op_name
        self.inputs = []
        self.outputs = []
        self.attr_ = []
        self.fusion_type_ = ""
        self.dtype_format_ = []
        self.target_ = "UnKnown"

    def _io(self, kind, index, name, param_type, kwargs):
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"CustomRegOp '{self.op_name}': {kind} index must be an int, got {index!r}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"CustomRegOp '{self.op_name}': {kind} name must be a string, got {name!r}")
        if not isinstance(param_type, str):
            raise TypeError(f"CustomRegOp '{self.op_name}': {kind} param_type must be a string, "
                            f"got {param_type!r}")
        entry = {"index": index, "name": name, "paramType": param_type}
        entry.update(kwargs)
        return entry

    def input(self, index=None, name=None, param_type="required", **kwargs):
        """Declare input ``index`` called ``name`` ("required", "optional" or "dynamic")."""
        self.inputs.append(self._io("input", index, name, param_type, kwargs))
        return self

    def output(self, index=None, name=None, param_type="required", **kwargs):
        """Declare output ``index`` called ``name``."""
        self.outputs.append(self._io("output", index, name, param_type, kwargs))
        return self

    def attr(self, name=None, param_type=None, value_type=None, default_value=None, **kwargs):
        """Declare an attribute; ``value=`` (MindSpore) fixes its value for this op.

        ``value_type``: "int", "float", "bool", "str", "listInt", "listFloat",
        "listBool", "listStr", the 2-D "listListInt" and "listListFloat" (values
        are converted to that type; a list's default may be written "1,2,3", as
        MindSpore documents) or any other string such as "all" (values are
        passed exactly as given). Attributes
        without ``value=`` are bound, in declaration order, to the positional
        call arguments that follow the tensor inputs (``op(x, y, 0.7)``).
        """
        if not isinstance(name, str):
            raise TypeError(f"CustomRegOp '{self.op_name}': attr name must be a string, got {name!r}")
        entry = {"name": name, "paramType": param_type, "type": value_type, "defaultValue": default_value}
        entry.update(kwargs)
        self.attr_.append(entry)
        return self

    def dtype_format(self, *args):
        """Add one supported row: a (dtype, format) pair per input, then per output."""
        n = len(self.inputs) + len(self.outputs)
        if len(args) != n:
            raise ValueError(f"CustomRegOp '{self.op_name}': dtype_format takes one (dtype, format) pair "
                             f"per input and output ({n}), got {len(args)}")
        for arg in args:
            if not (isinstance(arg, tuple) and len(arg) == 2):
                raise ValueError(f"CustomRegOp '{self.op_name}': each dtype_format entry must be a "
                                 f"(dtype, format) tuple such as DataType.F32_Default, got {arg!r}")
        self.dtype_format_.append(tuple(args))
        return self

    def fusion_type(self, fusion_type):
        """MindSpore's fusion hint for graph kernels (such as "OPAQUE"): kept in the info, not used here."""
        if not isinstance(fusion_type, str):
            raise TypeError(f"{fusion_type} value must be str")
        self.fusion_type_ = fusion_type
        return self

    def target(self, target=None):
        """The device this kernel is for: "CPU", "GPU" or "Ascend"."""
        if not isinstance(target, str):
            raise TypeError(f"CustomRegOp '{self.op_name}': target must be a string, got {target!r}")
        self.target_ = target
        return self

    def get_op_info(self):
        """The reg info as a dict in MindSpore's shape (keys without the trailing underscore)."""
        info = {}
        for key, value in self.__dict__.items():
            key = key[:-1] if key.endswith("_") else key
            info[key] = [dict(v) if isinstance(v, dict) else v for v in value] \
                if isinstance(value, list) else value
        return info


def custom_info_register(*reg_info):
    """Attach one or more reg infos (e.g. one per target) to a kernel function.

    ``ops.Custom(func, ...)`` uses them unless it is given ``reg_info=``. The
    infos are checked here, so a malformed one fails where it is written.

    Example::

        @custom_info_register(cpu_info, gpu_info)
        def square_kernel(x, out): ...
    """
    def decorator(func):
        name = getattr(func, "__name__", type(func).__name__)
        parse_reg_info(list(reg_info), op_name=name)
        func.reg_info = list(reg_info)
        return func
    return decorator


# ---------------------------------------------------------------- parsing
def parse_reg_info(value, op_name="Custom"):
    """Check and normalize reg info into a list of ``RegInfo``.

    ``value``: a dict (``get_op_info()`` shape), a JSON string of one, a
    ``CustomRegOp``, a ``RegInfo``, or a list/tuple of those; ``None`` gives
    ``[]``. Raises ValueError naming ``op_name`` for malformed info.
    """
    if value is None:
        return []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    return [_parse_one(item, op_name, k if len(items) > 1 else None) for k, item in enumerate(items)]


def _parse_one(item, op_name, k):
    where = f"op '{op_name}': reg_info" + (f"[{k}]" if k is not None else "")
    if isinstance(item, RegInfo):
        return item
    if isinstance(item, CustomRegOp):
        item = item.get_op_info()
    elif isinstance(item, str):
        json = _json()
        try:
            item = json.loads(item)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where} is a string but not valid JSON: {exc}") from None
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be a dict, a JSON string or a CustomRegOp, got {type(item).__name__}")

    target = item.get("target")
    if target in _NO_TARGET:
        target = None
    elif not isinstance(target, str) or target.lower() not in {t.lower() for t in TARGETS}:
        raise ValueError(f"{where}: unknown target {target!r}; expected one of {list(TARGETS)}")
    else:
        target = {t.lower(): t for t in TARGETS}[target.lower()]

    inputs = _io_names(item.get("inputs", []), "inputs", where)
    outputs = _io_names(item.get("outputs", []), "outputs", where)
    attr_list = item.get("attr", item.get("attrs", [])) or []
    if not isinstance(attr_list, (list, tuple)):
        raise ValueError(f"{where}: 'attr' must be a list of attribute dicts, got {type(attr_list).__name__}")
    attrs = [_attr_spec(a, where) for a in attr_list]
    names = [a.name for a in attrs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"{where}: attribute(s) {sorted(dup)} declared more than once")
    n = len(inputs) + len(outputs)
    row_list = item.get("dtype_format", []) or []
    if not isinstance(row_list, (list, tuple)):
        raise ValueError(f"{where}: 'dtype_format' must be a list of rows, got {type(row_list).__name__}")
    rows = [_row(r, n, len(inputs), where, j) for j, r in enumerate(row_list)]
    return RegInfo(target=target, inputs=[name for name, _ in inputs], outputs=[name for name, _ in outputs],
                   attrs=attrs, rows=rows, fixed_inputs=all(p == "required" for _, p in inputs))


def _io_names(entries, what, where):
    """``[(name, param_type), ...]`` in declaration order.

    As in MindSpore, dtype_format columns follow the order in which inputs and
    outputs were declared; the ``index`` is checked to be an int but does not
    reorder them, and the same index declared twice is accepted.
    """
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"{where}: '{what}' must be a list, got {type(entries).__name__}")
    out = []
    for pos, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ValueError(f"{where}: {what}[{pos}] must be a dict with 'index' and 'name', got {e!r}")
        index = e.get("index", pos)
        index = pos if index is None else index
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ValueError(f"{where}: {what}[{pos}] index must be a non-negative int, got {index!r}")
        ptype = e.get("paramType", e.get("param_type", "required"))
        if ptype not in PARAM_TYPES:
            raise ValueError(f"{where}: {what}[{pos}] param_type must be one of {list(PARAM_TYPES)}, "
                             f"got {ptype!r}")
        name = e.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"{where}: {what}[{pos}] name must be a string, got {name!r}")
        out.append((name if name is not None else f"{what[:-1]}{index}", ptype))
    return out


def _attr_spec(entry, where):
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: each attr must be a dict, got {entry!r}")
    name = entry.get("name")
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise ValueError(f"{where}: attr name must be an identifier, got {name!r}")
    ptype = entry.get("paramType", entry.get("param_type")) or "required"
    if ptype not in ("required", "optional"):
        raise ValueError(f"{where}: attr '{name}' param_type must be 'required' or 'optional', got {ptype!r}")
    vtype = entry.get("type", entry.get("value_type"))
    if vtype is None:
        vtype = "all"
    if not isinstance(vtype, str) or not vtype:
        raise ValueError(f"{where}: attr '{name}' value_type must be a string such as 'float', 'listInt' or "
                         f"'all', got {vtype!r}")
    fixed = "value" in entry and entry["value"] is not None
    default = entry["value"] if fixed else entry.get("defaultValue", entry.get("default_value"))
    if default is not None:
        try:
            default = coerce_attr(default, vtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{where}: attr '{name}' value {default!r} is not a valid {vtype}: {exc}") from None
    return AttrSpec(name, ptype, vtype, default, fixed)


def _row(row, n, n_in, where, j):
    if not isinstance(row, (list, tuple)):
        raise ValueError(f"{where}: dtype_format row {j} must be a list of (dtype, format) pairs, got {row!r}")
    if len(row) != n:
        raise ValueError(f"{where}: dtype_format row {j} has {len(row)} entries, but the op has "
                         f"{n_in} input(s) + {n - n_in} output(s) = {n}; each row needs one (dtype, format) pair per "
                         f"input and output")
    out = []
    for pair in row:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"{where}: dtype_format row {j}: each entry must be a (dtype, format) pair, "
                             f"got {pair!r}")
        dtype, fmt = pair
        if dtype in ("", None):
            dtype = None
        else:
            try:
                dtype = _dt.abi_name(dtype)
            except TypeError:
                raise ValueError(f"{where}: dtype_format row {j}: unknown dtype {dtype!r}; expected an ABI "
                                 f"name such as 'float32' (see DataType)") from None
        if fmt in ("", None):
            fmt = "DefaultFormat"
        if fmt not in FORMATS:
            raise ValueError(f"{where}: dtype_format row {j}: unknown format {fmt!r}; expected one of "
                             f"{list(FORMATS)}")
        out.append((dtype, fmt))
    return tuple(out)


def coerce_attr(value, value_type):
    """``value`` as the Python type of ``value_type`` (lists as tuples); TypeError/ValueError if it is not one.

    Strings are accepted for numbers and bools (MindSpore's JSON infos carry them),
    e.g. ``coerce_attr("2", "int") == 2``. Ints must fit int64 and floats given
    for ints must be finite whole numbers. A ``value_type`` that names no known
    type (such as "all") means any value: it is returned exactly as given.
    """
    if value_type == "str":
        if not isinstance(value, str):
            raise TypeError(f"expected a str, got {type(value).__name__}")
        if "\0" in value:
            raise ValueError("a str attribute cannot contain a NUL character")
        return value
    if value_type in LIST_TYPES:
        if isinstance(value, str):
            value = _list_text(value, value_type)
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, got {type(value).__name__}")
        one = value_type[4:].lower()
        return tuple(coerce_attr(v, one) for v in value)
    if value_type in LIST2D_TYPES:
        if isinstance(value, str):
            value = _json().loads(value)
        if not isinstance(value, (list, tuple)) or not all(isinstance(r, (list, tuple)) for r in value):
            raise TypeError(f"expected a list of lists, got {_kind_of(value)}")
        row_type = value_type[4:6].lower() + value_type[6:]        # listListInt -> listInt
        return tuple(coerce_attr(r, row_type) for r in value)
    if value_type == "bool":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if type(value) is bool or type(value).__name__ == "bool_":
            return bool(value)
        raise TypeError(f"expected a bool, got {type(value).__name__}")
    if value_type not in ("int", "float"):
        return value                        # "all" (or a type this library does not convert): as given
    if isinstance(value, str):
        value = _json().loads(value)
    if isinstance(value, bool) or type(value).__name__ == "bool_" or \
            not hasattr(value, "__index__") and not hasattr(value, "__float__"):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if value_type == "int":
        if not hasattr(value, "__index__"):
            f = float(value)
            if not math.isfinite(f) or f != int(f):
                raise ValueError(f"{value!r} is not an integer")
            value = int(f)
        value = int(value)
        if not INT64_RANGE[0] <= value <= INT64_RANGE[1]:
            raise ValueError(f"{value} does not fit a 64-bit int")
        return value
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{value!r} does not fit a float") from None


def _list_text(text, value_type):
    """A list attribute written as text: JSON (``"[1, 2]"``) or MindSpore's comma-separated ``"1,2,3"``."""
    text = text.strip()
    if text.startswith("["):
        return _json().loads(text)
    if value_type == "listStr":
        return [t.strip() for t in text.split(",")] if text else []
    return [_json().loads(t) for t in text.split(",")] if text else []


def _kind_of(value):
    if isinstance(value, (list, tuple)):
        inner = sorted({type(v).__name__ for v in value})
        return f"a {type(value).__name__} of {', '.join(inner) or 'nothing'}"
    return type(value).__name__


def as_python_list(value):
    """A list attribute as Python lists (of lists), the way a pyfunc receives it (stored as tuples)."""
    if isinstance(value, tuple):
        return [as_python_list(v) for v in value]
    return value
