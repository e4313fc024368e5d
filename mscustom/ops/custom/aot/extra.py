"""The C++ ``AotExtra`` object handed to kernels built against ``custom_aot_extra.h``.

A small shim (``mscustom/include/mscustom_aot_extra_shim.cc``) implements
``AotExtra`` and exports C entry points to create, fill, query and free it,
and the trampolines that call ``<Func>InferShape`` (which returns a C++
vector). It is compiled once per ``_GLIBCXX_USE_CXX11_ABI`` setting (the
kernel library's, since ``std::string`` crosses the boundary) into the build
cache, and loaded once per process.

One ``CppExtra`` serves one signature of one op: ``<Func>Init`` and every
launch see the same object; when the op (its plan) is dropped, the object's
``DestructKernelData()`` runs and it is freed.
"""

import os
import threading
import weakref

import numpy as np

from . import abi as _abi
from . import build as _build

__all__ = ["shim", "CppExtra", "infer_shapes"]

SHIM_SOURCE = _build.INCLUDE_DIR / "mscustom_aot_extra_shim.cc"
_CDEF = """
void *ms_extra_new(void);
void ms_extra_free(void *);
void ms_extra_set_bool(void *, const char *, int);
void ms_extra_set_int(void *, const char *, int64_t);
void ms_extra_set_float(void *, const char *, double);
void ms_extra_set_str(void *, const char *, const char *, int64_t);
void ms_extra_set_ints(void *, const char *, const int64_t *, int64_t);
void ms_extra_set_floats(void *, const char *, const double *, int64_t);
void ms_extra_set_ints2d(void *, const char *, const int64_t *, const int64_t *, int64_t);
void ms_extra_set_floats2d(void *, const char *, const double *, const int64_t *, int64_t);
int64_t ms_extra_workspace_count(void *);
uint64_t ms_extra_workspace_size(void *, int64_t);
int64_t ms_extra_take_error(void *, char *, int64_t);
int ms_extra_infer_one(void *, int *, int64_t **, void *, int64_t *, int64_t, char *, int64_t);
int ms_extra_infer_many(void *, int *, int64_t **, void *, int64_t *, int64_t, int64_t *, int64_t,
                        char *, int64_t);
"""
_MAX_RANK = 64
_shims = {}
_lock = threading.Lock()


def _fresh_lock_in_child():
    global _lock
    _lock = threading.Lock()      # a fork while another thread builds the shim must not leave it held


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock_in_child)


class _Shim:
    def __init__(self, path):
        import cffi
        self.ffi = cffi.FFI()
        self.ffi.cdef(_CDEF)
        self.lib = self.ffi.dlopen(str(path))
        self.path = path


def shim(cxx11_abi, op_name):
    """The shim library for this ``_GLIBCXX_USE_CXX11_ABI`` (built into the cache on first use)."""
    with _lock:
        found = _shims.get(cxx11_abi)
        if found is None:
            path = _build.build_library(SHIM_SOURCE, cxx11_abi=cxx11_abi, op_name=op_name)
            found = _shims[cxx11_abi] = _Shim(path)
    return found


def _classify(value, declared):
    """``(kind, payload)`` of an attribute value for the AotExtra, from its declared type or its value."""
    kind = {"bool": "bool", "int": "int", "float": "float", "str": "str", "listInt": "ints",
            "listFloat": "floats", "listListInt": "ints2d", "listListFloat": "floats2d"}.get(declared)
    if kind is not None:
        return kind, value
    if isinstance(value, (bool, np.bool_)):
        return "bool", value
    if isinstance(value, (int, np.integer)):
        return "int", value
    if isinstance(value, (float, np.floating)):
        return "float", value
    if isinstance(value, str):
        return "str", value
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (list, tuple)) for v in value):
            flat = [x for row in value for x in row]
            ints = all(isinstance(x, (int, np.integer)) for x in flat)
            return ("ints2d" if ints else "floats2d"), value
        ints = all(isinstance(x, (int, np.integer)) for x in value)
        return ("ints" if ints else "floats"), value
    raise TypeError(f"cannot pass a {type(value).__name__} through AotExtra (bool, int, float, str, "
                    f"lists of int/float and lists of such lists are possible)")


class CppExtra:
    """One ``AotExtra`` object, filled with the op's attributes; freed (with its kernel data) when dropped."""

    def __init__(self, shim_, op_name, specs, values):
        self.shim, self.op_name = shim_, op_name
        lib, ffi = shim_.lib, shim_.ffi
        self.ptr = lib.ms_extra_new()
        self._free = weakref.finalize(self, lib.ms_extra_free, self.ptr)
        for spec, value in zip(specs, values):
            if value is not None:
                self._set(spec.name, value, getattr(spec, "value_type", None), lib, ffi)

    def _set(self, name, value, declared, lib, ffi):
        op = self.op_name
        key = _abi.check_text(name, op, "an attribute name")
        try:
            kind, value = _classify(value, declared)
            if kind == "bool":
                lib.ms_extra_set_bool(self.ptr, key, int(bool(value)))
            elif kind == "int":
                lib.ms_extra_set_int(self.ptr, key, int(value))
            elif kind == "float":
                lib.ms_extra_set_float(self.ptr, key, float(value))
            elif kind == "str":
                text = _abi.check_text(value, op, f"string attribute '{name}'")
                lib.ms_extra_set_str(self.ptr, key, text, len(text))
            elif kind in ("ints", "floats"):
                seq = list(value) if isinstance(value, (list, tuple)) else [value]
                conv = int if kind == "ints" else float
                buf = ffi.new("int64_t[]" if kind == "ints" else "double[]", [conv(v) for v in seq] or [0])
                (lib.ms_extra_set_ints if kind == "ints" else lib.ms_extra_set_floats)(self.ptr, key, buf, len(seq))
            else:
                rows = [list(r) for r in value]
                conv = int if kind == "ints2d" else float
                flat = ffi.new("int64_t[]" if kind == "ints2d" else "double[]",
                               [conv(x) for r in rows for x in r] or [0])
                lens = ffi.new("int64_t[]", [len(r) for r in rows] or [0])
                setter = lib.ms_extra_set_ints2d if kind == "ints2d" else lib.ms_extra_set_floats2d
                setter(self.ptr, key, flat, lens, len(rows))
        except ValueError as exc:
            if "NUL" in str(exc):
                raise
            raise TypeError(f"op '{op}': attribute '{name}' (declared {declared!r}) has value {value!r}, "
                            f"which does not convert: {exc}") from None
        except (TypeError, OverflowError) as exc:
            raise TypeError(f"op '{op}': attribute '{name}' (declared {declared!r}) has value {value!r}, "
                            f"which does not convert: {exc}") from None

    def workspace(self):
        """The workspace sizes (bytes) the kernel asked for with ``SetWorkSpace``."""
        lib = self.shim.lib
        return [int(lib.ms_extra_workspace_size(self.ptr, k)) for k in range(lib.ms_extra_workspace_count(self.ptr))]

    def take_error(self):
        """The first bad attribute read since the last check (None when there was none)."""
        buf = self.shim.ffi.new("char[]", 512)
        n = self.shim.lib.ms_extra_take_error(self.ptr, buf, 512)
        return self.shim.ffi.string(buf).decode(errors="replace") if n else None

    def check(self, where):
        err = self.take_error()
        if err is not None:
            raise TypeError(f"op '{self.op_name}': {where} read an attribute it cannot have: {err}. Declare it "
                            "in the reg info (CustomRegOp().attr(name, ..., value=...)) or pass it when calling")


def infer_shapes(opened, op_name, in_shapes, specs, values, n_out):
    """Call ``<Func>InferShape`` with the inputs' shapes; the output shape(s) as lists of ints."""
    sh = shim(opened.cxx_abi, op_name)
    ffi, lib = sh.ffi, sh.lib
    extra = CppExtra(sh, op_name, specs, values)
    ndims = ffi.new("int[]", [len(s) for s in in_shapes] or [0])
    bufs = [ffi.new("int64_t[]", [int(v) for v in s] or [0]) for s in in_shapes]
    shapes = ffi.new("int64_t *[]", bufs or [ffi.NULL])
    msg = ffi.new("char[]", 512)
    fn = ffi.cast("void *", opened.infer_addr)
    name = f"{opened.symbol}InferShape"
    if n_out == 1:
        out = ffi.new("int64_t[]", _MAX_RANK)
        rank = lib.ms_extra_infer_one(fn, ndims, shapes, extra.ptr, out, _MAX_RANK, msg, 512)
        results = [[out[k] for k in range(rank)]] if rank >= 0 else None
    else:
        out = ffi.new("int64_t[]", _MAX_RANK * n_out)
        ranks = ffi.new("int64_t[]", n_out)
        rank = lib.ms_extra_infer_many(fn, ndims, shapes, extra.ptr, out, _MAX_RANK, ranks, n_out, msg, 512)
        results = ([[out[j * _MAX_RANK + k] for k in range(ranks[j])] for j in range(rank)]
                   if rank >= 0 else None)
    if rank == -3:
        raise RuntimeError(f"op '{op_name}': '{name}' threw a C++ exception: "
                           f"{ffi.string(msg).decode(errors='replace')}")
    if results is None:
        raise ValueError(f"op '{op_name}': '{name}' returned more than {n_out} shape(s) or a shape of rank "
                         f"above {_MAX_RANK}")
    extra.check(f"'{name}'")
    if len(results) != n_out:
        raise ValueError(f"op '{op_name}': '{name}' returned {len(results)} shape(s), the op has {n_out} "
                         f"output(s)")
    inputs_known = all(d >= 0 for s in in_shapes for d in s)
    for j, s in enumerate(results):
        if inputs_known and any(d < 0 for d in s):
            raise ValueError(f"op '{op_name}': '{name}' gave output {j} the shape {s}, with unknown (-1/-2) "
                             "dimensions; it must give every dimension when the inputs' shapes are known")
    return results
