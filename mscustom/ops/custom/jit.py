"""Kernel kind "jit": Python kernels compiled by Numba (``njit`` on CPU, ``numba.cuda.jit`` on GPU).

A jit kernel writes into outputs the dispatcher has already allocated
(destination passing); ``x.size`` and ``.flat`` keep a loop right for inputs
of any rank::

    def square_kernel(x, out):
        for i in range(x.size):
            out.flat[i] = x.flat[i] * x.flat[i]

    square = ops.Custom(square_kernel, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="jit")

It is called as ``kernel(*inputs, *outputs, *attr_values)``: the call's
arguments in call order (Python scalars stay scalars), then the outputs, then
the reg-info attribute values in reg-info order. It returns nothing: a kernel
that returns a value, or whose parameters do not match that list, is refused
with an error naming the op.

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
``print`` and ``pdb`` work inside it; results are the same, only slower.
Checked calls: the first call of every new signature runs a bounds-checked
build (Numba's ``boundscheck=True``, in Numba's disk cache apart from the
plain build) on guarded buffers (``_guards.run_on_guarded``: inputs copied,
outputs allocated between watched pages, ``mscustom/_core/kernelguard.py``):
an index past an axis, or a reach outside any input or output (``.flat``
included, which Numba does not check), raises an ``OutOfBoundsError`` naming
the op, the kernel, the buffer, how far it reached and the likely out_shape,
instead of corrupting memory; then the signature's calls run the plain build.
With ``MSCUSTOM_DEBUG=1`` (or ``ms.set_context(debug=True)``; see
``mscustom.context.debug_enabled``, read when a signature is first bound)
every call is checked so. GPU outputs get guard zones in device memory on the
same calls (``_guards.GuardedOutputs``: the zones are copied back and checked
after the kernel); numba-cuda does not bounds-check ``cuda.jit`` kernels, so
there the guard zones are the check. Numba's simulator (below) raises its own
IndexError for an index out of range. While a CPU kernel runs, its thread's
crash label names it: a fatal signal prints the op and the kernel before the
Python stack.

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
from it (``mscustom/_numba_private/cache.py``: about 20 ms instead of Numba's 130+ ms start-up).

fork(): a process that ran parallel kernels can ``os.fork()`` (or use
``multiprocessing`` with "fork") and the child runs them again, on its own
threads, under Numba's default threading layers (``_forksafe`` and
``mscustom/_numba_private/forksafe.py`` say how). A
fork while another thread compiles a kernel waits for that compile to end, so
the child never inherits a compile lock held by a thread it does not have.
"""

import ast
import inspect
import logging  # noqa: F401  (imported before our fork hook is registered, so its hook runs after ours)
import os
import textwrap
import threading
import warnings
import weakref

import numpy as np

from ... import _threads
from ... import context as _context
from ..._numba_private import cache as _numba_cache
from ..._numba_private import forksafe as _numba_forksafe
from ..._core import kernelguard as _kernelguard
from . import _common, _forksafe, _guards
from ._arity import kernel_arity
from ._buildlog import logs_jit_build
from .kind import make_entry, register_kind
from .rules import BIG, positional_range

__all__ = ["JitKind", "make_kernel", "DISABLE_ENV"]

_forksafe.install()         # parallel kernels keep working in a forked child (see _forksafe)

DISABLE_ENV = "MSCUSTOM_JIT_DISABLE"
_MAX_THREADS = 256
_FORK_WAIT_S = 10.0         # how long a fork waits for an in-flight compile before abandoning it


# ---------------------------------------------------------------- compiles and fork
_compile_lock = threading.RLock()      # held around every Numba compile or cache load made here
_fork_held = []


def _before_fork():
    # wait (a bounded time) for an in-flight compile, so the child does not inherit half-made Numba
    # state; hooks run in reverse registration order, so logging's lock, which compiles take, is
    # still free here. After the wait the child replaces the locks anyway.
    _fork_held.append(_compile_lock.acquire(timeout=_FORK_WAIT_S))


def _after_fork_in_parent():
    if _fork_held.pop():
        _compile_lock.release()


def _after_fork_in_child():
    global _compile_lock
    _fork_held.clear()
    _compile_lock = threading.RLock()
    # a compile that some other thread ran outside mscustom: its lock is dead in the child
    _numba_forksafe.fresh_compiler_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)


# ---------------------------------------------------------------- the kind
class JitKind:
    """The "jit" kind: Numba on CPU and GPU; runners write into preallocated outputs."""

    name = "jit"
    options = ("launch", "parallel", "debug", "vector_math")
    default_targets = ("CPU", "GPU")
    allocates = False
    arity_note = "less its outputs and attributes"       # what arity() leaves out, for error messages

    def check(self, func, op_name, options):
        """Validate the kernel and return its ``JitFunction`` (shared by the op's targets)."""
        if isinstance(func, JitFunction):
            return func
        if not callable(func):
            raise TypeError(f"op '{op_name}': a jit kernel must be a Python function (or a numba.njit "
                            f"function), got {type(func).__name__}")
        return JitFunction(func, op_name, dict(options or {}))

    def arity(self, func, attr_specs, n_out, pending):
        """Call arguments: the kernel's parameters less the outputs and attributes that follow them."""
        return kernel_arity(func.arity, n_out, attr_specs, pending)

    def kernel_name(self, func, target, options):
        return f"jit:{func.kname}[{target}]" + ("(python)" if func.python and target == "CPU" else "")

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        """Compile for this signature (once) and return the runner."""
        if target not in ("CPU", "GPU"):
            raise ValueError(f"op '{op_name}': jit kernels run on 'CPU' or 'GPU' (Numba), not {target!r}; "
                             "use func_type='aot' or 'pyfunc' for other targets")
        template = (sig.attrs or {}).get(_common.TEMPLATE_KEY)
        if template is None:
            template = (None,) * len(sig.in_shapes)
        extra = tuple(_common.attr_values(sig.attrs, attr_specs)) if attr_specs else ()
        func.check_arity(len(template), n_out, len(extra))
        if target == "GPU":
            return func.bind_gpu(sig, template, extra)
        label = _label(self.kernel_name(func, target, options), op_name)
        _threads.apply_default_at_start()
        if func.python:
            return _runner(func, func.py_func, template, extra, n_out, label)
        _kernelguard.install()
        checked_fn = func.compile(func.types(sig, template, extra), checked=True)
        if _context.debug_enabled():
            return _guarded_runner(func, checked_fn, None, template, extra, label, "a check of every call "
                                   "(MSCUSTOM_DEBUG=1)")
        fn = func.compile(func.types(sig, template, extra))
        run = _runner(func, fn, template, extra, n_out, label)
        # the signature's first call runs bounds-checked on guarded buffers (mscustom/_core/dispatch.py
        # calls run.first_call once, then run itself)
        run.first_call = _guarded_runner(func, checked_fn, fn, template, extra, label,
                                         f"Found by the first call's check of this signature ({_shapes(sig)})")
        return run


def _label(kernel_name, op_name):
    """What a crash report prints for this kernel (mscustom/_core/kernelguard.py)."""
    return f"op '{op_name}', kernel {kernel_name}".encode("utf-8", "replace")


def _shapes(sig):
    return ", ".join(f"{list(s)} {np.dtype(d).name}" for s, d in zip(sig.in_shapes, sig.in_dtypes))


KIND = register_kind(JitKind())


def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options):
    """The KernelEntry of a jit kernel on ``target`` (until the dispatcher takes kinds directly).

    Compilation itself waits until the first call with a given signature.

    Example::

        def add_kernel(a, b, out):
            for i in range(out.size):
                out.flat[i] = a.flat[i] + b.flat[i]

        entry = make_kernel(add_kernel, op_name="add", target="CPU", rows=None,
                            attr_specs=[], n_out=1, options={})
    """
    if target not in ("CPU", "GPU"):
        raise ValueError(f"op '{op_name}': jit kernels run on 'CPU' or 'GPU' (Numba), not {target!r}; "
                         "use func_type='aot' or 'pyfunc' for other targets")
    func = KIND.check(func, op_name, options)
    return make_entry(KIND, func, op_name=op_name, target=target, rows=rows, attr_specs=attr_specs,
                      n_out=n_out, options=options)


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


def _value_return_line(py_func):
    """The line of a ``return <value>`` in the kernel's own body, or None (unknown source counts as none)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(py_func)))
        first = inspect.getsourcelines(py_func)[1]
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    fn = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fn is None:
        return None
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None and \
                not (isinstance(node.value, ast.Constant) and node.value.value is None):
            return first + node.lineno - 1
        todo.extend(ast.iter_child_nodes(node))
    return None


# py_func -> {(parallel, checked): Numba dispatcher}, shared by every op made from the function
_DISPATCHERS = weakref.WeakKeyDictionary()


class JitFunction:
    """A checked jit kernel: its Python source, Numba dispatchers (plain and bounds-checked) and options."""

    def __init__(self, func, op_name, options):
        self.func, self.op_name, self.options = func, op_name, options
        self.py_func = getattr(func, "py_func", func)
        self.kname = getattr(self.py_func, "__name__", type(func).__name__)
        self.launch = _check_launch(options.get("launch"), op_name)
        self.python = bool(options.get("debug")) or os.environ.get(DISABLE_ENV, "") not in ("", "0")
        line = _value_return_line(self.py_func)
        if line is not None:
            raise TypeError(f"op '{op_name}': jit kernel '{self.kname}' returns a value (line {line}); a jit "
                            f"kernel writes its results into its output arguments, "
                            f"kernel(*inputs, *outputs, *attrs), and returns nothing")
        self.arity = positional_range(self.py_func)
        self.dispatcher = None
        self.checked_dispatcher = None
        self.cuda_kernel = None
        if not self.python and not _is_cuda_kernel(func):
            self.dispatcher = self._cpu_dispatcher(checked=False)

    def check_arity(self, n_args, n_out, n_attrs):
        """A TypeError naming the op when the kernel cannot take inputs + outputs + attributes."""
        if self.arity is None:
            return
        lo, hi, _ = self.arity
        n = n_args + n_out + n_attrs
        if lo <= n <= hi:
            return
        takes = str(lo) if lo == hi else (f"at least {lo}" if hi == BIG else f"{lo} to {hi}")
        raise TypeError(f"op '{self.op_name}': jit kernel '{self.kname}' takes {takes} argument(s), but it is "
                        f"called as kernel(*inputs, *outputs, *attrs) with {n_args} input(s) + {n_out} "
                        f"output(s) + {n_attrs} attribute(s) = {n}; give it one parameter for each")

    def types(self, sig, template, extra):
        """Numba's argument types for a signature, or a TypeError naming the op and what Numba refused."""
        try:
            return _numba_types(sig, template, extra)
        except Exception as exc:            # Numba has no type for it (float16, a str attribute, ...)
            given = [np.dtype(d).name for d in sig.in_dtypes] + [repr(v) for v in template if v is not None]
            raise TypeError(f"op '{self.op_name}': jit kernel '{self.kname}' cannot take arguments "
                            f"({', '.join(given)}) with attributes {list(extra)}: Numba has no type for one of "
                            f"them ({type(exc).__name__}: {exc}); cast the input or use func_type='pyfunc'") \
                from exc

    # ------------------------------------------------------------ CPU
    def _cpu_dispatcher(self, checked):
        """``njit(cache=True)`` of the source, the user's own njit function, or a bounds-checked build.

        Ops made from the same function with the same options share one dispatcher (and so its
        compiled code): making many ops from one kernel costs no more compiled memory than one.
        """
        from numba.core.registry import CPUDispatcher
        if isinstance(self.func, CPUDispatcher) and not checked:
            return self.func
        parallel = bool(self.options.get("parallel")) or _uses_prange(self.py_func)
        with _compile_lock:
            try:
                shared = _DISPATCHERS.setdefault(self.py_func, {})
            except TypeError:               # not weak-referenceable: one dispatcher for this op
                shared = {}
            key = (parallel, checked, repr(self.options.get("vector_math", True)))   # checked when built
            dispatcher = shared.get(key)
            if dispatcher is None:
                dispatcher = shared[key] = self._new_cpu_dispatcher(parallel, checked)
            return dispatcher

    def _new_cpu_dispatcher(self, parallel, checked):
        import numba
        from .vecmath import lowering      # math.* / np.* calls -> vecmath, unless vector_math=False
        func, tag = lowering.for_kernel(self.py_func, self.options, self.op_name)
        try:
            if checked:                     # cached in files of its own: the cache keys ignore boundscheck
                try:
                    dispatcher = numba.njit(cache=True, parallel=parallel, boundscheck=True)(func)
                except RuntimeError:        # no cache locator (exec, REPL, read-only tree)
                    return numba.njit(parallel=parallel, boundscheck=True)(func)
                _numba_cache.separate_cache(dispatcher, "boundscheck" + (f"-{tag}" if tag else ""))
                return dispatcher
            try:
                dispatcher = numba.njit(cache=True, parallel=parallel)(func)
            except RuntimeError:            # no cache locator (exec, REPL, read-only tree)
                return numba.njit(parallel=parallel)(func)
            if tag:                         # the lowered copy: files of its own, named for the vecmath sources
                _numba_cache.separate_cache(dispatcher, tag)
            return dispatcher
        except Exception as exc:
            raise TypeError(f"op '{self.op_name}': Numba cannot wrap jit kernel '{self.kname}': {exc}") from exc

    @logs_jit_build
    def compile(self, types, checked=False):
        """The compiled entry point for ``types`` (Numba's dispatch skipped on every call)."""
        from numba.core.errors import NumbaError, NumbaWarning
        with _compile_lock:
            if checked:
                if self.checked_dispatcher is None:
                    self.checked_dispatcher = self._cpu_dispatcher(checked=True)
                dispatcher = self.checked_dispatcher
            else:
                if self.dispatcher is None:
                    self.dispatcher = self._cpu_dispatcher(checked=False)
                dispatcher = self.dispatcher
            entry = _numba_cache.load_cached(dispatcher, types)
            if entry is not None:
                return entry
            try:
                try:
                    with warnings.catch_warnings():
                        warnings.filterwarnings("ignore", message="Cannot cache compiled function",
                                                category=NumbaWarning)
                        return dispatcher.compile(types)
                except (ImportError, AttributeError, EOFError, OSError, ValueError) as exc:
                    # Numba's disk cache held an entry it cannot load here (pickled under another
                    # module name, a truncated file, ...): compile once more without the cache
                    if not _numba_cache.uses_disk_cache(dispatcher):
                        raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' failed to "
                                           f"compile: {type(exc).__name__}: {exc}") from exc
                    warnings.warn(f"op '{self.op_name}': Numba's cache entry for jit kernel '{self.kname}' "
                                  f"could not be loaded ({type(exc).__name__}: {exc}); compiling it "
                                  "without the cache", RuntimeWarning, stacklevel=2)
                    _numba_cache.drop_disk_cache(dispatcher)
                    try:
                        return dispatcher.compile(types)
                    except (ImportError, AttributeError, EOFError, OSError, ValueError) as again:
                        # not the cache after all: the same error without it, named for the op
                        raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' failed to "
                                           f"compile: {type(again).__name__}: {again}") from again
            except (NumbaError, NotImplementedError) as exc:     # NotImplementedError: e.g. float16
                if isinstance(exc, NumbaError):     # short: Numba's reason, the user's line, the argument
                    from ._kernel_errors import compile_error, parameters
                    raise compile_error(exc, what=f"op '{self.op_name}': jit kernel '{self.kname}'",
                                        params=parameters(self.py_func), types=types) from exc
                raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' failed to compile "
                                   f"for ({', '.join(str(t) for t in types)}): {type(exc).__name__}: {exc}") \
                    from exc
            except TypeError:
                if getattr(dispatcher, "_can_compile", True):
                    raise
                # an njit function with explicit signatures: let Numba pick among them per call
                return dispatcher

    # ------------------------------------------------------------ GPU
    def bind_gpu(self, sig, template, extra):
        cuda = _cuda(self.op_name, self.kname)
        with _compile_lock:
            if self.cuda_kernel is None:
                self.cuda_kernel = self.func if _is_cuda_kernel(self.func) else cuda.jit(self.py_func)
        kernel = self.cuda_kernel
        if self.launch is not None:
            blocks, threads = self.launch
        else:
            n = int(np.prod(sig.out_shapes[0], dtype=np.int64)) if sig.out_shapes else 1
            threads = max(1, min(_MAX_THREADS, n))
            blocks = max(1, -(-n // threads))
        if not _simulated() and hasattr(kernel, "compile"):
            types = self.types(sig, template, extra)
            with _compile_lock:
                try:
                    kernel.compile(types)
                except Exception as exc:
                    raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' failed to compile "
                                       f"for the GPU: {exc}") from exc
        launcher = kernel[blocks, threads]
        if _context.debug_enabled():
            return _gpu_runner(self, cuda, launcher, template, extra, guarded=True)
        run = _gpu_runner(self, cuda, launcher, template, extra)
        run.first_call = _gpu_runner(self, cuda, launcher, template, extra, guarded=True)
        return run

    def fail(self, exc):
        raise RuntimeError(f"op '{self.op_name}': jit kernel '{self.kname}' raised "
                           f"{type(exc).__name__}: {exc}") from exc


def _is_cuda_kernel(func):
    return hasattr(func, "configure") or type(func).__name__ == "FakeCUDAKernel"


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


# ---------------------------------------------------------------- runners
def _runner(kernel, fn, template, extra, n_out, label):
    """The per-call function; the common all-tensor, no-attribute case is kept shortest.

    ``label`` names the kernel for a crash report while it runs (``_core/kernelguard.py``).
    """
    fail = kernel.fail
    contiguous = np.ascontiguousarray
    plain = not extra and all(item is None for item in template)
    set_label = _kernelguard.set_label

    if plain and len(template) == 1 and n_out == 1:
        def run(attrs, inputs, req, outputs):
            set_label(label)
            try:
                fn(contiguous(inputs[0]), outputs[0])
            except Exception as exc:
                fail(exc)
            finally:
                set_label(None)
    elif plain and len(template) == 2 and n_out == 1:
        def run(attrs, inputs, req, outputs):
            set_label(label)
            try:
                fn(contiguous(inputs[0]), contiguous(inputs[1]), outputs[0])
            except Exception as exc:
                fail(exc)
            finally:
                set_label(None)
    else:
        interleave = _common.interleave

        def run(attrs, inputs, req, outputs):
            set_label(label)
            try:
                fn(*interleave(template, [contiguous(a) for a in inputs]), *outputs, *extra)
            except Exception as exc:
                fail(exc)
            finally:
                set_label(None)
    if plain and n_out == 1:
        run.fast_spec = ("into", fn, fail, None)      # fn(*inputs, out): mscustom/_core/fastcall.py
        run.label = label
    return run


def _guarded_runner(kernel, checked_fn, fn, template, extra, label, when):
    """A checked call: bounds-checked code on guarded buffers (``_guards.run_on_guarded``).

    An out-of-bounds index, or a reach past any input or output, raises an
    IndexError naming the op, the kernel, the buffer and how far it reached.
    Where the bounds-checked build stops at an index (``out[i]`` past the end),
    the plain build ``fn`` runs once more on guarded buffers to tell how far the
    loop goes (a plain build that stays inside every buffer means an index past
    one axis of a multi-dimensional array).
    """
    interleave = _common.interleave
    set_label = _kernelguard.set_label

    def call_with(compiled):
        def call(ins, outs):
            set_label(label)
            try:
                compiled(*interleave(template, ins), *outs, *extra)
            finally:
                set_label(None)
        return call

    def run(attrs, inputs, req, outputs):
        try:
            found = _guards.run_on_guarded(call_with(checked_fn), inputs, outputs)
        except IndexError as exc:
            found = None
            if fn is not None:
                try:
                    found = _guards.run_on_guarded(call_with(fn), inputs, [np.empty_like(o) for o in outputs])
                except Exception:
                    found = None
            if found:
                raise _guards.OutOfBoundsError(_guards.describe_outside(
                    kernel.op_name, f"jit kernel '{kernel.kname}'", found, inputs, outputs, when,
                    how=f"indexed out of bounds ({exc})")) from exc
            shapes = ", ".join(f"{list(a.shape)}" for a in list(inputs) + list(outputs))
            raise _guards.OutOfBoundsError(f"op '{kernel.op_name}': jit kernel '{kernel.kname}' indexed out of bounds "
                             f"({exc}) on an axis of an input or output (shapes of inputs then outputs: "
                             f"{shapes}); check its loops against the shapes of its inputs and outputs "
                             f"(x.size with x.flat[i] works for any rank). {when}") from exc
        except Exception as exc:
            kernel.fail(exc)
        if found:
            raise _guards.OutOfBoundsError(_guards.describe_outside(kernel.op_name, f"jit kernel '{kernel.kname}'", found,
                                                      inputs, outputs, when))
    return run


def _gpu_runner(kernel, cuda, launcher, template, extra, guarded=False):
    """Copy inputs to the device, launch, copy outputs back (tensors live on the host for now).

    ``guarded`` (debug mode): each output lies inside a device buffer with guard zones, checked
    after the kernel (``_guards.GuardedOutputs``).
    """
    fail, interleave = kernel.fail, _common.interleave
    if guarded:
        def run(attrs, inputs, req, outputs):
            try:
                d_in = [cuda.to_device(np.ascontiguousarray(a)) for a in inputs]
                guards = _guards.GuardedOutputs(cuda, outputs, reach=_guards.reach_for(inputs, outputs))
                launcher(*interleave(template, d_in), *guards.views, *extra)
                found = guards.overruns()
            except Exception as exc:
                fail(exc)
            for j, where in found:
                raise _overrun_error(kernel, j, outputs[j], where)
            try:
                guards.copy_to_host(outputs)
            except Exception as exc:
                fail(exc)
        return run

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


def _overrun_error(kernel, j, out, where):
    return _guards.OutOfBoundsError(f"op '{kernel.op_name}': jit kernel '{kernel.kname}' wrote outside output {j} "
                      f"(shape {list(out.shape)}, {out.dtype}): {where} (found by the guard zones of a checked "
                      "call: the first call of each signature, or every call under MSCUSTOM_DEBUG=1); check "
                      "the out_shape and the kernel's loops")


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
