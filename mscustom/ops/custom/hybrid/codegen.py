"""Numba source for a lowered hybrid kernel (CPU: ``numba.njit``; GPU: ``numba.cuda.jit`` stages).

The generated function takes the inputs then the outputs (destination
passing, like a jit kernel): ``output_tensor`` declarations disappear (the
dispatcher's preallocated, zero-filled outputs take their place), ``allocate``
becomes ``np.zeros``, ``parallel`` loops and the first axis of ``grid`` loops
become ``numba.prange``, ``vectorize``/``serial``/``reduce``/``range`` loops
plain ``range`` loops (innermost, contiguous: LLVM vectorises them), and
intrinsics become ``math``/NumPy calls. Dtypes are known per signature and are
written into the source as constants. NumPy's float16 has no arithmetic in
Numba on the CPU: float16 tensors are computed as float32 there and rounded
back to float16 when the outputs are written.

Example::

    src, name = cpu_source(info, meta)       # text of ``def <name>(a, b, c): ...``
"""

import ast
import copy

from .lower import loop_bounds, loop_kind, loop_step, lower

__all__ = ["cpu_source", "gpu_stages", "compute_dtype", "rename"]

_MATH = {"sqrt": "math.sqrt", "exp": "math.exp", "log": "math.log", "sin": "math.sin", "cos": "math.cos",
         "tanh": "math.tanh", "floor": "math.floor", "ceil": "math.ceil", "trunc": "math.trunc",
         "erf": "math.erf", "atan": "math.atan", "atan2": "math.atan2", "expm1": "math.expm1",
         "isnan": "math.isnan", "isinf": "math.isinf", "isfinite": "math.isfinite"}
_FLOAT_RESULT = {"floor", "ceil", "trunc"}          # math.floor gives an int in Python; NumPy gives a float
# on the CPU these compile to the vectorizable functions of ``vecmath`` (LLVM vectorizes a loop calling
# them; libm's scalar calls stop it), within vecmath.ULP_BOUND of libm's results (docs/vecmath.md)
_VECMATH = {"exp": "_vm.exp", "log": "_vm.log", "sin": "_vm.sin", "cos": "_vm.cos", "tanh": "_vm.tanh",
            "erf": "_vm.erf", "expm1": "_vm.expm1"}


def compute_dtype(name, target="CPU"):
    """The dtype a tensor is computed in: float16 is widened to float32 on the CPU."""
    return "float32" if name == "float16" and target == "CPU" else name


def rename(node, mapping):
    """Replace names per ``mapping`` in a copy of ``node``."""
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
    return node


class _Exprs(ast.NodeTransformer):
    """Intrinsics, casts and ``.dtype`` into Numba-compilable expressions."""

    def __init__(self, meta, target):
        self.meta, self.target = meta, target

    def _np(self, dtype):
        return ast.parse(f"np.{compute_dtype(dtype, self.target)}", mode="eval").body

    def visit_Attribute(self, node):
        if node.attr == "dtype" and isinstance(node.value, ast.Name) and node.value.id in self.meta:
            return ast.copy_location(self._np(self.meta[node.value.id].dtype), node)
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func.id if isinstance(node.func, ast.Name) else None
        a = node.args
        text = None
        if f in _VECMATH and self.target == "CPU":
            text = f"{_VECMATH[f]}({', '.join(ast.unparse(x) for x in a)})"
        elif f in _MATH:
            text = f"{_MATH[f]}({', '.join(ast.unparse(x) for x in a)})"
            if f in _FLOAT_RESULT:
                text = f"float({text})"
        elif f == "rsqrt":
            text = f"_vm.rsqrt({ast.unparse(a[0])})" if self.target == "CPU" else \
                f"(1.0 / math.sqrt({ast.unparse(a[0])}))"
        elif f == "sign":
            x = ast.unparse(a[0])
            text = f"((1.0 if ({x}) > 0 else 0.0) - (1.0 if ({x}) < 0 else 0.0))"   # Numba has no float(bool)
        elif f == "round":
            x = ast.unparse(a[0])
            text = f"np.rint({x})" if self.target == "CPU" else f"float(round({x}))"
        elif f == "power":
            text = f"(({ast.unparse(a[0])}) ** ({ast.unparse(a[1])}))"
        elif f == "ceil_div":
            x, y = ast.unparse(a[0]), ast.unparse(a[1])
            text = f"((({x}) + ({y}) - 1) // ({y}))"
        elif f in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                   "uint32", "uint64"):
            text = f"np.{compute_dtype(f, self.target)}({ast.unparse(a[0])})"
        if text is None:
            return node
        return ast.copy_location(ast.parse(text, mode="eval").body, node)


def _prepare(info, meta, target):
    """Lowered body with intrinsics rewritten, in-place outputs renamed; (body, params, out_names)."""
    body = lower(info, meta)
    out_params, mapping = [], {}
    for j, name in enumerate(info.returns):
        if name in info.args:                   # written in place: works on the output, a copy of the input
            mapping[name] = f"_out{j}_{name}"
            out_params.append(mapping[name])
        else:
            out_params.append(name)
    fixer = _Exprs(meta, target)
    body = [ast.fix_missing_locations(fixer.visit(rename(s, mapping))) for s in body]
    return body, list(info.args) + out_params, out_params


def _emit(stmts, info, meta, target, indent, lines, parallel_ok=True, origins=None):
    """Append the source lines of ``stmts`` to ``lines``; ``origins``, when given, gets the kernel's
    source line of each (for error messages that point at the user's line, not the generated one)."""
    pad = "    " * indent
    for s in stmts:
        def put(text, s=s):
            lines.append(text)
            if origins is not None:
                origins.extend([getattr(s, "lineno", None)] * (len(lines) - len(origins)))

        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and s.targets[0].id in info.decls:
            name = s.targets[0].id
            kind, call = info.decls[name]
            if kind == "output":
                continue
            dtype = compute_dtype(meta[name].dtype, target)
            if target == "GPU":
                raise info.error(s, "allocate() inside a GPU stage is not supported; declare temporaries at "
                                    "the top level of the kernel", NotImplementedError)
            put(f"{pad}{name} = np.zeros({ast.unparse(call.args[0])}, np.{dtype})")
        elif isinstance(s, ast.For):
            start, stop = loop_bounds(s)
            kind = loop_kind(s)
            step = loop_step(s)
            rng = "prange" if kind in ("parallel", "grid") and parallel_ok and target == "CPU" and step is None \
                else "range"
            tail = f", {ast.unparse(step)}" if step is not None else ""
            put(f"{pad}for {s.target.id} in {rng}({ast.unparse(start)}, {ast.unparse(stop)}{tail}):")
            _emit(s.body, info, meta, target, indent + 1, lines, parallel_ok, origins)
        elif isinstance(s, ast.If):
            put(f"{pad}if {ast.unparse(s.test)}:")
            _emit(s.body, info, meta, target, indent + 1, lines, parallel_ok, origins)
            if s.orelse:
                put(f"{pad}else:")
                _emit(s.orelse, info, meta, target, indent + 1, lines, parallel_ok, origins)
        elif isinstance(s, ast.Pass):
            put(f"{pad}pass")
        else:
            put(f"{pad}{ast.unparse(s)}")


def _cpu_header():
    """The generated module's imports, and the vecmath sources' hash: the module's text (its cache
    file's name) and so Numba's disk cache change when vecmath does, never loading a kernel built
    on an older vecmath."""
    from ..vecmath._impls import SOURCE_TAG
    return ("import math\nimport numpy as np\nfrom numba import prange\n"
            f"from mscustom.ops.custom import vecmath as _vm  # vecmath {SOURCE_TAG}\n\n\n")


def cpu_source(info, meta, fname, origins=None):
    """Source text of a module defining ``fname(*inputs, *outputs)`` for ``numba.njit``; and whether it uses prange.

    ``origins``, a list when given, receives the kernel's source line (or None) of each line of the
    returned text, in order: ``origins[k]`` is the user's line behind line ``k + 1`` of the module.
    """
    body, params, _ = _prepare(info, meta, "CPU")
    lines = [f"def {fname}({', '.join(params)}):"]
    mapped = [info.tree.lineno]
    _emit(body, info, meta, "CPU", 1, lines, origins=mapped)
    lines.append("    return None")
    mapped.append(info.return_line or None)
    text = "\n".join(lines)
    header = _cpu_header()
    if origins is not None:
        origins.extend([None] * header.count("\n") + mapped)
    return header + text + "\n", "prange(" in text


def gpu_stages(info, meta, fname):
    """Source of CUDA kernels, one per top-level statement, and how to launch each.

    Returns ``(source, stages, temps)``: ``stages`` lists ``(kernel_name,
    extent_source_or_None)``; a stage whose statement is a ``parallel``/``grid``
    loop runs one thread per iteration of that loop (and of a ``grid``'s next
    axes), the others one thread. Top-level scalars are recomputed in every
    stage that uses them; ``temps`` lists the top-level ``allocate`` tensors the
    host allocates.
    """
    body, params, _ = _prepare(info, meta, "GPU")
    temps = [s.targets[0].id for s in body if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
             and info.decls.get(s.targets[0].id, ("",))[0] == "temp"]
    all_params = params + temps
    scalars = [s for s in body if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
               and s.targets[0].id not in info.decls]
    chunks, stages = [], []
    for k, s in enumerate(body):
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and \
                (s.targets[0].id in info.decls or s in scalars):
            continue
        name = f"{fname}_stage{k}"
        pre = [p for p in scalars if p.lineno < s.lineno]
        lines = [f"def {name}({', '.join(all_params)}):"]
        lines += [f"    {ast.unparse(p)}" for p in pre]
        extent = None
        if isinstance(s, ast.For) and loop_kind(s) in ("parallel", "grid"):
            nest = [s]
            if loop_kind(s) == "grid":               # lowered grid axes: arg_0 (grid), arg_1, ... (serial)
                prefix = s.target.id.rsplit("_", 1)[0] + "_"
                while len(nest[-1].body) == 1 and isinstance(nest[-1].body[0], ast.For) and \
                        nest[-1].body[0].target.id.startswith(prefix) and loop_kind(nest[-1].body[0]) == "serial":
                    nest.append(nest[-1].body[0])
            sizes = [f"(({ast.unparse(loop_bounds(n)[1])}) - ({ast.unparse(loop_bounds(n)[0])}))" for n in nest]
            extent = " * ".join(sizes)
            lines.append("    _t = cuda.grid(1)")
            lines.append(f"    if _t >= {extent}:")
            lines.append("        return")
            for n, size in reversed(list(zip(nest, sizes))):
                lines.append(f"    {n.target.id} = ({ast.unparse(loop_bounds(n)[0])}) + _t % {size}")
                lines.append(f"    _t = _t // {size}")
            _emit(nest[-1].body, info, meta, "GPU", 1, lines, parallel_ok=False)
        else:
            _emit([s], info, meta, "GPU", 1, lines, parallel_ok=False)
        extent_src = None
        if extent is not None:
            extent_src = "\n".join([f"def {name}_extent({', '.join(all_params)}):"] +
                                   [f"    {ast.unparse(p)}" for p in pre] + [f"    return {extent}"])
            chunks.append(extent_src)
        chunks.append("\n".join(lines))
        stages.append((name, extent is not None))
    src = "import math\nimport numpy as np\nfrom numba import cuda\n\n\n" + "\n\n\n".join(chunks) + "\n"
    return src, stages, temps
