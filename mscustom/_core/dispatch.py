"""The one dispatcher: every op call, built-in or custom, runs through ``call``.

``op(x, y)``:

1. build the signature (input shapes, dtypes, formats, device target, attrs);
2. on a cache miss only: infer output shapes and dtypes, select the kernel,
   bind it (compile / init per signature) and store all of it as a ``Plan``;
3. allocate outputs (reusing buffers nobody references any more) and run;
   kernels of custom kinds are counted here for the usage report (and timed
   while a report block asks for it), and what they raise is reported naming
   the op and the kernel;
4. record a tape node when this thread is taking a gradient.

A cached call costs a dict lookup and the kernel itself. ``call_owner`` is
``call`` for objects that own one OpDef (``ops.Custom``), so such a call
reaches the kernel's runner from one frame; their ``__call__`` is
``owner_method``: the compiled call path (``fastcall.py``) in front of
``call_owner``, which finishes warm calls in C when the extension is built.
"""

import sys
import os
import threading
import time

import numpy as np

from .. import context as _context
from .. import dtype as _dt
from ..tensor import PlaceholderError, Tensor, as_tensor, is_placeholder, placeholder_message
from . import fastcall as _fastcall
from .kernel import Signature, convert_layout, permute_shape, select_kernel
from .opdef import all_opdefs, install_call
from .tape import STATE as _STATE, on_tape as _on_tape, record as _record
from .tape import Node as _Node, compiled_tape as _compiled_tape

_settings = _context._settings
_perf = time.perf_counter
_refcount = sys.getrefcount
_empty = np.empty


def _unheld_refcount():
    """What ``getrefcount`` says of a buffer popped from a spare list that nothing else holds.

    Measured, not assumed: interpreters differ in which references they count (3.14 borrows
    some), and a buffer still held elsewhere must never read as free.
    """
    spare = [np.empty(0)]
    buf = spare.pop()
    return _refcount(buf)


def _unheld_in_pool():
    """The same for a buffer seen by a loop over the pool that keeps it."""
    for buf in [np.empty(0)]:
        return _refcount(buf)


# Kernel time is measured only while someone reads it (``ops.custom_op_usage`` blocks): two clock
# reads and a sum cost about 0.2 us, a tenth of a small custom call. Calls are always counted.
# ``TIMING[0]`` is the number of open timing requests (``timing_requested``).
TIMING = [0]
_timing_lock = threading.Lock()


class timing_requested:
    """Inside this ``with`` block (in any thread), custom kernels' calls are timed into their stats."""

    def __enter__(self):
        with _timing_lock:
            TIMING[0] += 1
        return self

    def __exit__(self, *exc):
        with _timing_lock:
            TIMING[0] -= 1
        return False


# A profiler's hook (``mx.profiler``): while ``PROFILER[0]`` is set, every op call goes through
# ``PROFILER[0](op, args, attrs)``, which runs ``call_python(op, args, attrs, True)`` and times it. The
# profiler also holds a timing request open, which sends the compiled call paths to Python.
PROFILER = [None]

def unrecorded():
    """True when op calls made now reach nobody but their caller: no tape records them (the backward
    of a gradient nobody differentiates again), no graph capture, no profiler or timing request.

    Gradient functions of the commonest ops then compute on the arrays directly, with the same NumPy
    call as the op's kernel (so the same values), instead of going through ``call``.
    """
    st = _STATE
    return not st.depth and st.capture is None and PROFILER[0] is None and not TIMING[0]


def wrap_unrecorded(result):
    """The Tensor of a kernel result computed under ``unrecorded()``, as ``call`` wraps a simple plan's
    output (a NumPy scalar from a 0-d computation becomes a 0-d array)."""
    if type(result) is not np.ndarray:
        result = np.asarray(result)
    t = _new_tensor(Tensor)
    t._data = result
    t._format = "DefaultFormat"
    t._node = None
    t._oidx = 0
    return t


_UNHELD = _unheld_refcount()
_UNHELD_IN_POOL = _unheld_in_pool()
_POOL_MIN_BYTES = 1 << 20        # outputs this large are taken from a reuse pool
_POOL_SIZE = 4
MAX_PLANS = 4096                # per op; past this the cache starts over (one plan per scalar value adds up)


def kernel_failed(op, entry, exc):
    """The error for an exception raised inside ``entry``'s kernel: it names the op and the kernel.

    An error that already names an op (a kind's own clear message) passes through unchanged.
    """
    if str(exc).startswith("op '"):
        return exc
    err = RuntimeError(f"op '{op.name}': {entry.label or entry.kind + ' kernel ' + repr(entry.name)} "
                       f"raised {type(exc).__name__}: {exc}")
    err.__cause__ = exc
    return err


def _reraise(op, entry, exc):
    err = kernel_failed(op, entry, exc)
    if err is exc:
        raise exc
    raise err from exc


class Plan:
    """Everything decided once per signature: inferred outputs and the bound kernel."""

    __slots__ = ("n_out", "out_shapes", "out_dtypes", "out_formats", "runner", "allocates",
                 "entry", "conversions", "restore", "pools", "lock", "simple", "timed", "stats",
                 "shape0", "dtype0", "req", "direct", "spares", "fast", "cfast")

    def run(self, op, attrs, arrays):
        """Convert layouts, allocate, run the kernel (timed for custom kinds), convert back."""
        if self.conversions:
            arrays = list(arrays)
            for i, src, dst in self.conversions:
                arrays[i] = convert_layout(arrays[i], src, dst)
        if self.allocates:
            res = self._invoke(op, attrs, arrays)
            outs = _check_results(op, self, res)
        else:
            outs = [self._alloc(i) for i in range(self.n_out)]
            self._invoke(op, attrs, arrays, outs)
        if self.restore:
            for i, src, dst in self.restore:
                outs[i] = convert_layout(outs[i], src, dst)
        return outs

    def _invoke(self, op, attrs, arrays, outs=None):
        runner = self.runner
        if not self.timed:
            return runner(attrs, arrays) if outs is None else runner(attrs, arrays, self.req, outs)
        timed = TIMING[0]
        if timed:
            t0 = _perf()
        try:
            res = runner(attrs, arrays) if outs is None else runner(attrs, arrays, self.req, outs)
        except Exception as exc:
            _reraise(op, self.entry, exc)
        stats = self.stats
        stats["calls"] += 1
        if timed:
            stats["seconds"] += _perf() - t0
        return res

    def _alloc(self, i):
        pool = self.pools[i] if self.pools else None
        if pool is None:
            return _reuse(self.spares[i], self.out_shapes[i], self.out_dtypes[i])
        with self.lock:
            for buf in pool:
                if _refcount(buf) == _UNHELD_IN_POOL:      # the pool's and the loop's only
                    return buf
            buf = np.empty(self.out_shapes[i], self.out_dtypes[i])
            if len(pool) < _POOL_SIZE:
                pool.append(buf)
            return buf


def _reuse(spare, shape, dtype):
    """An output buffer: the plan's previous one when nothing references it any more, else a new one.

    ``spare`` holds the buffer(s) handed out last. ``list.pop``/``append`` are atomic, so two
    threads never get the same buffer; a buffer still held anywhere (a live Tensor, a view,
    a tape node, an ``asnumpy()`` result) has more references than the local one and stays theirs.
    """
    try:
        buf = spare.pop()
        if _refcount(buf) != _UNHELD:    # references beyond ``buf``'s own: someone holds it
            buf = _empty(shape, dtype)
    except IndexError:                   # another thread holds the spare right now
        buf = _empty(shape, dtype)
    spare.append(buf)
    return buf


def _freeze(value):
    """A hashable stand-in for an attribute value (lists, slices, arrays, dicts)."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, slice):
        return ("slice", value.start, value.stop, value.step)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, Tensor):
        return _freeze(value._data)
    hash(value)
    return value


def call(op, args, attrs, _profiled=False):
    """Run ``op`` on a tuple of Tensors with an attribute dict; return Tensor(s)."""
    if PROFILER[0] is not None and not _profiled:
        return PROFILER[0](op, args, attrs)
    try:
        n = len(args)
        if n == 2:
            a, b = args
            da, db = a._data, b._data
            arrays = [da, db]
            key = (da.shape, da.dtype, a._format, db.shape, db.dtype, b._format)
        elif n == 1:
            a = args[0]
            da = a._data
            arrays = [da]
            key = (da.shape, da.dtype, a._format)
        else:
            arrays = [t._data for t in args]
            key = tuple([(d.shape, d.dtype, t._format) for d, t in zip(arrays, args)])
    except AttributeError:
        _raise_not_tensor(op, args)
    if attrs:
        key = (key, tuple(attrs.items()))
    try:
        plan = op.plans.get(key)
    except TypeError:                   # unhashable attribute values
        try:
            key = (key[0], _freeze(attrs))
            plan = op.plans.get(key)
        except TypeError:
            key, plan = None, None
    if plan is None:
        plan = _make_plan(op, args, attrs)
        if key is not None:
            if len(op.plans) >= MAX_PLANS:
                op.plans.clear()
            op.plans[key] = plan
    if plan.simple:
        # one output, kernel allocates, outputs inferred: the common built-in case
        r = plan.runner(attrs, arrays)
        if type(r) is not np.ndarray or r.shape != plan.shape0 or \
                (r.dtype is not plan.dtype0 and r.dtype != plan.dtype0):
            r = _check_results(op, plan, r)[0]
        t = _new_tensor(Tensor)
        t._data = r
        t._format = "DefaultFormat"
        t._node = None
        t._oidx = 0
        st = _STATE
        if st.depth and _on_tape(args):
            _record(op, args, (t,), attrs)
        if st.capture is not None:
            st.capture.add_call(op, plan, attrs, args, (t,))
        return t
    if plan.direct:
        # a custom kernel with nothing to convert: allocate, run and time it in one closure
        return plan.fast(args, arrays, attrs)
    outs = plan.run(op, attrs, arrays)
    fmts = plan.out_formats
    tensors = [Tensor._wrap(o, f) for o, f in zip(outs, fmts)] if fmts else [Tensor._wrap(o) for o in outs]
    st = _STATE
    if st.depth and _on_tape(args):
        _record(op, args, tensors, attrs)
    if st.capture is not None:
        st.capture.add_call(op, plan, attrs, args, tensors)
    return tensors[0] if plan.n_out == 1 else tuple(tensors)


_new_tensor = object.__new__


def _check_simple(op, plan, result):
    """``call``'s fix of a simple plan's unusual result (for the compiled ``call``)."""
    return _check_results(op, plan, result)[0]


def _after_simple(op, plan, attrs, args, t, taping=False):
    """``call``'s recording of a simple plan's call on a tape or in a capture (for the compiled ``call``;
    ``taping``: it saw a tape and no capture on this thread)."""
    if taping:
        if _on_tape(args):
            _record(op, args, (t,), attrs)
        return
    st = _STATE
    if st.depth and _on_tape(args):
        _record(op, args, (t,), attrs)
    if st.capture is not None:
        st.capture.add_call(op, plan, attrs, args, (t,))


# Built-in calls on cached simple plans without a Python frame when the extension is built (the
# ``plan.simple`` branch above, in C); ``call.slow`` is the Python function every other call takes.
call_python = call
# Its recording on a tape runs in C too when the compiled tape is built (``_fastwalk.Recorder``:
# ``_after_simple``'s tape branch; a capture still goes to ``_after_simple``).
_ext_tape = _compiled_tape()
after_simple = _after_simple if _ext_tape is None else _ext_tape.Recorder(Tensor, _Node, _STATE, _after_simple)
call = _fastcall.core_call(call, _STATE, _check_simple, after_simple, TIMING)


def call_owner(owner, *args, **kwargs):
    """``__call__`` of an object that owns one OpDef (``ops.Custom``): ``call`` without a frame between.

    The owner gives ``_op``; ``_fast_ns`` (the argument counts for which a call
    of Tensors without keywords runs with the attrs ``_fast_attrs``; empty when
    none does); and ``_call_general(args, kwargs)`` for every other call. A cached plan on the
    ``direct`` path runs from here (``plan.fast``, as in ``call``); a call with
    fixed attribute values goes to ``call``; anything else (a first call,
    conversions) through ``_call_general`` and from there ``call``.
    """
    n = len(args)
    if kwargs or n not in owner._fast_ns or PROFILER[0] is not None:
        return owner._call_general(args, kwargs)
    if n == 1:
        a = args[0]
        if type(a) is not Tensor:
            return owner._call_general(args, kwargs)
        da = a._data
        arrays = [da]
        key = (da.shape, da.dtype, a._format)
    elif n == 2:
        a, b = args
        if type(a) is not Tensor or type(b) is not Tensor:
            return owner._call_general(args, kwargs)
        da, db = a._data, b._data
        arrays = [da, db]
        key = (da.shape, da.dtype, a._format, db.shape, db.dtype, b._format)
    else:
        for a in args:
            if type(a) is not Tensor:
                return owner._call_general(args, kwargs)
        arrays = [t._data for t in args]
        key = tuple([(d.shape, d.dtype, t._format) for d, t in zip(arrays, args)])
    attrs = owner._fast_attrs
    if attrs:                           # fixed attribute values: call keys the plan with them
        return call(owner._op, args, attrs)
    plan = owner._op.plans.get(key)
    if plan is None or not plan.direct:
        # first call of a signature, or layout conversions: the general path
        return owner._call_general(args, kwargs)
    if plan.n_out != 1 or plan.pools is not None:
        return plan.fast(args, arrays, attrs)
    # one output: plan.fast's work inline (one frame less on the most common custom call)
    if plan.allocates:
        timed = TIMING[0]
        if timed:
            t0 = _perf()
        try:
            out = plan.runner(attrs, arrays)
        except Exception as exc:
            _reraise(owner._op, plan.entry, exc)
        stats = plan.stats
        stats["calls"] += 1
        if timed:
            stats["seconds"] += _perf() - t0
        if type(out) is not np.ndarray or out.shape != plan.shape0 or \
                (out.dtype is not plan.dtype0 and out.dtype != plan.dtype0):
            out = _check_results(owner._op, plan, out)[0]
    else:
        spare = plan.spares[0]
        try:
            out = spare.pop()
            if _refcount(out) != _UNHELD:
                out = _empty(plan.shape0, plan.dtype0)
        except IndexError:
            out = _empty(plan.shape0, plan.dtype0)
        spare.append(out)
        timed = TIMING[0]
        if timed:
            t0 = _perf()
        try:
            plan.runner(attrs, arrays, plan.req, [out])
        except Exception as exc:
            _reraise(owner._op, plan.entry, exc)
        stats = plan.stats
        stats["calls"] += 1
        if timed:
            stats["seconds"] += _perf() - t0
    t = _new_tensor(Tensor)
    t._data = out
    t._format = "DefaultFormat"
    t._node = None
    t._oidx = 0
    st = _STATE
    if st.depth and _on_tape(args):
        _record(owner._op, args, (t,), attrs)
    if st.capture is not None:
        st.capture.add_call(owner._op, plan, attrs, args, (t,))
    elif plan.cfast is not None and not st.depth:
        # let the compiled call path finish this signature's next calls (it leaves tapes and
        # captures to this path, so arming from inside them would only cost time)
        _fastcall.arm(owner._op.plans, plan.cfast)
    return t


# Custom.__call__: warm calls finished in C when the extension is built, else call_owner itself.
owner_method = _fastcall.method(call_owner, _STATE, TIMING)


def _fast_fail(op, entry):
    """``wrap_fail`` for ``fastcall.make_fast_plan``: a kernel's error raised as ``call_owner`` raises it."""
    def wrap(kernel_fail):
        def fail(exc_or_code):
            try:
                kernel_fail(exc_or_code)
            except Exception as exc:
                _reraise(op, entry, exc)
            raise RuntimeError(f"op '{op.name}': its kernel failed ({exc_or_code!r})")
        return fail
    return wrap


def _fast_settle(op, plan):
    """``wrap_settle``: an unusual result of a returning kernel made the output, as ``call_owner`` does."""
    def wrap(settle):
        def after(res, inputs):
            try:
                out = settle(res, inputs)
            except Exception as exc:
                _reraise(op, plan.entry, exc)
            if type(out) is not np.ndarray or out.shape != plan.shape0 or \
                    (out.dtype is not plan.dtype0 and out.dtype != plan.dtype0):
                out = _check_results(op, plan, out)[0]
            return out
        return after
    return wrap


def _direct_path(op, plan):
    """``plan.fast(args, arrays, attrs)``: the whole call of a custom kernel with nothing to convert.

    Built once per plan with everything it reads bound as closure variables:
    allocate the outputs (reusing the plan's last buffer when nobody holds it),
    run the kernel counted (timed while ``TIMING``) into the entry's stats for the usage report (what it
    raises is reported naming the op and the kernel), wrap, record on the tape.
    """
    runner, entry, stats, req, n_out = plan.runner, plan.entry, plan.stats, plan.req, plan.n_out
    shape0, dtype0 = plan.shape0, plan.dtype0
    spare = plan.spares[0]
    perf, new, empty, refcount, unheld, state = _perf, _new_tensor, _empty, _refcount, _UNHELD, _STATE
    timing = TIMING

    def finish(args, attrs, outs):      # several outputs, or a result that needs checking
        if n_out == 1:
            return finish_one(args, attrs, outs[0])
        tensors = [Tensor._wrap(o) for o in outs]
        if state.depth and _on_tape(args):
            _record(op, args, tensors, attrs)
        if state.capture is not None:
            state.capture.add_call(op, plan, attrs, args, tensors)
        return tuple(tensors)

    def finish_one(args, attrs, out):
        t = new(Tensor)
        t._data = out
        t._format = "DefaultFormat"
        t._node = None
        t._oidx = 0
        if state.depth and _on_tape(args):
            _record(op, args, (t,), attrs)
        if state.capture is not None:
            state.capture.add_call(op, plan, attrs, args, (t,))
        return t

    if plan.allocates:
        def fast(args, arrays, attrs):
            timed = timing[0]
            if timed:
                t0 = perf()
            try:
                r = runner(attrs, arrays)
            except Exception as exc:
                _reraise(op, entry, exc)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += perf() - t0
            if type(r) is not np.ndarray or n_out != 1 or r.shape != shape0 or \
                    (r.dtype is not dtype0 and r.dtype != dtype0):
                return finish(args, attrs, _check_results(op, plan, r))
            t = new(Tensor)
            t._data = r
            t._format = "DefaultFormat"
            t._node = None
            t._oidx = 0
            if state.depth and _on_tape(args):
                _record(op, args, (t,), attrs)
            if state.capture is not None:
                state.capture.add_call(op, plan, attrs, args, (t,))
            return t
    elif n_out == 1 and plan.pools is None:
        def fast(args, arrays, attrs):
            try:                        # _reuse, inline
                buf = spare.pop()
                if refcount(buf) != unheld:
                    buf = empty(shape0, dtype0)
            except IndexError:
                buf = empty(shape0, dtype0)
            spare.append(buf)
            timed = timing[0]
            if timed:
                t0 = perf()
            try:
                runner(attrs, arrays, req, [buf])
            except Exception as exc:
                _reraise(op, entry, exc)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += perf() - t0
            t = new(Tensor)
            t._data = buf
            t._format = "DefaultFormat"
            t._node = None
            t._oidx = 0
            if state.depth and _on_tape(args):
                _record(op, args, (t,), attrs)
            if state.capture is not None:
                state.capture.add_call(op, plan, attrs, args, (t,))
            return t
    else:
        alloc = plan._alloc

        def fast(args, arrays, attrs):
            outs = [alloc(i) for i in range(n_out)]
            timed = timing[0]
            if timed:
                t0 = perf()
            try:
                runner(attrs, arrays, req, outs)
            except Exception as exc:
                _reraise(op, entry, exc)
            stats["calls"] += 1
            if timed:
                stats["seconds"] += perf() - t0
            return finish(args, attrs, outs)
    return fast


def clear_plans():
    """Forget every op's cached plans (the device target changed)."""
    for op in all_opdefs():
        op.plans.clear()


_context.on_change(clear_plans)


def call_converting(op, args, attrs):
    """``call`` for public op objects: arrays and Python scalars become Tensors first."""
    return call(op, convert_args(op, args), attrs)


install_call(call_converting)    # OpDef.__call__ runs through it (the op layer below this one never imports it)


def convert_args(op, args, name=None):
    """``args`` as Tensors; a Python number next to a tensor takes its dtype (MindSpore's rule)."""
    like = next((a for a in args if isinstance(a, Tensor)), None)
    converted = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            converted.append(a)
            continue
        try:
            converted.append(as_tensor(a, like))
        except (TypeError, ValueError) as exc:
            names = op.arg_names()
            label = f"input '{names[i]}'" if i < len(names) else f"input {i}"
            raise TypeError(f"op '{name or op.name}': {label} must be a Tensor, an array or a number, "
                            f"got {type(a).__name__} ({exc})") from None
    return tuple(converted)


def _raise_not_tensor(op, args):
    for i, a in enumerate(args):
        if not isinstance(a, Tensor) or is_placeholder(a):
            names = op.arg_names()
            label = f"input '{names[i]}'" if i < len(names) else f"input {i}"
            if isinstance(a, Tensor):
                raise PlaceholderError(f"op '{op.name}': {label}: {placeholder_message(a._data)}")
            raise TypeError(f"op '{op.name}': {label} must be a Tensor, got {type(a).__name__}")
    raise TypeError(f"op '{op.name}': inputs must be Tensors")


def _describe(shapes, dtypes):
    return ", ".join(f"{list(s)} {_dt.from_numpy(d).name}" for s, d in zip(shapes, dtypes))


# ---------------------------------------------------------------- planning (slow path)
def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


_PHYSICAL_MEMORY = _physical_memory()


def _check_fits(op, shapes, dtypes):
    """MemoryError naming the op when the outputs it would be given exceed this machine's memory."""
    total = sum(int(np.prod(s, dtype=np.float64)) * np.dtype(d).itemsize for s, d in zip(shapes, dtypes))
    if _PHYSICAL_MEMORY is not None and total > _PHYSICAL_MEMORY:
        raise MemoryError(f"op '{op.name}': its outputs ({_describe(shapes, dtypes)}) need "
                          f"{total / 2**30:.1f} GiB, more than this machine's "
                          f"{_PHYSICAL_MEMORY / 2**30:.1f} GiB of memory; check the inputs' shapes "
                          f"(a broadcast of large inputs?) and the op's out_shape")


def _make_plan(op, args, attrs):
    n_in = len(args)
    if op.num_inputs is not None and n_in != op.num_inputs:
        names = op.arg_names()
        expect = f" ({', '.join(names)})" if names else ""
        raise TypeError(f"op '{op.name}' takes {op.num_inputs} input(s){expect}, got {n_in}")
    in_shapes = [list(t._data.shape) for t in args]
    in_dtypes = [t._data.dtype for t in args]
    in_formats = [t._format for t in args]
    target = _settings["device_target"]
    fselect = op.attrs.get("FSelectKernel")
    casts = None
    if fselect is None:
        entry, row, conversions = select_kernel(op, target, in_dtypes, in_formats,
                                                [len(s) for s in in_shapes])
        out_shapes, out_dtypes = _infer(op, attrs, in_shapes, in_dtypes, entry)
    else:       # the op's own selection (ops.Custom: MindSpore's, with casts)
        entry, row, conversions, casts, out_shapes, out_dtypes = fselect(
            op, target, in_dtypes, in_formats, [len(s) for s in in_shapes],
            lambda e: _infer(op, attrs, in_shapes, in_dtypes, e), attrs)

    plan = Plan()
    plan.n_out = op.num_outputs
    plan.entry = entry
    plan.allocates = entry.allocates
    plan.conversions = conversions
    plan.restore = []
    plan.lock = threading.Lock()
    plan.pools = None
    plan.spares = [[] for _ in range(plan.n_out)]
    plan.timed = entry.kind != "builtin"
    plan.stats = entry.stats
    plan.req = ["write"] * plan.n_out
    plan.out_shapes, plan.out_dtypes = out_shapes, out_dtypes
    plan.out_formats = None
    if row is not None:
        plan.out_formats = [row[n_in + j][1] if n_in + j < len(row) and row[n_in + j][1] in
                            ("NCHW", "NHWC") else "DefaultFormat" for j in range(plan.n_out)]
    if plan.out_formats is not None and not conversions and \
            all(f == "DefaultFormat" for f in plan.out_formats):
        plan.out_formats = None         # nothing to tag: keep the fast path
    if conversions and out_shapes is not None:
        # the kernel works in the row's layout: give it outputs in that layout, convert back after
        src, dst = conversions[0][1], conversions[0][2]
        kernel_shapes = list(out_shapes)
        for j in range(plan.n_out):
            if len(out_shapes[j]) == 4 and plan.out_formats[j] == dst:
                kernel_shapes[j] = permute_shape(out_shapes[j], src, dst)
                plan.restore.append((j, dst, src))
                plan.out_formats[j] = src
        plan.out_shapes = kernel_shapes
    if out_shapes is not None and not entry.allocates:
        _check_fits(op, plan.out_shapes, plan.out_dtypes)
        plan.pools = [[] if np.prod(s, dtype=np.int64) * np.dtype(d).itemsize >= _POOL_MIN_BYTES else None
                      for s, d in zip(plan.out_shapes, plan.out_dtypes)]
        if not any(p is not None for p in plan.pools):
            plan.pools = None
    elif out_shapes is None and not entry.allocates:
        raise RuntimeError(f"op '{op.name}': a kernel that writes into preallocated outputs needs "
                           "output shapes; give the op an FInferShape rule")
    if casts is None:
        sig = Signature(in_shapes, in_dtypes, in_formats, plan.out_shapes, plan.out_dtypes, attrs, row)
        plan.runner = entry.bind(op, sig) if entry.bind is not None else entry.fn
        first = getattr(plan.runner, "first_call", None)
    else:       # the kernel runs on its row's dtypes; the plan keeps the op's own
        sig = Signature(in_shapes, casts.kernel_in, in_formats, plan.out_shapes,
                        casts.kernel_out if casts.kernel_out is not None else plan.out_dtypes, attrs, row)
        bound = entry.bind(op, sig) if entry.bind is not None else entry.fn
        first = getattr(bound, "first_call", None)
        plan.runner = casts.wrap(bound, entry.allocates)
        if first is not None:
            first = casts.wrap(first, entry.allocates)
        casts.warn()
    plan.simple = (plan.n_out == 1 and entry.allocates and out_shapes is not None
                   and not conversions and not plan.out_formats and not plan.timed)
    plan.direct = (plan.timed and not conversions and not plan.restore and not plan.out_formats
                   and (out_shapes is not None or entry.allocates))
    plan.shape0 = plan.out_shapes[0] if out_shapes is not None else None
    plan.dtype0 = plan.out_dtypes[0] if out_shapes is not None else None
    plan.fast = _direct_path(op, plan) if plan.direct else None
    plan.cfast = None
    if plan.direct and _fastcall.AVAILABLE:
        plan.cfast = _fastcall.make_fast_plan(plan, args, _fast_fail(op, entry), _fast_settle(op, plan))
    if first is not None:
        _check_first_call(op, plan, first)
    return plan


def _check_first_call(op, plan, first):
    """Run the plan's first call through ``first`` (a kernel's checked form), every later one as bound.

    The jit and aot kinds give their runners a ``first_call``: the same kernel on
    guarded buffers (bounds-checked for jit), which raises, naming the op, where the
    kernel reaches outside its inputs or outputs. It runs until one call of the
    signature succeeds; then the plan's runner and direct path are the bound
    runner's (and the compiled call path, which arms only after a warm call, calls
    the kernel as bound). A replay that kept the checking runner goes straight
    to the bound one after that.
    """
    bound = plan.runner
    passed = []

    def run(*args):
        if passed:
            return bound(*args)
        result = first(*args)
        if not passed:
            passed.append(True)
            plan.runner = bound
            if plan.direct:
                plan.fast = _direct_path(op, plan)
        return result

    run.checked = first
    plan.runner = run
    if plan.direct:
        plan.fast = _direct_path(op, plan)


def _as_shape(op, value, what, entry=None):
    """``value`` as a shape tuple. -1 (a size only the kernel knows, in a dynamic-shape call; ``(-2,)``: any
    rank) is accepted for a kernel that returns its outputs (``entry.allocates``), whose result is then
    checked against the known dimensions only."""
    try:
        shape = tuple(int(v) for v in value)
        bad = any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < -2 for v in value)
    except TypeError:
        bad = True
    if not bad and any(d < 0 for d in shape):
        if shape != (-2,) and -2 in shape:
            bad = True
        elif entry is None or not entry.allocates:
            raise ValueError(f"op '{op.name}': {what} is {list(shape)}, with dimensions known only once the "
                             f"kernel has run; its kernel ({entry.kind if entry else 'builtin'}) writes into "
                             "preallocated outputs, so the shape rule must give every dimension from the "
                             "inputs' real shapes (or use a kernel that returns its outputs, such as pyfunc)")
    if bad:
        raise TypeError(f"op '{op.name}': {what} must be a list of non-negative ints, got {value!r}")
    return shape


def _fits(actual, inferred):
    """A result's shape against an inferred one with unknown (-1) dimensions or rank (-2)."""
    if inferred == (-2,):
        return True
    return len(actual) == len(inferred) and all(i < 0 or a == i for a, i in zip(actual, inferred))


def _infer(op, attrs, in_shapes, in_dtypes, entry):
    """Infer output shapes and NumPy dtypes; ``(None, None)`` when derived from results."""
    n_out = op.num_outputs
    fshape = op.attrs.get("FInferShape")
    ftype = op.attrs.get("FInferType")
    if fshape is None and ftype is None and entry.allocates:
        return None, None
    if fshape is not None:
        res = fshape(attrs, [list(s) for s in in_shapes])
        out_shapes = _unpack_rule(op, res, "FInferShape", "shapes")
        if len(out_shapes) != n_out:
            raise ValueError(f"op '{op.name}': shape inference gave {len(out_shapes)} output shape(s), "
                             f"the op has {n_out} output(s)")
        out_shapes = [_as_shape(op, s, f"output {j} shape", entry) for j, s in enumerate(out_shapes)]
    elif in_shapes:
        out_shapes = [tuple(in_shapes[0])] * n_out
    else:
        raise ValueError(f"op '{op.name}' has no inputs and no FInferShape rule to give output shapes")
    if ftype is not None:
        res = ftype(attrs, [_dt.from_numpy(d) for d in in_dtypes])
        out_types = _unpack_rule(op, res, "FInferType", "dtypes")
        if len(out_types) != n_out:
            raise ValueError(f"op '{op.name}': type inference gave {len(out_types)} dtype(s), "
                             f"the op has {n_out} output(s)")
        try:
            out_dtypes = [_dt.to_numpy(t) for t in out_types]
        except TypeError as exc:
            raise TypeError(f"op '{op.name}': output dtype: {exc}") from None
    elif in_dtypes:
        out_dtypes = [in_dtypes[0]] * n_out
    else:
        out_dtypes = [np.dtype(np.float32)] * n_out
    return out_shapes, out_dtypes


def _unpack_rule(op, res, key, what):
    if not (isinstance(res, (tuple, list)) and len(res) == 2):
        raise TypeError(f"op '{op.name}': {key} must return (in_{what}, out_{what}), got {res!r}")
    return list(res[1])


def _check_results(op, plan, res):
    """Turn a kernel's return value into a list of arrays matching the inferred outputs."""
    n_out = plan.n_out
    if n_out == 1 and not isinstance(res, (tuple, list)):
        res = [res]
    elif not isinstance(res, (tuple, list)) or len(res) != n_out:
        got = f"{len(res)} values" if isinstance(res, (tuple, list)) else type(res).__name__
        raise ValueError(f"op '{op.name}': its kernel must return {n_out} outputs, got {got}")
    outs = []
    for j, r in enumerate(res):
        if type(r) is not np.ndarray:
            if isinstance(r, (np.ndarray, np.generic)) or (isinstance(r, (int, float, bool)) and plan.out_shapes is not None):
                r = np.asarray(r)
            else:
                raise TypeError(f"op '{op.name}': output {j} of its kernel must be a NumPy array, "
                                f"got {type(r).__name__}")
        if plan.out_shapes is not None:
            shape, dtype = plan.out_shapes[j], plan.out_dtypes[j]
            if r.shape != shape and not _fits(r.shape, shape):
                raise ValueError(f"op '{op.name}': output {j} has shape {list(r.shape)}, "
                                 f"but the op's shape inference says {list(shape)}")
            if r.dtype != dtype:
                if not np.can_cast(r.dtype, dtype, "same_kind"):
                    raise TypeError(f"op '{op.name}': output {j} has dtype {r.dtype}, the op declares "
                                    f"{dtype}, and {r.dtype} cannot be cast to it safely (same_kind)")
                r = r.astype(dtype)
        else:
            try:
                _dt.from_numpy(r.dtype)
            except TypeError as exc:
                raise TypeError(f"op '{op.name}': output {j}: {exc}") from None
        outs.append(r)
    return outs
