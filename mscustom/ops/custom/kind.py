"""The kernel-kind registry of ``ops.Custom``: one small class per ``func_type``.

A kind is an object registered by name with ``register_kind(kind)``::

    class SomeKind:
        name = "hybrid"                    # the func_type string(s) it serves
        options = ()                       # keyword options ops.Custom accepts for it
        default_targets = ("CPU", "GPU")   # targets when the reg info names none
                                           # (None: the device target current when the op is made)
        allocates = False                  # False: runner(attrs, inputs, req, outputs) writes outputs
                                           # True:  runner(attrs, inputs) -> output array(s)
        def check(self, func, op_name, options):      # at construction; may normalise func
            return func
        def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
            return runner                  # once per input signature (compile / load / init)

Optional: ``kernel_name(func, target, options)`` (the entry's name in reports)
and ``arity(func, attr_specs, n_out, pending)`` (``(min, max, names)`` of call
arguments, so a wrong call fails before anything runs).

``Custom`` looks the kind up by its ``func_type`` here; adding a kind is one
module plus one ``register_kind`` line. ``make_entry`` turns a kind and a
function into the dispatcher's ``KernelEntry``.

Example::

    from mscustom.ops.custom.kind import get_kind, kinds
    kinds()                  # ['aot', 'jit', 'pyfunc', ...]
    get_kind("pyfunc").allocates      # True
"""

import threading

from ..._core.kernel import KernelEntry

__all__ = ["register_kind", "get_kind", "kinds", "make_entry", "NOT_SUPPORTED", "COMING"]

_KINDS = {}
_LOCK = threading.Lock()

# MindSpore func_types that cannot exist here, with the reason shown to the user
NOT_SUPPORTED = {
    "julia": "Julia kernels need MindSpore's embedded Julia runtime",
    "tbe": "TBE kernels are compiled by Ascend's TBE toolchain for Ascend devices",
    "aicpu": "AICPU kernels run on Ascend's AI CPU",
}
# MindSpore func_types served by a kind that registers itself when its package is installed
COMING = {
    "hybrid": "the hybrid DSL kind (MindSpore's ms_kernel functions) is not registered in this build",
    "akg": "the akg kind (MindSpore's hybrid DSL functions) is not registered in this build",
}


def register_kind(kind):
    """Register ``kind`` under ``kind.name`` (a string or a tuple of strings); returns the kind.

    Re-registering a name replaces the previous kind (so a module reload works).
    """
    names = (kind.name,) if isinstance(kind.name, str) else tuple(kind.name)
    for attr in ("options", "default_targets", "allocates", "check", "bind"):
        if not hasattr(kind, attr):
            raise TypeError(f"register_kind: {type(kind).__name__} lacks '{attr}' (see mscustom.ops.custom.kind)")
    if not names or not all(isinstance(n, str) and n for n in names):
        raise TypeError(f"register_kind: {type(kind).__name__}.name must be a non-empty string or tuple "
                        f"of strings, got {kind.name!r}")
    with _LOCK:
        for n in names:
            _KINDS[n] = kind
    return kind


def kinds():
    """The registered func_type names, sorted."""
    with _LOCK:
        return sorted(_KINDS)


def get_kind(name, op_name=None):
    """The kind registered for func_type ``name``; a ValueError naming the op and the known kinds otherwise."""
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is not None:
        return kind
    who = f"op '{op_name}'" if op_name else "ops.Custom"
    known = kinds()
    if isinstance(name, str) and name in NOT_SUPPORTED:
        raise ValueError(f"{who}: func_type {name!r} is not supported here ({NOT_SUPPORTED[name]}); "
                         f"supported func_types are {known}")
    if isinstance(name, str) and name in COMING:
        raise ValueError(f"{who}: func_type {name!r} is not available: {COMING[name]}; "
                         f"available func_types are {known}")
    raise ValueError(f"{who}: func_type must be one of {known}, got {name!r}")


def _fname(func):
    f = getattr(func, "py_func", func)
    name = getattr(f, "__name__", None)
    return name if isinstance(name, str) else type(func).__name__


class _Binding:
    """One (kind, func, target) of an op: the entry's ``bind`` hook; reads through to the normalised func."""

    def __init__(self, kind, func, op_name, target, attr_specs, n_out, options, entry):
        self.kind, self.func, self.op_name, self.target = kind, func, op_name, target
        self.attr_specs, self.n_out, self.options, self.entry = attr_specs, n_out, options, entry

    def __getattr__(self, name):                  # e.g. .dispatcher of a jit function
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["func"], name)

    def bind(self, op, sig):
        runner = self.kind.bind(self.func, op_name=self.op_name, target=self.target,
                                attr_specs=self.attr_specs, n_out=self.n_out, options=self.options, sig=sig)
        return runner                             # the dispatcher times it for the usage report


def make_entry(kind, func, *, op_name, target, rows, attr_specs, n_out, options):
    """The ``KernelEntry`` of an already checked ``func`` of ``kind`` on ``target``.

    A kind may give its own ``make_entry`` (the module adapter of kinds still
    written as ``make_kernel`` modules); otherwise the entry's ``bind`` calls
    ``kind.bind`` per signature.
    """
    own = getattr(kind, "make_entry", None)
    if own is not None:
        return own(func, op_name=op_name, target=target, rows=rows, attr_specs=attr_specs,
                   n_out=n_out, options=options)
    name = getattr(kind, "kernel_name", None)
    label = name(func, target, options) if name is not None else f"{kind.name}:{_fname(func)}[{target}]"
    entry = KernelEntry(target=target, fn=None, allocates=kind.allocates, rows=rows, kind=kind.name, name=label)
    binding = _Binding(kind, func, op_name, target, list(attr_specs or ()), n_out, dict(options or {}), entry)
    entry.bind = binding.bind
    return entry


class ModuleKind:
    """A kind still written as a module with ``make_kernel(...) -> KernelEntry`` (aot, until its package lands).

    ``load`` imports and returns the module on first use, so registering the
    kind costs nothing at ``import mscustom``.
    """

    allocates = False

    def __init__(self, name, load, options=(), default_targets=None):
        self.name, self._load = name, load
        self.options, self.default_targets = tuple(options), default_targets

    def check(self, func, op_name, options):
        return func

    def make_entry(self, func, *, op_name, target, rows, attr_specs, n_out, options):
        return self._load().make_kernel(func, op_name=op_name, target=target, rows=rows,
                                        attr_specs=attr_specs, n_out=n_out, options=options)

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        entry = self.make_entry(func, op_name=op_name, target=target, rows=None, attr_specs=attr_specs,
                                n_out=n_out, options=options)
        return entry.bind(None, sig)


class LazyKind:
    """A kind whose module loads on first use (so ``import mscustom`` imports neither Numba nor cffi).

    ``load()`` imports the module and returns its kind object; what Custom
    needs before that (name, options, targets, allocates) is given here.
    """

    def __init__(self, name, load, *, options=(), default_targets=None, allocates=False):
        self.name, self._load, self._kind = name, load, None
        self.options, self.default_targets, self.allocates = tuple(options), default_targets, allocates

    def loaded(self):
        if self._kind is None:
            self._kind = self._load()
        return self._kind

    def check(self, func, op_name, options):
        return self.loaded().check(func, op_name, options)

    def bind(self, func, **kwargs):
        return self.loaded().bind(func, **kwargs)

    def make_entry(self, func, **kwargs):
        return make_entry(self.loaded(), func, **kwargs)

    def extension(self, name):
        """The loaded kind's optional hook ``name`` (``complete``, ``is_ir_builder`` ...), or None."""
        return getattr(self.loaded(), name, None)

    def arity(self, func, attr_specs, n_out, pending):
        of_kind = getattr(self.loaded(), "arity", None)
        return of_kind(func, attr_specs, n_out, pending) if of_kind is not None else None
