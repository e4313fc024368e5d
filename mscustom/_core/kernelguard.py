"""Guarded buffers for a kernel's checked calls, and crash reports that name the running kernel.

A C kernel or a compiled Numba loop that writes past its output corrupts the
heap: the process dies later, somewhere else, or a result is silently wrong.
The first call of every new signature of a jit or aot kernel (and every call
under ``MSCUSTOM_DEBUG=1``) therefore runs on *guarded buffers*
(``GuardedBuffer``): each output, and each input, lies in a mapping of its own

    [ watched pages | pattern bytes | the array | < 64 pattern bytes | watched pages ]

where the watched pages cover at least ``reach`` bytes on each side (the
callers give the largest input's size, and never less than 1 MiB). A watched
page is inaccessible; the fault handler of ``_kernelguard.c`` opens it on the
kernel's first touch and notes the address, so the kernel runs on. Afterwards
``GuardedBuffer.outside()`` says how far the kernel reached past either end
(pattern bytes changed, watched pages touched, bytes written into them), and
the kinds raise an error naming the op, the kernel and the buffer. Nothing
outside the kernel's own buffers is touched as long as it stays within the
reach; beyond it lies unmapped or unrelated memory, as in any process.

``set_label(bytes)`` names the kernel a thread is about to run: a fatal signal
in that thread (a write through NULL, say) then prints the op and the kernel
before faulthandler's Python stack, and the process still ends with the
signal. ``install()`` puts the handler in front (and enables faulthandler when
nothing else did); the kinds call it when they bind a kernel.

Without the extension (``make fastcall`` builds it; ``MSCUSTOM_KERNELGUARD=0``
turns it off) the buffers are plain NumPy arrays with pattern-filled guard
zones of the same reach, up to ``FALLBACK_MAX_ZONE`` bytes a side, and crashes
name no kernel.

Example::

    buf = GuardedBuffer((100,), np.float32, reach=1 << 20)
    kernel(x, buf.array)            # writes 150 floats
    buf.outside()                   # ('after', 200, 200): 200 bytes past the end, written
    buf.close()
"""

import faulthandler
import os
import threading

import numpy as np

__all__ = ["AVAILABLE", "GuardedBuffer", "install", "set_label", "MIN_REACH", "FALLBACK_MAX_ZONE"]

ENV = "MSCUSTOM_KERNELGUARD"
MIN_REACH = 1 << 20                 # bytes watched on each side at least
MAX_REACH = 1 << 36                 # address space a side at most (watched pages cost none until touched)
FALLBACK_MAX_ZONE = 1 << 24         # pattern-filled zone a side without the extension
GUARD_BYTE = 0xA5
_ALIGN = 64

_c = None
if os.environ.get(ENV, "1") != "0":
    try:
        from . import _kernelguard as _c
    except ImportError:             # not built: plain guard zones, no crash labels
        _c = None

AVAILABLE = _c is not None
PAGE = _c.PAGE_SIZE if _c is not None else 4096
_install_lock = threading.Lock()


def _noop(label):
    return None


set_label = _c.set_label if _c is not None else _noop


def install():
    """Our fatal-signal handler in front (again, if something replaced it); faulthandler on first."""
    if _c is None:
        return
    if _c.installed():
        return
    with _install_lock:
        if not faulthandler.is_enabled():
            try:
                faulthandler.enable()
            except (RuntimeError, ValueError, OSError):      # no usable stderr: labels only
                pass
        _c.install()


def _pages(n):
    return -(-int(n) // PAGE) * PAGE


class GuardedBuffer:
    """An array of ``shape`` and ``dtype`` with watched pages (or pattern zones) around it.

    ``reach``: bytes guarded on each side at least. ``array`` is C-contiguous and
    64-byte aligned. Call ``outside()`` after the kernel, then ``close()``.
    """

    __slots__ = ("array", "nbytes", "_addr", "_size", "_slots", "_head", "_tail", "_zones", "_mem",
                 "_before", "_after")

    def __init__(self, shape, dtype, reach):
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        self.nbytes = nbytes
        self._slots = []
        self._mem = None
        reach = int(min(max(int(reach), MIN_REACH), MAX_REACH))
        if _c is None:
            self._plain(shape, dtype, nbytes, min(reach, FALLBACK_MAX_ZONE))
            return
        before, after = _pages(reach), _pages(reach)
        body = _pages(nbytes + _ALIGN) + PAGE       # the array, its head and tail pattern bytes
        self._size = before + body + after
        self._addr = _c.reserve(self._size)
        body_lo = self._addr + before
        body_hi = body_lo + body
        start = (body_hi - nbytes) // _ALIGN * _ALIGN        # the array ends < 64 bytes before body_hi
        mem = _bytes_at(body_lo, body)
        self._mem = mem
        off = start - body_lo
        self._head = mem[:off]
        self._tail = mem[off + nbytes:]
        self._head[...] = GUARD_BYTE
        self._tail[...] = GUARD_BYTE
        self.array = mem[off:off + nbytes].view(dtype).reshape(shape)
        self._before = (self._addr, before)
        self._after = (body_hi, after)
        try:
            self._slots.append(_c.watch(self._addr, before))
            self._slots.append(_c.watch(body_hi, after))
        except BaseException:           # too many guarded buffers at once: give the mapping back
            self.close()
            raise

    def _plain(self, shape, dtype, nbytes, zone):
        raw = np.full(nbytes + 2 * zone + _ALIGN, GUARD_BYTE, np.uint8)
        start = (-raw.ctypes.data - zone) % _ALIGN + zone
        self._head = raw[:start]
        self._tail = raw[start + nbytes:]
        self.array = raw[start:start + nbytes].view(dtype).reshape(shape)
        self._mem = raw
        self._zones = None

    def outside(self):
        """``(bytes before the start, bytes past the end)`` the kernel reached, each None if none.

        A reach is the distance from the array's end (or start) to the farthest
        byte that changed or that the kernel touched in a watched page; it stops
        watching, so call it once, after the kernel.
        """
        past = _changed_to(self._tail, from_start=True)
        early = _changed_to(self._head, from_start=False)
        if self._slots:
            results = [_c.unwatch(s) for s in self._slots]
            self._slots = []
            (b_faults, b_first, _), (a_faults, _, a_last) = results
            if a_faults:
                lo, length = self._after
                reach = _scan_written(lo, a_last) + len(self._tail)
                touched = a_last - lo + 1 + len(self._tail)
                past = max(reach, touched)
            if b_faults:
                lo, length = self._before
                early = (lo + length) - b_first + len(self._head)
        return early, past

    def close(self):
        """Unmap the buffer (the array must not be used after)."""
        for s in self._slots:
            _c.unwatch(s)
        self._slots = []
        if _c is not None and self._mem is not None and getattr(self, "_size", None):
            self._mem = self._head = self._tail = self.array = None
            _c.release(self._addr, self._size)
            self._size = 0


def _bytes_at(address, length):
    """A uint8 array over ``length`` bytes of memory at ``address`` (ctypes is imported on first use)."""
    import ctypes
    return np.ctypeslib.as_array((ctypes.c_uint8 * length).from_address(address))


def _changed_to(zone, from_start):
    """How far into a pattern zone a kernel wrote (from the array's side), or None."""
    changed = np.flatnonzero(zone != GUARD_BYTE)
    if not changed.size:
        return None
    return int(changed[-1]) + 1 if from_start else zone.size - int(changed[0])


def _scan_written(lo, last):
    """Bytes from ``lo`` to the last non-zero byte written in the watched pages up to ``last``'s page."""
    hi = (last // PAGE + 1) * PAGE
    _c.open(lo, hi - lo)                            # pages the kernel skipped read as zeros
    mem = _bytes_at(lo, hi - lo)
    nz = np.flatnonzero(mem)
    return int(nz[-1]) + 1 if nz.size else 0
