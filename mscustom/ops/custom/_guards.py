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
_MAX_DEVICE_REACH = 1 << 26     # a checked call's guard a side at most, when the inputs ask for more

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


def device_guard_size(nbytes, reach=0):
    """Guard bytes on each side of a device output of ``nbytes``: 4 KiB up to 1 MiB, a multiple of 256.

    ``reach`` (a checked call's: see ``reach_for``) raises it, up to 64 MiB.

    >>> device_guard_size(40), device_guard_size(5000), device_guard_size(1 << 30)
    (4096, 5120, 1048576)
    >>> device_guard_size(40, reach=3 << 20)
    3145728
    """
    g = min(max(4096, int(nbytes)), _MAX_DEVICE_GUARD)
    g = max(g, min(int(reach), _MAX_DEVICE_REACH))
    return -(-g // DEVICE_ALIGN) * DEVICE_ALIGN


def _host_pattern(nbytes):
    global _pattern
    if _pattern is None or _pattern.size < nbytes:
        _pattern = np.full(max(_MAX_DEVICE_GUARD, nbytes), GUARD_BYTE, np.uint8)
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

    def __init__(self, cuda, outputs, stream=None, reach=0):
        self._stream = stream
        stream = self._s = stream if stream is not None else 0
        self.views, self._zones = [], []
        for o in outputs:
            nbytes = o.nbytes
            if nbytes == 0:
                self.views.append(cuda.device_array(o.shape, o.dtype, stream=stream))
                self._zones.append(None)
                continue
            g = device_guard_size(nbytes, reach)
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


# ---------------------------------------------------------------- host buffers (CPU kernels)
# A kernel's checked call (the first call of each signature, every call under MSCUSTOM_DEBUG=1):
# its inputs and outputs lie in guarded buffers (mscustom/_core/kernelguard.py) and what it did
# outside them is reported naming the op and the kernel.

_COPY_INPUTS_MAX = 1 << 28          # inputs larger than this are passed as they are (not copied)


class OutOfBoundsError(IndexError, RuntimeError):
    """A kernel reached outside one of its inputs or outputs (found by a checked call).

    An IndexError (what an index past an array raises in NumPy) and a
    RuntimeError (what a failing kernel raises), so either ``except`` catches it.
    """


def run_on_guarded(kernel_call, inputs, outputs):
    """Run ``kernel_call(inputs, outputs)`` on guarded copies; copy the outputs back.

    Returns ``[(what, index, bytes before the start, bytes past the end)]`` for
    every buffer the kernel reached outside of (``what``: "input" or "output");
    the outputs are copied back only when that list is empty. Whatever the
    kernel raises propagates (the buffers are released first).
    """
    from ..._core import kernelguard
    reach = reach_for(inputs, outputs)
    guarded_in, guarded_out = [], []
    try:
        args = []
        for a in inputs:
            if a.nbytes > _COPY_INPUTS_MAX or a.nbytes == 0:
                args.append(np.ascontiguousarray(a))
                guarded_in.append(None)
                continue
            g = kernelguard.GuardedBuffer(a.shape, a.dtype, reach)
            g.array[...] = a
            guarded_in.append(g)
            args.append(g.array)
        for o in outputs:
            g = kernelguard.GuardedBuffer(o.shape, o.dtype, reach)
            guarded_out.append(g)
        kernel_call(args, [g.array for g in guarded_out])
        found = []
        for what, bufs in (("input", guarded_in), ("output", guarded_out)):
            for j, g in enumerate(bufs):
                if g is None:
                    continue
                early, past = g.outside()
                if early is not None or past is not None:
                    found.append((what, j, early, past))
        if not found:
            for g, o in zip(guarded_out, outputs):
                o[...] = g.array
        return found
    finally:
        for g in guarded_in + guarded_out:
            if g is not None:
                g.close()


def reach_for(inputs, outputs):
    """Bytes to guard on each side: twice what a loop over the largest buffer's elements can cover."""
    arrays = list(inputs) + list(outputs)
    if not arrays:
        return 0
    most = max(a.size for a in arrays)
    widest = max(a.itemsize for a in arrays)
    return 2 * most * widest


def describe_outside(op_name, kernel, found, inputs, outputs, when, how=""):
    """The error text for ``run_on_guarded``'s findings: what, how far, and the likely out_shape.

    ``kernel`` names the kernel (e.g. "jit kernel 'k'"); ``when`` says which check found it;
    ``how``, if given, what stopped the kernel first (e.g. Numba's bounds check), said before the rest.
    """
    lines = []
    for what, j, early, past in found:
        arr = outputs[j] if what == "output" else inputs[j]
        desc = f"{what} {j} (shape {list(arr.shape)}, {arr.dtype}, {arr.nbytes} bytes)"
        verb = "wrote" if what == "output" else "read"
        parts = []
        if past is not None:
            parts.append(f"{verb} {past} byte(s) past the end of {desc}")
        if early is not None:
            parts.append(f"{verb} {early} byte(s) before the start of {desc}")
        line = " and ".join(parts)
        if what == "output" and past is not None:
            line += _out_shape_hint(arr, past, inputs)
        lines.append(line)
    return (f"op '{op_name}': {kernel} " + (f"{how}: it " if how else "") + "; it also ".join(lines) +
            f". {when}; the buffers it reached outside of were guarded, so nothing was corrupted. "
            "MSCUSTOM_DEBUG=1 checks every call (indices that depend on the data).")


def _out_shape_hint(out, past, inputs):
    """Words on the out_shape that would hold what the kernel wrote."""
    if out.itemsize == 0:
        return ""
    elems = (out.nbytes + past) // out.itemsize
    same = [k for k, a in enumerate(inputs) if a.size == elems]
    held = f": it wrote at least {elems} element(s) where out_shape gives {out.size}"
    if same:
        k = same[0]
        example = "lambda x: x" if len(inputs) == 1 else f"lambda *shapes: shapes[{k}]"
        return (f"{held}, as many as input {k} (shape {list(inputs[k].shape)}) holds; the likely out_shape "
                f"is input {k}'s shape (out_shape={example})")
    return f"{held}; check the out_shape (e.g. [{elems}]) and the kernel's loop bounds"
