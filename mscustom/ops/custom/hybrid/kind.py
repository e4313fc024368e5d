"""Kernel kind "hybrid" (and "akg"): hybrid DSL functions compiled by Numba for CPU and GPU.

``HybridKind`` follows the kernel-kind contract (``check`` at construction,
``bind`` per input signature, runners writing preallocated outputs);
``make_kernel`` adapts it to today's ``KernelEntry`` interface.

Per signature, ``bind`` evaluates the declarations (shapes and dtypes), lowers
the kernel, generates Numba source and compiles it: ``numba.njit`` on the CPU,
``numba.cuda.jit`` stages on the GPU. The runner zero-fills the outputs (a
kernel sees zeroed ``output_tensor`` buffers, as when MindSpore runs it in
Python), copies inputs the kernel writes in place into their outputs (the
caller's array is never modified), and calls the kernel.

Example::

    op = ops.Custom(my_hybrid_kernel, func_type="hybrid")     # out_shape/out_dtype inferred
"""

import time

import numpy as np

from ...._core import dispatch as _dispatch
from ...._core.kernel import KernelEntry, Signature
from .. import _common
from .codegen import compute_dtype, cpu_source, gpu_stages
from .compile import cpu_function, load_module, numba_array_types
from .dsl import as_hybrid
from .hook import complete
from .scalars import call_template, check_scalar_use, numba_scalar_type, scalar_args
from .shapes import tensor_meta

__all__ = ["HybridKind", "make_kernel", "as_hybrid"]

_perf = time.perf_counter
_TIMING = _dispatch.TIMING
_MAX_THREADS = 256
_MAX_RUNNERS = 1024         # bound runners kept per kernel (one per shape signature and scalar types)



class HybridKind:
    """The hybrid DSL kernel kind (``func_type="hybrid"``; ``"akg"`` is served by the same class)."""

    options = ()
    default_targets = ("CPU", "GPU")
    allocates = False

    def __init__(self, name="hybrid"):
        self.name = name

    def check(self, func, op_name, options):
        return as_hybrid(func, op_name)

    @staticmethod
    def complete(func, op_name, out_shape, out_dtype, bprop):
        """What ``ops.Custom`` fills in for a DSL kernel (``hook.complete``): checked kernel, rules, bprop."""
        return complete(func, op_name, out_shape, out_dtype, bprop)

    def arity(self, func, attr_specs, n_out, pending):
        """Call arguments: the kernel's parameters but those its reg-info attributes fill (free ones may
        still be given positionally)."""
        names = list(func.info.args)
        bound = [n for n in names if any(s.name == n for s in attr_specs)]
        n = len(names) - len(bound)
        n_free = sum(1 for s in attr_specs if not s.fixed and s.name in bound)
        return n, n + n_free, names[:n]

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        # scalar values are read per call, so a runner serves every value of the same scalar types
        template = call_template(func.info, sig.attrs, len(sig.in_shapes), op_name)
        key = (op_name, target, tuple(map(tuple, sig.in_shapes)), tuple(np.dtype(d).str for d in sig.in_dtypes),
               tuple(map(tuple, sig.out_shapes)), tuple(np.dtype(d).str for d in sig.out_dtypes),
               None if template is None else tuple(None if v is None else type(v) for v in template))
        bound = func.__dict__.setdefault("_runners", {})
        runner = bound.get(key)
        if runner is None:
            if len(bound) >= _MAX_RUNNERS:
                bound.clear()
            runner = bound[key] = self._bind(func, op_name, target, sig, template)
        return runner

    def _bind(self, func, op_name, target, sig, template):
        info = func.info
        given = len(template) if template is not None else len(sig.in_shapes)
        if given != len(info.args):
            raise TypeError(f"op '{op_name}': hybrid kernel '{info.name}' takes {len(info.args)} input(s) "
                            f"({', '.join(info.args)}), got {given}")
        scalars = scalar_args(info, template)
        check_scalar_use(info, scalars, op_name)
        layout = _common.interleave(template, list(range(len(sig.in_shapes))))
        shapes = [sig.in_shapes[k] if type(k) is int and a not in scalars else None
                  for a, k in zip(info.args, layout)]
        dtypes = [np.dtype(sig.in_dtypes[k]) if a not in scalars else None for a, k in zip(info.args, layout)]
        meta = tensor_meta(info, shapes, dtypes, scalars)
        _agree(op_name, info, meta, sig)
        if target == "GPU":
            return _bind_gpu(func, info, meta, op_name, sig, scalars)
        return _bind_cpu(func, info, meta, op_name, sig, scalars)


def _agree(op_name, info, meta, sig):
    """A user's out_shape/out_dtype must describe what the kernel declares (its loops write those)."""
    if sig.out_shapes is None:
        return
    for j, name in enumerate(info.returns):
        shape, dtype = list(meta[name].shape), meta[name].dtype
        given_s, given_d = list(sig.out_shapes[j]), np.dtype(sig.out_dtypes[j]).name
        if given_s != shape or given_d != dtype:
            raise ValueError(f"op '{op_name}': out_shape/out_dtype give output {j} as {given_s} {given_d}, "
                             f"but hybrid kernel '{info.name}' declares '{name}' as {shape} {dtype}; leave "
                             f"out_shape and out_dtype out to have them inferred")


def _fname(info, func):
    return f"hybrid_{info.name}"


def _bind_cpu(func, info, meta, op_name, sig, scalars):
    fname = _fname(info, func)
    origins = [None]                        # the compile_attrs line, then cpu_source's lines
    source, parallel = cpu_source(info, meta, fname, origins)
    source = f"# compile_attrs: {func.compile_attrs}\n" + source
    in_c = [compute_dtype(np.dtype(d).name) for d in sig.in_dtypes]
    out_c = [compute_dtype(np.dtype(d).name) for d in sig.out_dtypes]
    arrays = iter(numba_array_types(list(sig.in_shapes), in_c))
    in_types = tuple(numba_scalar_type(scalars[a]) if a in scalars else next(arrays) for a in info.args)
    argtypes = in_types + numba_array_types(list(sig.out_shapes), out_c)
    try:
        fn = cpu_function(source, info.name, fname, parallel, argtypes)
    except Exception as exc:
        if _is_numba_error(exc):            # short: Numba's reason, the kernel's line, the argument
            raise _compile_error(exc, info, op_name, fname, source, origins, argtypes) from exc
        raise RuntimeError(f"op '{op_name}': hybrid kernel '{info.name}' ({info.filename}) failed to compile "
                           f"with Numba: {type(exc).__name__}: {exc}") from exc
    return _cpu_runner(fn, info, op_name, sig, in_c, out_c, _with_scalars(info, scalars, sig, op_name))


def _is_numba_error(exc):
    from numba.core.errors import NumbaError
    return isinstance(exc, NumbaError)


def _compile_error(exc, info, op_name, fname, source, origins, argtypes):
    """Numba's failure on the generated module, told at the kernel's own line (``_kernel_errors``)."""
    import re

    from .._kernel_errors import LineMap, compile_error, parameters
    try:
        mod = load_module(source, info.name)
    except Exception:                       # noqa: BLE001 (the map is a nicety; the error goes on)
        mod = None
    params = parameters(getattr(mod, fname, None)) or list(info.args)
    lines = {k + 1: line for k, line in enumerate(origins) if line is not None}
    line_map = LineMap(mod.__file__, info.filename, lines) if mod is not None else None
    inplace = (re.fullmatch(r"_out\d+_(.+)", p) for p in params)      # codegen's names of in-place outputs
    names = {m.group(0): m.group(1) for m in inplace if m}
    return compile_error(exc, what=f"op '{op_name}': hybrid kernel '{info.name}'", params=params,
                         types=argtypes, line_map=line_map, names=names)


def _with_scalars(info, scalars, sig, op_name):
    """``args(attrs, inputs) -> kernel arguments``: this call's scalars put back among the tensor inputs
    (None when the kernel takes none). The values are read per call: only their types were compiled."""
    if not scalars:
        return None
    n, interleave = len(sig.in_shapes), _common.interleave
    return lambda attrs, inputs: interleave(call_template(info, attrs, n, op_name), inputs)


def _cpu_runner(fn, info, op_name, sig, in_c, out_c, with_scalars=None):
    inplace = info.inplace
    widen_in = [i for i, (d, c) in enumerate(zip(sig.in_dtypes, in_c)) if np.dtype(d).name != c]
    widen_out = [j for j, (d, c) in enumerate(zip(sig.out_dtypes, out_c)) if np.dtype(d).name != c]
    contiguous = np.ascontiguousarray

    def run(attrs, inputs, req, outputs):
        ins = [contiguous(a) for a in inputs]
        for i in widen_in:
            ins[i] = ins[i].astype(in_c[i])
        outs = list(outputs)
        for j in widen_out:
            outs[j] = np.empty(outs[j].shape, out_c[j])
        for j, o in enumerate(outs):
            if j in inplace:
                np.copyto(o, ins[inplace[j]], casting="unsafe")
            else:
                o.fill(0)
        try:
            fn(*(ins if with_scalars is None else with_scalars(attrs, ins)), *outs)
        except Exception as exc:
            raise RuntimeError(f"op '{op_name}': hybrid kernel '{info.name}' raised "
                               f"{type(exc).__name__}: {exc}") from exc
        for j in widen_out:
            np.copyto(outputs[j], outs[j], casting="unsafe")
    return run


def _cuda(op_name, name):
    try:
        from numba import cuda
    except ImportError as exc:
        raise RuntimeError(f"op '{op_name}': hybrid kernel '{name}' targets GPU, which needs numba-cuda "
                           f"(pip install numba-cuda): {exc}") from exc
    if not cuda.is_available():
        raise RuntimeError(f"op '{op_name}': hybrid kernel '{name}' targets GPU, but no CUDA device is "
                           "available; call ms.set_device('CPU'), or set NUMBA_ENABLE_CUDASIM=1 before "
                           "starting Python to run GPU kernels in Numba's simulator")
    return cuda


def _bind_gpu(func, info, meta, op_name, sig, scalars):
    cuda = _cuda(op_name, info.name)
    fname = _fname(info, func)
    source, stages, temps = gpu_stages(info, meta, fname)
    mod = load_module(f"# compile_attrs: {func.compile_attrs}\n" + source, info.name + "_gpu")
    kernels = []
    for name, parallel in stages:
        k = getattr(mod, name)
        kernels.append((cuda.jit(k), getattr(mod, name + "_extent") if parallel else None))
    in_c = [compute_dtype(np.dtype(d).name) for d in sig.in_dtypes]
    out_c = [compute_dtype(np.dtype(d).name) for d in sig.out_dtypes]
    temp_meta = [(meta[t].shape, compute_dtype(meta[t].dtype)) for t in temps]
    inplace = info.inplace
    with_scalars = _with_scalars(info, scalars, sig, op_name) or (lambda attrs, ins: ins)

    def run(attrs, inputs, req, outputs):
        try:
            d_in = [cuda.to_device(np.ascontiguousarray(a, dtype=c)) for a, c in zip(inputs, in_c)]
            d_out = []
            for j, (o, c) in enumerate(zip(outputs, out_c)):
                host = np.asarray(inputs[inplace[j]], dtype=c) if j in inplace else np.zeros(o.shape, c)
                d_out.append(cuda.to_device(np.ascontiguousarray(host)))
            d_tmp = [cuda.to_device(np.zeros(s, d)) for s, d in temp_meta]
            args = list(with_scalars(attrs, d_in)) + d_out + d_tmp
            for kern, extent in kernels:
                n = int(extent(*args)) if extent is not None else 1
                if n <= 0:
                    continue
                threads = max(1, min(_MAX_THREADS, n))
                kern[-(-n // threads), threads](*args)
            for d, o in zip(d_out, outputs):
                np.copyto(o, d.copy_to_host(), casting="unsafe")
        except Exception as exc:
            raise RuntimeError(f"op '{op_name}': hybrid kernel '{info.name}' raised on the GPU "
                               f"{type(exc).__name__}: {exc}") from exc
    return run


# ---------------------------------------------------------------- today's KernelEntry adapter
_KINDS = {"hybrid": HybridKind("hybrid"), "akg": HybridKind("akg")}


def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options, kind="hybrid"):
    """A ``KernelEntry`` for a hybrid kernel on ``target`` (adapter until kinds are registered classes).

    Example::

        entry = make_kernel(add_kernel, op_name="add", target="CPU", rows=None, attr_specs=[],
                            n_out=1, options={})
    """
    k = _KINDS[kind]
    if target not in ("CPU", "GPU"):
        raise ValueError(f"op '{op_name}': hybrid kernels run on 'CPU' or 'GPU' (Numba), not {target!r}")
    func = k.check(func, op_name, options)
    entry = KernelEntry(target=target, fn=None, allocates=False, rows=rows, kind=kind,
                        name=f"{kind}:{func.info.name}[{target}]")
    stats = entry.stats

    def bind(op, sig):
        runner = k.bind(func, op_name=op_name, target=target, attr_specs=list(attr_specs or ()),
                        n_out=n_out, options=options, sig=sig)

        def run(attrs, inputs, req, outputs):
            timed = _TIMING[0]                  # timed only inside usage blocks (dispatch.TIMING)
            if timed:
                t0 = _perf()
            runner(attrs, inputs, req, outputs)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += _perf() - t0
        return run

    def run_unbound(attrs, inputs, req, outputs):
        sig = Signature([a.shape for a in inputs], [a.dtype for a in inputs], ["DefaultFormat"] * len(inputs),
                        [o.shape for o in outputs], [o.dtype for o in outputs], attrs)
        return bind(None, sig)(attrs, inputs, req, outputs)

    entry.bind = bind
    entry.fn = run_unbound
    return entry
