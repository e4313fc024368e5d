"""OpDef: one operator as an attribute table (NNVM style).

An OpDef says, for one operator, how to infer its outputs (``FInferShape``,
``FInferType``), which kernels exist for which target, dtypes and formats
(``kernels``), how to differentiate it (``FGradient``) and which outputs may
reuse which inputs (``FInplaceOption``). Every front end (built-in ops,
``ops.Custom``, the MXNet/minpy/NNVM styles) builds OpDefs; one dispatcher
(``dispatch.call``) runs them.

Attribute keys and their Python signatures:

- ``"FInferShape"``: ``(attrs, in_shapes) -> (in_shapes, out_shapes)``
- ``"FInferType"``: ``(attrs, in_dtypes) -> (in_dtypes, out_dtypes)``
- ``"FCompute<cpu>"`` / ``"FCompute<gpu>"``: ``(attrs, inputs, req, outputs)``
  on arrays, writing into preallocated ``outputs``; ``req[i]`` is
  ``"write"``, ``"add"``, ``"inplace"`` or ``"null"``
- ``"FComputeAlloc<cpu>"`` / ``"FComputeAlloc<gpu>"``: ``(attrs, inputs) ->
  array or tuple of arrays``; the kernel allocates its outputs itself (the
  fast form the built-in NumPy ops use)
- ``"FGradient"``: ``(inputs, outputs, ograds, attrs) -> list of input
  gradients`` (Tensors built from ops, ``None`` for no gradient)
- ``"FInplaceOption"``: ``(attrs) -> [(input_index, output_index), ...]``
- ``"FRandom"``: True when the kernel draws random numbers (a graph replay
  then never computes its calls once for all replays, nor merges two calls)
"""

import weakref

from .. import context as _context
from .fastcall import PlanCache
from .kernel import KernelEntry

_ALL = weakref.WeakSet()
_CALL = [None]      # the dispatcher's call_converting: the dispatcher imports this module and installs it


def install_call(call_converting):
    """Make ``OpDef.__call__`` run ``call_converting(op, args, attrs)`` (called once by ``_core.dispatch``)."""
    _CALL[0] = call_converting


def all_opdefs():
    """Every OpDef alive (for clearing plan caches when the device target changes)."""
    return list(_ALL)

_TARGET_OF_SUFFIX = {_context.target_suffix(t): t for t in _context.TARGETS}


class OpDef:
    """One operator: a name, an attribute table and its kernels.

    The builder methods return the OpDef, so a registration reads as one chain::

        op = (ops.register_op("my_abs").describe("|x|").set_num_inputs(1)
              .set_attr("FComputeAlloc<cpu>", lambda attrs, ins: np.abs(ins[0])))
        op(ms.Tensor([-1.0, 2.0]))
    """

    def __init__(self, name, num_inputs=None, num_outputs=1):
        self.name = name
        self.description = ""
        self.num_inputs = num_inputs        # None: any number
        self.num_outputs = num_outputs
        self.arguments = []                 # (name, type, doc)
        self.attrs = {}
        self.kernels = []                   # KernelEntry, searched in order
        self.plans = PlanCache()            # signature -> Plan (dispatch cache)
        self.input_names = None
        _ALL.add(self)

    # ------------------------------------------------------------ builder API
    def describe(self, text):
        self.description = text
        return self

    def set_num_inputs(self, n):
        if n is not None and (not isinstance(n, int) or n < 0):
            raise ValueError(f"op '{self.name}': set_num_inputs expects a non-negative int, got {n!r}")
        self.num_inputs = n
        self.plans.clear()
        return self

    def set_num_outputs(self, n):
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"op '{self.name}': set_num_outputs expects a positive int, got {n!r}")
        self.num_outputs = n
        self.plans.clear()
        return self

    def add_argument(self, name, type_str="Tensor", doc=""):
        self.arguments.append((name, type_str, doc))
        return self

    def set_attr(self, key, value):
        """Set one attribute; ``FCompute<target>`` keys also register a kernel."""
        for prefix, allocates in (("FComputeAlloc", True), ("FCompute", False)):
            if key.startswith(prefix):
                suffix = key[len(prefix):]
                target = _TARGET_OF_SUFFIX.get(suffix.lower())
                if target is None:
                    raise ValueError(f"op '{self.name}': unknown kernel key {key!r}; "
                                     f"use {prefix}<cpu>, {prefix}<gpu> or {prefix}<ascend>")
                if not callable(value):
                    raise TypeError(f"op '{self.name}': {key} must be callable, got {type(value).__name__}")
                self.kernels = [k for k in self.kernels if k.key != key]
                self.kernels.append(KernelEntry(target=target, fn=value, allocates=allocates,
                                                name=f"{self.name}:{key}", key=key))
                break
        self.attrs[key] = value
        self.plans.clear()
        return self

    def add_kernel(self, entry):
        """Add a KernelEntry (used by ``ops.Custom`` for reg-info-bound kernels)."""
        self.kernels.append(entry)
        self.plans.clear()
        return self

    def get_attr(self, key, default=None):
        return self.attrs.get(key, default)

    def arg_names(self):
        """The input names, for error messages."""
        if self.input_names:
            return list(self.input_names)
        return [a[0] for a in self.arguments]

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **attrs):
        return _CALL[0](self, args, attrs)

    def __repr__(self):
        return f"OpDef({self.name!r}, inputs={self.num_inputs}, outputs={self.num_outputs})"
