"""Kernel kind "jit": Python kernels compiled by Numba (``njit`` on CPU, ``numba.cuda.jit`` on GPU).

A jit kernel writes into outputs the dispatcher has already allocated
(destination passing)::

    def square_kernel(x, out):
        for i in range(x.size):
            out[i] = x[i] * x[i]

    square = ops.Custom(square_kernel, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="jit")

It is called as ``kernel(*inputs, *outputs, *attr_values)``: the call's
arguments in call order (Python scalars stay scalars), then the outputs, then
the reg-info attribute values in reg-info order.

CPU: the function is compiled with ``numba.njit(cache=True)`` (Numba's on-disk
cache; where caching is impossible, e.g. a function defined by ``exec`` or in
a REPL, it is compiled without it). ``parallel=True`` is used when the kernel
refers to ``prange`` or the op's options ask for it. A function the user
already decorated with ``numba.njit`` is used as it is. Compilation happens
once per input signature (dtypes and ranks), eagerly, when the op is first
called with it; the call then goes straight to the compiled entry point,
skipping Numba's own type dispatch. Inputs that are not C-contiguous are
copied to contiguous arrays first. Numba caches treat global variables as
constants: change a global the kernel reads and you must clear the cache.

Debugging: with ``ops.Custom(..., func_type="jit", debug=True)`` or the
environment variable ``MSCUSTOM_JIT_DISABLE=1`` (read when the op is made), a
CPU kernel runs as plain Python instead (``prange`` works as ``range``), so
``print`` and ``pdb`` work inside it; results are the same, only slower. GPU
kernels are debugged in Numba's simulator instead (see below).

GPU: the function is compiled with ``numba.cuda.jit`` and launched with one
thread per element of the first output (the kernel uses ``cuda.grid(1)`` and
checks its bound), or as ``ops.Custom(..., launch=(blocks, threads))`` says.
Tensors live in host memory for now, so every call copies the inputs to the
device and the outputs back. Without a CUDA device the first GPU call raises a
RuntimeError; Numba's simulator (``NUMBA_ENABLE_CUDASIM=1`` in the environment
before Numba is imported) runs GPU kernels on the CPU, one Python thread per
GPU thread, for testing.

Numba is imported when the first jit kernel is made, never by ``import mscustom``.
In a fresh process, a kernel already in Numba's disk cache is loaded straight
from it (``_numba_cache``: about 20 ms instead of Numba's 130+ ms start-up).

fork(): a process that ran parallel kernels can ``os.fork()`` (or use
``multiprocessing`` with "fork") and the child runs them again, on its own
threads, under Numba's default threading layers (``_forksafe`` says how).
"""

import os
import threading
import time
import warnings

import numpy as np

from ..._core.kernel import KernelEntry, Signature
from . import _common, _forksafe, _numba_cache

__all__ = ["make_kernel", "DISABLE_ENV"]

_forksafe.install()         # parallel kernels keep working in a forked child (see _forksafe)

DISABLE_ENV = "MSCUSTOM_JIT_DISABLE"
_MAX_THREADS = 256
_perf = time.perf_counter


def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options):
    """Build the KernelEntry for a jit kernel on ``target`` ("CPU" or "GPU").

    Compilation itself waits until the first call with a given signature.

    Example::

        def add_kernel(a, b, out):
            for i in range(out.size):
                out[i] = a[i] + b[i]

        entry = make_kernel(add_kernel, op_name="add", target="CPU", rows=None,
                            attr_specs=[], n_out=1, options={})
    """
    options = dict(options or {})
    if target not in ("CPU", "GPU"):
        raise ValueError(f"op '{op_name}': jit kernels run on 'CPU' or 'GPU' (Numba), not {target!r}; "
                         "use func_type='aot' or 'pyfunc' for other targets")
    if not callable(func):
        raise TypeError(f"op '{op_name}': a jit kernel must be a Python function (or a numba.njit "
                        f"function), got {type(func).__name__}")
    launch = _check_launch(options.get("launch"), op_name)
    debug = bool(options.get("debug")) or os.environ.get(DISABLE_ENV, "") not in ("", "0")
    py_func = getattr(func, "py_func", func)
    kname = getattr(py_func, "__name__", type(func).__name__)
    entry = KernelEntry(target=target, fn=None, allocates=False, rows=rows, kind="jit",
                        name=f"jit:{kname}[{target}]" + ("(python)" if debug and target == "CPU" else ""))
    kernel = _JitKernel(entry, op_name, func, py_func, kname, list(attr_specs or ()),
                        n_out, options, launch, debug)
    if target == "CPU" and not debug:
        kernel.dispatcher = _cpu_dispatcher(func, py_func, options, op_name, kname)
    entry.bind = kernel.bind
    entry.fn = kernel.run_unbound
    return entry


def _check_launch(launch, op_name):
    if launch is None:
        return None
    ok = (isinstance(launch, (tuple, list)) and len(launch) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in launch))
    if not ok:
        raise ValueError(f"op '{op_name}': launch must be (blocks, threads), two positive ints, got {launch!r}")
    return tuple(launch)


def _uses_prange(py_func):
    code = getattr(py_func, "__code__", None)
    return code is not None and "prange" in code.co_names


def _cpu_dispatcher(func, py_func, options, op_name, kname):
    """The Numba CPU dispatcher: the user's own njit function, or ``njit(cache=True)`` of theirs."""
    import numba
    from numba.core.registry import CPUDispatcher
    if isinstance(func, CPUDispatcher):
        return func
    parallel = bool(options.get("parallel")) or _uses_prange(py_func)
    try:
        return numba.njit(cache=True, parallel=parallel)(py_func)
    except RuntimeError:                    # no cache locator (exec, REPL, read-only tree)
        return numba.njit(parallel=parallel)(py_func)
    except Exception as exc:
        raise TypeError(f"op '{op_name}': Numba cannot wrap jit kernel '{kname}': {exc}") from exc


class _JitKernel:
    """Per-kernel state shared by its signatures: the dispatcher(s) and a compile lock."""

    def __init__(self, entry, op_name, func, py_func, kname, attr_specs, n_out, options, launch, debug):
        self.entry, self.op_name, self.func, self.py_func = entry, op_name, func, py_func
        self.kname, self.attr_specs, self.n_out = kname, attr_specs, n_out
        self.options, self.launch, self.debug = options, launch, debug
        self.dispatcher = None
        self.cuda_kernel = None
        self.lock = threading.Lock()

    def run_unbound(self, attrs, inputs, req, outputs):
        """Run without a cached plan: bind for these arrays, then call (slow path)."""
        sig = Signature([a.shape for a in inputs], [a.dtype for a in inputs], ["DefaultFormat"] * len(inputs),
                        [o.shape for o in outputs], [o.dtype for o in outputs], attrs)
        return self.bind(None, sig)(attrs, inputs, req, outputs)

    def bind(self, op, sig):
        """Compile for this signature (once) and return the runner."""
        template = (sig.attrs or {}).get("__template__")
        if template is None:
            template = (None,) * len(sig.in_shapes)
        extra = tuple(_common.attr_values(sig.attrs, self.attr_specs)) if self.attr_specs else ()
        if self.entry.target == "GPU":
            return self._bind_gpu(sig, template, extra)
        if self.debug:
            return _runner(self, self.py_func, template, extra)
        types = _numba_types(sig, template, extra)
        return _runner(self, self._compile(types), template, extra)

    # ------------------------------------------------------------ CPU
    def _compile(self, types):
        """The compiled entry point for ``types`` (Numba's dispatch skipped on every call)."""
        from numba.core.errors import NumbaError, NumbaWarning
        dispatcher = self.dispatcher
        with self.lock:
            entry = _numba_cache.load_cached(dispatcher, types)
            if entry is not None:
                return entry
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="Cannot cache compiled function",
                                            category=NumbaWarning)
                    return dispatcher.compile(types)
            except NumbaError as exc:
                raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' failed to compile "
                                   f"for ({', '.join(str(t) for t in types)}): {exc}") from exc
            except TypeError:
                if getattr(dispatcher, "_can_compile", True):
                    raise
                # an njit function with explicit signatures: let Numba pick among them per call
                return dispatcher

    # ------------------------------------------------------------ GPU
    def _bind_gpu(self, sig, template, extra):
        cuda = _cuda(self.op_name, self.kname)
        with self.lock:
            if self.cuda_kernel is None:
                f = self.func
                self.cuda_kernel = f if hasattr(f, "configure") or type(f).__name__ == "FakeCUDAKernel" \
                    else cuda.jit(self.py_func)
        kernel = self.cuda_kernel
        if self.launch is not None:
            blocks, threads = self.launch
        else:
            n = int(np.prod(sig.out_shapes[0], dtype=np.int64)) if sig.out_shapes else 1
            threads = max(1, min(_MAX_THREADS, n))
            blocks = max(1, -(-n // threads))
        if not _simulated() and hasattr(kernel, "compile"):
            types = _numba_types(sig, template, extra)
            with self.lock:
                try:
                    kernel.compile(types)
                except Exception as exc:
                    raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' failed to compile "
                                       f"for the GPU: {exc}") from exc
        return _gpu_runner(self, cuda, kernel[blocks, threads], template, extra)

    def fail(self, exc):
        raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' raised "
                           f"{type(exc).__name__}: {exc}") from exc


def _numba_types(sig, template, extra):
    """Numba argument types: C-contiguous arrays for tensors, typeof() for scalars and attrs."""
    import numba
    from numba.core import types
    arrays = [types.Array(numba.from_dtype(np.dtype(d)), len(s), "C")
              for s, d in zip(sig.in_shapes, sig.in_dtypes)]
    it = iter(arrays)
    args = [next(it) if item is None else numba.typeof(item) for item in template]
    args += [types.Array(numba.from_dtype(np.dtype(d)), len(s), "C")
             for s, d in zip(sig.out_shapes, sig.out_dtypes)]
    args += [numba.typeof(v) for v in extra]
    return tuple(args)


def _runner(kernel, fn, template, extra):
    """The per-call function; the common all-tensor, no-attribute case is kept shortest."""
    stats, fail, perf = kernel.entry.stats, kernel.fail, _perf
    contiguous = np.ascontiguousarray
    plain = not extra and all(item is None for item in template)

    if plain and len(template) == 1 and kernel.n_out == 1:
        def run(attrs, inputs, req, outputs):
            try:
                fn(contiguous(inputs[0]), outputs[0])
            except Exception as exc:
                fail(exc)
    elif plain and len(template) == 2 and kernel.n_out == 1:
        def run(attrs, inputs, req, outputs):
            try:
                fn(contiguous(inputs[0]), contiguous(inputs[1]), outputs[0])
            except Exception as exc:
                fail(exc)
    else:
        interleave = _common.interleave

        def run(attrs, inputs, req, outputs):
            try:
                fn(*interleave(template, [contiguous(a) for a in inputs]), *outputs, *extra)
            except Exception as exc:
                fail(exc)
    return run


def _gpu_runner(kernel, cuda, launcher, template, extra):
    """Copy inputs to the device, launch, copy outputs back (tensors live on the host for now)."""
    stats, fail, perf, interleave = kernel.entry.stats, kernel.fail, _perf, _common.interleave

    def run(attrs, inputs, req, outputs):
        try:
            d_in = [cuda.to_device(np.ascontiguousarray(a)) for a in inputs]
            d_out = [cuda.device_array(o.shape, o.dtype) for o in outputs]
            launcher(*interleave(template, d_in), *d_out, *extra)
            for d, o in zip(d_out, outputs):
                d.copy_to_host(o)
        except Exception as exc:
            fail(exc)
    return run


def _simulated():
    from numba import config
    return bool(config.ENABLE_CUDASIM)


def _cuda(op_name, kname):
    """``numba.cuda`` when a device (or Numba's simulator) is there; a clear RuntimeError otherwise."""
    try:
        from numba import cuda
    except ImportError as exc:
        raise RuntimeError(f"op '{op_name}': jit kernel '{kname}' targets GPU, which needs numba-cuda "
                           f"(pip install numba-cuda): {exc}") from exc
    if not cuda.is_available():
        raise RuntimeError(f"op '{op_name}': jit kernel '{kname}' targets GPU, but no CUDA device is "
                           "available; call ms.set_device('CPU'), or set NUMBA_ENABLE_CUDASIM=1 before "
                           "starting Python to run GPU kernels in Numba's simulator")
    return cuda
