"""Guards: what a graph replay checks about the world outside its arguments before it runs.

A record reads tensors its function reached outside its arguments (Parameters,
a global tensor, a tensor attribute of a Cell) and calls Cells whose training
flags changed what was recorded. A replay that ran on a world that has moved
on since the recording would give stale answers, so before any step runs it
checks:

- **reach**: each outside tensor, and each Cell that was called, is still the
  object found at the end of the same access path from the function
  (``net.head.weight``, a global ``G``, a closure variable, a default
  argument). Paths are found once, at recording, by a bounded breadth-first
  walk from the function through its globals (only the names its code uses),
  closures, defaults, bound ``self``, object attributes and containers;
- **layout**: each outside tensor's array still has the recorded shape, dtype
  and strides (kernels were selected and buffers sized for them);
- **modes**: when any Cell's training flag or structure changed since the
  recording (``graph.training_changed`` counts such changes), the called
  Cells' training flags are compared with the recorded ones.

A failed check raises ``StaleRecord`` before any step ran, so graph.py can drop
the record and record again. An outside tensor that no path reaches cannot be
checked: ``Reach.unreached`` lists them and graph.py runs such functions
eagerly (with a warning) rather than replay on state it did not check.
"""

import functools
import keyword
import types
from collections import deque

import numpy as np

from ..tensor import Tensor

__all__ = ["StaleRecord", "ModesMiss", "Reach", "find_paths"]

MAX_DEPTH = 10              # steps from a root
MAX_NODES = 50_000          # objects visited per recording
MAX_ITEMS = 4096            # items looked at per container


class StaleRecord(Exception):
    """A replay's record was made for state outside its arguments that has changed since."""


class ModesMiss(StaleRecord):
    """The called Cells' training flags differ from the record's: another record (another variant)
    may fit them, so this one is kept."""


def _code_names(code, out):
    out.update(code.co_names)
    out.update(code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, out)
    return out


_LEAF_TYPES = (str, bytes, int, float, complex, bool, type(None), np.ndarray, np.generic,
               types.BuiltinFunctionType, types.CodeType, range, slice)


def _children(obj, names):
    """``(step, child, names)`` for every object ``obj`` leads to. ``names``: the identifiers the
    code that holds ``obj`` uses (modules are walked through those only)."""
    if isinstance(obj, types.FunctionType):
        fnames = _code_names(obj.__code__, set())
        g = obj.__globals__
        if not _library(getattr(obj, "__module__", None)):     # the library's globals hold no user state
            for name in fnames:
                if name in g:
                    yield (("attr", "__globals__"), ("item", name)), g[name], fnames
        for i, cell in enumerate(obj.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            yield (("attr", "__closure__"), ("item", i), ("attr", "cell_contents")), value, fnames
        for i, value in enumerate(obj.__defaults__ or ()):
            yield (("attr", "__defaults__"), ("item", i)), value, fnames
        for k, value in (obj.__kwdefaults__ or {}).items():
            yield (("attr", "__kwdefaults__"), ("item", k)), value, fnames
        return
    if isinstance(obj, types.MethodType):
        yield (("attr", "__self__"),), obj.__self__, names
        yield (("attr", "__func__"),), obj.__func__, names
        return
    if isinstance(obj, type):       # a user class: its attributes and methods (class-level state)
        if _library(obj.__module__):
            return
        for i, klass in enumerate(obj.__mro__[:-1]):
            if _library(klass.__module__):
                continue
            for k, value in list(vars(klass).items())[:MAX_ITEMS]:
                if type(k) is str and not (k.startswith("__") and k.endswith("__")):
                    yield (("attr", "__mro__"), ("item", i), ("attr", "__dict__"), ("item", k)), value, names
        return
    if isinstance(obj, types.ModuleType):
        d = obj.__dict__
        for name in names:
            if name in d:
                yield (("attr", name),), d[name], names
        return
    if isinstance(obj, (tuple, list)):
        for i, value in enumerate(obj[:MAX_ITEMS]):
            yield (("item", i),), value, names
        return
    if isinstance(obj, dict):
        for n, (k, value) in enumerate(obj.items()):
            if n >= MAX_ITEMS:
                break
            if type(k) in (str, int):
                yield (("item", k),), value, names
        return
    if isinstance(obj, functools.partial):
        yield (("attr", "func"),), obj.func, names
        yield (("attr", "args"),), obj.args, names
        yield (("attr", "keywords"),), obj.keywords, names
        return
    d = getattr(obj, "__dict__", None)
    if type(d) is dict:
        for n, (k, value) in enumerate(d.items()):
            if n >= MAX_ITEMS:
                break
            if type(k) is str:
                yield (("dict", k),), value, names
    klass = type(obj)
    for base in klass.__mro__[:-1]:
        slots = base.__dict__.get("__slots__", ())
        for k in (slots,) if isinstance(slots, str) else slots:
            if isinstance(k, str) and k not in ("__dict__", "__weakref__"):
                try:
                    yield (("attr", k),), getattr(obj, k), names
                except AttributeError:
                    pass
    yield (("attr", "__class__"),), klass, names


def _library(module):
    """Whether ``module`` (a name) is mscustom's own code or Python's, not the user's."""
    return not isinstance(module, str) or module == "mscustom" or module.startswith("mscustom.") \
        or module == "builtins"


def find_paths(roots, targets):
    """Shortest access paths from ``roots`` to each object of ``targets``.

    Returns ``{id(target): (root_index, steps)}`` with ``steps`` a tuple of
    ``("attr", name)`` (an attribute read), ``("dict", name)`` (an entry of the object's
    instance ``__dict__``) or ``("item", key)``; targets no path reaches are absent.
    """
    want = {id(t) for t in targets}
    found = {}
    seen = set()
    queue = deque()
    for i, r in enumerate(roots):
        if id(r) in want and id(r) not in found:
            found[id(r)] = (i, ())
        if id(r) not in seen:
            seen.add(id(r))
            queue.append((r, i, (), frozenset()))
    visited = 0
    while queue and len(found) < len(want) and visited < MAX_NODES:
        obj, root, path, names = queue.popleft()
        visited += 1
        if len(path) >= MAX_DEPTH or isinstance(obj, Tensor):
            continue
        try:
            kids = list(_children(obj, names))
        except Exception:                     # an object whose attributes cannot be walked
            continue
        for steps, child, child_names in kids:
            if isinstance(child, _LEAF_TYPES):
                continue
            k = id(child)
            if k in seen:
                continue
            seen.add(k)
            p = path + steps
            if k in want:
                found[k] = (root, p)
            queue.append((child, root, p, child_names))
    return found


def _constant(tensor):
    """A tensor no user code reaches whose array cannot change: read-only and owning its memory
    (a Python number made into a tensor, held by the library's scalar cache or a tape node)."""
    data = tensor._data
    return isinstance(data, np.ndarray) and not data.flags.writeable and data.base is None


def _attr_ok(obj_type, name):
    """Whether ``x.name`` reads the instance attribute itself (no class attribute of that name)."""
    return name.isidentifier() and not keyword.iskeyword(name) and not hasattr(obj_type, name)


class Reach:
    """The checks one record makes before it replays (see the module docstring).

    ``roots``: the objects paths start from (the function, and arguments
    keyed by identity); ``tensors``: slot -> outside Tensor read by the
    replay; ``arrays``: slot -> the array it held when recorded; ``cells``:
    the Cells called while recording.
    """

    def __init__(self, roots, tensors, arrays, cells):
        self.roots = list(roots)
        self.tensors = dict(tensors)
        self.cells = list({id(c): c for c in cells}.values())
        self.layouts = {s: (a.shape, a.dtype, a.strides) for s, a in arrays.items()}
        targets = list(self.tensors.values()) + self.cells
        paths = find_paths(self.roots, targets)
        self.paths = []             # (target, root index, steps)
        self.unreached = []
        for t in self.tensors.values():
            p = paths.get(id(t))
            if p is not None:
                self.paths.append((t, p[0], p[1]))
            elif not _constant(t):
                self.unreached.append(t)
        for c in self.cells:         # a Cell made inside the function has no path: nothing to pin
            p = paths.get(id(c))
            if p is not None:
                self.paths.append((c, p[0], p[1]))
        self.modes = self.modes_now()

    def modes_now(self):
        """The called Cells' training flags and compute dtypes (``to_float``)."""
        return tuple((c.training, c.__dict__.get("_mixed_dtype")) for c in self.cells)

    def source(self, ns, epoch, seen, check_modes):
        """Lines (indented for the replay function) that raise ``StaleRecord`` when a check fails.

        ``epoch``: graph.py's one-item list counting Cell changes; ``seen``: a
        one-item list holding the count this record last checked the modes at
        (``check_modes()`` raises or updates it).
        """
        lines = []
        if self.cells:
            ns["_EP"], ns["_EE"], ns["_MODES"] = epoch, seen, check_modes
            lines.append("    if _EP[0] != _EE[0]: _MODES()")
        conds = []
        for n, (target, root, steps) in enumerate(self.paths):
            ns[f"GR{n}"], ns[f"GT{n}"] = self.roots[root], target
            expr, obj = f"GR{n}", self.roots[root]
            for m, (kind, key) in enumerate(steps):
                if kind == "attr" or (kind == "dict" and _attr_ok(type(obj), key)):
                    expr += f".{key}"
                    obj = getattr(obj, key, None)
                elif kind == "dict":
                    ns[f"GK{n}_{m}"] = key
                    expr += f".__dict__[GK{n}_{m}]"
                    obj = obj.__dict__.get(key)
                else:
                    if type(key) is int:
                        expr += f"[{key}]"
                    else:
                        ns[f"GK{n}_{m}"] = key
                        expr += f"[GK{n}_{m}]"
                    try:
                        obj = obj[key]
                    except Exception:
                        obj = None
            conds.append(f"{expr} is not GT{n}")
        if conds:
            lines.append("    try:")
            lines.append(f"        _stale = {' or '.join(conds)}")
            lines.append("    except Exception:")
            lines.append("        _stale = True")
            lines.append("    if _stale: raise StaleRecord('an outside object changed')")
        for s, (shape, dtype, strides) in self.layouts.items():
            ns[f"GL{s}"], ns[f"GS{s}"], ns[f"GD{s}"], ns[f"GST{s}"] = self.tensors[s], shape, dtype, strides
            lines.append(f"    d = GL{s}._data")
            lines.append(f"    if d.__class__ is not _nd or d.shape != GS{s} or d.dtype != GD{s} "
                         f"or d.strides != GST{s}: raise StaleRecord('an outside tensor changed layout')")
        return lines
