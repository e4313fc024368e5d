"""Kernel kind "aot": ahead-of-time compiled C/C++/CUDA kernels called through cffi.

``ops.Custom("aot_kernels/build/libkernels.so:CustomAdd", ..., func_type="aot")``
calls the symbol with the MindSpore-compatible AOT ABI (see
``aot_kernels/mscustom_aot.h``)::

    int Func(int nparam, void **params, int *ndims, int64_t **shapes,
             const char **dtypes, void *stream, void *extra);

``params`` holds the call's inputs in call order (Python scalars become 0-d
float64/int64/bool arrays), then the outputs, which the dispatcher has already
allocated. ``extra`` points to an ``MsAttrs`` struct with the op's reg-info
attributes in reg-info order (NULL when it has none). A non-zero return value
is raised as a RuntimeError naming the op, the symbol and the code.

Where the library is looked for: an absolute path is used as it is; a relative
one is tried against (1) the current working directory, (2) the project root
(the folder holding the ``mscustom`` package, where ``aot_kernels/`` lives in
a checkout), (3) the ``mscustom`` package folder. A source file (``.c``,
``.cc``, ``.cpp``, ``.cxx``, ``.cu``) instead of a library is compiled on
demand into a cache (see ``build.py``). Each library is opened once per
process with ``ffi.dlopen`` (cffi ABI mode, no compiler needed).

An optional ``<Func>Init(ndims, shapes, dtypes, extra)`` symbol is called once
per input signature with the description of every param (inputs then
outputs); a non-zero return rejects the signature.

Per signature, ``bind`` builds the ndims/shapes/dtypes arrays and the MsAttrs
struct once; a call only passes the arrays' data pointers and calls the symbol.
Two ways to call (``$MSCUSTOM_AOT_CALLER``): ``cffi`` (fill a prepared
``void *[]`` with ``ffi.from_buffer`` pointers; no compilation at all),
``numba`` (a tiny Numba-compiled caller per tuple of array types, cached on
disk; about 1 µs cheaper per call, 0.3-0.6 s to compile the first time), and
the default ``auto``: cffi for a plan's first 64 calls, then the Numba caller,
so ops called a few times never compile and hot ones get the fast path. The
caller is prepared in a background thread (importing Numba, loading it from
the disk cache or compiling it) while the plan keeps calling through cffi, so
the switch never stalls a call; ``os.fork()`` waits for such a thread first.

GPU target: the library gets device pointers and a CUDA stream. Tensors live
in host memory for now, so every call copies the inputs to the device and the
outputs back (through numba-cuda). Without a CUDA device this raises a clear
RuntimeError when the op is first called on "GPU". "Ascend" kernels run on the
host like "CPU" ones (mscustom keeps Ascend tensors in host memory).

fork(): GNU OpenMP's thread pool does not survive ``fork()`` (a child that
enters a parallel region after its parent did hangs). Kernels built with
``mscustom_aot.h`` end the pool before any fork (``pthread_atfork``), and so
does ``_forksafe`` for ``os.fork()``, so a forked child runs them again on its
own threads; small calls never enter OpenMP at all (``MS_PARALLEL_FOR``).
"""

import ctypes
import os
import re
import threading
import time
from pathlib import Path

import numpy as np

from ..._core.kernel import KernelEntry, Signature
from ... import dtype as _dt
from . import _common, _forksafe
from . import build as _build

__all__ = ["make_kernel", "resolve_path", "load_library", "CALLER_ENV"]

_CDEF_TYPES = """
typedef struct MsAttr {
    const char *name; int kind; int64_t i; double f; const char *s;
    const int64_t *ints; const double *floats; int64_t len;
} MsAttr;
typedef struct MsAttrs { int64_t count; const MsAttr *attrs; } MsAttrs;
"""
_KERNEL_PROTO = "int {}(int, void **, int *, int64_t **, const char **, void *, void *);"
_INIT_PROTO = "int {}(int *, int64_t **, const char **, void *);"
_ATTR_KIND = {"int": 0, "float": 1, "bool": 2, "str": 3, "listInt": 4, "listFloat": 5}
_CODE_NAMES = {1: "MS_ERR_DTYPE", 2: "MS_ERR_SHAPE", 3: "MS_ERR_ARGS", 4: "MS_ERR_VALUE",
               5: "MS_ERR_ALLOC", 6: "MS_ERR_CUDA"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PACKAGE_DIR = Path(__file__).resolve().parents[2]          # .../mscustom
_ROOT_DIR = _PACKAGE_DIR.parent                             # the project root in a checkout

CALLER_ENV = "MSCUSTOM_AOT_CALLER"
_NOT_CONTIGUOUS = -0x7FFF0001  # what _aot_caller returns instead of calling with a non-contiguous array
_TIER_UP_CALLS = 64           # cffi calls of one plan before it switches to the Numba caller
_state = {"ffi": None}
_libraries = {}
_lock = threading.RLock()
_perf = time.perf_counter

_forksafe.install()         # OpenMP kernels keep working in a forked child (see _forksafe)

_tier_ups = set()             # background threads compiling a Numba caller (joined before a fork)
_tier_ups_lock = threading.Lock()


def _join_tier_ups():
    """Before os.fork(): let caller compilations finish, so no child inherits Numba's locks held."""
    with _tier_ups_lock:
        pending = list(_tier_ups)
    for t in pending:
        t.join(timeout=60)


if hasattr(os, "register_at_fork"):
    # Modules that register fork hooks when imported must not first be imported by a tier-up
    # thread while the hooks run (their "after" hook would run without their "before"):
    # Numba's import chain brings logging and random.
    import logging  # noqa: F401,E402
    import random  # noqa: F401,E402
    os.register_at_fork(before=_join_tier_ups)


# ---------------------------------------------------------------- libraries and symbols
def _base_ffi():
    """The one cffi FFI holding the ABI's struct types (created on first use)."""
    ffi = _state["ffi"]
    if ffi is None:
        import cffi
        ffi = cffi.FFI()
        ffi.cdef(_CDEF_TYPES)
        _state["ffi"] = ffi
    return ffi


class _Library:
    """One opened shared library; symbols are declared on it as they are asked for."""

    def __init__(self, path):
        import cffi
        self.path = path
        self.ffi = cffi.FFI()
        self.ffi.include(_base_ffi())
        self.lib = self.ffi.dlopen(str(path))
        self.declared = {}

    def function(self, name, proto):
        """The cffi function ``name``; AttributeError with the loader's message if it is missing."""
        with _lock:
            have = self.declared.get(name)
            if have is None:
                self.ffi.cdef(proto.format(name))
                self.declared[name] = proto
            elif have != proto:
                raise AttributeError(f"symbol '{name}' is already used with another prototype")
        return getattr(self.lib, name)


def resolve_path(path):
    """Find ``path``: absolute as is; relative against the cwd, the project root, the package.

    Returns ``(found_path_or_None, [paths tried])``.
    """
    p = Path(path).expanduser()
    tried = [p] if p.is_absolute() else [Path.cwd() / p, _ROOT_DIR / p, _PACKAGE_DIR / p]
    for candidate in tried:
        if candidate.is_file():
            return candidate.resolve(), tried
    return None, tried


def load_library(path):
    """Open the shared library at ``path`` once per process (cached by its real path)."""
    key = str(Path(path).resolve())
    with _lock:
        lib = _libraries.get(key)
        if lib is None:
            lib = _Library(key)
            _libraries[key] = lib
    return lib


def _parse(func, op_name):
    if not isinstance(func, str):
        raise TypeError(f"op '{op_name}': an aot func must be a string 'path/to/lib.so:Func', "
                        f"got {type(func).__name__}")
    if ":" not in func:
        raise ValueError(f"op '{op_name}': an aot func must look like 'path/to/lib.so:Func' (a library "
                         f"or source path, a colon, the symbol), got {func!r}")
    path, symbol = func.rsplit(":", 1)
    if not path or not _IDENT.match(symbol):
        raise ValueError(f"op '{op_name}': in aot func {func!r}, expected 'path:Func' with a C "
                         f"identifier after the colon, got path {path!r} and symbol {symbol!r}")
    return path, symbol


def _open(func, op_name):
    """Resolve, build if a source, load: ``(library, resolved path, symbol, kernel fn, Init fn or None)``."""
    path, symbol = _parse(func, op_name)
    found, tried = resolve_path(path)
    if found is None:
        listing = "\n  ".join(str(t) for t in tried)
        raise ValueError(f"op '{op_name}': AOT library or source {path!r} not found; tried:\n  {listing}")
    if found.suffix.lower() in _build.SOURCE_SUFFIXES:
        try:
            found = _build.build_library(found)
        except RuntimeError as exc:
            raise RuntimeError(f"op '{op_name}': {exc}") from exc
    try:
        library = load_library(found)
    except OSError as exc:
        raise ValueError(f"op '{op_name}': cannot load AOT library '{found}': {exc}") from exc
    try:
        fn = library.function(symbol, _KERNEL_PROTO)
    except AttributeError as exc:
        raise ValueError(f"op '{op_name}': symbol '{symbol}' not found in AOT library '{found}': "
                         f"{exc}") from exc
    try:
        init = library.function(symbol + "Init", _INIT_PROTO)
    except AttributeError:
        init = None
    return library, found, symbol, fn, init


# ---------------------------------------------------------------- the kernel kind
def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options):
    """Build the KernelEntry for an AOT symbol ``"path:Func"`` on ``target``.

    The library is opened and the symbol resolved here, so a wrong path or
    name fails when the op is made, not when it is first called.

    Example::

        entry = make_kernel("aot_kernels/build/libkernels.so:CustomSquare", op_name="square",
                            target="CPU", rows=None, attr_specs=[], n_out=1, options={})
    """
    if target not in ("CPU", "GPU", "Ascend"):
        raise ValueError(f"op '{op_name}': aot kernels run on 'CPU', 'GPU' or 'Ascend', got target {target!r}")
    library, found, symbol, fn, init = _open(func, op_name)
    entry = KernelEntry(target=target, fn=None, allocates=False, rows=rows, kind="aot",
                        name=f"aot:{found.name}:{symbol}[{target}]")
    kernel = _AotKernel(entry, op_name, library, symbol, fn, init, list(attr_specs or ()), n_out, target)
    entry.bind = kernel.bind
    entry.fn = kernel.run_unbound
    return entry


class _AotKernel:
    """What ``bind`` needs: the symbol, its optional Init, the op's attribute specs."""

    def __init__(self, entry, op_name, library, symbol, fn, init, attr_specs, n_out, target):
        self.entry, self.op_name, self.library = entry, op_name, library
        self.symbol, self.fn, self.init = symbol, fn, init
        self.attr_specs, self.n_out, self.target = attr_specs, n_out, target

    def run_unbound(self, attrs, inputs, req, outputs):
        """Run without a cached plan: bind for these arrays, then call (slow path)."""
        sig = Signature([a.shape for a in inputs], [a.dtype for a in inputs], ["DefaultFormat"] * len(inputs),
                        [o.shape for o in outputs], [o.dtype for o in outputs], attrs)
        return self.bind(None, sig)(attrs, inputs, req, outputs)

    def bind(self, op, sig):
        """Prepare everything that depends only on the signature; return the fast runner."""
        ffi = self.library.ffi
        keep = []                                   # every cdata the C side points into
        template = _template(sig.attrs, len(sig.in_shapes))
        descs, scalars, slots = [], {}, []
        k_in = 0
        for pos, item in enumerate(template):
            if item is None:
                slots.append(len(descs))
                descs.append((sig.in_shapes[k_in], sig.in_dtypes[k_in]))
                k_in += 1
            else:
                arr = _scalar_array(item, self.op_name, pos)
                scalars[len(descs)] = arr
                descs.append((arr.shape, arr.dtype))
        out_slots = list(range(len(descs), len(descs) + len(sig.out_shapes)))
        descs += list(zip(sig.out_shapes, sig.out_dtypes))
        n = len(descs)

        ndims = ffi.new("int[]", [len(s) for s, _ in descs])
        shape_bufs = [ffi.new("int64_t[]", [int(v) for v in s] or [0]) for s, _ in descs]
        shapes = ffi.new("int64_t *[]", shape_bufs)
        name_bufs = [ffi.new("char[]", _abi(d).encode()) for _, d in descs]
        dtypes = ffi.new("char *[]", name_bufs)
        keep += [shape_bufs, name_bufs]
        values = _common.attr_values(sig.attrs, self.attr_specs) if self.attr_specs else []
        extra = _attrs_struct(ffi, self.attr_specs, values, keep, self.op_name)

        if self.target == "GPU":
            device = _Cuda(self.op_name, self.entry.name)
        if self.init is not None:
            rc = self.init(ndims, shapes, dtypes, extra)
            if rc != 0:
                raise RuntimeError(f"op '{self.op_name}': AOT init function '{self.symbol}Init' rejected "
                                   f"the signature ({_describe(descs)}) with error code {_code(rc)}")
        if self.target == "GPU":
            return device.runner(self, n, slots, out_slots, scalars, ndims, shapes, dtypes, extra, keep)
        return _cpu_runner(self, n, slots, out_slots, scalars, ndims, shapes, dtypes, extra, keep, descs)

    def fail(self, rc):
        raise RuntimeError(f"op '{self.op_name}': AOT kernel '{self.symbol}' "
                           f"({self.library.path}) returned error code {_code(rc)}")


def _cpu_runner(kernel, n, slots, out_slots, scalars, ndims, shapes, dtypes, extra, keep, descs):
    """The per-call function on host memory: pass the data pointers, call, check the code.

    Two callers: cffi (a prepared ``void *[]`` filled with ``ffi.from_buffer``
    pointers; no compilation) and, once a plan is hot, the Numba-compiled
    caller of ``_aot_caller`` (about 1 µs less per call). ``CALLER_ENV``
    chooses the policy.
    """
    ffi = kernel.library.ffi
    fn, stats, fail = kernel.fn, kernel.entry.stats, kernel.fail
    from_buffer, null, perf = ffi.from_buffer, ffi.NULL, _perf
    contiguous = np.ascontiguousarray
    scalar_items = [(k, from_buffer(a)) for k, a in scalars.items()]
    keep.append(scalars)
    array_slots = list(slots) + list(out_slots)

    def fresh_params():
        p = ffi.new("void *[]", n)
        for k, ptr in scalar_items:
            p[k] = ptr
        return p

    params = fresh_params()
    lock = threading.Lock()
    acquire, release = lock.acquire, lock.release

    def call_cffi(inputs, outputs):
        # one prepared array serves the calls; a thread finding it busy takes a fresh one
        p = params if acquire(False) else fresh_params()
        try:
            try:
                for k, a in zip(slots, inputs):
                    p[k] = from_buffer(a)
                held = inputs
            except ValueError:                          # not C-contiguous: pass contiguous copies
                held = [contiguous(a) for a in inputs]
                for k, a in zip(slots, held):
                    p[k] = from_buffer(a)
            for k, o in zip(out_slots, outputs):
                p[k] = from_buffer(o)
            return fn(n, p, ndims, shapes, dtypes, null, extra)
        finally:
            if p is params:
                release()

    policy = _caller_policy(kernel.op_name)
    state = {"caller": "cffi", "countdown": _TIER_UP_CALLS if policy == "auto" else -1, "thread": None}
    fast = meta = None
    tier_lock = threading.Lock()

    def tier_up():
        """Compile the Numba caller for this signature; on any failure keep cffi."""
        nonlocal fast, meta
        if ffi.sizeof("void *") != 8:
            return
        try:
            from . import _aot_caller
            caller = _aot_caller.compile_caller([d for _, d in (descs[k] for k in array_slots)],
                                                [len(s) for s, _ in (descs[k] for k in array_slots)])
        except Exception as exc:                        # e.g. a dtype Numba cannot type
            state["caller"] = f"cffi (Numba caller unavailable: {type(exc).__name__})"
            return
        addr = lambda c: int(ffi.cast("intptr_t", c))  # noqa: E731
        base = [0] * n
        for k, ptr in scalar_items:
            base[k] = addr(ptr)
        meta = _aot_caller.make_meta(addr(fn), n, addr(ndims), addr(shapes), addr(dtypes), 0, addr(extra),
                                     array_slots, base)
        fast = caller
        state["caller"] = "numba"

    if policy == "numba":
        tier_up()

    def tier_up_in_background():
        # Importing Numba and loading (or, the first time on a machine, compiling) the caller
        # takes 0.01-0.8 s: the plan keeps calling through cffi meanwhile instead of stalling.
        try:
            with tier_lock:
                if fast is None:
                    tier_up()
        finally:
            with _tier_ups_lock:
                _tier_ups.discard(threading.current_thread())

    def slow(inputs, outputs):
        """The cffi call; after the plan's first calls, compile the Numba caller (policy "auto")."""
        rc = call_cffi(inputs, outputs)
        state["countdown"] -= 1
        if state["countdown"] == 0:
            state["countdown"] = -1
            t = threading.Thread(target=tier_up_in_background, name="mscustom-aot-caller", daemon=True)
            state["thread"] = t
            with _tier_ups_lock:
                _tier_ups.add(t)
            t.start()
        return rc

    def failed(rc, inputs, outputs):
        if rc == _NOT_CONTIGUOUS and fast is not None:     # the Numba caller refused a non-contiguous array
            rc = call_cffi(inputs, outputs)
        if rc:
            fail(rc)

    # One runner per common arity: building the caller's tuple from fixed positions is
    # cheaper than unpacking the lists (the per-call path of a tiny kernel is all overhead).
    if len(slots) == 1 and len(out_slots) == 1:
        def run(attrs, inputs, req, outputs):
            rc = fast(meta, (inputs[0], outputs[0])) if fast is not None else slow(inputs, outputs)
            if rc:
                failed(rc, inputs, outputs)
    elif len(slots) == 2 and len(out_slots) == 1:
        def run(attrs, inputs, req, outputs):
            rc = (fast(meta, (inputs[0], inputs[1], outputs[0])) if fast is not None
                  else slow(inputs, outputs))
            if rc:
                failed(rc, inputs, outputs)
    else:
        def run(attrs, inputs, req, outputs):
            rc = fast(meta, (*inputs, *outputs)) if fast is not None else slow(inputs, outputs)
            if rc:
                failed(rc, inputs, outputs)

    run.state = state                           # {"caller": "cffi" | "numba" | ...}, for tests and tools
    run.keep = (keep, params)                   # the C side points into these
    return run


def _caller_policy(op_name):
    policy = os.environ.get(CALLER_ENV, "auto") or "auto"
    if policy not in ("auto", "cffi", "numba"):
        raise ValueError(f"op '{op_name}': ${CALLER_ENV} must be 'auto', 'cffi' or 'numba', got {policy!r}")
    return policy


class _Cuda:
    """Host <-> device copies and the stream for a GPU AOT kernel (numba-cuda)."""

    def __init__(self, op_name, kernel_name):
        try:
            from numba import config, cuda
        except ImportError as exc:
            raise RuntimeError(f"op '{op_name}': AOT kernel '{kernel_name}' targets GPU, which needs "
                               f"numba-cuda (pip install numba-cuda): {exc}") from exc
        if config.ENABLE_CUDASIM:
            raise RuntimeError(f"op '{op_name}': AOT kernel '{kernel_name}' targets GPU, but Numba's "
                               "CUDA simulator (NUMBA_ENABLE_CUDASIM=1) cannot run compiled CUDA "
                               "libraries; unset it on a machine with a GPU, or ms.set_device('CPU')")
        if not cuda.is_available():
            raise RuntimeError(f"op '{op_name}': AOT kernel '{kernel_name}' targets GPU, but no CUDA "
                               "device is available; run on a machine with a GPU or call "
                               "ms.set_device('CPU') and use a CPU kernel")
        self.cuda = cuda
        self.stream = cuda.stream()

    def runner(self, kernel, n, slots, out_slots, scalars, ndims, shapes, dtypes, extra, keep):
        cuda, stream, ffi = self.cuda, self.stream, kernel.library.ffi
        fn, stats, fail, perf = kernel.fn, kernel.entry.stats, kernel.fail, _perf
        stream_ptr = ffi.cast("void *", _stream_handle(stream))
        d_scalars = {k: cuda.to_device(a, stream=stream) for k, a in scalars.items()}
        keep.append(d_scalars)

        def run(attrs, inputs, req, outputs):
            """Copy inputs to the device, call the kernel on device pointers, copy outputs back."""
            p = ffi.new("void *[]", n)
            d_in = [cuda.to_device(np.ascontiguousarray(a), stream=stream) for a in inputs]
            d_out = [cuda.device_array(o.shape, o.dtype, stream=stream) for o in outputs]
            for k, d in d_scalars.items():
                p[k] = ffi.cast("void *", _device_ptr(d))
            for k, d in zip(slots, d_in):
                p[k] = ffi.cast("void *", _device_ptr(d))
            for k, d in zip(out_slots, d_out):
                p[k] = ffi.cast("void *", _device_ptr(d))
            rc = fn(n, p, ndims, shapes, dtypes, stream_ptr, extra)
            if rc:
                stream.synchronize()
                fail(rc)
            for d, o in zip(d_out, outputs):
                d.copy_to_host(o, stream=stream)
            stream.synchronize()

        run.keep = keep
        return run


def _device_ptr(devary):
    return devary.__cuda_array_interface__["data"][0]


def _stream_handle(stream):
    """The integer cudaStream_t of a numba-cuda stream (ctypes or cuda-python bindings)."""
    handle = stream.handle
    if isinstance(handle, ctypes.c_void_p):
        return handle.value or 0
    return int(handle)


# ---------------------------------------------------------------- marshalling helpers
def _template(attrs, n_tensors):
    template = attrs.get("__template__") if attrs else None
    return template if template is not None else (None,) * n_tensors


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


def _abi(np_dtype):
    return _dt.from_numpy(np_dtype).name


def _attrs_struct(ffi, specs, values, keep, op_name):
    """The MsAttrs struct for ``extra`` (NULL when the op has no attributes); kept alive via ``keep``."""
    present = [(s, v) for s, v in zip(specs, values) if v is not None]
    if not specs:
        return ffi.NULL
    items = ffi.new("MsAttr[]", max(len(present), 1))
    for k, (spec, value) in enumerate(present):
        item = items[k]
        name = ffi.new("char[]", spec.name.encode())
        keep.append(name)
        item.name = name
        kind = _ATTR_KIND.get(getattr(spec, "value_type", None))
        if kind is None:
            kind = _kind_of(value)
        item.kind = kind
        try:
            if kind in (0, 2):
                item.i = int(value)
            elif kind == 1:
                item.f = float(value)
            elif kind == 3:
                text = ffi.new("char[]", str(value).encode())
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
        except (TypeError, ValueError) as exc:
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


def _code(rc):
    name = _CODE_NAMES.get(rc)
    return f"{rc} ({name})" if name else str(rc)


def _describe(descs):
    return ", ".join(f"{_abi(d)}{list(s)}" for s, d in descs)
