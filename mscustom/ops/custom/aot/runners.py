"""The per-call functions of bound aot kernels: CPU (cffi, then the Numba caller), checked, GPU.

Every runner has the dispatcher's signature ``run(attrs, inputs, req, outputs)``
and writes into the preallocated outputs. Given a ``stats`` dict it counts
calls itself, and seconds while a usage block asks for them (``dispatch.TIMING``;
the ``make_kernel`` adapter's entries); without one the dispatcher's Plan does that.

CPU calls (``$MSCUSTOM_AOT_CALLER``): ``cffi`` fills a prepared ``void *[]``
with ``ffi.from_buffer`` pointers (no compilation); ``numba`` calls through a
tiny Numba-compiled caller (``mscustom/_numba_private/aot_caller.py``, about
1 µs cheaper per call); the default ``auto`` uses cffi for a plan's first 64
calls and then the Numba caller, prepared in a background thread while the
plan keeps calling through cffi (``os.fork()`` waits for such a thread). The
Numba caller is used only when ``mscustom._numba_private.supported()``. Under
``auto``, a one-output kernel without workspace also gives the compiled call
path (``mscustom/_core/fastcall.py``) its address: warm calls outside tapes
and captures then call it from C, and this runner serves the others.

Checked calls: the first call of each signature (the runner's ``first_call``,
run once by the dispatcher) and every call under ``MSCUSTOM_DEBUG=1``
(``mscustom.context.debug_enabled()``, read when a plan is bound) put the
inputs and outputs on guarded buffers, checked when the kernel returns, so a
kernel that reaches outside one raises an error naming the op, the buffer, how
far it reached and the likely out_shape: ``checked_runner`` on CPU
(``_guards.run_on_guarded``), ``CudaDevice.runner(..., guarded=True)`` on GPU
(device buffers from ``_guards.GuardedOutputs``, whose guard zones are copied
back after the kernel). While a CPU kernel runs, its thread's crash label names
it (``_core/kernelguard.py``).
"""

import ctypes
import os
import threading
import time

import numpy as np

from ...._core import dispatch as _dispatch
from ...._core import fastcall as _fastcall
from ...._core import kernelguard as _kernelguard
from .. import _guards
from . import abi as _abi

__all__ = ["cpu_runner", "checked_runner", "CudaDevice", "CALLER_ENV", "TIER_UP_CALLS", "join_tier_ups"]

CALLER_ENV = "MSCUSTOM_AOT_CALLER"
NOT_CONTIGUOUS = -0x7FFF0001   # what the Numba caller returns instead of calling with a non-contiguous array
TIER_UP_CALLS = 64             # cffi calls of one plan before it switches to the Numba caller
GUARD_BYTE = _guards.GUARD_BYTE
_perf = time.perf_counter
_TIMING = _dispatch.TIMING        # kernel time is measured only while a usage block asks for it

_tier_ups = set()              # background threads compiling a Numba caller (joined before a fork)
_tier_ups_lock = threading.Lock()


def join_tier_ups():
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
    os.register_at_fork(before=join_tier_ups)


class Call:
    """What a runner needs of one bound signature (built by ``kind.py``)."""

    __slots__ = ("op_name", "symbol", "path", "ffi", "fn", "descs", "extra", "cpp", "workspace", "keep",
                 "c_header")

    def fail(self, rc):
        raise RuntimeError(f"op '{self.op_name}': AOT kernel '{self.symbol}' ({self.path}) returned error code "
                           f"{_abi.code(rc, self.c_header)}")

    def check_extra(self):
        if self.cpp is not None:
            self.cpp.check(f"AOT kernel '{self.symbol}'")


def caller_policy(op_name):
    policy = os.environ.get(CALLER_ENV, "auto") or "auto"
    if policy not in ("auto", "cffi", "numba"):
        raise ValueError(f"op '{op_name}': ${CALLER_ENV} must be 'auto', 'cffi' or 'numba', got {policy!r}")
    return policy


def _fixed_pointers(call):
    """param index -> pointer for what never changes between calls: scalar arguments, workspace."""
    ffi = call.ffi
    fixed = [(k, ffi.from_buffer(a)) for k, a in call.descs.scalars.items()]
    base = call.descs.n
    fixed += [(base + j, ffi.from_buffer(w)) for j, w in enumerate(call.workspace)]
    call.keep.append(call.descs.scalars)
    return fixed


def cpu_runner(call, stats, label=None):
    """The per-call function on host memory: pass the data pointers, call, check the code.

    ``label`` names the kernel for a crash report while it runs (``_core/kernelguard.py``).
    """
    ffi, descs, fn, fail = call.ffi, call.descs, call.fn, call.fail
    from_buffer, null, perf = ffi.from_buffer, ffi.NULL, _perf
    contiguous = np.ascontiguousarray
    slots, out_slots = descs.slots, descs.out_slots
    n = descs.n + len(call.workspace)
    ndims, shapes, dtypes, extra = descs.ndims, descs.shapes, descs.dtypes, call.extra
    fixed = _fixed_pointers(call)
    array_slots = list(slots) + list(out_slots)
    check_extra = call.check_extra if call.cpp is not None else None
    set_label = _kernelguard.set_label

    def fresh_params():
        p = ffi.new("void *[]", n)
        for k, ptr in fixed:
            p[k] = ptr
        return p

    params = fresh_params()
    lock = threading.Lock()
    acquire, release = lock.acquire, lock.release

    def call_cffi(inputs, outputs):
        # one prepared array serves the calls; a thread finding it busy takes a fresh one
        # (and, when the kernel has a workspace, buffers of its own)
        # the acquire runs inside the try, so an interrupt anywhere after it still releases the lock
        mine = False
        try:
            mine = acquire(False)
            scratch = None
            if mine:
                p = params
            else:
                p = fresh_params()
                if call.workspace:
                    scratch = [np.empty_like(w) for w in call.workspace]
                    for j, buf in enumerate(scratch):
                        p[descs.n + j] = from_buffer(buf)
            try:
                for k, a in zip(slots, inputs):
                    p[k] = from_buffer(a)
                kept = inputs
            except ValueError:                          # not C-contiguous: pass contiguous copies
                kept = [contiguous(a) for a in inputs]
                for k, a in zip(slots, kept):
                    p[k] = from_buffer(a)
            for k, o in zip(out_slots, outputs):
                p[k] = from_buffer(o)
            rc = fn(n, p, ndims, shapes, dtypes, null, extra)
            del kept, scratch
            return rc
        finally:
            if mine:
                release()

    policy = caller_policy(call.op_name)
    if call.workspace or check_extra is not None:
        policy = "cffi"            # per-call workspace buffers and attribute checks stay on the cffi path
    state = {"caller": "cffi", "countdown": TIER_UP_CALLS if policy == "auto" else -1, "thread": None}
    fast = meta = None
    tier_lock = threading.Lock()

    def tier_up():
        """Compile the Numba caller for this signature; on any failure keep cffi."""
        nonlocal fast, meta
        if ffi.sizeof("void *") != 8:
            return
        from .... import _numba_private
        if not _numba_private.supported():
            state["caller"] = "cffi (the Numba caller was written for Numba 0.68.x)"
            return
        try:
            from ...._numba_private import aot_caller
            items = [descs.items[k] for k in array_slots]
            caller = aot_caller.compile_caller([d for _, d in items], [len(s) for s, _ in items])
        except Exception as exc:                        # e.g. a dtype Numba cannot type
            state["caller"] = f"cffi (Numba caller unavailable: {type(exc).__name__})"
            return
        addr = lambda c: int(ffi.cast("intptr_t", c))  # noqa: E731
        base = [0] * n
        for k, ptr in fixed:
            base[k] = addr(ptr)
        meta = aot_caller.make_meta(addr(fn), n, addr(ndims), addr(shapes), addr(dtypes), 0,
                                    addr(extra), array_slots, base)
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
        if check_extra is not None:
            check_extra()
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
        if rc == NOT_CONTIGUOUS and fast is not None:     # the Numba caller refused a non-contiguous array
            rc = call_cffi(inputs, outputs)
        if rc:
            fail(rc)

    # One runner per common arity: building the caller's tuple from fixed positions is
    # cheaper than unpacking the lists (the per-call path of a tiny kernel is all overhead).
    if stats is None and len(slots) == 1 and len(out_slots) == 1:
        def run(attrs, inputs, req, outputs):
            set_label(label)
            try:
                rc = fast(meta, (inputs[0], outputs[0])) if fast is not None else slow(inputs, outputs)
            finally:
                set_label(None)
            if rc:
                failed(rc, inputs, outputs)
    elif stats is None and len(slots) == 2 and len(out_slots) == 1:
        def run(attrs, inputs, req, outputs):
            set_label(label)
            try:
                rc = (fast(meta, (inputs[0], inputs[1], outputs[0])) if fast is not None
                      else slow(inputs, outputs))
            finally:
                set_label(None)
            if rc:
                failed(rc, inputs, outputs)
    elif stats is None:
        def run(attrs, inputs, req, outputs):
            set_label(label)
            try:
                rc = fast(meta, (*inputs, *outputs)) if fast is not None else slow(inputs, outputs)
            finally:
                set_label(None)
            if rc:
                failed(rc, inputs, outputs)
    elif len(slots) == 1 and len(out_slots) == 1:
        def run(attrs, inputs, req, outputs):
            timed = _TIMING[0]
            if timed:
                t0 = perf()
            set_label(label)
            try:
                rc = fast(meta, (inputs[0], outputs[0])) if fast is not None else slow(inputs, outputs)
            finally:
                set_label(None)
            if rc:
                failed(rc, inputs, outputs)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += perf() - t0
    elif len(slots) == 2 and len(out_slots) == 1:
        def run(attrs, inputs, req, outputs):
            timed = _TIMING[0]
            if timed:
                t0 = perf()
            set_label(label)
            try:
                rc = (fast(meta, (inputs[0], inputs[1], outputs[0])) if fast is not None
                      else slow(inputs, outputs))
            finally:
                set_label(None)
            if rc:
                failed(rc, inputs, outputs)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += perf() - t0
    else:
        def run(attrs, inputs, req, outputs):
            timed = _TIMING[0]
            if timed:
                t0 = perf()
            set_label(label)
            try:
                rc = fast(meta, (*inputs, *outputs)) if fast is not None else slow(inputs, outputs)
            finally:
                set_label(None)
            if rc:
                failed(rc, inputs, outputs)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += perf() - t0

    run.state = state                           # {"caller": "cffi" | "numba" | ...}, for tests and tools
    run.keep = (call, params)             # the C side points into these
    if policy == "auto" and len(out_slots) == 1 and ffi.sizeof("void *") == 8:
        # the compiled call path (mscustom/_core/fastcall.py) calls the kernel through its address;
        # a caller named in $MSCUSTOM_AOT_CALLER is used for every call instead
        addr = lambda c: int(ffi.cast("intptr_t", c))  # noqa: E731
        base = [0] * n
        for k, ptr in fixed:
            base[k] = addr(ptr)
        fields = _fastcall.aot_fields(addr(fn), n, addr(ndims), addr(shapes), addr(dtypes), addr(extra),
                                      base, slots, out_slots[0])
        run.fast_spec = ("aot", fields, fail, None)
        run.label = label
    return run


def checked_runner(call, stats, label, when):
    """A checked call (cffi): inputs and outputs on guarded buffers (``_guards.run_on_guarded``).

    The first call of each signature runs this way, and every call under
    ``MSCUSTOM_DEBUG=1``: a kernel that reaches outside any input or output
    raises an IndexError naming the op, the kernel, the buffer, how far it
    reached and the likely out_shape, instead of corrupting memory. ``when``
    says which check it was, for the error.
    """
    ffi, descs, fn = call.ffi, call.descs, call.fn
    n = descs.n + len(call.workspace)
    fixed = _fixed_pointers(call)
    set_label = _kernelguard.set_label
    rc_box = [0]

    def kernel_call(ins, outs):
        p = ffi.new("void *[]", n)
        for k, ptr in fixed:
            p[k] = ptr
        for k, a in zip(descs.slots, ins):
            p[k] = ffi.from_buffer(a)
        for k, o in zip(descs.out_slots, outs):
            p[k] = ffi.from_buffer(o)
        set_label(label)
        try:
            rc_box[0] = fn(n, p, descs.ndims, descs.shapes, descs.dtypes, ffi.NULL, call.extra)
        finally:
            set_label(None)

    def run(attrs, inputs, req, outputs):
        timed = _TIMING[0]
        if timed:
            t0 = _perf()
        found = _guards.run_on_guarded(kernel_call, inputs, outputs)
        if found:
            raise _guards.OutOfBoundsError(_guards.describe_outside(call.op_name, f"AOT kernel '{call.symbol}' ({call.path})",
                                                      found, inputs, outputs, when))
        if rc_box[0]:
            call.fail(rc_box[0])
        call.check_extra()
        if stats is not None:
            stats["calls"] += 1
            if timed:
                stats["seconds"] += _perf() - t0

    run.state = {"caller": "checked (guarded buffers)"}
    run.keep = (call,)
    return run


def _overrun_error(call, j, out, where):
    return _guards.OutOfBoundsError(f"op '{call.op_name}': AOT kernel '{call.symbol}' wrote outside output {j} "
                      f"(shape {list(out.shape)}, {out.dtype}, {out.nbytes} bytes): {where} (found by the guard "
                      "zones of a checked call: the first call of each signature, or every call under "
                      "MSCUSTOM_DEBUG=1). Check the kernel's loop bounds against shapes[i] and the op's out_shape")


# Tests only: let CudaDevice run under Numba's CUDA simulator, whose "device" arrays are NumPy arrays in
# host memory, so that a CPU-compiled C kernel with the aot calling convention can stand in for a CUDA
# one and exercise the GPU runner (guard zones included). The kernel then gets host pointers and a NULL
# stream. Never set outside tests: a real CUDA library cannot run in the simulator.
_SIMULATOR_FOR_TESTS = False


class CudaDevice:
    """Host <-> device copies and the stream for a GPU AOT kernel (numba-cuda)."""

    def __init__(self, op_name, kernel_name):
        try:
            from numba import config, cuda
        except ImportError as exc:
            raise RuntimeError(f"op '{op_name}': AOT kernel '{kernel_name}' targets GPU, which needs "
                               f"numba-cuda (pip install numba-cuda): {exc}") from exc
        self.simulated = bool(config.ENABLE_CUDASIM)
        if self.simulated and not _SIMULATOR_FOR_TESTS:
            raise RuntimeError(f"op '{op_name}': AOT kernel '{kernel_name}' targets GPU, but Numba's "
                               "CUDA simulator (NUMBA_ENABLE_CUDASIM=1) cannot run compiled CUDA "
                               "libraries; unset it on a machine with a GPU, or ms.set_device('CPU')")
        if not cuda.is_available():
            raise RuntimeError(f"op '{op_name}': AOT kernel '{kernel_name}' targets GPU, but no CUDA "
                               "device is available; run on a machine with a GPU or call "
                               "ms.set_device('CPU') and use a CPU kernel")
        self.cuda = cuda
        self.stream = cuda.stream()

    def runner(self, call, stats, guarded=False):
        """Copy inputs to the device, call the kernel on device pointers, copy outputs back.

        ``guarded`` (a checked call: the signature's first, or every call in debug mode): every output
        lies inside a device buffer with guard zones, copied back and checked after the kernel.
        """
        cuda, stream, ffi, descs = self.cuda, self.stream, call.ffi, call.descs
        fn, fail, perf = call.fn, call.fail, _perf
        n = descs.n + len(call.workspace)
        if self.simulated:                      # tests only (_SIMULATOR_FOR_TESTS): host memory, no stream
            stream_ptr, device_ptr = ffi.NULL, _simulated_ptr
        else:
            stream_ptr, device_ptr = ffi.cast("void *", _stream_handle(stream)), _cuda_ptr
        d_fixed = [(k, cuda.to_device(a, stream=stream)) for k, a in descs.scalars.items()]
        d_fixed += [(descs.n + j, cuda.device_array(w.shape, w.dtype, stream=stream))
                    for j, w in enumerate(call.workspace)]

        def pointers(d_in, d_out):
            p = ffi.new("void *[]", n)
            for k, d in d_fixed:
                p[k] = ffi.cast("void *", device_ptr(d))
            for k, d in zip(descs.slots, d_in):
                p[k] = ffi.cast("void *", device_ptr(d))
            for k, d in zip(descs.out_slots, d_out):
                p[k] = ffi.cast("void *", device_ptr(d))
            return p

        def to_device(inputs):
            return [cuda.to_device(np.ascontiguousarray(a), stream=stream) for a in inputs]

        def counted(timed, t0):
            call.check_extra()
            if stats is not None:
                stats["calls"] += 1
                if timed:
                    stats["seconds"] += perf() - t0

        if guarded:
            def run(attrs, inputs, req, outputs):
                timed = _TIMING[0]
                t0 = perf() if timed else 0.0
                d_in = to_device(inputs)
                guards = _guards.GuardedOutputs(cuda, outputs, stream, reach=_guards.reach_for(inputs, outputs))
                rc = fn(n, pointers(d_in, guards.views), descs.ndims, descs.shapes, descs.dtypes, stream_ptr,
                        call.extra)
                for j, where in guards.overruns():       # waits for the stream
                    raise _overrun_error(call, j, outputs[j], where)
                if rc:
                    fail(rc)
                guards.copy_to_host(outputs)
                counted(timed, t0)

            run.keep = (call, d_fixed)
            return run

        def run(attrs, inputs, req, outputs):
            timed = _TIMING[0]
            t0 = perf() if timed else 0.0
            d_in = to_device(inputs)
            d_out = [cuda.device_array(o.shape, o.dtype, stream=stream) for o in outputs]
            rc = fn(n, pointers(d_in, d_out), descs.ndims, descs.shapes, descs.dtypes, stream_ptr, call.extra)
            if rc:
                stream.synchronize()
                fail(rc)
            for d, o in zip(d_out, outputs):
                d.copy_to_host(o, stream=stream)
            stream.synchronize()
            counted(timed, t0)

        run.keep = (call, d_fixed)
        return run


def _cuda_ptr(devary):
    return devary.__cuda_array_interface__["data"][0]


def _simulated_ptr(devary):
    """The host address of a simulator "device" array (a NumPy array inside)."""
    return devary.__array_interface__["data"][0]


def _stream_handle(stream):
    """The integer cudaStream_t of a numba-cuda stream (ctypes or cuda-python bindings)."""
    handle = stream.handle
    if isinstance(handle, ctypes.c_void_p):
        return handle.value or 0
    return int(handle)
