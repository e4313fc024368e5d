"""AKG ``ir_builder`` kernels (``func_type="akg"``), traced into the hybrid DSL and compiled like hybrid kernels.

MindSpore's akg kind takes a function ``f(inputs, attrs)`` that returns
``tvm.extern(shape, [ins...], lambda ins, outs: body(...), name=..., dtype=...)``,
where ``body`` builds its loops with ``tvm.ir_builder``. The function's module
never imports ``tvm``: AKG puts it in the function's namespace, and so does
this module (in a private copy of the function's globals).

Per call signature, the function runs once on stand-in tensors of the real
shapes and dtypes; what the builder records becomes the source of a hybrid
DSL kernel, which the hybrid kind compiles with Numba for the CPU or GPU.

The subset (what MindSpore's documentation and tests use):
``tvm.ir_builder.create()``, ``ib.for_range(begin, end, name=...)``,
``ib.for_range_n(extents, prefix)``, ``ib.load(buf, index)``,
``ib.store(buf, index, value)``, ``ib.allocate(dtype, shape, name=..., scope=...)``
(read and written as ``buf[i]``), ``ib.buffer_ptr(tensor)`` (flat ``ptr[i]``),
``ib.if_scope(cond)`` / ``ib.else_scope()``, ``ib.get()``; ``tvm.extern``,
``tvm.const``, ``tvm.all``/``tvm.any``, ``tvm.if_then_else``, ``tvm.max``/``tvm.min``,
``tvm.exp/log/sqrt/rsqrt/tanh/sigmoid/abs/floor/ceil``, ``expr.astype(dtype)`` and the
arithmetic and comparison operators on loaded values. Anything else is an error
naming the op and the construct.

Example::

    def add(inputs, attrs):
        def add_ir(dst, a, b):
            ib = tvm.ir_builder.create()
            with ib.for_range_n(a.shape, "i") as i:
                ib.store(dst, i, ib.load(a, i) + ib.load(b, i))
            return ib.get()
        a, b = inputs
        return tvm.extern(a.shape, [a, b], lambda ins, outs: add_ir(outs[0], ins[0], ins[1]),
                          name="add", dtype=a.dtype)

    op = ops.Custom(add, out_shape=lambda x, y: x, out_dtype=lambda x, y: x, func_type="akg")
"""

import inspect
import itertools
import math
import threading
import types

import numpy as np

__all__ = ["is_ir_builder", "IRBuilderKernel", "AkgSubsetError", "trace_source"]

_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "bool")
_TVM_NAMES = ("ir_builder", "extern", "const", "all", "any", "if_then_else", "max", "min", "exp", "log", "sqrt",
              "rsqrt", "tanh", "sigmoid", "abs", "floor", "ceil")
_IB_NAMES = ("for_range", "for_range_n", "load", "store", "allocate", "buffer_ptr", "if_scope", "else_scope",
             "get")


class AkgSubsetError(NotImplementedError):
    """An ir_builder kernel uses a construct outside the supported subset (the message names op and construct)."""


def is_ir_builder(func):
    """Whether ``func`` is an AKG ir_builder kernel (MindSpore's test: its source mentions ``ir_builder``;
    without a source file, the names its code and nested functions use)."""
    try:
        return "ir_builder" in inspect.getsource(func)
    except (OSError, TypeError):
        code = getattr(func, "__code__", None)
        return code is not None and _uses_name(code, "ir_builder")


def _uses_name(code, name):
    return name in code.co_names or any(isinstance(c, types.CodeType) and _uses_name(c, name)
                                        for c in code.co_consts)


# ---------------------------------------------------------------- the traced program
class _Trace:
    """What one run of the kernel function records: lines of hybrid DSL source."""

    def __init__(self, op_name, kernel):
        self.op_name, self.kernel = op_name, kernel
        self.lines, self.decls = [], []
        self.depth = 1
        self.names = itertools.count()
        self.last_if = None           # (depth, line index) of the if just closed at that depth

    def fail(self, what):
        raise AkgSubsetError(f"op '{self.op_name}': akg ir_builder kernel '{self.kernel}' uses {what}, which is "
                             f"outside the supported ir_builder subset (tvm.{', tvm.'.join(_TVM_NAMES)}; "
                             f"ib.{', ib.'.join(_IB_NAMES)}); see docs/mindspore_custom.md")

    def fresh(self, base):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in str(base)) or "v"
        return f"{base}_{next(self.names)}"

    def emit(self, text):
        self.lines.append("    " * self.depth + text)
        self.last_if = None


_CURRENT = threading.local()


def _trace():
    t = getattr(_CURRENT, "trace", None)
    if t is None:
        raise RuntimeError("tvm.ir_builder is available only while ops.Custom traces an akg kernel")
    return t


def _dtype_name(dtype):
    try:
        name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    except TypeError:
        name = str(dtype)
    if name not in _DTYPES:
        _trace().fail(f"the dtype {dtype!r}")
    return name


# ---------------------------------------------------------------- expressions
class Expr:
    """A value in the traced program: hybrid DSL source text and its dtype."""

    def __init__(self, src, dtype):
        self.src, self.dtype = src, dtype

    def astype(self, dtype):
        return Expr(f"{_dtype_name(dtype)}({self.src})", _dtype_name(dtype))

    def __bool__(self):
        _trace().fail("a traced expression as a Python truth value (use ib.if_scope or tvm.if_then_else)")

    def _bin(self, other, op, swap=False, result=None):
        other = _expr(other, self.dtype)
        a, b = (other, self) if swap else (self, other)
        dtype = result or a.dtype
        if op == "/" and dtype not in ("float16", "float32", "float64"):
            op = "//"
        return Expr(f"({a.src} {op} {b.src})", dtype)

    def __add__(self, o): return self._bin(o, "+")
    def __radd__(self, o): return self._bin(o, "+", True)
    def __sub__(self, o): return self._bin(o, "-")
    def __rsub__(self, o): return self._bin(o, "-", True)
    def __mul__(self, o): return self._bin(o, "*")
    def __rmul__(self, o): return self._bin(o, "*", True)
    def __truediv__(self, o): return self._bin(o, "/")
    def __rtruediv__(self, o): return self._bin(o, "/", True)
    def __floordiv__(self, o): return self._bin(o, "//")
    def __rfloordiv__(self, o): return self._bin(o, "//", True)
    def __mod__(self, o): return self._bin(o, "%")
    def __rmod__(self, o): return self._bin(o, "%", True)
    def __lt__(self, o): return self._bin(o, "<", result="bool")
    def __le__(self, o): return self._bin(o, "<=", result="bool")
    def __gt__(self, o): return self._bin(o, ">", result="bool")
    def __ge__(self, o): return self._bin(o, ">=", result="bool")
    def __eq__(self, o): return self._bin(o, "==", result="bool")       # noqa: E704
    def __ne__(self, o): return self._bin(o, "!=", result="bool")       # noqa: E704
    def __neg__(self): return Expr(f"(-{self.src})", self.dtype)
    __hash__ = None

    def __repr__(self):
        return f"Expr({self.src}: {self.dtype})"


def _const_src(value, dtype):
    if dtype == "bool":
        return "True" if value else "False"
    if dtype.startswith("float"):
        value = float(value)
        if not math.isfinite(value):
            _trace().fail(f"the non-finite constant {value!r}")
        return f"{dtype}({value!r})" if dtype != "float16" else repr(value)
    return f"{dtype}({int(value)})" if dtype not in ("int32", "int64") else str(int(value))


def _expr(value, dtype="int32"):
    if isinstance(value, Expr):
        return value
    if isinstance(value, (bool, np.bool_)):
        return Expr("True" if value else "False", "bool")
    if isinstance(value, (int, np.integer)):
        return Expr(_const_src(value, dtype), dtype)
    if isinstance(value, (float, np.floating)):
        return Expr(_const_src(value, dtype if dtype.startswith("float") else "float32"),
                    dtype if dtype.startswith("float") else "float32")
    _trace().fail(f"a value of type {type(value).__name__} in an expression")


# ---------------------------------------------------------------- tensors and buffers
class Tensor:
    """A kernel input or output as the ir_builder body sees it: ``shape`` (ints), ``dtype``, ``name``."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(int(s) for s in shape), dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _trace().fail(f"the tensor attribute '.{name}'")

    def index(self, index):
        """Hybrid DSL subscript text for ``index`` (a list per axis, or one flat index)."""
        if isinstance(index, (list, tuple)):
            idx = [_expr(i) for i in index]
            if len(idx) != len(self.shape):
                _trace().fail(f"{len(idx)} indices into '{self.name}' of rank {len(self.shape)}")
            return ", ".join(i.src for i in idx) or "0"
        flat = _expr(index)
        if len(self.shape) <= 1:
            return flat.src
        parts, stride = [], 1
        for extent in reversed(self.shape):
            parts.append(f"(({flat.src}) // {stride}) % {extent}" if stride > 1 else f"({flat.src}) % {extent}")
            stride *= extent
        return ", ".join(reversed(parts))


class BufferVar:
    """``ib.allocate`` / ``ib.buffer_ptr``: flat element access ``buf[i]`` and ``buf[i] = value``."""

    def __init__(self, tensor):
        self._tensor = tensor

    @property
    def dtype(self):
        return self._tensor.dtype

    def __getitem__(self, index):
        if isinstance(index, (list, tuple)):
            _trace().fail("a tuple index on an ir_builder pointer (it takes one flat index)")
        return Expr(f"{self._tensor.name}[{self._tensor.index(index)}]", self._tensor.dtype)

    def __setitem__(self, index, value):
        if isinstance(index, (list, tuple)):
            _trace().fail("a tuple index on an ir_builder pointer (it takes one flat index)")
        _store(self._tensor, index, value)


def _store(tensor, index, value):
    t = _trace()
    value = _expr(value, tensor.dtype)
    t.emit(f"{tensor.name}[{tensor.index(index)}] = {value.src}")


def _as_tensor(buf, what):
    if isinstance(buf, BufferVar):
        return buf._tensor
    if isinstance(buf, Tensor):
        return buf
    _trace().fail(f"{what} on a {type(buf).__name__} (expected a kernel tensor or an ib.allocate buffer)")


# ---------------------------------------------------------------- the builder
class _Scope:
    def __init__(self, value, enter, leave):
        self.value, self._enter, self._leave = value, enter, leave

    def __enter__(self):
        self._enter()
        return self.value

    def __exit__(self, *exc):
        self._leave()
        return False


class IRBuilder:
    """``tvm.ir_builder.create()``: statements go into the trace as hybrid DSL lines."""

    def __init__(self):
        self._t = _trace()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _trace().fail(f"ib.{name}")

    def _block(self, header, after=None):
        t = self._t

        def enter():
            t.emit(header)
            t.depth += 1

        def leave():
            if t.lines[-1].startswith("    " * (t.depth - 1) + header):
                t.emit("pass")
            t.depth -= 1
            t.last_if = None
            if after is not None:
                after()
        return enter, leave

    def for_range(self, begin, end, name="i", dtype="int32", for_type="serial"):
        if for_type not in ("serial", "parallel", "vectorize", "unroll"):
            self._t.fail(f"for_type={for_type!r}")
        var = self._t.fresh(name)
        loop = {"parallel": "parallel"}.get(for_type, "range")
        begin, end = _expr(begin), _expr(end)
        header = f"for {var} in {loop}({end.src}):" if begin.src == "0" and loop == "parallel" else \
            f"for {var} in range({begin.src}, {end.src}):"
        enter, leave = self._block(header)
        return _Scope(Expr(var, "int32"), enter, leave)

    def for_range_n(self, extents, prefix_name="i", dtype="int32", for_type="serial"):
        t = self._t
        names = [t.fresh(f"{prefix_name}{k}") for k in range(len(extents))]
        ext = [_expr(e) for e in extents]

        def enter():
            for n, e in zip(names, ext):
                t.emit(f"for {n} in range({e.src}):")
                t.depth += 1

        def leave():
            for _ in names:
                if t.lines[-1].lstrip().startswith("for ") and t.lines[-1].endswith(":"):
                    t.emit("pass")
                t.depth -= 1
            t.last_if = None
        return _Scope([Expr(n, "int32") for n in names], enter, leave)

    def load(self, buf, index):
        tensor = _as_tensor(buf, "ib.load")
        return Expr(f"{tensor.name}[{tensor.index(index)}]", tensor.dtype)

    def store(self, buf, index, value):
        _store(_as_tensor(buf, "ib.store"), index, value)

    def allocate(self, dtype, shape, name="buf", scope=None):
        t = self._t
        dtype = _dtype_name(dtype)
        shape = list(shape) if isinstance(shape, (list, tuple)) else [shape]
        size = 1
        for s in shape:
            if isinstance(s, Expr):
                t.fail("an ib.allocate whose shape depends on a loop variable or a loaded value")
            size *= int(s)
        var = t.fresh(name)
        t.decls.append(f"{var} = allocate(({size},), '{dtype}')")
        return BufferVar(Tensor(var, (size,), dtype))

    def buffer_ptr(self, buf):
        return BufferVar(_as_tensor(buf, "ib.buffer_ptr"))

    def if_scope(self, cond):
        t = self._t
        cond = _expr(cond)
        at = {}

        def enter():
            t.emit(f"if {cond.src}:")
            at["depth"], at["line"] = t.depth, len(t.lines) - 1
            t.depth += 1

        def leave():
            if t.lines[-1] == "    " * (t.depth - 1) + f"if {cond.src}:":
                t.emit("pass")
            t.depth -= 1
            t.last_if = (at["depth"], at["line"])
        return _Scope(None, enter, leave)

    def else_scope(self):
        t = self._t
        if t.last_if is None or t.last_if[0] != t.depth:
            raise RuntimeError(f"op '{t.op_name}': akg ir_builder kernel '{t.kernel}': else_scope can only "
                               f"follow an if_scope")

        def enter():
            t.lines.append("    " * t.depth + "else:")
            t.depth += 1

        def leave():
            if t.lines[-1].endswith("else:"):
                t.emit("pass")
            t.depth -= 1
            t.last_if = None
        return _Scope(None, enter, leave)

    def get(self):
        return _Stmt(self._t)


class _Stmt:
    """What ``ib.get()`` returns: the builder's program, handed to ``tvm.extern``."""

    def __init__(self, trace):
        self.trace = trace


class _Extern(list):
    """``tvm.extern``'s result: the output tensors (a list; a single output also acts as that tensor)."""

    @property
    def shape(self):
        return self[0].shape

    @property
    def dtype(self):
        return self[0].dtype


def _unary(name, template):
    def fn(x):
        x = _expr(x, "float32")
        return Expr(template.format(x.src), x.dtype)
    fn.__name__ = name
    return fn


def _tvm_namespace():
    ns = types.SimpleNamespace()
    ns.ir_builder = types.SimpleNamespace(create=IRBuilder)

    def extern(shape, inputs, fcompute, name="extern", dtype=None, **kwargs):
        t = _trace()
        if getattr(t, "outputs", None) is not None:
            t.fail("a second tvm.extern (a kernel builds one extern program)")
        multi = isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple))
        shapes = list(shape) if multi else [shape]
        dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype] * len(shapes)
        if len(dtypes) != len(shapes):
            t.fail(f"tvm.extern with {len(shapes)} output shapes and {len(dtypes)} dtypes")
        if any(d is None for d in dtypes):
            dtypes = [d if d is not None else inputs[0].dtype for d in dtypes]
        outs = []
        for k, (s, d) in enumerate(zip(shapes, dtypes)):
            if any(isinstance(v, Expr) for v in s):
                t.fail("a tvm.extern output shape that is not made of ints")
            outs.append(Tensor(f"out{k}", s, _dtype_name(d)))
        for x in inputs:
            if not isinstance(x, Tensor) or x.name.startswith("out"):
                t.fail("a tvm.extern input that is not one of the kernel's inputs")
        stmt = fcompute(list(inputs), outs)
        if not isinstance(stmt, _Stmt):
            t.fail(f"a tvm.extern body that returns {type(stmt).__name__} (it must return ib.get())")
        t.outputs = outs
        return _Extern(outs)

    def const(value, dtype="int32"):
        return _expr(value, _dtype_name(dtype)) if not isinstance(value, Expr) else value.astype(dtype)

    def all_(*conds):
        return Expr("(" + " and ".join(_expr(c).src for c in conds) + ")", "bool")

    def any_(*conds):
        return Expr("(" + " or ".join(_expr(c).src for c in conds) + ")", "bool")

    def if_then_else(cond, a, b):
        a = _expr(a, b.dtype if isinstance(b, Expr) else "float32")
        b = _expr(b, a.dtype)
        return Expr(f"({a.src} if {_expr(cond).src} else {b.src})", a.dtype)

    def binary(name):
        def fn(a, b):
            a = _expr(a, b.dtype if isinstance(b, Expr) else "int32")
            b = _expr(b, a.dtype)
            return Expr(f"{name}({a.src}, {b.src})", a.dtype)
        return fn

    ns.extern, ns.const, ns.all, ns.any, ns.if_then_else = extern, const, all_, any_, if_then_else
    ns.max, ns.min = binary("max"), binary("min")
    for n in ("exp", "log", "sqrt", "rsqrt", "tanh", "abs", "floor", "ceil"):
        setattr(ns, n, _unary(n, n + "({})"))
    ns.sigmoid = _unary("sigmoid", "(1.0 / (1.0 + exp(-{})))")
    return _Namespace(ns)


class _Namespace:
    """The ``tvm`` a kernel sees: the subset's names; any other name is an error naming it."""

    def __init__(self, ns):
        self.__dict__.update(vars(ns))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        _trace().fail(f"tvm.{name}")


TVM = _tvm_namespace()


# ---------------------------------------------------------------- tracing
def trace_source(func, op_name, in_shapes, in_dtypes, attrs, groups=None):
    """``(source, name, n_out)``: the hybrid DSL kernel that ``func`` builds for these inputs.

    ``groups`` (a dynamic input's list lengths) does not change what the kernel
    sees: AKG hands it every tensor in one flat ``inputs`` list.
    """
    del groups
    kname = getattr(func, "__name__", "kernel")
    t = _Trace(op_name, kname)
    tensors = [Tensor(f"in{k}", s, np.dtype(d).name) for k, (s, d) in enumerate(zip(in_shapes, in_dtypes))]
    inputs = tensors            # as AKG gives them: a dynamic input's tensors in the flat list
    env = dict(func.__globals__)
    env["tvm"] = TVM
    run = types.FunctionType(func.__code__, env, func.__name__, func.__defaults__, func.__closure__)
    _CURRENT.trace = t
    try:
        res = run(inputs, dict(attrs))
    except AkgSubsetError:
        raise
    except Exception as exc:
        if str(exc).startswith(f"op '{op_name}'"):
            raise
        raise RuntimeError(f"op '{op_name}': akg ir_builder kernel '{kname}' raised {type(exc).__name__} while "
                           f"building its program: {exc}") from exc
    finally:
        _CURRENT.trace = None
    outs = getattr(t, "outputs", None)
    if outs is None or not isinstance(res, (_Extern, Tensor, list, tuple)):
        raise RuntimeError(f"op '{op_name}': akg ir_builder kernel '{kname}' must return the result of "
                           f"tvm.extern(...), got {type(res).__name__}")
    fname = f"akg_{''.join(c if c.isalnum() else '_' for c in kname)}"
    head = [f"def {fname}({', '.join(x.name for x in tensors)}):"]
    decls = [f"    {o.name} = output_tensor({tuple(o.shape)!r}, '{o.dtype}')" for o in outs]
    decls += [f"    {d}" for d in t.decls]
    body = t.lines or ["    pass"]
    ret = [f"    return {', '.join(o.name for o in outs)}"]
    return "\n".join(head + decls + body + ret) + "\n", fname, len(outs)


class IRBuilderKernel:
    """An ir_builder kernel function, checked at construction, traced and compiled per call signature."""

    def __init__(self, func, op_name):
        if not callable(func) or not hasattr(func, "__code__"):
            raise TypeError(f"op '{op_name}': an akg kernel must be a Python function, got {type(func).__name__}")
        n = func.__code__.co_argcount
        if n != 2:
            raise TypeError(f"op '{op_name}': an akg ir_builder kernel takes (inputs, attrs), as AKG calls it; "
                            f"'{func.__name__}' takes {n} positional parameter(s)")
        self.func, self.op_name = func, op_name
        self.__name__ = func.__name__
        self.__qualname__ = getattr(func, "__qualname__", func.__name__)
        self.compile_attrs = "{}"
        self._hybrid = {}
        self._lock = threading.Lock()

    def hybrid(self, in_shapes, in_dtypes, attrs, groups=None):
        """The ``HybridFunction`` traced for one signature (kept per shapes, dtypes and attribute values)."""
        from .check import analyse_source
        key = (tuple(map(tuple, in_shapes)), tuple(np.dtype(d).str for d in in_dtypes),
               repr(sorted(attrs.items())), groups)
        with self._lock:
            found = self._hybrid.get(key)
        if found is not None:
            return found
        source, fname, _ = trace_source(self.func, self.op_name, in_shapes, in_dtypes, attrs, groups)
        filename = f"<akg ir_builder '{self.func.__name__}'>"
        try:
            info = analyse_source(source, filename, 1, fname)
        except (TypeError, ValueError, SyntaxError) as exc:
            raise AkgSubsetError(f"op '{self.op_name}': akg ir_builder kernel '{self.func.__name__}' builds a "
                                 f"program outside the supported subset: {exc}") from exc
        hf = _TracedHybrid(self.func, source, info, fname)
        with self._lock:
            if len(self._hybrid) >= 256:
                self._hybrid.clear()
            self._hybrid[key] = hf
        return hf


class _TracedHybrid:
    """A ``HybridFunction`` stand-in whose source is the traced program (as the hybrid kind reads it)."""

    ms_kernel_flag = True

    def __init__(self, func, source, info, fname):
        self.func = func
        self.source = source
        self.info = info
        self.compile_attrs = "{}"
        self.__name__ = fname


def _kind_base():
    from .kind import HybridKind
    return HybridKind


class AkgKind:
    """``func_type="akg"``: hybrid DSL kernels as the hybrid kind serves them, and ir_builder kernels traced
    per signature into hybrid DSL and compiled by the same kind (CPU, and GPU through numba-cuda)."""

    options = ()
    default_targets = ("CPU", "GPU")
    allocates = False

    is_ir_builder = staticmethod(is_ir_builder)     # Custom asks before completing a DSL kernel

    def __init__(self):
        self.name = "akg"
        self._hybrid = _kind_base()("akg")

    def check(self, func, op_name, options):
        if isinstance(func, IRBuilderKernel):
            return func
        if not getattr(func, "ms_kernel_flag", False) and is_ir_builder(func):
            return IRBuilderKernel(func, op_name)
        return self._hybrid.check(func, op_name, options)

    def arity(self, func, attr_specs, n_out, pending):
        if isinstance(func, IRBuilderKernel):
            return None                     # the out_shape/out_dtype rules tell
        return self._hybrid.arity(func, attr_specs, n_out, pending)

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        if not isinstance(func, IRBuilderKernel):
            return self._hybrid.bind(func, op_name=op_name, target=target, attr_specs=attr_specs, n_out=n_out,
                                     options=options, sig=sig)
        attrs = {s.name: (sig.attrs or {}).get(s.name, s.default_value) for s in attr_specs}
        groups = (sig.attrs or {}).get(GROUPS_KEY)
        traced = func.hybrid(sig.in_shapes, sig.in_dtypes, attrs, groups)
        if len(traced.info.returns) != n_out:
            raise ValueError(f"op '{op_name}': akg ir_builder kernel '{func.__name__}' makes "
                             f"{len(traced.info.returns)} output(s), the op declares {n_out}")
        return self._hybrid.bind(traced, op_name=op_name, target=target, attr_specs=[], n_out=n_out,
                                 options=options, sig=sig)


from .._common import GROUPS_KEY  # noqa: E402  (a dynamic input's list lengths, set by Custom's call)
