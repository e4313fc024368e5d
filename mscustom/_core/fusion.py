"""Elementwise fusion for graph replays: a chain of elementwise kernel calls becomes one Numba loop.

A replay otherwise runs one NumPy call per op, one pass over memory each.
``plan(steps, arrays, out_slots)`` finds chains of elementwise calls in a
record's steps -- built-in ops whose attribute ``FElementwiseExpr`` says what
they compute per element (``fusion_kernels.ElementwiseExpr``) -- and returns
the steps with each chain replaced by one step of mode ``"elementwise"``
running a generated kernel (``fusion_kernels``): values used only inside the
chain stay in registers, values read later (by another step, a guard, an
effect, or returned) are written out.

A chain is a set of such calls that

- produce values of one shape (the chain's shape);
- are linked by data: each call after the first reads a value of the chain;
- read values from outside the chain that have the chain's shape, one
  element (a number, a size-1 array), or broadcast along leading axes only
  (a bias (C,) over (N, C)) or along trailing axes only (a row statistic
  (N, 1) over (N, C)), at one split of the axes for the whole chain; any
  other broadcast keeps the call out;
- have float32, float64 or bool inputs and outputs (float16 is not fused:
  NumPy computes it in float32 and rounds every op, which the kernels do not
  imitate);
- run between the same effects, checks, guards and host ops (those may
  change arrays in place), and no call outside the chain reads a value of it
  before the chain's last call, where the fused step runs.

Chains of one call stay as they are, unless the op's expression says its
unfused form costs several passes (``alone``: relu's gradient, erf). Ops
whose expression says NumPy's vectorised loop is faster (``numpy_faster``:
exp, log, tanh ...) end a chain unless ``MSCUSTOM_FUSE_MATH=1``.

When kernels are compiled (``MSCUSTOM_FUSE``, read when a record is made):

- ``background`` (the default): a record replays unfused until its
  ``REPLAYS_BEFORE_FUSING``-th replay, then one daemon thread compiles (or
  loads from Numba's disk cache) its kernels and the record switches to the
  fused replay; a short program never imports Numba for this, and no replay
  waits. A record whose kernels this process already has is fused at once
  (a record made again for a new shape, say);
- ``now``: at recording (tests, benchmarks of the steady state);
- ``off`` (or ``0``): never.

``wait()`` waits for the compile thread (tests; ``os.fork()`` does too).
"""

import os
import threading

import numpy as np

from .capture import Step
from .fusion_kernels import ElementwiseExpr, compile_kernel, compiled, kernel_source

__all__ = ["plan", "calls_of", "policy", "fuse_math", "request", "wait", "FusedCall", "FUSED_OP",
           "ElementwiseExpr", "POLICY_ENV", "MATH_ENV", "REPLAYS_BEFORE_FUSING", "PARALLEL_MIN"]

POLICY_ENV = "MSCUSTOM_FUSE"
MATH_ENV = "MSCUSTOM_FUSE_MATH"
REPLAYS_BEFORE_FUSING = 64      # replays of a record before its kernels are compiled (background policy)
PARALLEL_MIN = 1 << 18          # elements from which a kernel runs its blocks in parallel (prange)
CHUNK = 1 << 14                 # block size of a parallel kernel over same-shape arrays
_DTYPES = {np.dtype(np.float32): "f4", np.dtype(np.float64): "f8", np.dtype(np.bool_): "b1"}
_MODES = ("ufunc", "into", "alloc")         # how the calls a chain may take are replayed unfused


def policy():
    """``"off"``, ``"background"`` or ``"now"``, from ``MSCUSTOM_FUSE``."""
    value = os.environ.get(POLICY_ENV, "background").strip().lower() or "background"
    if value in ("0", "off", "false", "no"):
        return "off"
    if value in ("1", "on", "true", "yes", "background"):
        return "background"
    if value == "now":
        return "now"
    raise ValueError(f"{POLICY_ENV} must be 'background', 'now' or 'off' (or 1/0), got {value!r}")


def fuse_math():
    """Whether ops NumPy vectorises better (``numpy_faster``) are fused too (``MSCUSTOM_FUSE_MATH=1``)."""
    return os.environ.get(MATH_ENV, "0").strip().lower() in ("1", "on", "true", "yes")


class _FusedOp:
    """What a fused step names as its op (it is no registered op)."""

    name = "fused_elementwise"
    frontend = None

    def __init__(self):
        self.attrs = {}

    def __repr__(self):
        return "FusedOp()"


FUSED_OP = _FusedOp()


class FusedCall:
    """A fused step's kernel: its source, array dtypes, loop bounds and the ops it replaced.

    ``entry`` is the compiled kernel, None until ``compile()`` (or a cache
    hit) fills it.
    """

    __slots__ = ("source", "dtypes", "outer", "inner", "n", "ops", "parallel", "entry")

    def __init__(self, source, dtypes, outer, inner, n, ops, parallel):
        self.source, self.dtypes = source, dtypes
        self.outer, self.inner, self.n = outer, inner, n
        self.ops, self.parallel = ops, parallel
        self.entry = compiled(source)

    def compile(self):
        if self.entry is None:
            from .. import _threads
            _threads.apply_default_at_start()       # as at a jit kernel's bind: one budget for every pool
            self.entry = compile_kernel(self.source, self.dtypes)
        return self.entry


# --------------------------------------------------------------------- finding chains
def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _splits(shape, full):
    """The axis splits at which an input of ``shape`` fits a chain of shape ``full``; None: any."""
    r = len(full)
    q = (1,) * (r - len(shape)) + tuple(shape)
    size, n = _prod(q), _prod(full)
    if size == n or size == 1:
        return None
    ok = set()
    for p in range(r + 1):
        ones_before = all(d == 1 for d in q[:p])
        ones_after = all(d == 1 for d in q[p:])
        if (ones_before and q[p:] == full[p:]) or (ones_after and q[:p] == full[:p]):
            ok.add(p)
    return frozenset(ok)


def _meet(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _kind(shape, full, p):
    r = len(full)
    q = (1,) * (r - len(shape)) + tuple(shape)
    size = _prod(q)
    if size == _prod(full):
        return "full"
    if size == 1:
        return "scalar"
    return "inner" if all(d == 1 for d in q[:p]) else "outer"


def _member(st, arrays, with_math):
    """``(expr, shape)`` when step ``st`` may be part of a chain, else None."""
    if st.kind != "kernel" or st.mode not in _MODES or len(st.outs) != 1:
        return None
    op, pl = st.op, st.plan
    rule = op.attrs.get("FElementwiseExpr")
    if rule is None or pl is None or pl.entry.kind != "builtin" or pl.conversions or pl.restore \
            or pl.out_formats or op.attrs.get("FRandom"):
        return None
    out = arrays[st.outs[0]]
    if type(out) is not np.ndarray or out.dtype not in _DTYPES or out.size == 0:
        return None
    ins = [arrays[s] for s in st.ins]
    for a in ins:
        if type(a) is not np.ndarray or a.dtype not in _DTYPES or a.ndim > out.ndim:
            return None
    try:
        expr = rule(st.attrs or {}, [a.dtype for a in ins], out.dtype)
    except Exception:
        return None
    if expr is None or (expr.numpy_faster and not with_math):
        return None
    return expr, out.shape


class _Chain:
    __slots__ = ("members", "shape", "splits", "produced", "last", "blocked")

    def __init__(self, shape):
        self.members = []           # (step index, step, expr)
        self.shape = shape
        self.splits = None          # axis splits every outside input fits (None: any)
        self.produced = set()
        self.last = -1
        self.blocked = False        # a call outside it read one of its values: it cannot grow


def _fit(st, produced, shape, arrays, splits):
    """``(True, splits)`` when every input of ``st`` not in ``produced`` fits a chain of ``shape`` at a
    split it already allows (``splits``: None for any), narrowed to those; ``(False, None)`` if none is left."""
    for s in st.ins:
        if s not in produced:
            splits = _meet(splits, _splits(arrays[s].shape, shape))
            if splits is not None and not splits:
                return False, None
    return True, splits


def _find_chains(steps, arrays, with_math):
    chains, owner, live = [], {}, []
    for j, st in enumerate(steps):
        if st.kind != "kernel":             # effects, checks, guards, host ops end every chain
            live = []
            continue
        info = _member(st, arrays, with_math)
        joined = None
        if info is not None:
            expr, shape = info
            near = []
            for s in st.ins:
                c = owner.get(s)
                if c is not None and c not in near and c in live and not c.blocked and c.shape == shape:
                    near.append(c)
            ok = False
            if near:
                start = None
                for c in near:
                    start = _meet(start, c.splits)
                if start is None or start:
                    ok, splits = _fit(st, set().union(*(c.produced for c in near)), shape, arrays, start)
            if ok:
                joined = near[0]
                for c in near[1:]:              # two chains meet at this call: one chain
                    joined.members.extend(c.members)
                    joined.produced |= c.produced
                    for s in c.produced:
                        owner[s] = joined
                    live.remove(c)
                    chains.remove(c)
                joined.members.sort(key=lambda m: m[0])
            else:
                ok, splits = _fit(st, (), shape, arrays, None)
                if ok:
                    joined = _Chain(shape)
                    chains.append(joined)
                    live.append(joined)
            if joined is not None:
                joined.splits = splits
                joined.members.append((j, st, expr))
                joined.last = j
                joined.produced.add(st.outs[0])
                owner[st.outs[0]] = joined
        for s in st.ins:
            c = owner.get(s)
            if c is not None and c is not joined:
                c.blocked = True
    return [c for c in chains if len(c.members) >= 2 or c.members[0][2].alone]


# --------------------------------------------------------------------- fused steps
def _fused_step(chain, arrays, readers, out_set):
    idx = {j for j, _, _ in chain.members}
    full = tuple(chain.shape)
    n = _prod(full)
    ext, slot_arg = [], {}
    value_of = {}
    members = []
    for m, (j, st, expr) in enumerate(chain.members):
        args = []
        for s in st.ins:
            if s in value_of:
                args.append(("t", value_of[s]))
            else:
                if s not in slot_arg:
                    slot_arg[s] = len(ext)
                    ext.append(s)
                args.append(("x", slot_arg[s]))
        value_of[st.outs[0]] = m
        members.append((expr, args, _DTYPES[arrays[st.outs[0]].dtype]))
    exports = []
    for m, (j, st, _) in enumerate(chain.members):
        s = st.outs[0]
        if s in out_set or any(r not in idx for r in readers.get(s, ())):
            exports.append(m)
    parallel = n >= PARALLEL_MIN
    if chain.splits is None:                # same-shape inputs and single elements: any blocking
        kinds = ["full" if arrays[s].size == n else "scalar" for s in ext]
        inner = min(CHUNK, n) if parallel else n
        outer = -(-n // inner)
    else:
        p = min(chain.splits)
        kinds = [_kind(arrays[s].shape, full, p) for s in ext]
        outer, inner = _prod(full[:p]), _prod(full[p:])
    inputs = [(_DTYPES[arrays[s].dtype], k) for s, k in zip(ext, kinds)]
    outs = [chain.members[m][1].outs[0] for m in exports]
    source = kernel_source(inputs, members, exports, parallel)
    dtypes = [d for d, _ in inputs] + [_DTYPES[arrays[s].dtype] for s in outs]
    call = FusedCall(source, dtypes, outer, inner, n, [st.op.name for _, st, _ in chain.members], parallel)
    step = Step("kernel", ext, outs, op=FUSED_OP, plan=None, attrs={}, fn=call)
    step.mode = "elementwise"
    return step


def plan(steps, arrays, out_slots, with_math=None):
    """The steps with every chain replaced by one fused step, or None when there is no chain.

    ``arrays``: the recorded array of each slot; ``out_slots``: the values
    returned (always written out). The fused steps' kernels are not compiled
    here (``FusedCall.compile``) unless this process already has them.
    """
    chains = _find_chains(steps, arrays, fuse_math() if with_math is None else with_math)
    if not chains:
        return None
    readers = {}
    for j, st in enumerate(steps):
        for s in st.ins:
            readers.setdefault(s, []).append(j)
    out_set = set(out_slots)
    at = {c.last: c for c in chains}
    gone = {j for c in chains for j, _, _ in c.members}
    new = []
    for j, st in enumerate(steps):
        c = at.get(j)
        if c is not None:
            new.append(_fused_step(c, arrays, readers, out_set))
        elif j not in gone:
            new.append(st)
    return new


def calls_of(steps):
    """The ``FusedCall`` of every fused step in ``steps``."""
    return [st.fn for st in steps if st.kind == "kernel" and st.mode == "elementwise"]


# --------------------------------------------------------------------- background compiles
_QUEUE = []
_STATE = {"thread": None}
_QLOCK = threading.Lock()


def request(job):
    """Run ``job()`` (compiling a record's kernels, then switching it) in the compile thread."""
    with _QLOCK:
        _QUEUE.append(job)
        if _STATE["thread"] is None:
            t = threading.Thread(target=_work, name="mscustom-fusion", daemon=True)
            _STATE["thread"] = t
            t.start()


def _work():
    while True:
        with _QLOCK:
            if not _QUEUE:
                _STATE["thread"] = None
                return
            job = _QUEUE.pop(0)
        try:
            job()
        except Exception:           # a job reports its own failure on its record
            pass


def wait(timeout=None):
    """Wait until the compile thread has nothing left to do (or ``timeout`` seconds)."""
    t = _STATE["thread"]
    if t is not None and t is not threading.current_thread():
        t.join(timeout)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=lambda: wait(60))      # no child inherits a compile half done
