"""``ops.Custom``: a custom operator from a Python function, a Numba kernel or a compiled symbol.

One ``Custom`` instance owns one ``OpDef``, built through ``mscustom.extend``
like every other op: ``def_infer`` from ``out_shape``/``out_dtype``
(``_outputs``), ``def_gradient`` from ``bprop`` (``bprop``), and one
``def_kernel`` per (kernel, reg info, target), named and bound by the kernel
kind registered for its ``func_type`` (``kind``). ``Custom.__call__`` is the
dispatcher's ``call_owner``, which caches inference, kernel selection and
binding per input signature; argument binding lives in ``_marshal``, arity
rules in ``_arity``, the usage report in ``report``.

Example::

    def square(x):
        return x * x

    sq = ops.Custom(square, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")
    sq(ms.Tensor([1.0, 2.0]))                       # Tensor([1., 4.])

Outputs, as in MindSpore: one shape and one dtype give a single Tensor; a
tuple (list) of them gives a tuple (list) whatever its length. When the rules
are callables, the structure of what they return on the op's first use
decides; without rules, the reg info's outputs (one output if none).

Targets: a kernel whose reg info names a target is registered for it. Without
one, the kind's ``default_targets`` apply (pyfunc and jit: CPU and GPU), or,
for a kind without defaults (aot), the device target current when the op is
made (as MindSpore does: a compiled library is built for one device). When
the reg infos name exactly one of CPU/GPU, the op runs there whatever the
device target (``_pin``).
"""

import threading

import numpy as np

from ... import context as _context
from ... import dtype as _dt
from ... import extend
from ..._core import dispatch as _dispatch
from ...tensor import Tensor
from . import _arity, _dynshape, _outputs, _pin, _validate, report
from ._common import DYNAMIC_KEY as _DYNAMIC
from . import _common
from . import bprop as _bprop
from . import select as _select
from ._marshal import Marshal
from .kind import get_kind, make_entry
from .reginfo import parse_reg_info
from .rules import OutputRule, is_dtype, is_shape
from .report import KernelStat, OpKernelStat, custom_op_report, custom_op_usage

__all__ = ["Custom", "custom_op_report", "custom_op_usage", "KernelStat", "OpKernelStat"]

_call = _dispatch.call


def _dynamic_groups(op_name, args):
    """Arguments with each list/tuple of tensors (a dynamic input) kept as a list, and the list lengths
    (None for a single argument)."""
    out, groups = [], []
    for a in args:
        if isinstance(a, (list, tuple)):
            if not a or not all(isinstance(t, (Tensor, np.ndarray)) for t in a):
                raise TypeError(f"op '{op_name}': a dynamic input takes a non-empty list of Tensors, got "
                                f"{[type(t).__name__ for t in a]}")
            out.append([t if isinstance(t, Tensor) else Tensor(t) for t in a])
            groups.append(len(a))
        else:
            out.append(a)
            groups.append(None)
    return out, tuple(groups)


def _kind_hook(func_type, name):
    """The optional hook ``name`` of the registered kind ``func_type`` (the hybrid kinds' plugins), or None."""
    kind = get_kind(func_type)
    hook = getattr(kind, "extension", None)
    return hook(name) if hook is not None else getattr(kind, name, None)


def _ir_builder(func):
    is_ir_builder = _kind_hook("akg", "is_ir_builder")
    return is_ir_builder is not None and is_ir_builder(func)


def _probe_dtype(a):
    """An array's ms dtype for the first-use probe (an unsupported one is reported later, by the call)."""
    try:
        return _dt.from_numpy(a.dtype)
    except TypeError:
        return a.dtype


class Custom:
    """A custom operator (MindSpore's ``ops.Custom``); instances are called like functions.

    ``func``: a Python function on NumPy arrays (``func_type="pyfunc"``), a
    destination-passing kernel ``kernel(*inputs, *outputs)`` compiled by Numba
    (``"jit"``), or ``"path/lib.so:Func"`` / ``"src.c:Func"`` (``"aot"``); any
    kind registered with ``kind.register_kind`` is accepted.
    ``out_shape``/``out_dtype``: a constant, a callable receiving one argument
    per call argument (shapes as lists, dtypes as ms dtypes, scalars as their
    values), or a tuple/list of those for several outputs (the op then returns
    a tuple/list). ``bprop(*call_args, out, dout)`` returns one gradient per
    tensor input. ``reg_info``: a dict, JSON string or ``CustomRegOp`` (or a
    list, one per target); it wins over ``@custom_info_register``. ``name``:
    the op's name (default: the function's or symbol's). Extra keywords are
    kernel options (jit: ``launch=(blocks, threads)``, ``parallel=``, ``debug=``, ``vector_math=False``
    to keep libm for ``math.*``/``np.*`` calls, docs/vecmath.md).

    Calls take Tensors or NumPy arrays and Python scalars, in the kernel's
    order, then values for the reg-info attributes that have no fixed value;
    keyword arguments set attributes by name, or name the function's input
    parameters (``op(x, alpha=3.0)``). How many arguments a call takes comes,
    as in MindSpore, from the function's signature (for ``"lib.so:Func"``:
    the reg info's inputs and attributes without a value), else from the
    ``out_shape`` / ``out_dtype`` callables (``_arity``); a wrong count is an
    error that says which.

    Example::

        sq_grad = ops.Custom(lambda x, d: 2 * x * d, lambda x, d: x, lambda x, d: x)
        sq = ops.Custom(lambda x: x * x, lambda x: x, lambda x: x,
                        bprop=lambda x, out, dout: (sq_grad(x, dout),))
        ms.grad(lambda t: sq(t).sum())(ms.Tensor([1.0, 4.0]))      # [2., 8.]
    """

    def __init__(self, func, out_shape=None, out_dtype=None, func_type=None, bprop=None,
                 reg_info=None, *, name=None, **options):
        self.name = _validate.check_name(name if name is not None else _validate.default_name(func))
        if func_type is None:           # "pyfunc", but "hybrid" for @kernel functions (MindSpore 2.10: pyfunc; see
            #                             docs/mindspore_custom.md: same values, compiled, rules and bprop derived)
            func_type = "hybrid" if getattr(func, "ms_kernel_flag", False) else "pyfunc"
        kind = _validate.kind_for(func_type, func, self.name)
        if func_type == "akg" and not getattr(func, "ms_kernel_flag", False) and _ir_builder(func):
            if out_shape is None or out_dtype is None:      # as MindSpore: an ir_builder kernel declares both
                raise TypeError(f"op '{self.name}': an akg ir_builder kernel needs out_shape and out_dtype "
                                f"(a shape/dtype or a callable), got out_shape={out_shape!r}, "
                                f"out_dtype={out_dtype!r}")
        elif func_type in ("hybrid", "akg"):
            complete = _kind_hook("hybrid", "complete")     # outputs and bprop derived from the DSL kernel
            func, out_shape, out_dtype, bprop = complete(func, self.name, out_shape, out_dtype, bprop)
        _validate.check_options(kind, func_type, options, self.name)
        self.func_type = func_type
        self.bprop = _validate.check_bprop(bprop, self.name)
        infos = parse_reg_info(reg_info if reg_info is not None else getattr(func, "reg_info", None),
                               op_name=self.name)
        if _outputs.is_placeholder(out_shape, out_dtype):
            if not kind.allocates:
                raise ValueError(f"op '{self.name}': out_dtype=() (an op without outputs) is supported for "
                                 f"kinds that return their outputs, such as func_type='pyfunc'; give a "
                                 f"{func_type} kernel at least one output")
            func = _outputs.placeholder_func(kind.check(func, self.name, options), self.name)
            out_shape, out_dtype = _outputs.PLACEHOLDER_SHAPE, _dt.int32
        self.func = func
        self._shape_rule = OutputRule(self.name, "out_shape", out_shape, is_shape)
        self._dtype_rule = OutputRule(self.name, "out_dtype", out_dtype, is_dtype)
        n_out, self._wrap, self._pending = _outputs.count_outputs(self.name, self._shape_rule,
                                                                  self._dtype_rule, infos)
        self._lock = threading.Lock()
        self._sources = []               # (func, kind, infos, options) per add_kernel, to rebuild
        self._attr_specs = []
        # the OpDef, through the extension surface: def_op, def_infer (in _outputs), def_gradient,
        # def_kernel (in _add_kernels); it stays out of the by-name registry (one op per instance)
        self._op = extend.def_op(self.name, inputs=None, outputs=n_out, register=False,
                                 doc=f"ops.Custom {func_type} op '{self.name}'")
        _outputs.install_rules(self._op, self._shape_rule, self._dtype_rule, self.name)
        self._op.attrs["FSelectKernel"] = _select.select      # MindSpore's row choice and casts
        if self._shape_rule.kind == "none":
            _outputs.install_kind_shape_rule(self._op, kind, self.func, self._attr_specs, self.name)
        names = []                      # the call's argument names, once known (the no-bprop error uses them)
        extend.def_gradient(self._op, _bprop.make_fgradient(self.name, func_type, self.bprop, names))
        self._add_kernels(func, kind, infos, options)
        self._arity = _arity.find_arity(kind, self._sources[0][0], self._shape_rule, self._dtype_rule,
                                        self.bprop, self._attr_specs, n_out, self._pending,
                                        inputs=self._op.input_names if self._op.num_inputs is not None else None)
        _arity.check_rule_arity(self.name, self._arity, self._shape_rule, self._dtype_rule)
        _arity.check_bprop_arity(self.bprop, self._arity, self.name, len(self._marshal.free))
        self._lo, self._hi = self._arity[0], self._arity[1]
        names[:] = self._arity[2]
        self._update_fast_path()
        report.track(self)

    # ------------------------------------------------------------ kernels
    def _add_kernels(self, func, kind, infos, options):
        func = kind.check(func, self.name, options)
        self._sources.append((func, kind, infos, dict(options)))
        for spec in (s for info in infos for s in info.attrs):
            known = next((s for s in self._attr_specs if s.name == spec.name), None)
            if known is None:
                self._attr_specs.append(spec)
            elif known.value_type != spec.value_type:
                raise ValueError(f"op '{self.name}': attribute '{spec.name}' is declared as "
                                 f"{known.value_type!r} and as {spec.value_type!r} in different reg infos")
        self._def_kernels(self._op, func, kind, infos, options)
        self._order_kernels(self._op)
        self._op.plans.clear()
        self._marshal = Marshal(self.name, self._attr_specs, self._update_num_inputs())
        self._fast_attrs = self._marshal.fast_attrs
        self._plain = False                  # set by _update_fast_path once the op is complete
        self._fast_ns = ()

    def _def_kernels(self, op, func, kind, infos, options):
        """Define on ``op`` one kernel of ``func`` per reg info and target."""
        for info in infos or [None]:
            if info is not None and info.target is not None:
                targets = (info.target,)
            else:
                targets = kind.default_targets or (_context.device_target(),)
            for target in targets:
                # the kind names the kernel and gives its per-signature bind hook
                entry = make_entry(kind, func, op_name=self.name, target=target,
                                   rows=(info.rows or None) if info else None,
                                   attr_specs=list(info.attrs) if info else [], n_out=op.num_outputs,
                                   options=dict(options))
                extend.def_kernel(op, entry.fn, target=target, rows=entry.rows,
                                  allocates=entry.allocates, kind=entry.kind, bind=entry.bind,
                                  name=entry.name, label=entry.label)

    def _order_kernels(self, op):
        _pin.pin_kernels(op, self._sources, _context.TARGETS)    # one target named: run there
        # kernels restricted to rows first, catch-all kernels (rows=None) last
        op.kernels.sort(key=lambda k: k.rows is None)

    def _rebuild_kernels(self, n):
        """Every kernel again, for ``n`` outputs: built on a scratch OpDef, then swapped in.

        The live op keeps its old kernels until one assignment replaces them, and
        ``num_outputs`` changes after that, so an interrupt (KeyboardInterrupt)
        part way leaves a working op that is still pending: its next call rebuilds.
        """
        scratch = extend.OpDef(self.name, num_outputs=n)
        for func, kind, infos, options in self._sources:
            self._def_kernels(scratch, func, kind, infos, options)
        self._order_kernels(scratch)
        self._op.kernels = scratch.kernels
        self._op.set_num_outputs(n)             # clears the plans, bound to the old kernels

    def _update_num_inputs(self):
        """Reg infos that agree on a fixed number of tensor inputs let the dispatcher check it."""
        infos = [i for _, _, infos, _ in self._sources for i in infos if i.inputs]
        counts = {len(i.inputs) for i in infos}
        fixed = len(counts) == 1 and all(i.fixed_inputs for i in infos)   # no optional/dynamic inputs
        self._op.set_num_inputs(counts.pop() if fixed else None)
        if self._op.num_inputs is not None:
            self._op.input_names = list(infos[0].inputs)
        return self._op.num_inputs

    # ------------------------------------------------------------ public API
    @property
    def op(self):
        """The OpDef behind this op (its attribute table and kernels)."""
        return self._op

    @property
    def num_outputs(self):
        return self._op.num_outputs

    @property
    def kernels(self):
        """The KernelEntry objects of this op, in selection order."""
        return _pin.own_kernels(self._op)

    @property
    def reg_info(self):
        """Every parsed reg info of this op (``RegInfo`` records)."""
        return [i for _, _, infos, _ in self._sources for i in infos]

    def add_kernel(self, func, func_type="pyfunc", reg_info=None, **options):
        """Add another implementation to this op; returns the op, so calls chain.

        The dispatcher picks, per call, the kernel for the current device target
        whose reg-info rows match the inputs; kernels with rows are tried before
        catch-all ones.

        Example::

            op = (ops.Custom("libkernels.so:CustomSquare", lambda x: x, lambda x: x, func_type="aot",
                             reg_info=f32_cpu_info)
                  .add_kernel(square_kernel, func_type="jit", reg_info=f64_cpu_info))
        """
        kind = _validate.kind_for(func_type, func, self.name)
        _validate.check_options(kind, func_type, options, self.name)
        infos = parse_reg_info(reg_info if reg_info is not None else getattr(func, "reg_info", None),
                               op_name=self.name)
        bad = {len(i.outputs) for i in infos if i.outputs} - {self._op.num_outputs}
        if bad and not self._pending:
            raise ValueError(f"op '{self.name}': the added kernel's reg info declares {sorted(bad)} "
                             f"output(s), the op has {self._op.num_outputs}")
        with self._lock:
            self._add_kernels(func, kind, infos, options)
            self._update_fast_path()
        return self

    def kernel_stats(self):
        """One ``KernelStat(kind, kernel, calls, seconds)`` per kernel of this op.

        Example::

            for kind, kernel, calls, seconds in op.kernel_stats(): print(kind, kernel, calls)
        """
        return report.kernel_stats(self)

    def __repr__(self):
        kernels = ", ".join(k.name for k in _pin.own_kernels(self._op))
        return (f"Custom(name={self.name!r}, func_type={self.func_type!r}, outputs={self._op.num_outputs}, "
                f"kernels=[{kernels}])")

    # ------------------------------------------------------------ calling
    # The call itself: a warm all-Tensor call runs in the compiled call path (no Python frame)
    # or the dispatcher's call_owner (one frame from here to the kernel's runner); every other
    # call comes back to _call_general.
    __call__ = _dispatch.owner_method

    def _call_general(self, args, kwargs):
        if kwargs:                      # keywords naming input parameters take their places
            args, kwargs = _arity.bind_keywords(self.name, self._arity, args, kwargs,
                                                {s.name for s in self._attr_specs})
        n = len(args)
        if n < self._lo or n > self._hi:
            _arity.raise_arity(self.name, self._arity, n)
        groups = None
        if self.func_type == "akg" and any(isinstance(a, (list, tuple)) for a in args):
            args, groups = _dynamic_groups(self.name, args)      # a dynamic input: one list of tensors
        if self._pending:
            self._resolve_outputs(args)
        if groups is not None:
            tensors, attrs = self._marshal.bind([t for a in args for t in (a if isinstance(a, list) else [a])],
                                                kwargs)
            attrs = dict(attrs)
            attrs[_common.GROUPS_KEY] = groups
        elif not kwargs and self._fast_attrs is not None and all(type(a) is Tensor for a in args):
            tensors, attrs = args, self._fast_attrs
        else:
            tensors, attrs = self._marshal.bind(args, kwargs)
        res = _call(self._op, tensors, attrs)
        if attrs is not self._fast_attrs and _DYNAMIC in attrs:    # outputs stay dynamic where inferred so
            res = _dynshape.mark_outputs(self._op, attrs, tensors, res)
        return res if self._wrap is None else self._wrapped(res)

    def _update_fast_path(self):
        self._plain = not self._pending and self._wrap is None and self._fast_attrs is not None
        self._fast_ns = range(self._lo, self._hi + 1) if self._plain else ()     # read by call_owner
        self._op.plans.fast = ()             # the compiled call path re-arms from call_owner

    def _wrapped(self, res):
        """The result in the structure out_shape/out_dtype ask for (a 1-tuple stays a 1-tuple)."""
        return self._wrap((res,) if self._op.num_outputs == 1 else res)

    def _resolve_outputs(self, args):
        """First use with callable rules: count outputs and pick the result structure by calling a rule once."""
        with self._lock:
            if not self._pending:
                return
            def shape(a):
                if isinstance(a, list):         # a dynamic input's tensors
                    return [shape(t) for t in a]
                return list(a.shape) if isinstance(a, (Tensor, np.ndarray)) else a

            def dtype(a):
                if isinstance(a, list):
                    return [dtype(t) for t in a]
                return a.dtype if isinstance(a, Tensor) else _probe_dtype(a) if isinstance(a, np.ndarray) else a
            shapes, dtypes = [shape(a) for a in args], [dtype(a) for a in args]
            n, self._wrap = _outputs.resolve_structure(self._shape_rule, self._dtype_rule, shapes, dtypes,
                                                       self._op.num_outputs)
            if n != self._op.num_outputs:
                self._rebuild_kernels(n)
            self._pending = False
            self._update_fast_path()
