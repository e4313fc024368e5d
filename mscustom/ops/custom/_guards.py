"""Guard zones around kernel outputs in debug mode (``MSCUSTOM_DEBUG=1``), shared by the jit and aot kinds.

A kernel in debug mode writes each output inside a larger byte buffer whose
zones before and after the output are filled with ``GUARD_BYTE``; after the
kernel returns, any changed guard byte shows that it wrote outside the output,
and how far. The CPU runners keep their buffers in host memory
(``jit._guarded_runner``, ``aot.runners.debug_runner``); GPU outputs use
``GuardedOutputs``: one device buffer per output, the guard zones filled by
copying a host pattern to the device (no kernel launch), and copied back after
the kernel, which costs two small host<->device copies each way per output.
``overrun`` words what was found; each kind raises its own error with it.
"""

import numpy as np

__all__ = ["GUARD_BYTE", "DEVICE_ALIGN", "overrun", "device_guard_size", "GuardedOutputs"]

GUARD_BYTE = 0xA5
DEVICE_ALIGN = 256          # CUDA allocations start on 256 bytes; a guard of a multiple keeps outputs there
_MAX_DEVICE_GUARD = 1 << 20

_pattern = None             # host bytes of GUARD_BYTE, copied into device guard zones (made once, on first use)


def overrun(before, after):
    """How far a kernel wrote outside an output, from its guard zones (host uint8 arrays), or None.

    ``before`` ends where the output starts, ``after`` starts where it ends.

    >>> g = np.full(8, GUARD_BYTE, np.uint8)
    >>> h = g.copy(); h[2] = 0
    >>> overrun(g, h)
    '3 byte(s) past its end'
    >>> overrun(h, g)
    '6 byte(s) before its start'
    >>> overrun(g, g) is None
    True
    """
    past = np.flatnonzero(after != GUARD_BYTE)
    early = np.flatnonzero(before != GUARD_BYTE)
    if not past.size and not early.size:
        return None
    where = []
    if past.size:
        reach = int(past[-1]) + 1
        where.append(f"{reach} byte(s) past its end"
                     + (" (at least: the guard zone is full)" if reach >= after.size else ""))
    if early.size:
        where.append(f"{before.size - int(early[0])} byte(s) before its start")
    return " and ".join(where)


def device_guard_size(nbytes):
    """Guard bytes on each side of a device output of ``nbytes``: 4 KiB up to 1 MiB, a multiple of 256.

    >>> device_guard_size(40), device_guard_size(5000), device_guard_size(1 << 30)
    (4096, 5120, 1048576)
    """
    g = min(max(4096, int(nbytes)), _MAX_DEVICE_GUARD)
    return -(-g // DEVICE_ALIGN) * DEVICE_ALIGN


def _host_pattern(nbytes):
    global _pattern
    if _pattern is None:
        _pattern = np.full(_MAX_DEVICE_GUARD, GUARD_BYTE, np.uint8)
    return _pattern[:nbytes]


class GuardedOutputs:
    """One call's outputs on a CUDA device, each inside a device byte buffer with guard zones around it.

    ``cuda`` is ``numba.cuda`` (or its simulator); ``outputs`` the host arrays
    whose shapes and dtypes the device outputs take; ``stream`` a numba-cuda
    stream, or None for the default stream (synchronous copies). ``views`` are the
    device arrays to hand the kernel, each starting ``device_guard_size``
    bytes into its buffer (256-byte aligned, as a plain allocation is).
    Zero-size outputs get a plain empty device array: a kernel cannot write
    into them in bounds, and an empty view has no address to guard.

    Example (in Numba's simulator or on a GPU)::

        guards = GuardedOutputs(cuda, [out], stream)
        kernel(d_x, *guards.views)
        for j, where in guards.overruns():
            raise IndexError(f"output {j}: {where}")
        guards.copy_to_host([out])
    """

    def __init__(self, cuda, outputs, stream=None):
        self._stream = stream
        stream = self._s = stream if stream is not None else 0
        self.views, self._zones = [], []
        for o in outputs:
            nbytes = o.nbytes
            if nbytes == 0:
                self.views.append(cuda.device_array(o.shape, o.dtype, stream=stream))
                self._zones.append(None)
                continue
            g = device_guard_size(nbytes)
            buf = cuda.device_array(nbytes + 2 * g, np.uint8, stream=stream)
            before, after = buf[:g], buf[g + nbytes:]
            before.copy_to_device(_host_pattern(g), stream=stream)
            after.copy_to_device(_host_pattern(g), stream=stream)
            self.views.append(buf[g:g + nbytes].view(o.dtype).reshape(o.shape))
            self._zones.append((before, after))

    def overruns(self):
        """``[(output index, how far it wrote)]`` for every output whose guard zones changed.

        Copies the guard zones back and waits for the stream (the kernel's
        work on it included).
        """
        host = []
        for zones in self._zones:
            if zones is None:
                host.append(None)
                continue
            pair = tuple(np.empty(z.shape, np.uint8) for z in zones)
            for z, h in zip(zones, pair):
                z.copy_to_host(h, stream=self._s)
            host.append(pair)
        if self._stream is not None:
            self._stream.synchronize()
        found = []
        for j, pair in enumerate(host):
            where = overrun(*pair) if pair is not None else None
            if where is not None:
                found.append((j, where))
        return found

    def copy_to_host(self, outputs):
        """Copy the device outputs into ``outputs`` (waits for the stream when there is one)."""
        for d, o in zip(self.views, outputs):
            d.copy_to_host(o, stream=self._s)
        if self._stream is not None:
            self._stream.synchronize()
