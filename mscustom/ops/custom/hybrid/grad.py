"""Reverse-mode gradients of hybrid kernels, emitted as another hybrid kernel.

``_Grad(info, meta, op_name, scalars).source()`` writes, for one input signature, the DSL text
of ``<name>_grad(*inputs, *outputs, *output_grads)`` returning one gradient
per input. Its body is:

1. the forward loop nest again (outputs become ``allocate`` buffers), so the
   final values of outputs and temporaries are at hand;
2. one adjoint buffer per float output/temporary, the output gradients copied
   into those of the outputs;
3. the reverse sweep: statements in reverse order, loops counting down; a store
   ``T[i] = e`` becomes ``t = dT[i]; dT[i] = 0`` then ``dR[j] += t * de/dR[j]``
   for every element or scalar ``e`` reads (so accumulations such as
   ``c[i] = c[i] + ...`` and reads of a temporary are handled).

Values a partial derivative needs (a scalar, a temporary written in the loop
body, an index) are recomputed in the reverse sweep from the statements that
precede the read in its block (a backward slice), or taken from the forward
pass when nothing writes them afterwards. A tensor written once per element
and read only at elements already final (``c[i - 1]``, ``x[j]`` for ``j``
counting up to ``i``: recurrences, triangular solves) is read from the forward
pass wherever it is needed (``_write_once``). A scalar carried across the
iterations of a loop and read non-linearly is kept in a tape (``_tapeable``):
filled by the forward pass for a top-level loop, by running a nested loop of
scalar assignments forward again for the others. What cannot be
differentiated this way is refused with the kernel's file and line: a store
whose index reads tensor data, a value carried across loop iterations that
cannot be taped or in a tensor that is not write-once, a temporary updated
from itself and read non-linearly, loops with a step.

What this generator refuses, ``grad_tape`` may still serve; ``grad_bprop``
chooses between them and turns the result into a Custom op's ``bprop``.
"""

import ast
import itertools
import math

import numpy as np

from .lower import loop_bounds, loop_step, lower
from .runtime import RUNTIME

__all__ = ["HybridGradError"]

_ZERO_GRAD = {"floor", "ceil", "trunc", "round", "sign", "isnan", "isinf", "isfinite", "ceil_div", "len",
              "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
_FLOAT_CASTS = {"float16", "float32", "float64"}


_TAPE_MARK = "#tape:"          # where a reverse loop restores its taped scalars (replaced in ``source``)


class HybridGradError(RuntimeError):
    """A hybrid kernel cannot be differentiated automatically; the message says where and suggests bprop=."""


def _u(node):
    return ast.unparse(node)


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


class _Grad:
    def __init__(self, info, meta, op_name, scalar_args=()):
        self.info, self.meta, self.op_name = info, meta, op_name
        self.counter = itertools.count()
        self.scalar_args = set(scalar_args)     # parameters given scalars: constants here, no gradient
        self.inputs = set(info.args) - self.scalar_args
        self.tensors = self.inputs | set(info.decls)
        self.loop_vars = set()
        self.scalar_home = {}            # scalar -> id of the block (list) that declares it
        self.top_scalars = set()
        self.final = set()               # write-once tensors read only where their element is final
        self.tapes = {}                  # id(top-level loop) -> (loop, {scalar: tape buffer})

    def fail(self, node, message):
        raise HybridGradError(
            f"op '{self.op_name}': cannot derive the gradient of hybrid kernel '{self.info.name}' "
            f"({self.info.where(node)}): {message}; pass bprop= to ops.Custom to give it by hand")

    def is_float(self, name):
        d = self.meta[name].dtype if name in self.meta else None
        return d is not None and np.dtype(d).kind == "f"

    # ------------------------------------------------------------ names
    def adj(self, name):
        """The adjoint of a tensor or scalar."""
        if name in self.inputs:
            return f"_dx_{name}"
        return f"_d_{name}"

    def rn(self, node):
        """Reverse-sweep spelling of an expression: block-local scalars get a '_b' suffix."""
        node = ast.parse(_u(node), mode="eval").body if not isinstance(node, str) else ast.parse(node, mode="eval").body
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in self.scalar_home and n.id not in self.top_scalars:
                n.id = n.id + "_b"
        return _u(node)

    def scalar(self, name):
        return name not in self.tensors and name not in self.loop_vars and name not in RUNTIME and \
            name not in self.scalar_args

    # ------------------------------------------------------------ derivatives
    def walk(self, e, seed, out):
        """Append ``(leaf, partial)`` for every differentiable read of ``e``; ``seed`` is d(result)."""
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in self.tensors:
            if self.is_float(e.value.id):
                out.append((e, seed))
        elif isinstance(e, ast.Name):
            if self.scalar(e.id):
                out.append((e, seed))
        elif isinstance(e, ast.BinOp):
            l, r = _u(e.left), _u(e.right)
            op = type(e.op)
            if op is ast.Add:
                self.walk(e.left, seed, out)
                self.walk(e.right, seed, out)
            elif op is ast.Sub:
                self.walk(e.left, seed, out)
                self.walk(e.right, f"(-({seed}))", out)
            elif op is ast.Mult:
                self.walk(e.left, f"({seed}) * ({r})", out)
                self.walk(e.right, f"({seed}) * ({l})", out)
            elif op is ast.Div:
                self.walk(e.left, f"({seed}) / ({r})", out)
                self.walk(e.right, f"(-({seed}) * ({l}) / (({r}) * ({r})))", out)
            elif op is ast.Pow:
                self._pow(e.left, e.right, seed, out)
            elif op in (ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift):
                pass                                           # piecewise constant / integer: no gradient
            else:
                self.fail(e, f"no derivative for the operator in {_u(e)!r}")
        elif isinstance(e, ast.UnaryOp):
            if isinstance(e.op, ast.USub):
                self.walk(e.operand, f"(-({seed}))", out)
            elif isinstance(e.op, ast.UAdd):
                self.walk(e.operand, seed, out)
        elif isinstance(e, ast.IfExp):
            c = _u(e.test)
            self.walk(e.body, f"(({seed}) if ({c}) else 0.0)", out)
            self.walk(e.orelse, f"(0.0 if ({c}) else ({seed}))", out)
        elif isinstance(e, ast.Call):
            self._call(e, seed, out)
        # constants, comparisons, x.shape[...]: no gradient

    def _pow(self, x, y, seed, out):
        xs, ys = _u(x), _u(y)
        if isinstance(y, ast.Constant):
            self.walk(x, f"({seed}) * ({ys}) * power({xs}, {ys} - 1)", out)
        else:
            self.walk(x, f"({seed}) * ({ys}) * power({xs}, ({ys}) - 1)", out)
            self.walk(y, f"({seed}) * log({xs}) * power({xs}, {ys})", out)

    def _call(self, e, seed, out):
        f, a = e.func.id, e.args
        x = _u(a[0]) if a else ""
        unary = {"sqrt": f"({seed}) * 0.5 / sqrt({x})",
                 "rsqrt": f"(-0.5) * ({seed}) * rsqrt({x}) / ({x})",
                 "exp": f"({seed}) * exp({x})", "log": f"({seed}) / ({x})",
                 "sin": f"({seed}) * cos({x})", "cos": f"(-({seed})) * sin({x})",
                 "tanh": f"({seed}) * (1.0 - tanh({x}) * tanh({x}))",
                 "abs": f"({seed}) * sign({x})", "expm1": f"({seed}) * exp({x})",
                 "atan": f"({seed}) / (1.0 + ({x}) * ({x}))",
                 "erf": f"({seed}) * {2.0 / math.sqrt(math.pi)!r} * exp(-({x}) * ({x}))"}
        if f in unary:
            self.walk(a[0], unary[f], out)
        elif f in _FLOAT_CASTS:
            self.walk(a[0], seed, out)
        elif f == "power":
            self._pow(a[0], a[1], seed, out)
        elif f in ("max", "min") and len(a) == 2:
            y = _u(a[1])
            cmp = ">=" if f == "max" else "<="
            self.walk(a[0], f"(({seed}) if ({x}) {cmp} ({y}) else 0.0)", out)
            self.walk(a[1], f"(0.0 if ({x}) {cmp} ({y}) else ({seed}))", out)
        elif f == "atan2":
            y = _u(a[1])
            self.walk(a[0], f"({seed}) * ({y}) / (({x}) * ({x}) + ({y}) * ({y}))", out)
            self.walk(a[1], f"(-({seed})) * ({x}) / (({x}) * ({x}) + ({y}) * ({y}))", out)
        elif f in _ZERO_GRAD:
            pass
        else:
            self.fail(e, f"no derivative for {f}() with {len(a)} argument(s)")

    # ------------------------------------------------------------ read/write sets
    def writes(self, s):
        w = set()
        for n in ast.walk(s) if not isinstance(s, list) else itertools.chain.from_iterable(ast.walk(x) for x in s):
            if isinstance(n, ast.Assign):
                t = n.targets[0]
                w.add(t.value.id if isinstance(t, ast.Subscript) else t.id)
        return w

    def self_writes(self, s):
        """Names some store or assignment in ``s`` both writes and reads."""
        found = set()
        for n in ast.walk(s):
            if isinstance(n, ast.Assign):
                t = n.targets[0]
                name = t.value.id if isinstance(t, ast.Subscript) else t.id
                if name in _names(n.value):
                    found.add(name)
        return found

    def _tapeable(self, loop, n, local=False):
        """A scalar carried across the iterations of a unit-step loop whose bounds read no scalar, tensor data or
        loop variable: its value at the start of each iteration can be kept in a tape. A top-level loop's tape
        is filled by the forward pass; a nested loop (``local``), made of scalar assignments only, runs forward
        again in the reverse sweep of its enclosing block to fill it."""
        if not isinstance(loop, ast.For) or loop_step(loop) is not None or not self.scalar(n):
            return False
        start, stop = loop_bounds(loop)
        bounds = _names(start) | _names(stop)
        if self.dependent(bounds) or bounds & self.loop_vars:
            return False
        return not local or all(isinstance(b, ast.Assign) and isinstance(b.targets[0], ast.Name) for b in loop.body)

    def dependent(self, names):
        """Of ``names``, those whose values the reverse sweep must make sure of (not inputs, loop vars, nor
        tensors whose final forward values are the values every read saw)."""
        return {n for n in names if (n in self.tensors and n not in self.inputs and n not in self.final)
                or self.scalar(n)}

    # ------------------------------------------------------------ reverse sweep
    def rev_block(self, stmts, top):
        """``(lines, needs)``: reverse-sweep lines of a block and values it needs from enclosing blocks."""
        declared = [s.targets[0].id for s in stmts if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
                    and self.scalar_home.get(s.targets[0].id) == id(stmts)]
        lines = [f"{self.adj(n)} = 0.0" for n in dict.fromkeys(declared)]
        unresolved = {}
        for k in reversed(range(len(stmts))):
            s = stmts[k]
            body, needs = self.rev_stmt(s)
            if not body:
                continue
            prefix = stmts[:k]
            slice_lines, rest = self.slice(prefix, needs, s, stmts, top)
            lines += slice_lines + body
            for n, node in rest.items():
                unresolved.setdefault(n, node)
        return lines, unresolved

    def slice(self, prefix, needs, s, block, top):
        """Forward statements of ``prefix`` that recompute ``needs``; and the needs left for the enclosing block."""
        needs = dict(needs)
        replay = None
        for n, node in list(needs.items()):
            if n in self.writes(s) and not (isinstance(s, ast.Assign)):
                if self._tapeable(s, n, local=not top):
                    self.tapes.setdefault(id(s), (s, {}, not top))[1][n] = f"_tape{next(self.counter)}_{n}"
                    if top:
                        del needs[n]        # each reverse iteration restores it from the forward pass's tape
                    else:
                        replay = s          # the loop runs forward again here, filling the tape
                    continue
                self.fail(node, f"'{n}' is read non-linearly (or as an index) inside a loop that also writes it "
                                f"(a value carried across iterations)")
        if top:
            # the forward pass's final values serve, as long as nothing writes them later
            for n, node in needs.items():
                later = self.writes(block[block.index(s):]) if s in block else set()
                if n in later and not (isinstance(s, ast.Assign) and n in self.writes(s)
                                       and n not in self.writes(block[block.index(s) + 1:])):
                    self.fail(node, f"'{n}' is read non-linearly (or as an index) but written again afterwards")
            return [], {}
        wanted = set(needs)
        if replay is not None:
            wanted |= self.dependent(_names(replay))
        chosen = []
        for p in reversed(prefix):
            w = self.writes(p)
            if w & wanted:
                chosen.append(p)
                wanted |= self.dependent(_names(p)) - w
                for n in self.self_writes(p) & w:
                    if n in self.tensors:
                        self.fail(p, f"'{n}' is updated from itself and its value is needed by the gradient")
                    if self.scalar_home.get(n) != id(block):
                        self.fail(p, f"the scalar '{n}' carries a value across loop iterations and is read "
                                     f"non-linearly")
        chosen.reverse()
        written = self.writes(chosen)
        rest = {n: needs.get(n, s) for n in wanted - written}
        lines = []
        for p in chosen:
            lines += self.forward_lines(p, rename=True)
        if replay is not None:
            lines += self.forward_lines(replay, rename=True, tape=True)
        return lines, rest

    def forward_lines(self, s, rename=False, indent=0, tape=False):
        pad = "    " * indent
        r = self.rn if rename else _u
        if isinstance(s, ast.For):
            start, stop = loop_bounds(s)
            step = loop_step(s)
            tail = f", {r(step)}" if step is not None else ""
            out = [f"{pad}for {s.target.id} in range({r(start)}, {r(stop)}{tail}):"]
            if id(s) in self.tapes and (tape or not rename and not self.tapes[id(s)][2]):
                for n, buf in self.tapes[id(s)][1].items():
                    out.append(f"{pad}    {buf}[{s.target.id} - ({_u(start)})] = {self.rn(n) if rename else n}")
            for b in s.body:
                out += self.forward_lines(b, rename, indent + 1)
            return out
        if isinstance(s, ast.If):
            out = [f"{pad}if {r(s.test)}:"]
            for b in s.body:
                out += self.forward_lines(b, rename, indent + 1)
            if s.orelse:
                out.append(f"{pad}else:")
                for b in s.orelse:
                    out += self.forward_lines(b, rename, indent + 1)
            return out
        if isinstance(s, ast.Pass):
            return [f"{pad}pass"]
        t = s.targets[0]
        if isinstance(t, ast.Name) and t.id in self.info.decls:
            if rename:
                self.fail(s, "a tensor declared inside a loop is needed again by the gradient")
            call = s.value
            return [f"{pad}{t.id} = allocate({_u(call.args[0])}, {_u(call.args[1])})"]
        return [f"{pad}{r(t)} = {r(s.value)}"]

    def rev_stmt(self, s):
        """``(lines, needs)`` of one statement's adjoint."""
        if isinstance(s, ast.Pass):
            return [], {}
        if isinstance(s, ast.For):
            if loop_step(s) is not None:
                self.fail(s, "loops with a step cannot be reversed")
            body, needs = self.rev_block(s.body, False)
            if not body:
                return [], {}
            start, stop = loop_bounds(s)
            for n in self.dependent(_names(start) | _names(stop)):
                needs.setdefault(n, s)
            head = f"for {s.target.id} in range(({self.rn(stop)}) - 1, ({self.rn(start)}) - 1, -1):"
            return [head, f"    {_TAPE_MARK}{id(s)}"] + ["    " + b for b in body], needs
        if isinstance(s, ast.If):
            b1, n1 = self.rev_block(s.body, False)
            b2, n2 = self.rev_block(s.orelse, False)
            if not b1 and not b2:
                return [], {}
            needs = {**n1, **n2}
            for n in self.dependent(_names(s.test)):
                needs.setdefault(n, s)
            lines = [f"if {self.rn(s.test)}:"] + ["    " + b for b in (b1 or ["pass"])]
            if b2:
                lines += ["else:"] + ["    " + b for b in b2]
            return lines, needs
        t = s.targets[0]
        if isinstance(t, ast.Name) and t.id in self.info.decls:
            return [], {}
        if isinstance(t, ast.Subscript):
            name, idx = t.value.id, t.slice
            if any(n in self.tensors for n in _names(idx)):
                self.fail(s, f"the store into '{name}' has an index that depends on tensor data "
                             f"({_u(idx)!r})")
            if not self.is_float(name):
                return [], {}
            target = f"{self.adj(name)}[{self.rn(idx)}]"
            needs = {n: s for n in self.dependent(_names(idx))}
        else:
            name = t.id
            target = self.adj(name)
            needs = {}
        tmp = f"_t{next(self.counter)}"
        lines = [f"{tmp} = {target}", f"{target} = 0.0"]
        reads = []
        self.walk(s.value, tmp, reads)
        for leaf, partial in reads:
            pnode = ast.parse(partial, mode="eval").body
            for n in self.dependent(_names(pnode)) - {tmp}:
                needs.setdefault(n, s)
            if isinstance(leaf, ast.Subscript):
                rname = leaf.value.id
                for n in self.dependent(_names(leaf.slice)):
                    needs.setdefault(n, s)
                dst = f"{self.adj(rname)}[{self.rn(leaf.slice)}]"
            else:
                dst = self.adj(leaf.id)
            lines.append(f"{dst} = {dst} + {self.rn(partial)}")
        return lines, needs

    # ------------------------------------------------------------ the whole kernel
    def source(self):
        info, meta = self.info, self.meta
        body = lower(info, meta)
        for s in body:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and s.targets[0].id not in info.decls:
                self.top_scalars.add(s.targets[0].id)
        self._homes(body)
        self.final = _write_once(body, {n for n in info.decls if self.is_float(n)})
        inplace = [n for n in info.returns if n in info.args]
        if inplace:
            self.fail(info.tree, f"it writes its input(s) {inplace} in place")
        for n, (kind, call) in info.decls.items():
            if not any(isinstance(s, ast.Assign) and s.targets[0].id == n for s in body
                       if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)):
                if self.is_float(n):
                    self.fail(call, f"the tensor '{n}' is declared inside a loop; declare it at the top level")
        outs = list(info.returns)
        ys = [f"_y_{n}" for n in outs]
        dys = [f"_dy_{n}" for n in outs]
        lines = [f"def {info.name}_grad({', '.join(list(info.args) + ys + dys)}):"]
        add = lambda text: lines.append("    " + text)      # noqa: E731
        grads = [a for a in info.args if a not in self.scalar_args]
        for a in grads:
            add(f"_dx_{a} = output_tensor({a}.shape, {a}.dtype)")
        rev, needs = self.rev_block(body, True)            # first: it decides which scalars are taped
        for loop, tapes, _ in self.tapes.values():
            start, stop = loop_bounds(loop)
            for tape in tapes.values():
                add(f"{tape} = allocate((({_u(stop)}) - ({_u(start)}),), 'float64')")
        for s in body:
            for line in self.forward_lines(s):
                add(line.replace("output_tensor(", "allocate("))
        for n, (kind, call) in info.decls.items():
            if self.is_float(n):
                add(f"_d_{n} = allocate({n}.shape, {n}.dtype)")
        for n, dy in zip(outs, dys):
            if self.is_float(n):
                add(f"for _g in grid({n}.shape):")
                add(f"    _d_{n}[_g] = {dy}[_g]")
        for line in rev:
            stripped = line.lstrip()
            if stripped.startswith(_TAPE_MARK):
                entry = self.tapes.get(int(stripped[len(_TAPE_MARK):]))
                if entry is not None:
                    pad = line[:len(line) - len(stripped)]
                    loop, tapes, _ = entry
                    start = _u(loop_bounds(loop)[0])
                    for n, tape in tapes.items():
                        add(f"{pad}{self.rn(n)} = {tape}[{loop.target.id} - ({start})]")
                continue
            add(line)
        add(f"return {', '.join(f'_dx_{a}' for a in grads)}")
        return "\n".join(lines) + "\n"

    def _homes(self, stmts):
        for s in stmts:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
                n = s.targets[0].id
                if n not in self.info.decls and n not in self.scalar_home:
                    self.scalar_home[n] = id(stmts)
            elif isinstance(s, ast.For):
                self.loop_vars.add(s.target.id)
                self._homes(s.body)
            elif isinstance(s, ast.If):
                self._homes(s.body)
                self._homes(s.orelse)


# ---------------------------------------------------------------- loop-carried tensors
def _index(sub):
    sl = sub.slice
    return list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]


def _visit(stmts, loops, top, stores, reads):
    """Record every store and read of a tensor element with its enclosing loops and top-level position."""
    for k, st in enumerate(stmts):
        pos = k if top is None else top
        if isinstance(st, ast.For):
            for n in ast.walk(st.iter):
                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                    reads.append((n, loops, pos))
            _visit(st.body, loops + [st], pos, stores, reads)
        elif isinstance(st, ast.If):
            for n in ast.walk(st.test):
                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                    reads.append((n, loops, pos))
            _visit(st.body, loops, pos, stores, reads)
            _visit(st.orelse, loops, pos, stores, reads)
        elif isinstance(st, ast.Assign):
            t = st.targets[0]
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                stores.append((t, loops, pos))
                for i in _index(t):
                    for n in ast.walk(i):
                        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                            reads.append((n, loops, pos))
            for n in ast.walk(st.value):
                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                    reads.append((n, loops, pos))


def _const_int(node):
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _earlier(expr, var, loops):
    """Whether index ``expr`` names an element before ``var``'s current one: ``var - c`` (c > 0), or a loop
    variable (of ``loops``) counting from a non-negative start up to ``var`` or ``var - c``."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and isinstance(expr.left, ast.Name) \
            and expr.left.id == var and (_const_int(expr.right) or 0) > 0:
        return True
    if isinstance(expr, ast.Name):
        loop = next((lp for lp in loops if lp.target.id == expr.id), None)
        if loop is None or loop_step(loop) is not None:
            return False
        start, stop = loop_bounds(loop)
        return (_const_int(start) is not None and _const_int(start) >= 0
                and (isinstance(stop, ast.Name) and stop.id == var or _earlier(stop, var, []) or
                     _ast_eq(stop, ast.Name(var))))
    return False


def _ast_eq(a, b):
    return ast.dump(a) == ast.dump(b)


def _write_once(body, candidates):
    """Tensors of ``candidates`` whose every element is written at most once and read only after that write
    (or never written), so the forward pass's final values are the values each read saw.

    Stores: at the top level with constant indices, and at most one store inside loops whose index is
    exactly the enclosing loops' variables (unit steps), after the constant stores and below the first
    loop's constant start. Reads: in a later top-level statement, or inside that loop nest at an element
    before the current one in iteration order (``i - 1``; ``j`` counting up to ``i``).
    """
    stores, reads = [], []
    _visit(body, [], None, stores, reads)
    safe = set()
    for name in candidates:
        mine = [(t, lp, pos) for t, lp, pos in stores if t.value.id == name]
        looped = [(t, lp, pos) for t, lp, pos in mine if lp]
        fixed = [(t, lp, pos) for t, lp, pos in mine if not lp]
        if len(looped) > 1 or not mine:
            continue
        consts = [[_const_int(i) for i in _index(t)] for t, _, _ in fixed]
        if any(c is None for cs in consts for c in cs) or len({tuple(c) for c in consts}) != len(consts):
            continue
        ok = True
        nest = None
        if looped:
            t, nest, spos = looped[0]
            idx = _index(t)
            ok = len(idx) == len(nest) and all(isinstance(i, ast.Name) and i.id == lp.target.id and
                                               loop_step(lp) is None for i, lp in zip(idx, nest))
            start = _const_int(loop_bounds(nest[0])[0]) if ok else None
            ok = ok and all(pos < spos for _, _, pos in fixed) and \
                all(start is not None and c[0] < start for c in consts)
        last = max(pos for _, _, pos in mine)
        for r, rloops, rpos in reads:
            if not ok:
                break
            if not (isinstance(r.value, ast.Name) and r.value.id == name):
                continue
            if rpos > last:
                continue
            if nest is None or nest[0] not in rloops:
                ok = False
                break
            ridx = _index(r)
            if len(ridx) != len(nest):
                ok = False
                break
            verdict = False
            for k, lp in enumerate(nest):
                var = lp.target.id
                if lp in rloops and isinstance(ridx[k], ast.Name) and ridx[k].id == var:
                    continue
                verdict = lp in rloops and _earlier(ridx[k], var, rloops)
                break
            ok = verdict
        if ok:
            safe.add(name)
    return safe
