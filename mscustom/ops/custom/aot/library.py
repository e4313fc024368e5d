"""Finding, building and opening aot libraries, and reading what their symbols offer.

Where a library is looked for: an absolute path is used as it is; a relative
one is tried against (1) the current working directory, (2) the project root
(the folder holding the ``mscustom`` package, where ``aot_kernels/`` lives in
a checkout), (3) the ``mscustom`` package folder. A source file (``.c``,
``.cc``, ``.cpp``, ``.cxx``, ``.cu``) is compiled on demand (``build.py``).
Each library is opened once per process with ``ffi.dlopen`` (cffi ABI mode).

Which ``extra`` a library's kernels get (decided per library):

- the C++ ``AotExtra`` object (MindSpore's ``custom_aot_extra.h``) when the
  library was built against the shipped ``custom_aot_extra.h`` (it then
  exports ``mscustom_aot_extra_abi``, which also tells its
  ``_GLIBCXX_USE_CXX11_ABI``), or when it defines ``<Func>InferShape`` (which
  returns a C++ vector, so the library is C++ of MindSpore's kind; the string
  ABI is then read from the library: ``__cxx11`` symbols mean 1);
- otherwise the C ``MsAttrs`` struct of ``mscustom_aot.h``.
"""

import ctypes
import os
import re
import threading
from collections import namedtuple
from pathlib import Path

from . import abi as _abi
from . import build as _build

__all__ = ["resolve_path", "load_library", "open_kernel", "Opened", "MARKER", "describe", "display_name"]

MARKER = "mscustom_aot_extra_abi"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PACKAGE_DIR = Path(__file__).resolve().parents[3]          # .../mscustom
_ROOT_DIR = _PACKAGE_DIR.parent                             # the project root in a checkout
_state = {"ffi": None}
_libraries = {}
_lock = threading.RLock()


def _fresh_lock_in_child():
    global _lock
    _lock = threading.RLock()     # a fork while another thread loads a library must not leave it held


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock_in_child)

# what make_kernel / bind need about one kernel symbol; `source` is the .c/.cc/.cu file a library in the
# build cache was compiled from (None for a library given by path)
Opened = namedtuple("Opened", "library path symbol fn init cxx_abi infer_addr source", defaults=(None,))


def describe(opened):
    """Where a kernel comes from, for messages: the source the user wrote first, then the build-cache
    entry it was compiled into; or the library given by path.

    >>> describe(Opened(None, Path("/c/axpb-1f.so"), "Axpb", None, None, None, None, Path("/k/axpb.c")))
    "'/k/axpb.c' (built into '/c/axpb-1f.so')"
    """
    if opened.source is not None:
        return f"'{opened.source}' (built into '{opened.path}')"
    return f"'{opened.path}'"


def display_name(opened):
    """The file name kernels are listed under: the source's for a built source, else the library's."""
    return (opened.source or opened.path).name


def _base_ffi():
    """The one cffi FFI holding the ABI's struct types (created on first use)."""
    ffi = _state["ffi"]
    if ffi is None:
        import cffi
        ffi = cffi.FFI()
        ffi.cdef(_abi.CDEF_TYPES)
        _state["ffi"] = ffi
    return ffi


class Library:
    """One opened shared library; symbols are declared on it as they are asked for."""

    def __init__(self, path):
        import cffi
        self.path = path
        self.ffi = cffi.FFI()
        self.ffi.include(_base_ffi())
        self.lib = self.ffi.dlopen(str(path))
        self.handle = ctypes.CDLL(str(path))       # the same mapping: to probe symbols and take addresses
        self.declared = {}
        self._cxx_abi = "unknown"

    def function(self, name, proto):
        """The cffi function ``name``; AttributeError with the loader's message if it is missing."""
        with _lock:
            have = self.declared.get(name)
            if have is None:
                self.address(name, required=True)
                self.ffi.cdef(proto.format(name))
                self.declared[name] = proto
            elif have != proto:
                raise AttributeError(f"symbol '{name}' is already used with another prototype")
        return getattr(self.lib, name)

    def address(self, name, required=False):
        """The address of symbol ``name``, or None when the library does not define it."""
        try:
            return ctypes.cast(getattr(self.handle, name), ctypes.c_void_p).value
        except AttributeError as exc:
            if required:
                raise AttributeError(str(exc)) from None
            return None

    def cxx_abi(self):
        """None for a plain-C library; 0 or 1 (its ``_GLIBCXX_USE_CXX11_ABI``) when it is marked C++ extra."""
        with _lock:
            if self._cxx_abi == "unknown":
                try:
                    marker = ctypes.c_int.in_dll(self.handle, MARKER).value
                    self._cxx_abi = marker & 1
                except ValueError:
                    self._cxx_abi = None
            return self._cxx_abi

    def string_abi_from_symbols(self):
        """``_GLIBCXX_USE_CXX11_ABI`` of a C++ library not built with the shipped header."""
        try:
            return 1 if b"__cxx11" in Path(self.path).read_bytes() else 0
        except OSError:
            return 0

    def mangled(self, symbol):
        """C++-mangled names of ``symbol`` found in the library's bytes (a kernel missing ``extern "C"``)."""
        try:
            data = Path(self.path).read_bytes()
        except OSError:
            return []
        pattern = rb"_Z[A-Za-z0-9_]*?%d%s[A-Za-z0-9_]*" % (len(symbol), symbol.encode())
        return sorted({m.decode() for m in re.findall(pattern, data)})


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
            lib = Library(key)
            _libraries[key] = lib
    return lib


def parse(func, op_name):
    """``"path:Func"`` -> ``(path, symbol)``, with errors naming the op."""
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


def open_kernel(func, op_name):
    """Resolve, build if a source, load, find the symbols: an ``Opened`` record."""
    path, symbol = parse(func, op_name)
    found, tried = resolve_path(path)
    if found is None:
        listing = "\n  ".join(str(t) for t in tried)
        raise ValueError(f"op '{op_name}': AOT library or source {path!r} not found; tried:\n  {listing}")
    source = None
    if found.suffix.lower() in _build.SOURCE_SUFFIXES:
        source = found
        try:
            found = _build.build_library(found, op_name=op_name)
        except RuntimeError as exc:
            msg = str(exc)
            raise RuntimeError(msg if msg.startswith(f"op '{op_name}'") else f"op '{op_name}': {msg}") from None
    else:
        _refuse_unverified_cache_entry(found, op_name)
    what = f"AOT source '{source}' (built into '{found}')" if source is not None else f"AOT library '{found}'"
    try:
        library = load_library(found)
    except OSError as exc:
        raise ValueError(f"op '{op_name}': cannot load {what}: {exc}") from exc
    try:
        fn = library.function(symbol, _abi.KERNEL_PROTO)
    except AttributeError as exc:
        mangled = library.mangled(symbol)
        hint = (f"; the library has the C++ name {mangled[0]!r}: declare the kernel extern \"C\" "
                f"(extern \"C\" int {symbol}(int nparam, void **params, ...)) so its name is not mangled"
                if mangled else f"; expected the {'source to define' if source else 'library to export'} that "
                "kernel: check the name after ':' in func (path:FuncName)")
        raise ValueError(f"op '{op_name}': symbol '{symbol}' not found in {what}{hint}: {exc}") from exc
    try:
        init = library.function(symbol + "Init", _abi.INIT_PROTO)
    except AttributeError:
        init = None
    infer_addr = library.address(symbol + "InferShape")
    cxx_abi = library.cxx_abi()
    if cxx_abi is None and infer_addr is not None:
        cxx_abi = library.string_abi_from_symbols()
    return Opened(library, found, symbol, fn, init, cxx_abi, infer_addr, source)


def _refuse_unverified_cache_entry(found, op_name):
    """A library given by path that sits in the build cache is checked like a cached build."""
    if Path(f"{found}.sum").exists() and not _build.verify_entry(found):
        raise ValueError(f"op '{op_name}': AOT library '{found}' does not match its recorded checksum "
                         f"('{found}.sum'): it was truncated or overwritten; build it again from its source")
