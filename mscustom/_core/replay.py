"""Replay: turn a ``Capture`` into one straight-line Python function over preallocated buffers.

``Record(capture, out_slots)`` optimises the recorded steps once:

1. **Dead code**: built-in kernel calls whose outputs nobody reads (no later
   step, guard, effect or returned value) are dropped. Custom kernels, effects
   and host ops are kept (they may have side effects, or draw random numbers).
2. **Kernel calls**: each kernel step is called the cheapest way its op
   allows. A NumPy ufunc op (attribute ``FUfunc``) is called as the ufunc
   itself with ``out=``; an op with an ``FComputeInto`` kernel writes into a
   given buffer; a custom kernel that writes into preallocated outputs gets
   them; anything else runs as in eager mode and allocates. Two calls an op
   pairs through ``FFuseInto`` (a loss and its gradient, on the same inputs)
   become one kernel call that shares their common work, and a call an op
   chains through ``FFuseConsumer`` (a Dense layer and the ReLU reading its
   output) becomes one kernel call that writes both values in one pass. A
   matmul whose result only an optimizer update reads is handed to the
   update as its operands when the optimizer takes it (``accepts_products``:
   plain SGD adds the scaled product with one GEMM).
3. **Buffers by liveness**: outputs written into given buffers get them from
   an arena owned by the record. A buffer is free again after the last step
   that reads its value (or any view of it: aliasing is read from the recorded
   arrays), so buffers are shared between values whose lifetimes do not
   overlap, and a warm replay allocates only what it returns.
4. **Code generation**: the steps become the source of one Python function
   (one line per call, buffers and kernels bound as constants), compiled with
   ``exec``; a replay is one call of it.

Between 2 and 3, chains of elementwise calls (built-in ops with an
``FElementwiseExpr``) become one generated Numba kernel each (``fusion.py``:
values used only inside a chain are never stored). Kernels are compiled in a
background thread after a record's first replays (``MSCUSTOM_FUSE``): until
then the record replays a variant without them, and switches variants, under
its lock, once they are ready.

Values returned to the caller never live in the arena: each replay gives
them fresh memory, so results kept from earlier calls never change.
"""

import functools
import sys
import threading
import weakref

import numpy as np

from ..tensor import Tensor
from . import fusion as _fusion
from .calls import Ref
from .capture import GuardMiss
from .guards import ModesMiss, Reach, StaleRecord

__all__ = ["Record"]

_INTO_MODES = ("ufunc", "ufunc_t", "into", "fused", "chain", "prealloc", "elementwise")   # writing given buffers
_VARIANT_STATE = ("steps", "buffers", "fresh", "pinned", "pinned_after", "owned", "_groups", "_last_use",
                  "arena_bytes", "source", "fusion")      # what differs between a record's two variants


def _refs(tensor):
    """(references to ``tensor``, references to its array), as CPython counts them from here."""
    return sys.getrefcount(tensor), sys.getrefcount(tensor._data)


def _private_refs():
    """``_refs`` of a tensor that only a slot tuple holds, its array only the tensor and a list.

    Measured once rather than written as numbers, so that interpreters
    counting references on the call path differently still compare like
    with like.
    """
    probe = Tensor._wrap(np.empty(1))
    slots, arrays = [("ext", probe)], [probe._data]
    del probe
    refs = _refs(slots[0][1])
    del arrays
    return refs


_PRIVATE_REFS = _private_refs()


def _held_by_capture_only(refs, tensor):
    """Whether only the capture's slot refers to this plain Tensor and, if its array can be written,
    only the tensor and the capture's list of arrays to that array (``refs``: ``_refs(tensor)``)."""
    if type(tensor) is not Tensor or type(tensor._data) is not np.ndarray or refs[0] > _PRIVATE_REFS[0]:
        return False
    data = tensor._data     # a read-only array (a cached Python number) cannot change
    return not data.flags.writeable or (data.base is None and refs[1] <= _PRIVATE_REFS[1])


class _Groups:
    """Union-find over slots that share memory."""

    def __init__(self, n):
        self.parent = list(range(n))

    def find(self, i):
        p = self.parent
        while p[i] != i:
            p[i] = p[p[i]]
            i = p[i]
        return i

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _kernel_mode(step, arrays):
    """How a replay calls this kernel step: "direct", "ufunc", "into", "prealloc", "alloc" or "run".

    "direct": an op with ``FReplayDirect = True`` whose built-in kernel returns its outputs (the
    array, or a sequence of them for several outputs) exactly as inferred, every call: the replay
    calls the kernel and takes its result as it is (a gradient bucket's start and wait).
    """
    op, plan = step.op, step.plan
    plain = not plan.conversions and not plan.restore and not plan.out_formats
    if op.attrs.get("FReplayDirect") and plain and plan.entry.allocates and not plan.timed \
            and plan.out_shapes is not None:
        return "direct"         # the op vouches for its kernel's outputs: called with no checks
    if plan.entry.kind == "builtin" and plain and plan.out_shapes is not None:
        ufunc = op.attrs.get("FUfunc")
        if ufunc is not None and not step.attrs and plan.n_out == 1:
            ins = [arrays[s] for s in step.ins]
            try:
                same = ufunc(*ins).dtype == plan.out_dtypes[0]
            except Exception:
                same = False
            if same:
                return "ufunc"
        if op.attrs.get("FComputeInto") is not None:
            return "into"
    if plan.simple:
        return "alloc"
    if plan.direct:
        return "prealloc" if not plan.allocates else "alloc_checked"
    return "run"


class _FuseLater:
    """The compile thread's job for one record: compile its fused variant's kernels, then switch to it."""

    def __init__(self, ref):
        self.ref = ref

    def __call__(self):
        rec = self.ref()
        sib = rec._variant if rec is not None else None
        if sib is None:
            return
        try:
            for name, call in sib._late:
                call.compile()
        except Exception as exc:        # the record stays unfused; the reason stays readable
            rec._variant = None
            rec.fusion.update(state="failed", error=f"{type(exc).__name__}: {exc}")
            return
        with rec.lock:                  # no replay runs meanwhile
            rec._adopt(sib)


class Record:
    """A compiled replay of one capture.

    ``run(arg_arrays)`` returns the arrays of ``out_slots``, or, given a
    ``template`` (graph.py's description of the function's result), the
    result itself rebuilt around fresh Tensors.
    """

    def __init__(self, cap, out_slots, template=None, roots=None, epoch=None):
        self.cap = cap
        self.roots, self.epoch = roots, epoch      # what the guards start from (see guards.py)
        self.reach = None
        self.out_slots = list(out_slots)
        self.template = template
        self.lock = threading.Lock()
        self.steps = self._live_steps(cap)
        for st in self.steps:
            if st.kind == "kernel":
                st.mode = _kernel_mode(st, cap.arrays)
        self._skip_noop_reshapes()
        self.constants = {}                 # slot -> array fixed at recording (see _fold_constants)
        self.private = set()                # outside slots only this capture holds
        self._fold_constants(cap)
        self._merge_repeats()
        self._fuse_pairs()
        self._fuse_consumers()
        self._transposed_products()
        self._use_views()
        self._products_into_updates()
        fused = self._plan_fusion(cap)
        self._countdown = None              # replays left before the fused variant's kernels compile
        self._variant = None                # the fused variant waiting for its kernels
        self._late = []                     # (name, FusedCall) of kernels bound once compiled
        if fused is not None and self.fusion["state"] == "fused":
            self.steps = fused
        elif fused is not None:
            self._countdown = [_fusion.REPLAYS_BEFORE_FUSING]
        self.buffers = {}                   # slot -> arena buffer
        self.fresh = set()                  # slots written into fresh memory on every replay
        self._plan_buffers(cap)
        self.source, self.run = self._compile(cap)
        if self._countdown is not None:
            self._variant = self._sibling(fused, cap)

    # ----------------------------------------------------------------- dead code
    def _live_steps(self, cap):
        live = set(self.out_slots)
        kept = []
        for st in reversed(cap.steps):
            if st.kind == "kernel" and st.plan.entry.kind == "builtin" and not any(s in live for s in st.outs):
                continue
            kept.append(st)
            live.update(st.ins)
        kept.reverse()
        self.dropped = len(cap.steps) - len(kept)
        return kept

    def _skip_noop_reshapes(self):
        """Reshapes to the shape a value already has are dropped; readers read the value itself."""
        arrays = self.cap.arrays
        alias = {}
        kept = []
        for st in self.steps:
            if alias:
                st.ins = [alias.get(s, s) for s in st.ins]
            if st.kind == "kernel" and st.op.name == "reshape" and st.mode == "alloc" \
                    and arrays[st.outs[0]].shape == arrays[st.ins[0]].shape:
                alias[st.outs[0]] = st.ins[0]
                continue
            kept.append(st)
        if alias:
            self.steps = kept
            self.out_slots = [alias.get(s, s) for s in self.out_slots]

    def _fold_constants(self, cap):
        """Built-in kernel calls whose inputs are all constants are computed once: their recorded
        outputs become constants of the record, and the steps go.

        A constant is an outside tensor that only this capture holds (a
        Python number or an all-ones gradient seed made into a tensor while
        recording: after the function returned, nobody else can change it;
        CPython's reference counts say so), or the output of a folded step.
        Tensors anyone else holds (a Parameter, a global tensor) are read
        afresh at every replay instead. Random ops (``FRandom``), ops of user
        front ends and values that effects, checks, guards or host ops read
        are never folded; returned values keep their fresh memory.
        """
        touched = {s for st in self.steps if st.kind != "kernel" for s in st.ins}
        outs = set(self.out_slots)
        consts = set()
        for s, desc in enumerate(cap.slots):
            if desc[0] != "ext":
                continue
            refs = _refs(desc[1])
            if type(desc[1]) is Tensor and refs[0] <= _PRIVATE_REFS[0]:
                self.private.add(s)             # nobody else can rebind it: no guard needed
            if s not in touched and _held_by_capture_only(refs, desc[1]):
                consts.add(s)
                self.constants[s] = desc[1]._data
        kept = []
        for st in self.steps:
            if st.kind == "kernel" and getattr(st.op, "frontend", None) == "builtin" \
                    and not st.op.attrs.get("FRandom") and all(s in consts for s in st.ins) \
                    and not any(s in outs or s in touched for s in st.outs):
                for s in st.outs:
                    consts.add(s)
                    self.constants[s] = np.array(cap.arrays[s], copy=True)
                continue
            kept.append(st)
        self.folded = len(self.steps) - len(kept)
        self.steps = kept

    def _merge_repeats(self):
        """A built-in kernel call repeating an earlier one (same op, Plan, inputs and attributes) reads
        the earlier call's outputs instead (``h * h`` seen twice in a gradient).

        Kernel outputs are new values that no kernel overwrites, so the
        earlier result is still valid, unless an effect or host op ran in
        between (it could change an input in place): the table starts over
        there. Returned values and random ops (``FRandom``) are not merged.
        """
        outs = set(self.out_slots)
        seen = {}
        alias = {}
        kept = []
        for st in self.steps:
            if alias:
                st.ins = [alias.get(s, s) for s in st.ins]
            if st.kind in ("effect", "host"):
                seen.clear()
            elif st.kind == "kernel" and getattr(st.op, "frontend", None) == "builtin" \
                    and not st.op.attrs.get("FRandom"):
                key = (id(st.op), tuple(st.ins))
                first = seen.get(key)
                if first is not None and first.plan is st.plan and first.attrs == st.attrs \
                        and len(first.outs) == len(st.outs) and not any(s in outs for s in st.outs):
                    alias.update(zip(st.outs, first.outs))
                    continue
                seen.setdefault(key, st)
            kept.append(st)
        self.merged = len(self.steps) - len(kept)
        self.steps = kept

    def _fuse_pairs(self):
        """An op with ``FFuseInto = (partner, n_shared, fn)`` and a later call of ``partner`` on the same
        first ``n_shared`` inputs, with the same attributes, run as one kernel ``fn`` at the first call.

        A loss and its gradient share the softmax this way. The partner's
        other inputs must already exist at the first call, and no effect or
        host op may run in between (it could change a shared input in place).
        """
        producer_index = self._producer_index()
        dropped = set()
        for j, st in enumerate(self.steps):
            if st.kind != "kernel" or st.mode != "into" or id(st) in dropped:
                continue
            rule = st.op.attrs.get("FFuseInto")
            if rule is None:
                continue
            partner, n_shared, fn = rule
            shared = st.ins[:n_shared]
            for k in range(j + 1, len(self.steps)):
                other = self.steps[k]
                if other.kind in ("effect", "host"):
                    break
                if other.kind != "kernel" or other.op.name != partner or other.mode != "into" \
                        or other.ins[:n_shared] != shared or other.attrs != st.attrs:
                    continue
                extra = other.ins[n_shared:]
                if any(producer_index.get(s, -1) >= j for s in extra):
                    break
                self._absorb(st, other, "fused", fn, extra, dropped)
                break
        self._drop(dropped)

    def _fuse_consumers(self):
        """An op with ``FFuseConsumer = {consumer: (accept, fn)}`` and a later call of ``consumer`` whose
        first input is this call's first output run as one kernel ``fn`` at the first call (a rule
        ``(accept, fn, True)`` has ``fn`` called with ``consumer_attrs=`` the consumer's attributes too).

        ``fn(attrs, inputs + consumer's other inputs, outputs + consumer's
        outputs)`` writes both calls' outputs (a Dense layer's output and the
        ReLU of it; relu's gradient and its sum over the rows). ``accept(attrs,
        consumer_attrs, array)`` (or None: always) says, from the attributes
        and the recorded first output, whether ``fn`` computes the consumer.
        Values are never overwritten between the two calls (every kernel
        output is a new value), so computing the consumer early is exact; its
        other inputs must already exist. No host op may run in between, nor
        an effect given the consumer's inputs or memory they share (it could
        change one of them in place); an effect on other tensors (BatchNorm's
        moving statistics between it and its ReLU) is passed over.
        """
        producer_index = self._producer_index()
        arrays = self.cap.arrays
        dropped = set()
        for j, st in enumerate(self.steps):
            if st.kind != "kernel" or st.mode != "into" or id(st) in dropped or not st.outs:
                continue
            rules = st.op.attrs.get("FFuseConsumer")
            if not rules:
                continue
            first = st.outs[0]
            effects = []
            for k in range(j + 1, len(self.steps)):
                other = self.steps[k]
                if other.kind == "host":
                    break
                if other.kind == "effect":
                    effects.append(other)
                    continue
                if other.kind != "kernel" or not other.ins or other.ins[0] != first:
                    continue
                rule = rules.get(other.op.name)
                if rule is None or other.mode != "into" or id(other) in dropped:
                    continue
                accept, fn = rule[:2]
                if len(rule) > 2 and rule[2]:       # the kernel reads the consumer's attributes too
                    fn = functools.partial(fn, consumer_attrs=other.attrs)
                extra = other.ins[1:]
                if any(producer_index.get(s, -1) >= j for s in extra) \
                        or (accept is not None and not accept(st.attrs, other.attrs, arrays[first])):
                    continue
                if not self._effects_spare(effects, other.ins):
                    break
                self._absorb(st, other, "chain", fn, extra, dropped)
                break
        self._drop(dropped)

    def _effects_spare(self, effects, values):
        """Whether none of ``effects`` is given one of ``values`` or an array that may share its memory."""
        arrays = self.cap.arrays
        for e in effects:
            for s in e.ins:
                if s in values:
                    return False
                a = arrays[s]
                if any(np.may_share_memory(a, arrays[v]) for v in values):
                    return False
        return True

    def _producer_index(self):
        """value -> index of the step that writes it."""
        return {s: j for j, st in enumerate(self.steps) for s in st.outs}

    @staticmethod
    def _absorb(st, other, mode, fn, extra, dropped):
        """``st`` runs ``other`` too, as kernel ``fn`` over both calls' inputs and outputs."""
        st.mode, st.fn = mode, fn
        st.ins = st.ins + extra
        st.outs = st.outs + other.outs
        dropped.add(id(other))

    def _drop(self, dropped):
        if dropped:
            self.steps = [st for st in self.steps if id(st) not in dropped]

    def _transposed_products(self):
        """``transpose(matmul(a, b))`` of 2-D operands becomes ``matmul(b.T, a.T)``, written in place.

        Gradients of ``x @ w.T`` (a Dense layer) come out this way; computing
        the product in the layout it is read in avoids a strided copy.
        """
        producer = {}
        readers = {}
        for st in self.steps:
            for s in st.outs:
                producer[s] = st
            for s in st.ins:
                readers.setdefault(s, []).append(st)
        outs = set(self.out_slots)
        arrays = self.cap.arrays
        dropped = set()
        for st in self.steps:
            if st.kind != "kernel" or st.op.name != "transpose" or st.mode != "alloc" \
                    or st.attrs.get("perm") not in (None, (1, 0)) or arrays[st.ins[0]].ndim != 2:
                continue
            (m,) = st.ins
            mm = producer.get(m)
            if mm is None or mm.kind != "kernel" or mm.mode != "ufunc" or mm.op.name != "matmul" \
                    or m in outs or len(readers.get(m, ())) != 1 \
                    or any(arrays[s].ndim != 2 for s in mm.ins):
                continue
            mm.mode = "ufunc_t"                 # matmul(b.T, a.T) into the transpose's output
            mm.outs = list(st.outs)
            dropped.add(id(st))
        if dropped:
            self.steps = [st for st in self.steps if id(st) not in dropped]

    def _use_views(self):
        """Steps with an ``FView`` kernel return views when only NumPy kernels read their value
        (or effects whose function has ``accepts_strided = True``)."""
        readers = {}
        for st in self.steps:
            for s in st.ins:
                readers.setdefault(s, []).append(st)
        outs = set(self.out_slots)
        for st in self.steps:
            if st.kind != "kernel" or st.mode != "alloc" or st.op.attrs.get("FView") is None:
                continue
            (s,) = st.outs
            if s in outs:
                continue
            if all((r.kind == "kernel" and r.plan.entry.kind == "builtin" and not r.plan.conversions)
                   or (r.kind == "effect" and getattr(r.fn, "accepts_strided", False))
                   for r in readers.get(s, ())):
                st.mode = "view"

    def _products_into_updates(self):
        """A gradient that only an optimizer update reads, made by a 2-D ``matmul`` of values the capture
        made or was given, is passed to the update as the product's operands; the matmul step goes.

        The effect's function must have ``accepts_products = True`` and its
        owner a ``_takes_product(i, a, b, transpose_a, transpose_b)`` method
        saying (from the recorded arrays) whether argument ``i`` may come as
        ``op(a) @ op(b)``; the replay then passes None there and
        ``products=((i, a, b, transpose_a, transpose_b), ...)``. Plain SGD
        adds ``-lr * op(a) @ op(b)`` to the parameter with one GEMM (no
        gradient array, no second pass; see ``nn/optim/_gemm_update.py``).
        Operands read through outside tensors (Parameters) are not taken: an
        effect could change them before the update runs.
        """
        producer, reads = {}, {}
        for st in self.steps:
            for s in st.outs:
                producer[s] = st
            for s in st.ins:
                reads[s] = reads.get(s, 0) + 1
        outs = set(self.out_slots)
        slots = self.cap.slots
        arrays = self.cap.arrays
        dropped = set()
        for j, st in enumerate(self.steps):
            if st.kind != "effect" or not getattr(st.fn, "accepts_products", False) \
                    or not getattr(st.fn, "accepts_scratch", False):
                continue
            take = getattr(getattr(st.fn, "__self__", None), "_takes_product", None)
            if take is None:
                continue
            args, prods = list(st.ins), []
            for i, s in enumerate(st.ins):
                mm = producer.get(s)
                if mm is None or mm.kind != "kernel" or mm.op.name != "matmul" or mm.mode not in ("into", "ufunc") \
                        or s in outs or reads.get(s) != 1 or len(mm.ins) != 2 or len(mm.outs) != 1:
                    continue
                a, b = mm.ins
                if slots[a][0] == "ext" or slots[b][0] == "ext" or arrays[a].ndim != 2 or arrays[b].ndim != 2:
                    continue
                if any(o.kind in ("effect", "host") for o in self.steps[self.steps.index(mm) + 1:j]):
                    continue
                ta = bool(mm.attrs.get("transpose_a")) if mm.mode == "into" else False
                tb = bool(mm.attrs.get("transpose_b")) if mm.mode == "into" else False
                if not take(i, arrays[a], arrays[b], ta, tb):
                    continue
                args[i] = None
                prods.append((i, a, b, ta, tb))
                dropped.add(id(mm))
            if prods:
                st.products = (args, prods)
                st.ins = [s for s in args if s is not None] + [x for p in prods for x in p[1:3]]
        if dropped:
            self.steps = [st for st in self.steps if id(st) not in dropped]

    # ----------------------------------------------------------------- elementwise fusion
    def _plan_fusion(self, cap):
        """The steps with chains of elementwise calls fused (see ``fusion.py``), or None.

        Sets ``self.fusion`` (facts for ``describe``): its ``state`` is "off"
        (``MSCUSTOM_FUSE=off``), "none" (no chain), "fused" (the replay runs
        fused kernels), "pending" (it will once they are compiled) or "failed"
        (planning or compiling raised: the replay stays unfused, ``error`` says why).
        """
        mode = _fusion.policy()
        self.fusion = {"state": "off" if mode == "off" else "none", "kernels": 0, "ops": 0}
        if mode == "off":
            return None
        try:
            steps = _fusion.plan(self.steps, cap.arrays, self.out_slots)
            if steps is None:
                return None
            calls = _fusion.calls_of(steps)
            if mode == "now":
                for call in calls:
                    call.compile()
        except Exception as exc:        # graph mode goes on unfused; the reason stays readable
            self.fusion.update(state="failed", error=f"{type(exc).__name__}: {exc}")
            return None
        ready = all(call.entry is not None for call in calls)
        self.fusion.update(state="fused" if ready else "pending", kernels=len(calls),
                           ops=sum(len(call.ops) for call in calls))
        return steps

    def _sibling(self, steps, cap):
        """A record like this one replaying ``steps`` (the fused variant): own buffers and function,
        the same guards, lock and constants."""
        sib = object.__new__(Record)
        sib.__dict__.update(self.__dict__)
        sib.steps = steps
        sib.buffers, sib.fresh = {}, set()
        sib._countdown, sib._variant, sib._late = None, None, []
        sib._plan_buffers(cap)
        sib.source, sib.run = sib._compile(cap)
        sib.cap = None
        return sib

    def _request_fusion(self):
        """Called by the unfused replay at its countdown's end: compile the fused variant's kernels in
        the background; the record switches to it once they are ready."""
        _fusion.request(_FuseLater(weakref.ref(self)))

    def _adopt(self, sib):
        """Switch to the fused variant ``sib`` (its kernels compiled); called holding ``self.lock``."""
        ns = sib.run.__globals__
        for name, call in sib._late:
            ns[name] = call.entry
        for name in _VARIANT_STATE:
            setattr(self, name, getattr(sib, name))
        self.fusion["state"] = "fused"
        self._variant = None
        self.run = sib.run

    # ----------------------------------------------------------------- buffers
    def _plan_buffers(self, cap):
        arrays = cap.arrays
        groups = _Groups(len(cap.slots))
        for st in self.steps:
            if st.mode == "view":
                groups.union(st.outs[0], st.ins[0])
            elif st.kind in ("kernel", "host") and st.mode not in _INTO_MODES:
                for o in st.outs:
                    for i in st.ins:
                        if np.may_share_memory(arrays[o], arrays[i]):
                            groups.union(o, i)
        escaping = {groups.find(s) for s in self.out_slots}
        last_use = {}
        for j, st in enumerate(self.steps):
            for s in st.ins:
                last_use[groups.find(s)] = j
            for s in st.outs:
                last_use.setdefault(groups.find(s), j)
        self.pinned = self._pin_destinations(cap, groups, escaping, last_use)
        self.owned = {s for st in self.steps if st.kind == "kernel" and st.op.attrs.get("FScratchOutputs")
                      for s in st.outs if groups.find(s) not in escaping}
        free = {}                           # (shape, dtype) -> [buffers]
        release = {}                        # step index -> [(key, buffer)]
        for j, st in enumerate(self.steps):
            if st.kind == "kernel" and st.mode in _INTO_MODES:
                for s in st.outs:
                    g = groups.find(s)
                    if g in escaping:
                        self.fresh.add(s)
                        continue
                    if s in self.pinned:
                        self.buffers[s] = self.pinned[s]
                        continue
                    a = arrays[s]
                    key = (a.shape, a.dtype.str)
                    pool = free.get(key)
                    buf = pool.pop() if pool else np.empty(a.shape, a.dtype)
                    self.buffers[s] = buf
                    release.setdefault(max(last_use.get(g, j), j), []).append((key, buf))
            for key, buf in release.pop(j, ()):
                free.setdefault(key, []).append(buf)
        self._groups, self._last_use = groups, last_use
        self.arena_bytes = sum(b.nbytes for b in {id(b): b for b in self.buffers.values()}.values())

    def _pin_destinations(self, cap, groups, escaping, last_use):
        """slot -> array: values written straight into the array a later step would copy them into.

        An op with ``FInputDestinations = fn(attrs) -> [array or None per input]`` says that its
        kernel copies input ``i`` into that array (a gradient bucket packing its gradients into its
        flat buffer) and skips the copy when it is given that very array. A value made by a kernel
        that writes into given buffers, whose last reader is that step, is then written into the
        array itself. An entry ``(array, after)`` also has ``after(array)`` called right after the
        value was written there (while it is in cache: a bucket scales a gradient for a mean),
        when that step is the value's only reader (so nobody else sees it changed).
        Not pinned: returned values, a value passed twice or with views of it, an array two values
        would share, and a value whose lifetime overlaps that of another value recorded in the
        array's memory (the reduced gradients of an earlier call, still read).
        """
        producer, into = {}, {}
        for j, st in enumerate(self.steps):
            for s in st.outs:
                producer[s] = j
                if st.kind == "kernel" and st.mode in _INTO_MODES:
                    into[s] = j
        arrays = cap.arrays
        reads = {}
        for st in self.steps:
            for s in st.ins:
                reads[s] = reads.get(s, 0) + 1
        members = {}
        for t in range(len(arrays)):
            g = groups.find(t)
            members[g] = members.get(g, 0) + 1
        pinned, taken = {}, set()
        self.pinned_after = {}
        for j, st in enumerate(self.steps):
            rule = st.op.attrs.get("FInputDestinations") if st.kind == "kernel" else None
            if rule is None:
                continue
            dests = [dest if type(dest) is tuple else (dest, None) for dest in rule(st.attrs)]
            bases = {id(b): b for b in (d if d.base is None else d.base for d, _ in dests if d is not None)}
            near = [t for t in range(len(arrays)) if isinstance(arrays[t], np.ndarray)
                    and any(np.may_share_memory(arrays[t], b) for b in bases.values())]
            for s, (d, after) in zip(st.ins, dests):
                p = into.get(s)
                g = groups.find(s)
                if d is None or p is None or p >= j or g in escaping or last_use.get(g) != j \
                        or members[g] != 1 or st.ins.count(s) != 1 or s in pinned or id(d) in taken \
                        or arrays[s].shape != d.shape or arrays[s].dtype != d.dtype:
                    continue
                if any(t != s and np.may_share_memory(arrays[t], d)
                       and self._span(t, producer, groups, last_use)[0] <= j
                       and self._span(t, producer, groups, last_use)[1] >= p
                       for t in near):
                    continue
                pinned[s] = d
                taken.add(id(d))
                if after is not None and reads.get(s) == 1:     # no other reader sees it changed
                    self.pinned_after[s] = after
        return pinned

    @staticmethod
    def _span(t, producer, groups, last_use):
        """(first, last) step index at which value ``t`` is live (-1: from the start)."""
        first = producer.get(t, -1)
        return first, max(last_use.get(groups.find(t), first), first)

    # ----------------------------------------------------------------- code generation
    def _compile(self, cap):
        ns = {"GuardMiss": GuardMiss, "StaleRecord": StaleRecord, "_empty": np.empty, "_nd": np.ndarray}
        lines = ["def replay(A):"]
        emit = lines.append
        defined = set()
        outside = {}                        # slot -> outside Tensor the replay reads
        if self._countdown is not None:     # the fused variant waits for its kernels
            ns["_FC"], ns["_FQ"] = self._countdown, self._request_fusion
            emit("    _FC[0] -= 1")
            emit("    if _FC[0] == 0: _FQ()")
        host_made = {s for st in self.steps if st.kind == "host" for s in st.outs}
        if any(st.mode == "elementwise" and st.fn.parallel for st in self.steps):
            from .. import _threads            # Numba's thread count is per thread: the budget, here too
            ns["_NT"] = _threads.apply_to_numba
            emit("    _NT()")

        def ref(s):
            if s in defined:
                return f"v{s}"
            if s in self.constants:
                ns[f"CV{s}"] = self.constants[s]
                return f"CV{s}"
            desc = cap.slots[s]
            if desc[0] == "arg":
                emit(f"    v{s} = A[{desc[1]}]")
            elif desc[0] == "same":
                return ref(desc[1])
            elif desc[0] == "ext":
                ns[f"T{s}"] = desc[1]
                if s not in self.private:
                    outside[s] = desc[1]
                emit(f"    v{s} = T{s}._data")
            defined.add(s)
            return f"v{s}"

        def out_names(st):
            names = []
            for s in st.outs:
                if s in self.buffers:
                    ns[f"B{s}"] = self.buffers[s]
                    emit(f"    v{s} = B{s}")
                else:
                    a = cap.arrays[s]
                    ns[f"ES{s}"], ns[f"ED{s}"] = a.shape, a.dtype      # (names per slot, not per step)
                    emit(f"    v{s} = _empty(ES{s}, ED{s})")
                defined.add(s)
                names.append(f"v{s}")
            return names

        for j, st in enumerate(self.steps):
            ins = [ref(s) for s in st.ins]
            args = ", ".join(ins)
            tup = f"({args},)" if ins else "()"
            emit(f"    # step {j}: {args}")     # where replay_probe times each step (a comment: no cost)
            if st.kind == "kernel":
                ns[f"P{j}"], ns[f"O{j}"], ns[f"K{j}"] = st.plan, st.op, st.attrs
                mode = st.mode
                if mode == "ufunc":
                    ns[f"U{j}"] = st.op.attrs["FUfunc"]
                    (o,) = out_names(st)
                    emit(f"    U{j}({args}, out={o})")
                elif mode == "ufunc_t":
                    ns[f"U{j}"] = st.op.attrs["FUfunc"]
                    (o,) = out_names(st)
                    emit(f"    U{j}({ins[1]}.T, {ins[0]}.T, out={o})")
                elif mode in ("into", "fused", "chain"):
                    fn = st.op.attrs["FComputeInto"] if mode == "into" else st.fn
                    outs = out_names(st)
                    spell = getattr(fn, "as_calls", None)
                    calls = spell(st.attrs, [cap.arrays[s] for s in st.ins], [cap.arrays[s] for s in st.outs]) \
                        if spell is not None else None
                    if calls is None:
                        ns[f"F{j}"] = fn
                        emit(f"    F{j}(K{j}, {tup}, ({', '.join(outs)},))")
                    else:
                        for m, (call, *call_args) in enumerate(calls):
                            ns[f"L{j}_{m}"] = call
                            emit(f"    L{j}_{m}({self._call_args(j, m, *call_args, ins=ins, outs=outs, ns=ns)})")
                elif mode == "elementwise":
                    self._emit_fused(j, st, ins, out_names(st), host_made, ns, emit)
                elif mode == "prealloc":
                    ns[f"R{j}"], ns[f"Q{j}"], ns[f"S{j}"] = st.plan.runner, st.plan.req, st.plan.stats
                    outs = out_names(st)
                    emit(f"    R{j}(K{j}, {tup}, Q{j}, [{', '.join(outs)}])")
                    emit(f"    S{j}['calls'] += 1")
                elif mode == "direct":
                    ns[f"R{j}"] = st.plan.runner
                    names = ", ".join(f"v{s}" for s in st.outs)
                    emit(f"    {names}{',' if len(st.outs) > 1 else ''} = R{j}(K{j}, {tup})")
                    defined.update(st.outs)
                elif mode == "view":
                    ns[f"W{j}"] = st.op.attrs["FView"]
                    (s,) = st.outs
                    emit(f"    v{s} = W{j}(K{j}, {tup})")
                    defined.add(s)
                elif mode == "alloc":
                    ns[f"R{j}"] = st.plan.runner
                    ns[f"SH{j}"], ns[f"DT{j}"] = st.plan.shape0, st.plan.dtype0
                    (s,) = st.outs
                    emit(f"    v{s} = R{j}(K{j}, {tup})")
                    emit(f"    if v{s}.__class__ is not _nd or v{s}.shape != SH{j} or v{s}.dtype != DT{j}: "
                         f"v{s} = _check(O{j}, P{j}, v{s})[0]")
                    defined.add(s)
                elif mode == "alloc_checked" and len(st.outs) == 1 and st.plan.shape0 is not None:
                    ns[f"R{j}"], ns[f"S{j}"] = st.plan.runner, st.plan.stats
                    ns[f"SH{j}"], ns[f"DT{j}"] = st.plan.shape0, st.plan.dtype0
                    (s,) = st.outs
                    emit(f"    v{s} = R{j}(K{j}, {tup})")
                    emit(f"    if v{s}.__class__ is not _nd or v{s}.shape != SH{j} or v{s}.dtype != DT{j}: "
                         f"v{s} = _check(O{j}, P{j}, v{s})[0]")
                    emit(f"    S{j}['calls'] += 1")
                    defined.add(s)
                elif mode == "alloc_checked":
                    ns[f"R{j}"], ns[f"S{j}"] = st.plan.runner, st.plan.stats
                    emit(f"    r = _check(O{j}, P{j}, R{j}(K{j}, {tup}))")
                    emit(f"    S{j}['calls'] += 1")
                    for k, s in enumerate(st.outs):
                        emit(f"    v{s} = r[{k}]")
                        defined.add(s)
                else:   # "run"
                    emit(f"    r = P{j}.run(O{j}, K{j}, {tup})")
                    for k, s in enumerate(st.outs):
                        emit(f"    v{s} = r[{k}]")
                        defined.add(s)
            elif st.kind == "effect" and st.products is not None:
                arg_slots, prods = st.products
                ns[f"F{j}"], ns[f"X{j}"] = st.fn, self._scratch_flags(j, st, arg_slots)
                args = ", ".join("None" if s is None else ref(s) for s in arg_slots)
                prod = "".join(f"({i}, {ref(a)}, {ref(b)}, {ta}, {tb}), " for i, a, b, ta, tb in prods)
                emit(f"    F{j}({args}, scratch=X{j}, products=({prod}))")
            elif st.kind == "effect" and getattr(st.fn, "accepts_scratch", False):
                ns[f"F{j}"], ns[f"X{j}"] = st.fn, self._scratch_flags(j, st)
                emit(f"    F{j}({args}, scratch=X{j})")
            elif st.kind in ("effect", "check"):
                ns[f"F{j}"] = st.fn
                emit(f"    F{j}({args})")
            elif st.kind == "host":
                ns[f"F{j}"] = st.fn
                emit(f"    r = F{j}({args})")
                for k, s in enumerate(st.outs):
                    emit(f"    v{s} = r[{k}]")
                    defined.add(s)
            else:   # guard
                ns[f"F{j}"], ns[f"V{j}"] = st.fn, st.value
                emit(f"    if F{j}({args}) != V{j}: raise GuardMiss({j})")
            for s in st.outs:               # a value written into its destination: the owner's finish
                after = self.pinned_after.get(s)
                if after is not None:
                    ns[f"PA{s}"] = after
                    emit(f"    PA{s}(v{s})")
        outs = [ref(s) for s in self.out_slots]
        if self.template is None:
            emit(f"    return [{', '.join(outs)}]")
        else:
            ns["_W"] = Tensor._wrap
            emit(f"    return {self._build(self.template, outs, ns)}")
        from .dispatch import _check_results
        ns["_check"] = _check_results
        if self.roots is not None:          # checks of the outside world, before any step runs
            if self.reach is None:          # (the fused variant shares its record's)
                self.reach = Reach(self.roots, outside, {s: cap.arrays[s] for s in outside}, cap.cells)
                self.epoch_seen = [self.epoch[0]]
            lines[1:1] = self.reach.source(ns, self.epoch, self.epoch_seen, self._check_modes)
        source = "\n".join(lines) + "\n"
        code = compile(source, "<mscustom graph replay>", "exec")
        exec(code, ns)
        return source, ns["replay"]

    def _emit_fused(self, j, st, ins, outs, host_made, ns, emit):
        """The call of fused step ``j``'s kernel (``fusion.py``): every array passed flat.

        Arena buffers and constants are flattened once, here; other inputs
        with ``ravel()`` at each replay (a view when they are contiguous, as
        arguments and kernel outputs are). A host op's output is checked for
        its recorded size first: the kernel trusts the sizes it is given.
        """
        call = st.fn
        name = f"FK{j}"
        ns[name] = call.entry
        if call.entry is None:
            self._late.append((name, call))
        args, after = [], []
        for s, v in zip(st.ins, ins):
            if s in self.constants:
                ns[f"CF{s}"] = np.ascontiguousarray(self.constants[s]).reshape(-1)
                args.append(f"CF{s}")
            elif self._flat_buffer(s, ns):
                args.append(f"BF{s}")
            else:
                if s in host_made:
                    a = self.cap.arrays[s]
                    ns[f"HS{s}"], ns[f"HD{s}"] = a.shape, a.dtype
                    emit(f"    if {v}.shape != HS{s} or {v}.dtype != HD{s}: "
                         f"raise RuntimeError('a host op gave another shape or dtype than when recorded')")
                args.append(f"{v}.ravel()")
        for s, v in zip(st.outs, outs):
            if self._flat_buffer(s, ns):
                args.append(f"BF{s}")
            elif s in self.buffers and s not in self.fresh:     # a destination that is not contiguous
                emit(f"    w{s} = _empty({call.n}, {v}.dtype)")
                args.append(f"w{s}")
                after.append(f"    {v}[...] = w{s}.reshape({v}.shape)")
            else:
                args.append(f"{v}.ravel()")
        emit(f"    {name}({', '.join(args)}, {call.outer}, {call.inner}, {call.n})")
        for line in after:
            emit(line)

    def _flat_buffer(self, s, ns):
        """Bind ``BF{s}``, the flat view of slot ``s``'s arena buffer, if it has a contiguous one."""
        buf = self.buffers.get(s)
        if buf is None or s in self.fresh or not buf.flags.c_contiguous:
            return False
        ns[f"BF{s}"] = buf.reshape(-1)
        return True

    def _check_modes(self):
        """Some Cell's training flag or structure changed: raise ``StaleRecord`` if a called Cell's flag
        differs from the recorded one, else note that this record has seen the change."""
        reach = self.reach
        if reach.modes_now() != reach.modes:
            raise ModesMiss("a Cell's training flag differs")
        self.epoch_seen[0] = self.epoch[0]

    @staticmethod
    def _call_args(j, m, args, kwargs=None, *, ins, outs, ns):
        """The argument list of call ``m`` of step ``j``'s call list (see ``_core/calls.py``)."""
        def render(key, a):
            if isinstance(a, Ref):
                name = (ins if a.side == "in" else outs)[a.index]
                return name + ".T" if a.transposed else name
            if a is None or a is Ellipsis or type(a) in (bool, int):
                return repr(a)
            ns[f"Z{j}_{m}_{key}"] = a
            return f"Z{j}_{m}_{key}"

        rendered = [render(i, a) for i, a in enumerate(args)]
        rendered += [f"{k}={render(k, a)}" for k, a in (kwargs or {}).items()]
        return ", ".join(rendered)

    def _scratch_flags(self, j, st, arg_slots=None):
        """Per input of effect step ``j``: True where the value is an arena buffer nobody reads afterwards.

        An effect whose function has ``accepts_scratch = True`` is called with
        ``scratch=`` these flags and may overwrite those arrays (an optimizer
        scales the gradient in place instead of copying it to a work buffer).
        A value passed twice, returned, or sharing memory with another live
        value is never scratch. ``arg_slots``: the arguments where they differ
        from the step's inputs (None where a product is passed instead).
        """
        groups, last_use = self._groups, self._last_use
        roots = [groups.find(s) for s in st.ins]
        flags = []
        for s in (st.ins if arg_slots is None else arg_slots):
            if s is None:
                flags.append(False)
                continue
            g = groups.find(s)
            flags.append(((s in self.buffers and s not in self.fresh and s not in self.pinned) or s in self.owned)
                         and last_use.get(g) == j and roots.count(g) == 1)
        return tuple(flags)

    def _build(self, tpl, outs, ns):
        """The expression rebuilding the function's result from the output values (see graph.py)."""
        kind = tpl[0]
        if kind == "slot":
            return f"_W({outs[tpl[1]]}, {tpl[2]!r})"
        if kind == "obj":
            name = f"C{len(ns)}"
            ns[name] = tpl[1]
            return name
        if kind is dict:
            items = []
            for k, v in tpl[1]:
                kname = f"C{len(ns)}"
                ns[kname] = k
                items.append(f"{kname}: {self._build(v, outs, ns)}")
            return "{" + ", ".join(items) + "}"
        items = [self._build(v, outs, ns) for v in tpl[1]]
        if kind is tuple:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"

    # ----------------------------------------------------------------- facts
    def describe(self):
        """A short account of the record: steps, dropped steps, kernel modes, arena size."""
        modes = {}
        for st in self.steps:
            key = st.mode if st.kind == "kernel" else st.kind
            modes[key] = modes.get(key, 0) + 1
        modes_products = sum(len(st.products[1]) for st in self.steps if st.products is not None)
        if modes_products:
            modes["product_updates"] = modes_products
        return {"steps": len(self.steps), "dropped": self.dropped, "folded": self.folded,
                "merged": self.merged, "modes": modes,
                "arena_bytes": self.arena_bytes, "fresh_outputs": len(self.fresh),
                "fusion": dict(self.fusion)}

    def allocating_steps(self):
        """The kernel steps that allocate their outputs on every replay (their ops lack an into kernel)."""
        return [st for st in self.steps
                if (st.kind == "kernel" and st.mode in ("alloc", "alloc_checked", "run"))
                or (st.kind == "host" and st.outs)]
