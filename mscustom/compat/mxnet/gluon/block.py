"""``gluon.Block`` and ``gluon.HybridBlock``: layers with named Parameters and child Blocks.

Names follow MXNet 1.x: a Block made outside any ``name_scope()`` takes a
global name from its class (``dense0``, ``dense1``, shared with symbol
auto-names as MXNet's NameManager is); inside ``with parent.name_scope():``
its prefix is the parent's prefix plus a per-parent count (``net0_dense0_``).
Parameters are named ``prefix + name`` (``dense0_weight``).

``HybridBlock.forward`` calls ``hybrid_forward(F, x, *args, **params)`` with
``F = mx.nd`` and the Parameters' arrays (by their attribute names) for
NDArray inputs, and with ``F = mx.sym`` and ``Parameter.var()`` for Symbol
inputs (which gives the block's graph). After ``hybridize()`` the block runs
through graph mode (``mscustom.graph.GraphFunction``): the first call for a
signature (shapes, dtypes, training flag) records the kernel calls and later
calls replay them (CustomOps' Python runs again at every replay, as in
MXNet's CachedOp). Outside ``mx.autograd.record()`` the forward is replayed;
inside it the block is one node on the tape whose forward and backward are
each replayed (``_cached.py``).

Example::

    class Scale(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.s = self.params.get("s", shape=(1,), init="ones")
        def hybrid_forward(self, F, x, s):
            return F.broadcast_mul(x, s)
"""

import collections
import re
import threading

from ...._core.tape import STATE as _STATE
from ....graph import GraphFunction
from ....tensor import Tensor
from .. import autograd as _autograd
from .. import ndarray as _nd
from .. import symbol as _sym
from .._params import load as _nd_load, save as _nd_save
from ._cached import CachedGraph
from .parameter import DeferredInitializationError, Parameter, ParameterDict, _assign_loaded

__all__ = ["Block", "HybridBlock"]


class _BlockScope:
    """The naming scope of a Block (``with block.name_scope():``)."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old = None

    @staticmethod
    def create(prefix, params, hint):
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _sym._auto_name(hint) + "_"
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return
        _BlockScope._current.value = self._old


def _indent(text, spaces):
    lines = text.split("\n")
    return "\n".join([lines[0]] + [" " * spaces + line for line in lines[1:]])


class Block:
    """A layer: ``forward``, child Blocks, Parameters (``params``, ``collect_params``), naming scope."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = collections.OrderedDict()
        self._reg_params = {}
        self._forward_hooks = collections.OrderedDict()
        self._forward_pre_hooks = collections.OrderedDict()

    def _alias(self):
        return type(self).__name__.lower()

    def __repr__(self):
        body = "".join(f"\n  ({key}): {_indent(repr(child), 2)}" for key, child in self._children.items())
        return f"{type(self).__name__}({body}\n)"

    def __setattr__(self, name, value):
        if hasattr(self, name) and not name.startswith("_"):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(f"Changing attribute type for {name} from {type(existing)} to {type(value)} "
                                "is not allowed.")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            self.__dict__.setdefault("_reg_params", {})[name] = value
        object.__setattr__(self, name, value)

    # ------------------------------------------------------------ names and parameters
    @property
    def prefix(self):
        return self._prefix

    @property
    def name(self):
        return self._name

    @property
    def params(self):
        """This Block's own ParameterDict (not its children's: see ``collect_params``)."""
        return self._params

    def name_scope(self):
        """``with self.name_scope():`` names child Blocks after this one."""
        return self._scope

    def collect_params(self, select=None):
        """A ParameterDict of this Block's and its descendants' Parameters (names matching ``select``)."""
        ret = ParameterDict(self._params.prefix)
        pattern = re.compile(select) if select is not None else None
        for k, v in self._params.items():
            if pattern is None or pattern.match(k):
                ret._params[k] = v
        for child in self._children.values():
            ret.update(child.collect_params(select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def register_child(self, block, name=None):
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_hook(self, hook):
        key = len(self._forward_hooks)
        self._forward_hooks[key] = hook
        return key

    def register_forward_pre_hook(self, hook):
        key = len(self._forward_pre_hooks)
        self._forward_pre_hooks[key] = hook
        return key

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialise every Parameter of this Block and its children (``mx.init.Uniform()`` by default)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlocks among the children (a plain Block itself runs imperatively)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        for child in self._children.values():
            child.cast(dtype)
        for p in self._reg_params.values():
            p.cast(dtype)

    def apply(self, fn):
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def zero_grad(self):
        self.collect_params().zero_grad()

    def save_parameters(self, filename, deduplicate=False):
        """Save the Parameters by their structural names (``0.weight``), MXNet's ``.params`` format."""
        params = self._collect_params_with_prefix()
        _nd_save(filename, {k: v.data() for k, v in params.items()})

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current"):
        loaded = _nd_load(filename)
        if not any("." in k for k in loaded):
            # no structural names: a file of names without this block's prefix (MXNet's legacy layout)
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, restore_prefix=self.prefix)
            return
        _assign_loaded(self._collect_params_with_prefix(), loaded, filename, ctx, allow_missing, ignore_extra)

    # ------------------------------------------------------------ calls
    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, x, ...)")


class HybridBlock(Block):
    """A Block written as ``hybrid_forward(F, x, *args, **params)``: runs on NDArrays or builds a Symbol."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._active = False
        self._graph = None          # inference: GraphFunction of the forward
        self._cached = None         # under autograd.record(): forward and backward records (_cached.py)

    def hybridize(self, active=True, static_alloc=False, static_shape=False, **kwargs):
        """Run later NDArray calls outside ``autograd.record()`` through graph-mode capture and replay."""
        self._active = bool(active)
        self._graph = self._cached = None
        super().hybridize(active, **kwargs)

    def infer_shape(self, *args):
        """Complete the deferred shapes of this block's own Parameters from its inputs.

        As MXNet: ``hybrid_forward`` is run on symbols (``F = mx.sym``) and the
        graph's shape inference gives the Parameters' shapes. Built-in layers
        override this with their own rule.
        """
        pending = [p for p in self._reg_params.values() if p._data is None and p._deferred is not None]
        if not pending:
            return
        names = [f"data{i}" for i in range(len(args))]
        try:
            out = self.hybrid_forward(_sym, *[_sym.var(n) for n in names],
                                      **{k: v.var() for k, v in self._reg_params.items()})
            out = _sym.Group(list(out)) if isinstance(out, (list, tuple)) else out
            arg_shapes, _, aux_shapes = out.infer_shape_partial(**{n: a.shape for n, a in zip(names, args)})
            found = dict(zip(out.list_arguments(), arg_shapes))
            found.update(zip(out.list_auxiliary_states(), aux_shapes))
        except Exception as exc:                      # noqa: BLE001  (an op with no symbol form, a bad graph)
            found, why = {}, f" (building its graph failed: {type(exc).__name__}: {exc})"
        else:
            why = ""
        for p in pending:
            shape = found.get(p.name)
            if shape and all(int(d) > 0 for d in shape):
                p.shape = shape
        missing = [p for p in pending if not all(int(d) > 0 for d in (p.shape or ()))]
        if missing:
            listed = "".join(f"\n\t{p.name}: {tuple(p.shape or ())}" for p in missing)
            raise ValueError(f"Deferred initialization failed because shape cannot be inferred{why}. Cannot decide "
                             f"shape for the following arguments of {type(self).__name__} '{self.name}' (0s in "
                             f"shape means unknown dimensions). Consider providing them as input:{listed}")

    def _param_arrays(self, args):
        try:
            return {k: v.data() for k, v in self._reg_params.items()}
        except DeferredInitializationError:
            self.infer_shape(*args)
            for p in self._reg_params.values():
                p._finish_deferred_init()
            return {k: v.data() for k, v in self._reg_params.items()}

    def forward(self, x, *args):
        if isinstance(x, _sym.Symbol):
            params = {k: v.var() for k, v in self._reg_params.items()}
            return self.hybrid_forward(_sym, x, *args, **params)
        if not isinstance(x, Tensor):
            raise TypeError(f"{type(self).__name__}: expected an NDArray or a Symbol as input, got {type(x).__name__}")
        params = self._param_arrays((x,) + args)
        if self._active and not _autograd.is_recording():
            if self._graph is None:
                self._graph = GraphFunction(self._replayable, name=f"{type(self).__name__}({self.name}).forward")
            return self._graph(bool(_autograd.is_training()), x, *args)
        if self._active and _STATE.capture is None and all(isinstance(a, Tensor) for a in args):
            if self._cached is None:
                self._cached = CachedGraph(self)
            out = self._cached(bool(_autograd.is_training()), (x,) + args)
            if out is not None:
                return out
        return self.hybrid_forward(_nd, x, *args, **params)

    def _replayable(self, training, x, *args):
        """What graph mode records and replays: the forward on the arrays of the Parameters right now."""
        with _autograd._train_flag(training):
            params = {k: v.data() for k, v in self._reg_params.items()}
            return self.hybrid_forward(_nd, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward(self, F, x, ...)")

