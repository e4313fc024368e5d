"""``ops.Custom``: a custom operator from a Python function, a Numba kernel or a compiled symbol.

One ``Custom`` instance owns one ``OpDef``: ``FInferShape``/``FInferType``
from ``out_shape``/``out_dtype``, ``FGradient`` from ``bprop``, and one
``KernelEntry`` per (kernel, reg info) made by the kind module (``pyfunc``,
``jit``, ``aot``). Calls go straight to the dispatcher, which caches
inference, kernel selection and binding per input signature.

Example::

    def square(x):
        return x * x

    sq = ops.Custom(square, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")
    sq(ms.Tensor([1.0, 2.0]))                       # Tensor([1., 4.])

How many outputs: decided when the op is made, from the structure of
``out_shape``/``out_dtype`` (a tuple of entries -> that many outputs; a single
shape or dtype -> one). When both are callables (or absent), the reg info's
outputs decide; without reg info, a callable ``out_shape`` (else
``out_dtype``) is called once on the op's first use and a result holding
several shapes (dtypes) means several outputs. A pyfunc with neither rule and
no reg info has one output.

Targets: a kernel whose reg info names a target is registered for it. Without
one, a pyfunc kernel (host Python, tensors live on the host) and a jit kernel
(the same source compiles for both) serve CPU and GPU, and an aot kernel the
device target current when the op is made (as MindSpore does: a compiled
library is built for one device).
"""

import importlib
import threading
import weakref
from collections import namedtuple

import numpy as np

from ... import context as _context
from ... import dtype as _dt
from ..._core import dispatch as _dispatch
from ..._core.opdef import OpDef
from ...tensor import Tensor
from . import _common
from . import bprop as _bprop
from .reginfo import coerce_attr, parse_reg_info
from .rules import BIG, OutputRule, is_dtype, is_shape, positional_range, result_count

__all__ = ["Custom", "custom_op_report", "custom_op_usage", "KernelStat", "OpKernelStat", "FUNC_TYPES"]

FUNC_TYPES = ("pyfunc", "jit", "aot", "hybrid", "akg")
_OPTIONS = {"pyfunc": (), "jit": ("launch", "parallel", "debug"), "aot": (), "hybrid": (), "akg": ()}
_DEFAULT_TARGETS = {"pyfunc": ("CPU", "GPU"), "jit": ("CPU", "GPU"), "hybrid": ("CPU", "GPU"),
                    "akg": ("CPU", "GPU")}
_TEMPLATE = _common.TEMPLATE_KEY
_NO_ATTRS = {}                   # shared by every all-tensor call of an op without attributes; never mutated

KernelStat = namedtuple("KernelStat", "kind kernel calls seconds")
OpKernelStat = namedtuple("OpKernelStat", "op kind kernel calls seconds")

_LIVE = []                       # weak references to every Custom made, in creation order
_LIVE_LOCK = threading.Lock()


def _default_name(func):
    if isinstance(func, str):
        return func.rsplit(":", 1)[-1] if ":" in func else func.rsplit("/", 1)[-1]
    for f in (func, getattr(func, "py_func", None), getattr(func, "func", None)):
        name = getattr(f, "__name__", None)
        if isinstance(name, str):
            return name
    return type(func).__name__


def _kind_module(func_type):
    if func_type in ("hybrid", "akg"):                      # hybrid DSL kind (ops/custom/hybrid/)
        return importlib.import_module(".hybrid.kind", __package__)
    return importlib.import_module(f".{func_type}", __package__)


# ---------------------------------------------------------------- Custom
class Custom:
    """A custom operator (MindSpore's ``ops.Custom``); instances are called like functions.

    ``func``: a Python function on NumPy arrays (``func_type="pyfunc"``), a
    destination-passing kernel ``kernel(*inputs, *outputs)`` compiled by Numba
    (``"jit"``), or ``"path/lib.so:Func"`` / ``"src.c:Func"`` (``"aot"``).
    ``out_shape``/``out_dtype``: a constant, a callable receiving one argument
    per call argument (shapes as lists, dtypes as ms dtypes, scalars as their
    values), or a tuple of those for several outputs (the op then returns a
    tuple). ``bprop(*call_args, out, dout)`` returns one gradient per tensor
    input. ``reg_info``: a dict, JSON string or ``CustomRegOp`` (or a list, one
    per target); it wins over ``@custom_info_register``. ``name``: the op's
    name (default: the function's or symbol's). Extra keywords are kernel
    options (jit: ``launch=(blocks, threads)``, ``parallel=``, ``debug=``).

    Calls take Tensors or NumPy arrays and Python scalars, in the kernel's
    order; keyword arguments set reg-info attribute values.

    Example::

        sq_grad = ops.Custom(lambda x, d: 2 * x * d, lambda x, d: x, lambda x, d: x)
        sq = ops.Custom(lambda x: x * x, lambda x: x, lambda x: x,
                        bprop=lambda x, out, dout: (sq_grad(x, dout),))
        ms.grad(lambda t: sq(t).sum())(ms.Tensor([1.0, 4.0]))      # [2., 8.]
    """

    def __init__(self, func, out_shape=None, out_dtype=None, func_type=None, bprop=None,
                 reg_info=None, *, name=None, **options):
        # hybrid DSL hook: @kernel functions default to "hybrid"; outputs and bprop are derived from the kernel
        if func_type is None:
            func_type = "hybrid" if getattr(func, "ms_kernel_flag", False) else "pyfunc"
        if func_type in ("hybrid", "akg"):
            from .hybrid.hook import complete
            func, out_shape, out_dtype, bprop = complete(func, name or _default_name(func), out_shape,
                                                         out_dtype, bprop)
        self.func = func
        self.name = name if name is not None else _default_name(func)
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"ops.Custom: name must be a non-empty string, got {self.name!r}")
        self.func_type = self._check_func_type(func_type)
        self._check_options(func_type, options)
        if bprop is not None and not callable(bprop):
            raise TypeError(f"op '{self.name}': bprop must be callable as bprop(*inputs, out, dout), "
                            f"got {type(bprop).__name__}")
        self.bprop = bprop
        infos = parse_reg_info(reg_info if reg_info is not None else getattr(func, "reg_info", None),
                               op_name=self.name)
        self._shape_rule = OutputRule(self.name, "out_shape", out_shape, is_shape)
        self._dtype_rule = OutputRule(self.name, "out_dtype", out_dtype, is_dtype)
        n_out, self._pending = self._count_outputs(infos)
        self._lock = threading.Lock()
        self._sources = []               # (func, func_type, infos, options) per add_kernel, to rebuild
        self._attr_specs = []
        self._op = OpDef(self.name, num_outputs=n_out)
        self._op.describe(f"ops.Custom {self.func_type} op '{self.name}'")
        self._install_rules()
        self._install_gradient()
        self._add_kernels(func, func_type, infos, options)
        self._arity = self._find_arity(func, func_type)
        self._check_bprop_arity()
        with _LIVE_LOCK:
            _LIVE.append(weakref.ref(self))

    # ------------------------------------------------------------ construction
    def _check_func_type(self, func_type):
        if func_type not in FUNC_TYPES:
            raise ValueError(f"op '{self.name}': func_type must be one of {list(FUNC_TYPES)}, got "
                             f"{func_type!r} (MindSpore's 'tbe', 'aicpu' and 'julia' "
                             f"kinds do not exist here)")
        return func_type

    def _check_options(self, func_type, options):
        unknown = sorted(set(options) - set(_OPTIONS[func_type]))
        if unknown:
            known = list(_OPTIONS[func_type]) or "none"
            raise TypeError(f"op '{self.name}': unknown keyword argument(s) {unknown} for func_type "
                            f"{func_type!r}; its kernel options are {known}")

    def _count_outputs(self, infos):
        """``(n_out, pending)``: pending means 'call the callable rule once on first use'."""
        counts = {r.what: r.count for r in (self._shape_rule, self._dtype_rule) if r.kind == "multi"}
        if len(set(counts.values())) > 1:
            raise ValueError(f"op '{self.name}': out_shape gives {counts['out_shape']} outputs but "
                             f"out_dtype gives {counts['out_dtype']}")
        reg = {len(i.outputs) for i in infos if i.outputs}
        if len(reg) > 1:
            raise ValueError(f"op '{self.name}': its reg infos declare different numbers of outputs "
                             f"{sorted(reg)}; every kernel of one op has the same outputs")
        if counts:
            n = next(iter(counts.values()))
        elif "const" in (self._shape_rule.kind, self._dtype_rule.kind):
            n = 1
        elif reg:
            return reg.pop(), False
        else:
            return 1, "fn" in (self._shape_rule.kind, self._dtype_rule.kind)
        if reg and reg != {n}:
            raise ValueError(f"op '{self.name}': out_shape/out_dtype give {n} output(s) but the reg info "
                             f"declares {sorted(reg)}")
        return n, False

    def _install_rules(self):
        op, shape_rule, dtype_rule = self._op, self._shape_rule, self._dtype_rule
        interleave = _common.interleave
        if shape_rule.kind != "none":
            def infer_shape(attrs, in_shapes):
                args = interleave(attrs.get(_TEMPLATE) if attrs else None, in_shapes)
                return in_shapes, shape_rule.evaluate(args, op.num_outputs)
            op.set_attr("FInferShape", infer_shape)
        if dtype_rule.kind != "none":
            def infer_type(attrs, in_dtypes):
                args = interleave(attrs.get(_TEMPLATE) if attrs else None, in_dtypes)
                return in_dtypes, [_dt.dtype_from_any(d) for d in dtype_rule.evaluate(args, op.num_outputs)]
            op.set_attr("FInferType", infer_type)

    def _install_gradient(self):
        self._op.set_attr("FGradient", _bprop.make_fgradient(self.name, self.func_type, self.bprop))

    def _add_kernels(self, func, func_type, infos, options):
        self._sources.append((func, func_type, infos, dict(options)))
        for spec in (s for info in infos for s in info.attrs):
            known = next((s for s in self._attr_specs if s.name == spec.name), None)
            if known is None:
                self._attr_specs.append(spec)
            elif known.value_type != spec.value_type:
                raise ValueError(f"op '{self.name}': attribute '{spec.name}' is declared as "
                                 f"{known.value_type!r} and as {spec.value_type!r} in different reg infos")
        for entry in self._make_entries(func, func_type, infos, options):
            self._op.add_kernel(entry)
        # kernels restricted to rows first, catch-all kernels (rows=None) last
        self._op.kernels.sort(key=lambda k: k.rows is None)
        self._op.plans.clear()
        self._update_num_inputs()
        self._fast_attrs = self._default_attrs()

    def _make_entries(self, func, func_type, infos, options):
        module = _kind_module(func_type)
        jobs = []
        for info in infos or [None]:
            if info is not None and info.target is not None:
                targets = (info.target,)
            else:
                targets = _DEFAULT_TARGETS.get(func_type) or (_context.device_target(),)
            for target in targets:
                jobs.append((target, info))
        entries = []
        for target, info in jobs:
            entries.append(module.make_kernel(
                func, op_name=self.name, target=target, rows=(info.rows or None) if info else None,
                attr_specs=list(info.attrs) if info else [], n_out=self._op.num_outputs,
                options=dict(options)))
        return entries

    def _update_num_inputs(self):
        """Reg infos that agree on a fixed number of tensor inputs let the dispatcher check it."""
        infos = [i for _, _, infos, _ in self._sources for i in infos if i.inputs]
        counts = {len(i.inputs) for i in infos}
        fixed = len(counts) == 1 and all(i.fixed_inputs for i in infos)   # no optional/dynamic inputs
        self._op.set_num_inputs(counts.pop() if fixed else None)
        if self._op.num_inputs is not None:
            self._op.input_names = list(infos[0].inputs)

    def _default_attrs(self):
        """The attrs dict of an all-tensor call without keywords, or None if one must be built per call."""
        if not self._attr_specs:
            return _NO_ATTRS
        attrs = {}
        for spec in self._attr_specs:
            if spec.default_value is None and spec.param_type == "required":
                return None
            attrs[spec.name] = spec.default_value
        return attrs

    def _find_arity(self, func, func_type):
        """``(min, max, names)`` of call arguments, from the first rule or function that tells."""
        attr_names = {s.name for s in self._attr_specs}
        candidates = []
        for rule in (self._shape_rule, self._dtype_rule):
            if rule.kind == "fn":
                candidates.append(positional_range(rule.value))
            elif rule.kind == "multi":
                candidates += [positional_range(v) for v in rule.value if callable(v) and not rule.is_const(v)]
        if func_type == "pyfunc":
            candidates.append(positional_range(func, skip=attr_names))
        elif func_type == "jit":
            found = positional_range(getattr(func, "py_func", func))
            extra = self._op.num_outputs + len(self._attr_specs)
            if found and not self._pending and found[1] != BIG and found[0] == found[1] and found[0] > extra:
                candidates.append((found[0] - extra, found[1] - extra, found[2][:found[0] - extra]))
        if self.bprop is not None:
            found = positional_range(self.bprop)
            if found and found[0] >= 2 and found[1] != BIG:
                candidates.append((found[0] - 2, found[1] - 2, found[2][:-2]))
        for c in candidates:
            if c is not None and (c[0] > 0 or c[1] != BIG):
                return c
        return 0, BIG, []

    def _check_bprop_arity(self):
        if self.bprop is None:
            return
        found = positional_range(self.bprop)
        lo, hi, _ = self._arity
        if found is None or found[1] == BIG or hi == BIG:
            return
        if not (found[0] <= lo + 2 and hi + 2 <= found[1]):
            raise TypeError(f"op '{self.name}': bprop must take the call's {lo if lo == hi else f'{lo}..{hi}'} "
                            f"argument(s), then out and dout, as bprop(*inputs, out, dout); it takes "
                            f"{found[1]} positional parameter(s)")

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
        return list(self._op.kernels)

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
        if func_type not in FUNC_TYPES:
            self._check_func_type(func_type)
        self._check_options(func_type, options)
        infos = parse_reg_info(reg_info if reg_info is not None else getattr(func, "reg_info", None),
                               op_name=self.name)
        bad = {len(i.outputs) for i in infos if i.outputs} - {self._op.num_outputs}
        if bad and not self._pending:
            raise ValueError(f"op '{self.name}': the added kernel's reg info declares {sorted(bad)} "
                             f"output(s), the op has {self._op.num_outputs}")
        with self._lock:
            self._add_kernels(func, func_type, infos, options)
        return self

    def kernel_stats(self):
        """One ``KernelStat(kind, kernel, calls, seconds)`` per kernel of this op.

        Example::

            for kind, kernel, calls, seconds in op.kernel_stats(): print(kind, kernel, calls)
        """
        return [KernelStat(k.kind, k.name, k.stats["calls"], k.stats["seconds"]) for k in self._op.kernels]

    def __repr__(self):
        kernels = ", ".join(k.name for k in self._op.kernels)
        return (f"Custom(name={self.name!r}, func_type={self.func_type!r}, outputs={self._op.num_outputs}, "
                f"kernels=[{kernels}])")

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        n = len(args)
        arity = self._arity
        if n < arity[0] or n > arity[1]:
            self._raise_arity(n)
        if self._pending:
            self._resolve_outputs(args)
        if not kwargs:
            attrs = self._fast_attrs
            if attrs is not None:
                for a in args:
                    if type(a) is not Tensor:
                        break
                else:
                    return _dispatch.call(self._op, args, attrs)
        return self._call_general(args, kwargs)

    def _call_general(self, args, kwargs):
        tensors, template, scalars = [], [], False
        for a in args:
            kind = type(a)
            if kind is Tensor:
                tensors.append(a)
                template.append(None)
            elif kind is float or kind is int or kind is bool:
                template.append(a)
                scalars = True
            elif isinstance(a, (Tensor, np.ndarray)):
                tensors.append(a if isinstance(a, Tensor) else self._array_input(a, len(template)))
                template.append(None)
            else:
                template.append(self._scalar_input(a, len(template)))
                scalars = True
        attrs = self._build_attrs(tuple(template) if scalars else None, kwargs)
        return _dispatch.call(self._op, tuple(tensors), attrs)

    def _array_input(self, a, pos):
        try:
            _dt.from_numpy(a.dtype)
        except TypeError as exc:
            raise TypeError(f"op '{self.name}': argument {pos} is an array of {exc}") from None
        return Tensor._wrap(a)

    def _scalar_input(self, a, pos):
        """A non-tensor argument as it goes into the call template (hashable; lists become tuples)."""
        if isinstance(a, list):
            a = tuple(a)
        try:
            hash(a)
        except TypeError:
            raise TypeError(f"op '{self.name}': argument {pos} must be a Tensor, an array or a "
                            f"hashable value such as a number, got {type(a).__name__}") from None
        return a

    def _build_attrs(self, template, kwargs):
        specs = self._attr_specs
        if kwargs:
            unknown = sorted(set(kwargs) - {s.name for s in specs})
            if unknown:
                have = f"its attributes are {[s.name for s in specs]}" if specs else \
                    "it has no attributes (declare them with CustomRegOp().attr(...))"
                raise TypeError(f"op '{self.name}' got unknown keyword argument(s) {unknown}; {have}")
        if template is None and not specs:
            return _NO_ATTRS
        attrs = {} if template is None else {_TEMPLATE: template}
        for spec in specs:
            if spec.name in kwargs:
                try:
                    value = coerce_attr(kwargs[spec.name], spec.value_type)
                except (TypeError, ValueError) as exc:
                    raise TypeError(f"op '{self.name}': attribute '{spec.name}' expects a value of type "
                                    f"{spec.value_type}, got {kwargs[spec.name]!r} ({exc})") from None
            else:
                value = spec.default_value
                if value is None and spec.param_type == "required":
                    raise TypeError(f"op '{self.name}': attribute '{spec.name}' is required and has no "
                                    f"default; pass {spec.name}=... when calling the op")
            attrs[spec.name] = value
        return attrs

    def _raise_arity(self, n):
        lo, hi, names = self._arity
        expect = str(lo) if lo == hi else (f"at least {lo}" if hi == BIG else f"{lo} to {hi}")
        shown = f" ({', '.join(names)})" if names else ""
        raise TypeError(f"op '{self.name}' takes {expect} input argument(s){shown}, got {n}")

    def _resolve_outputs(self, args):
        """First use with both rules callable and no reg info: count outputs by calling the rule once."""
        with self._lock:
            if not self._pending:
                return
            rule = self._shape_rule if self._shape_rule.kind == "fn" else self._dtype_rule
            if rule is self._shape_rule:
                probe = [list(a.shape) if isinstance(a, (Tensor, np.ndarray)) else a for a in args]
            else:
                probe = [a.dtype if isinstance(a, Tensor) else _dt.from_numpy(a.dtype)
                         if isinstance(a, np.ndarray) else a for a in args]
            n = result_count(rule, probe)
            if n != self._op.num_outputs:
                sources = self._sources
                self._op.set_num_outputs(n)
                self._op.kernels = []
                self._sources = []
                for func, func_type, infos, options in sources:
                    self._add_kernels(func, func_type, infos, options)
            self._pending = False


# ---------------------------------------------------------------- report
def _live_ops():
    with _LIVE_LOCK:
        _LIVE[:] = [ref for ref in _LIVE if ref() is not None]
        ops = [ref() for ref in _LIVE]
    return [op for op in ops if op is not None]


def _format_rows(rows, format):
    if format not in ("rows", "text"):
        raise ValueError(f"custom_op_report: format must be 'rows' or 'text', got {format!r}")
    if format == "rows":
        return rows
    head = ("op", "kind", "kernel", "calls", "total ms")
    body = [(r.op, r.kind, r.kernel, str(r.calls), f"{r.seconds * 1e3:.3f}") for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(c.ljust(w) if j < 3 else c.rjust(w) for j, (c, w) in enumerate(zip(line, widths)))
             for line in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def custom_op_report(format="rows", used_only=False):
    """Every live Custom op's kernels with their call counts and total seconds.

    ``format="rows"``: a list of ``OpKernelStat(op, kind, kernel, calls, seconds)``;
    ``format="text"``: the same as an aligned table. ``used_only=True`` leaves
    out kernels that never ran (for example the GPU kernel of a CPU-only run).
    The counts are since each op was made; ``custom_op_usage`` counts one block.

    Example::

        print(custom_op_report(format="text", used_only=True))
    """
    rows = [OpKernelStat(op.name, *stat) for op in _live_ops() for stat in op.kernel_stats()
            if stat.calls or not used_only]
    return _format_rows(rows, format)


class custom_op_usage:
    """Count the Custom kernel calls made inside a ``with`` block.

    On exit, ``report()`` lists each kernel that ran in the block with the
    calls and seconds spent there (kernels of ops that were deleted before the
    block ended are not listed).

    Example::

        with ops.custom_op_usage() as usage:
            train(net)
        print(usage.report(format="text"))
    """

    def __init__(self):
        self._start = None
        self._rows = None

    def __enter__(self):
        # strong references to the entries, so an id cannot be reused within the block
        self._start = {id(k): (k, k.stats["calls"], k.stats["seconds"])
                       for op in _live_ops() for k in op._op.kernels}
        self._rows = None
        return self

    def __exit__(self, *exc):
        rows = []
        for op in _live_ops():
            for k in op._op.kernels:
                _, calls, seconds = self._start.get(id(k), (k, 0, 0.0))
                if k.stats["calls"] > calls:
                    rows.append(OpKernelStat(op.name, k.kind, k.name, k.stats["calls"] - calls,
                                             k.stats["seconds"] - seconds))
        self._rows, self._start = rows, None
        return False

    def report(self, format="rows"):
        """The kernels used in the block: rows of ``OpKernelStat`` or, with ``format="text"``, a table."""
        if self._rows is None:
            raise RuntimeError("custom_op_usage: report() is available after the with block ends")
        return _format_rows(list(self._rows), format)
