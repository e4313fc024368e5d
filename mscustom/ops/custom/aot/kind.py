"""The aot kernel kind: validate ``"path:Func"``, bind it per signature, hand back a runner.

``AotKind`` follows the kernel-kind contract (``check`` at construction,
``bind`` per input signature, runners writing preallocated outputs);
``make_kernel`` adapts it to today's ``KernelEntry`` interface of
``ops.Custom``; ``infer_shape_rule`` gives ``ops.Custom`` the output shapes
from ``<Func>InferShape`` when ``out_shape`` is None.

Per signature, ``bind`` builds the ndims/shapes/dtypes arrays and the
``extra`` (C ``MsAttrs`` or C++ ``AotExtra``, see ``library.py``) once, calls
``<Func>Init`` when the library has one (inputs then outputs, the same
``extra``; non-zero is an error naming the op and the code), allocates the
workspace the Init asked for, and returns the runner (``runners.py``).
"""

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from .... import context as _context
from ...._core import kernelguard as _kernelguard
from ...._core.kernel import KernelEntry, Signature
from .. import _common
from . import abi as _abi
from . import build as _build
from . import extra as _extra
from . import runners as _runners
from .library import describe, display_name, open_kernel, resolve_path

__all__ = ["AotKind", "make_kernel", "infer_shape_rule", "bind_signature", "entry_name"]

TARGETS = ("CPU", "GPU", "Ascend")


def _source_digest(func):
    """The SHA-256 of the source file ``func`` names (``path.c:Func``), or None for a library or an
    unreadable path (``open_kernel`` then reports what is wrong)."""
    if not isinstance(func, str) or ":" not in func:
        return None
    path = func.rsplit(":", 1)[0]
    if Path(path).suffix.lower() not in _build.SOURCE_SUFFIXES:
        return None
    found, _ = resolve_path(path)
    if found is None:
        return None
    try:
        return hashlib.sha256(found.read_bytes()).hexdigest()
    except OSError:
        return None


class PinnedFunc(str):
    """An aot ``func`` string (``"path:Func"``) with the kernel opened for it when the op was made."""

    def __new__(cls, func, opened):
        self = super().__new__(cls, func)
        self.opened = opened
        return self


class AotKind:
    """``func_type="aot"``: a symbol of a compiled library (or of a source built on demand)."""

    name = "aot"
    options = ()
    default_targets = None            # the device target current when the op is made, as MindSpore does
    allocates = False

    def __init__(self):
        self._opened = {}
        self._lock = threading.Lock()

    def _open(self, func, op_name):
        if isinstance(func, PinnedFunc):        # what the op opened when it was made
            return func.opened
        # a source is keyed by its bytes too: an edited source builds and loads anew, as the build
        # cache itself is keyed by content
        key = (func, os.getcwd(), _source_digest(func))
        with self._lock:
            found = self._opened.get(key)
        if found is None:
            found = open_kernel(func, op_name)
            with self._lock:
                self._opened[key] = found
        return found

    def check(self, func, op_name, options):
        """Open the library and find the symbol now, so a wrong path or name fails when the op is made;
        the op keeps what was opened (a source edited later does not change an op made before)."""
        return PinnedFunc(func, self._open(func, op_name))

    def infer_shape_rule(self, func, *, op_name):
        """The shape rule from the library's ``<Func>InferShape`` (see the module function)."""
        return infer_shape_rule(func, op_name=op_name)

    def kernel_name(self, func, target, options):
        return entry_name(self._open(func, "aot"), target)

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        opened = self._open(func, op_name)
        return bind_signature(opened, op_name, target, list(attr_specs or ()), sig, None,
                              entry_name(opened, target))


KIND = AotKind()


def entry_name(opened, target):
    """A kernel's name in reports and errors: ``aot:<file>:<Func>[<target>]``, the file being the source
    the user wrote when the library was built from one (not its build-cache entry)."""
    return f"aot:{display_name(opened)}:{opened.symbol}[{target}]"


def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options):
    """Build the KernelEntry for an AOT symbol ``"path:Func"`` on ``target`` (today's ops.Custom interface).

    The library is opened and the symbol resolved here, so a wrong path or
    name fails when the op is made, not when it is first called.

    Example::

        entry = make_kernel("aot_kernels/build/libkernels.so:CustomSquare", op_name="square",
                            target="CPU", rows=None, attr_specs=[], n_out=1, options={})
    """
    if target not in TARGETS:
        raise ValueError(f"op '{op_name}': aot kernels run on 'CPU', 'GPU' or 'Ascend', got target {target!r}")
    opened = open_kernel(func, op_name)
    entry = KernelEntry(target=target, fn=None, allocates=False, rows=rows, kind="aot",
                        name=entry_name(opened, target))
    specs = list(attr_specs or ())

    def bind(op, sig):
        return bind_signature(opened, op_name, target, specs, sig, entry.stats, entry.name)

    def run_unbound(attrs, inputs, req, outputs):
        """Run without a cached plan: bind for these arrays, then call (slow path)."""
        sig = Signature([a.shape for a in inputs], [a.dtype for a in inputs], ["DefaultFormat"] * len(inputs),
                        [o.shape for o in outputs], [o.dtype for o in outputs], attrs)
        return bind(None, sig)(attrs, inputs, req, outputs)

    bind.opened = opened                 # what the kernel was loaded from (tools and tests read it)
    entry.bind, entry.fn = bind, run_unbound
    return entry


def infer_shape_rule(func, *, op_name):
    """``rule(attrs, in_shapes, attr_specs, n_out) -> out shapes`` from the library's ``<Func>InferShape``.

    Raises ValueError naming the missing symbol when the library has none
    (MindSpore asks the library for the shape when ``out_shape`` is None; the
    first input's shape would be wrong whenever the shapes differ). The
    single-output form (``std::vector<int64_t>``) is called for one output,
    the vector-of-vectors form for several.
    """
    opened = func.opened if isinstance(func, PinnedFunc) else open_kernel(func, op_name)
    if opened.infer_addr is None:
        raise ValueError(f"op '{op_name}': out_shape is None, so the output shape must come from "
                         f"'{opened.symbol}InferShape' (extern \"C\" std::vector<int64_t> "
                         f"{opened.symbol}InferShape(int *ndims, int64_t **shapes, AotExtra *extra)), "
                         f"which {describe(opened)} does not define; give ops.Custom an out_shape or add "
                         f"that function to the {'source' if opened.source is not None else 'library'}")

    def rule(attrs, in_shapes, attr_specs, n_out):
        template = attrs.get(_common.TEMPLATE_KEY) if attrs else None
        values, _ = _abi.bind_values(attrs, attr_specs, template, bind_positional=True)
        return _extra.infer_shapes(opened, op_name, in_shapes, attr_specs, values, n_out)

    return rule


def bind_signature(opened, op_name, target, specs, sig, stats, kernel_name):
    """Prepare everything that depends only on the signature; return the runner."""
    ffi = opened.library.ffi
    template = sig.attrs.get(_common.TEMPLATE_KEY) if sig.attrs else None
    if template is None:
        template = (None,) * len(sig.in_shapes)
    cpp = opened.cxx_abi is not None
    values, template = _abi.bind_values(sig.attrs, specs, template, bind_positional=cpp)
    descs = _abi.Descs(ffi, sig, template, op_name)
    keep = list(descs.keep)
    cpp_extra = None
    if cpp:
        shim = _extra.shim(opened.cxx_abi, op_name)
        cpp_extra = _extra.CppExtra(shim, op_name, specs, values)
        extra = ffi.cast("void *", int(shim.ffi.cast("intptr_t", cpp_extra.ptr)))
    else:
        extra = _abi.attrs_struct(ffi, specs, values, keep, op_name)
    device = _runners.CudaDevice(op_name, kernel_name) if target == "GPU" else None
    if opened.init is not None:
        rc = opened.init(descs.ndims, descs.shapes, descs.dtypes, extra)
        if rc != 0:
            raise RuntimeError(f"op '{op_name}': AOT init function '{opened.symbol}Init' rejected the signature "
                               f"({_abi.describe(descs.items)}) with error code {_abi.code(rc, not cpp)}")
        if cpp_extra is not None:
            cpp_extra.check(f"AOT init function '{opened.symbol}Init'")
    call = _runners.Call()
    # call.path is shown in the runners' errors: the source first when the library was built from one
    call.op_name, call.symbol = op_name, opened.symbol
    call.path = str(opened.path) if opened.source is None else f"{opened.source}, built into {opened.path}"
    call.ffi, call.fn, call.descs, call.extra, call.cpp = ffi, opened.fn, descs, extra, cpp_extra
    call.workspace = [_aligned(_abi.workspace_bytes(s)) for s in cpp_extra.workspace()] if cpp_extra else []
    call.keep, call.c_header = keep, not cpp
    if device is not None:
        if _context.debug_enabled():
            return device.runner(call, stats, guarded=True)
        run = device.runner(call, stats)
        run.first_call = device.runner(call, stats, guarded=True)
        return run
    _kernelguard.install()
    label = f"op '{op_name}', kernel {kernel_name}".encode("utf-8", "replace")
    if _context.debug_enabled():
        return _runners.checked_runner(call, stats, label, "a check of every call (MSCUSTOM_DEBUG=1)")
    run = _runners.cpu_runner(call, stats, label)
    shapes = ", ".join(f"{list(s)} {np.dtype(d).name}" for s, d in zip(sig.in_shapes, sig.in_dtypes))
    run.first_call = _runners.checked_runner(call, stats, label,
                                             f"Found by the first call's check of this signature ({shapes})")
    return run


def _aligned(nbytes, align=64):
    """A zeroed byte buffer of ``nbytes`` starting on an ``align``-byte boundary."""
    raw = np.zeros(nbytes + align, np.uint8)
    start = (-raw.ctypes.data) % align
    return raw[start:start + nbytes]

