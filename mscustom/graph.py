"""Graph mode: ``ms.jit`` and ``GRAPH_MODE`` capture a function's kernel calls once and replay them.

The first call of a jitted function for an input signature runs it eagerly
while the dispatcher records every kernel call (``_core/capture.py``); the
record is then optimised and compiled into one straight-line function over
preallocated buffers (``_core/replay.py``). Later calls with the same
signature replay it: the kernels run in order, with no per-op dispatch and no
Tensor objects for intermediates.

The signature is what the record depends on: the shapes, dtypes and formats
of tensor arguments (at any depth of tuples, lists and dicts), the values of
other arguments (Python numbers, strings, None; objects such as Cells by
identity), the training flags of the Cells involved and the device target.
A new signature records again; at most ``MAX_SIGNATURES`` records are kept
per function (least recently used are dropped).

Honest limits, as in MindSpore's and JAX's graph modes:

- Python side effects (print, appending to a list, changing attributes) happen
  while recording only. Library code that changes tensors in place outside the
  ops (optimizer updates, BatchNorm's moving statistics, ``Tensor.__setitem__``)
  registers an *effect* that every replay repeats; random ops draw fresh
  numbers on every replay.
- A tensor converted to a Python ``bool``/``int``/``float`` while recording
  (``if x.sum() > 0:``) becomes a *guard*: the replay checks the value and, when
  it differs, the function records again for the other value. Where that
  cannot be done safely (a guard after an in-place effect), or when a traced
  tensor's data is read into Python as an array (``asnumpy()``), the function
  runs eagerly from then on, with one ``GraphFallbackWarning`` naming the file
  and line.
- Called while a gradient is being recorded (``ms.grad(jitted)(x)``) or inside
  another capture, a jitted function runs eagerly (its calls are recorded by
  the outer tape or capture).

Example::

    @ms.jit
    def step(x):
        return ops.relu(x) * 2
"""

import collections
import functools
import logging
import warnings

import numpy as np

from . import context as _context
from ._core import replay_probe as _probe, trace as _trace
from ._core.capture import Capture, GuardMiss, capturing
from ._core.dispatch import TIMING as _TIMING
from ._core.fastcall import signature_key
from ._core.guards import ModesMiss, StaleRecord
from ._core.replay import Record
from ._core.tape import STATE
from .log import logger as _log
from .tensor import Tensor

__all__ = ["jit", "GraphFunction", "GraphFallbackWarning", "MAX_SIGNATURES"]

_CAPTURE_MODES = ("ast", "bytecode", "trace")
MAX_SIGNATURES = 8          # records kept per function
MAX_VARIANTS = 4            # records per signature that differ in guard values
_settings = _context._settings


class GraphFallbackWarning(UserWarning):
    """A jitted function runs eagerly because its capture could not be replayed faithfully."""


# ------------------------------------------------------------------ cell training flags
_MODE_EPOCH = [0]


def training_changed():
    """Called when a Cell's training flag, sub-cells or Parameters change (mode tuples are recomputed)."""
    _MODE_EPOCH[0] += 1


def _cell_modes(cell):
    cached = cell.__dict__.get("_graph_modes")
    if cached is not None and cached[0] == _MODE_EPOCH[0]:
        return cached[1]
    modes = tuple((c.training, id(c), tuple(map(id, c.__dict__.get("_params", {}).values())))
                  for c in _walk_cells(cell))
    cell.__dict__["_graph_modes"] = (_MODE_EPOCH[0], modes)
    return modes


def _walk_cells(cell):
    stack, seen = [cell], set()
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        yield c
        stack.extend(reversed(list(c.__dict__.get("_cells", {}).values())))


# ------------------------------------------------------------------ signatures
class _Unkeyable(Exception):
    pass


def _sig(value, flat):
    if isinstance(value, Tensor):
        flat.append(value)
        d = value._data
        return (d.shape, d.dtype, value._format)
    t = type(value)
    if t is int or t is float or t is bool or t is str or value is None or t is complex:
        return (t, value)
    if t is tuple or t is list:
        return (t, tuple(_sig(v, flat) for v in value))
    if t is dict:
        return (t, tuple((k, _sig(value[k], flat)) for k in sorted(value, key=repr)))
    if isinstance(value, np.generic):
        return (t, value.item())
    if isinstance(value, np.ndarray):
        raise _Unkeyable("a NumPy array argument (pass a Tensor)")
    if "_cells" in getattr(value, "__dict__", ()):
        return (id(value), _cell_modes(value), value)
    if t.__hash__ is object.__hash__:
        return (id(value), value)
    try:
        hash(value)
    except TypeError:
        raise _Unkeyable(f"an unhashable {t.__name__} argument") from None
    return (t, value)


def _signature(args, kwargs, cell):
    flat = []
    parts = [_sig(a, flat) for a in args]
    if kwargs:
        parts.append(tuple((k, _sig(kwargs[k], flat)) for k in sorted(kwargs)))
    if cell is not None:
        parts.append(_cell_modes(cell))
    ids = [id(t._data) for t in flat]
    if len(set(ids)) != len(ids):       # one array passed twice: the record reads it through one slot
        first = {}
        parts.append(("aliased", tuple(first.setdefault(i, k) for k, i in enumerate(ids))))
    parts.append(_settings["device_target"])
    return flat, tuple(parts)


# ------------------------------------------------------------------ outputs
def _template(value, cap, slots):
    """A rebuildable description of the function's result; traced tensors become slot references."""
    if isinstance(value, Tensor):
        s = cap.slot_of.get(id(value._data))
        if s is None or cap.slots[s][0] == "ext":
            return ("obj", value)
        slots.append(s)
        return ("slot", len(slots) - 1, value._format)
    if type(value) in (tuple, list):
        return (type(value), [_template(v, cap, slots) for v in value])
    if type(value) is dict:
        return (dict, [(k, _template(v, cap, slots)) for k, v in value.items()])
    return ("obj", value)


def _first_effect_before_guard(cap):
    seen_effect = False
    for st in cap.steps:
        if st.kind == "effect":
            seen_effect = True
        elif st.kind == "guard" and seen_effect:
            return st
    return None


# ------------------------------------------------------------------ the compiled function
class GraphFunction:
    """A function compiled by capture and replay. Call it like the function it wraps.

    ``stats``: how many calls recorded, replayed, or ran eagerly.
    ``records``: signature -> list of ``Record`` (one per guard variant).
    """

    def __init__(self, fn, cell=None, name=None):
        self.fn = fn
        self.cell = cell
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__
        self.records = collections.OrderedDict()
        self.eager_reason = None
        self.stats = {"recorded": 0, "replayed": 0, "eager": 0}
        functools.update_wrapper(self, fn, updated=())

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        bound = obj.__dict__.get("_jit_bound_" + self.name) if hasattr(obj, "__dict__") else None
        if bound is None:
            bound = functools.partial(self, obj)
            try:
                obj.__dict__["_jit_bound_" + self.name] = bound
            except (AttributeError, TypeError):
                pass
        return bound

    def __call__(self, *args, **kwargs):
        st = STATE
        if st.capture is not None or st.depth or self.eager_reason is not None:
            self.stats["eager"] += 1
            return self.fn(*args, **kwargs)
        key = why = None                         # why: what made the records miss (for the log)
        if not kwargs and self.cell is None:     # the common case, plain tensors only: one C call
            key = signature_key(args, Tensor, _settings["device_target"])
            flat = args
        if key is None:
            try:
                flat, key = _signature(args, kwargs, self.cell)
            except _Unkeyable as exc:
                self._give_up(f"its arguments cannot be part of a signature ({exc})", None)
                self.stats["eager"] += 1
                return self.fn(*args, **kwargs)
        variants = self.records.get(key)
        if variants:
            if len(self.records) > 1:
                self.records.move_to_end(key)
            arrays = [t._data for t in flat]
            missed = None
            for rec in variants:
                if not rec.lock.acquire(False):         # replayed by another thread right now
                    self.stats["eager"] += 1
                    return self.fn(*args, **kwargs)
                try:
                    # the function's result, rebuilt by the replay (every step timed while anyone times)
                    outs = rec.run(arrays) if not _TIMING[0] else _probe.timed_run(rec, self.name)(arrays)
                except GuardMiss as miss:
                    missed = rec.steps[miss.args[0]].where
                    why = "the tensor value read into Python at %s:%s differs from the recorded one" % missed
                    continue
                except ModesMiss:               # recorded for other training flags: try the next variant
                    why = "a Cell's training flag differs from the recorded ones"
                    continue
                except StaleRecord as stale:    # checked before any step ran: record afresh
                    why = f"the record is stale: {stale}"
                    variants.remove(rec)
                    self.stats["stale"] = self.stats.get("stale", 0) + 1
                    break
                except Exception as exc:
                    # run eagerly: an error is then raised naming its op, as in PyNative mode
                    self._drop(key)
                    out = self.fn(*args, **kwargs)
                    self._give_up(f"its replay failed ({type(exc).__name__}: {exc}) where the "
                                  "eager run did not", None)
                    return out
                finally:
                    rec.lock.release()
                self.stats["replayed"] += 1
                return outs
            if missed is not None and len(variants) >= MAX_VARIANTS:
                self._give_up(f"a tensor value read into Python differs on every call (its guard failed "
                              f"for all {len(variants)} recorded values)", missed)
                self.stats["eager"] += 1
                return self.fn(*args, **kwargs)
        return self._record_traced(key, flat, args, kwargs, why)

    # ----------------------------------------------------------------- recording
    def _record_traced(self, key, flat, args, kwargs, why):
        """``_record``, logged (INFO: what was recorded and why; DEBUG: its guards, its first replay) and
        reported to a recording profiler as one ``record`` event around the op calls it made."""
        t0 = _trace.now()
        if why is None:
            why = "its first call" if not self.records else "a new input signature (shapes, dtypes, values)"
        before = self.records.get(key)
        before = before[-1] if before else None
        out = self._record(key, flat, args, kwargs)
        if _trace.ACTIVE[0] is not None:
            _trace.add(self.name, "record", t0, {"why": why})
        if _log.isEnabledFor(logging.INFO):
            after = self.records.get(key)
            if after and after[-1] is not before:      # a record was made (not a fallback to eager)
                self._log_record(after[-1], why, (_trace.now() - t0) / 1e6)
        return out

    def _log_record(self, rec, why, ms):
        kinds = collections.Counter(st.kind for st in rec.steps)
        _log.info("ms.jit: recorded '%s' (%s) in %.1f ms: %d kernel call(s), %d effect(s), %d host op(s), "
                  "%d guard(s); later calls with this signature replay it", self.name, why, ms, kinds["kernel"],
                  kinds["effect"], kinds["host"], kinds["guard"])
        if _log.isEnabledFor(logging.DEBUG):
            for st in rec.steps:
                if st.kind == "guard":
                    _log.debug("ms.jit: '%s' is guarded by the value read into Python at %s:%s (recorded: %r)",
                               self.name, st.where[0], st.where[1], st.value)
            rec.run = _first_replay_logged(rec, self.name)

    def _record(self, key, flat, args, kwargs):
        cap = Capture(flat)
        with capturing(cap):
            out = self.fn(*args, **kwargs)
        self.stats["recorded"] += 1
        if cap.unusable is not None:
            reason, filename, lineno = cap.unusable
            self._give_up(reason, (filename, lineno))
            return out
        bad = _first_effect_before_guard(cap)
        if bad is not None:
            self._give_up("a tensor value decides Python control flow after an in-place update "
                          "(a guard cannot re-run the step safely)", bad.where)
            return out
        slots = []
        template = _template(out, cap, slots)
        rec = Record(cap, slots, template, roots=self._roots(args, kwargs), epoch=_MODE_EPOCH)
        rec.cap = None                  # the recorded arrays are not needed any more
        if rec.reach.unreached:
            t = rec.reach.unreached[0]
            self._give_up(f"it reads a tensor of shape {t.shape} from outside its arguments that no path "
                          "from the function reaches (pass it as an argument, or keep it in a global, "
                          "a closure or a Cell attribute), so a replay could not check it is still the "
                          "one it reads", None)
            return out
        variants = self.records.setdefault(key, [])
        if len(variants) >= MAX_VARIANTS:
            variants.pop(0)
        variants.append(rec)
        self.records.move_to_end(key)
        while len(self.records) > MAX_SIGNATURES:
            self.records.popitem(last=False)
        return out

    def _roots(self, args, kwargs):
        """Where the guards' access paths start: the function (its globals, closure, defaults, bound
        object), its Cell, and the arguments the signature pins by identity."""
        roots = [self.fn] if self.cell is None else [self.fn, self.cell]
        for a in list(args) + list(kwargs.values()):
            if not isinstance(a, (Tensor, int, float, str, bool, complex, tuple, list, dict, type(None))) \
                    and type(a).__hash__ is object.__hash__:
                roots.append(a)
        return roots

    def _drop(self, key):
        self.records.pop(key, None)

    def _give_up(self, reason, where):
        """Run eagerly from now on, with one warning naming the file and line."""
        self.eager_reason = reason
        self.records.clear()
        msg = f"ms.jit: '{self.name}' runs eagerly from now on: {reason}"
        _log.info("%s", msg)
        if where is not None:
            warnings.warn_explicit(msg, GraphFallbackWarning, where[0], where[1])
        else:
            warnings.warn(msg, GraphFallbackWarning, stacklevel=3)

    def reset(self):
        """Forget every record (and a fallback to eager): the next call records again."""
        self.records.clear()
        self.eager_reason = None


def _first_replay_logged(rec, name):
    """``rec.run`` that logs its first call (DEBUG), then puts the plain function back."""
    run = rec.run

    def first(arrays):
        _log.debug("ms.jit: replaying '%s' (%d steps)", name, len(rec.steps))
        if rec.run is first:
            rec.run = run
        return run(arrays)
    return first


def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False, backend="",
        jit_config=None, input_signature=None, **options):
    """Compile ``function`` by capture and replay (MindSpore's ``mindspore.jit``).

    Usable as ``@jit`` or ``@jit(capture_mode=..., ...)``, on functions and on
    a Cell's ``construct``; the older ``jit_config`` / ``input_signature``
    arguments are accepted. ``capture_mode``, ``jit_level``, ``dynamic``,
    ``fullgraph`` and ``backend`` are checked and otherwise have no effect:
    every mode captures the kernel calls the same way.
    """
    if capture_mode not in _CAPTURE_MODES:
        raise ValueError(f"jit: capture_mode must be one of {list(_CAPTURE_MODES)}, got {capture_mode!r}")
    if jit_level not in (None, "O0", "O1", "O2"):
        raise ValueError(f"jit: jit_level must be None, 'O0', 'O1' or 'O2', got {jit_level!r}")

    def decorate(fn):
        if isinstance(fn, GraphFunction):
            return fn
        if not callable(fn):
            raise TypeError(f"jit: expected a function or a Cell method, got {type(fn).__name__}")
        if "_cells" in getattr(fn, "__dict__", ()):          # a Cell instance: compile its calls
            return GraphFunction(fn.construct, cell=fn, name=type(fn).__name__)
        return GraphFunction(fn)

    return decorate if function is None else decorate(function)


def cell_call(cell, args, kwargs):
    """``Cell.__call__`` in GRAPH_MODE: the Cell's calls go through its own GraphFunction."""
    gf = cell.__dict__.get("_graph_fn")
    if gf is None:
        gf = cell.__dict__["_graph_fn"] = GraphFunction(cell.construct, cell=cell, name=type(cell).__name__)
    return gf(*args, **kwargs)
