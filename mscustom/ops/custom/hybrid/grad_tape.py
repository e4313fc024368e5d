"""Reverse-mode gradients of hybrid kernels that the recomputing generator (``grad._Grad``) refuses,
by taping every value the forward pass overwrites.

``grad._Grad`` recomputes what a partial derivative needs, so it refuses kernels whose values cannot
be recomputed: a temporary updated from itself and read non-linearly (a row softmax's running
``max``/``sum``), a tensor element written more than once and read between the writes (a solve
that accumulates into ``x[i]``), reads of elements written later, carried scalars in loops whose
extent depends on an enclosing loop. ``TapeGrad`` takes the classic store-all route instead:

1. a counting pass runs the loop structure only (loop bounds and the scalars they are made of --
   shapes, constants, loop variables, never tensor data) and counts the values the forward pass
   will save, so the tape is allocated once (``if`` branches are counted both: an upper bound);
2. the forward pass runs the kernel's statements, and before every assignment -- a tensor element
   or a scalar -- pushes the value it overwrites; after every loop it pushes the loop's bounds,
   after every ``if`` which branch ran;
3. the reverse sweep walks the statements backwards, popping: an assignment first restores the
   overwritten value (so the state is exactly the one the statement's right-hand side read),
   then moves the adjoint of its target to the reads of the right-hand side; loops run backwards
   over their popped bounds, ``if`` takes the popped branch.

Memory is one float64 per executed assignment (what a tape-based autodiff stores); time is about
three forward passes. What stays refused: kernels writing an input in place, loops with a step,
tensors declared inside a loop, loop bounds that read tensor data.
"""

import ast
import itertools

from .grad import HybridGradError, _Grad, _names, _u
from .lower import loop_bounds, loop_step, lower

__all__ = ["TapeGrad"]

_FLOAT_CALLS = {"sqrt", "rsqrt", "exp", "log", "sin", "cos", "tanh", "erf", "atan", "expm1", "power", "atan2",
                "float16", "float32", "float64"}
_INT_CALLS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "ceil_div", "len"}


class TapeGrad(_Grad):
    """``source()``: the DSL text of the gradient kernel, by taping overwritten values."""

    def __init__(self, info, meta, op_name, scalar_args=()):
        super().__init__(info, meta, op_name, scalar_args)
        self.ids = itertools.count()
        self.float_scalars = set()
        self.structural = set()

    # ------------------------------------------------------------ what the scalars are
    def _assigns(self, stmts):
        for s in stmts:
            if isinstance(s, ast.Assign):
                yield s
            elif isinstance(s, ast.For):
                yield from self._assigns(s.body)
            elif isinstance(s, ast.If):
                yield from self._assigns(s.body)
                yield from self._assigns(s.orelse)

    def _is_float_expr(self, e):
        for n in ast.walk(e):
            if isinstance(n, ast.Constant) and isinstance(n.value, float):
                return True
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
                return True
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in self.tensors \
                    and self.is_float(n.value.id):
                return True
            if isinstance(n, ast.Name) and n.id in self.float_scalars:
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FLOAT_CALLS:
                return True
        return False

    def _classify(self, body):
        """Float scalars (anything computed from float data or float constants), and structural scalars
        (computed from shapes, constants and loop variables only: the counting pass may run them)."""
        assigns = [s for s in self._assigns(body) if isinstance(s.targets[0], ast.Name)
                   and s.targets[0].id not in self.info.decls]
        changed = True
        while changed:
            changed = False
            for s in assigns:
                n = s.targets[0].id
                if n not in self.float_scalars and self._is_float_expr(s.value):
                    self.float_scalars.add(n)
                    changed = True
        candidates = {s.targets[0].id for s in assigns}
        # a scalar assigned under an `if` takes a value the counting pass cannot know (it runs both
        # branches), so loop bounds made of it would size the tape wrongly: not structural
        in_branch = {s.targets[0].id for node in ast.walk(ast.Module(body=body, type_ignores=[]))
                     if isinstance(node, ast.If) for s in self._assigns(node.body + node.orelse)
                     if isinstance(s.targets[0], ast.Name)}
        changed = True
        self.structural = set(candidates) - in_branch
        while changed:
            changed = False
            for s in assigns:
                n = s.targets[0].id
                if n not in self.structural:
                    continue
                data = any(isinstance(x, ast.Subscript) and isinstance(x.value, ast.Name) and x.value.id in self.tensors
                           and not (isinstance(x.value, ast.Name) and _u(x).startswith(f"{x.value.id}.shape"))
                           for x in ast.walk(s.value))
                unknown = {m for m in _names(s.value) if self.scalar(m)} - self.structural
                if data or unknown:
                    self.structural.discard(n)
                    changed = True

    def _check_bounds(self, loop):
        start, stop = loop_bounds(loop)
        for e in (start, stop):
            for x in ast.walk(e):
                if isinstance(x, ast.Subscript) and isinstance(x.value, ast.Name) and x.value.id in self.tensors:
                    self.fail(loop, f"the loop's bounds read tensor data ({_u(e)!r})")
            bad = {m for m in _names(e) if self.scalar(m)} - self.structural
            if bad:
                self.fail(loop, f"the loop's bounds depend on {sorted(bad)}, computed from tensor data")

    # ------------------------------------------------------------ the three passes
    def count_lines(self, stmts, pad):
        """Statements that add to ``_n`` what the forward pass of ``stmts`` pushes (an upper bound)."""
        out = []
        pushes = 0
        for s in stmts:
            if isinstance(s, ast.For):
                if loop_step(s) is not None:
                    self.fail(s, "loops with a step cannot be reversed")
                self._check_bounds(s)
                start, stop = loop_bounds(s)
                inner = self.count_lines(s.body, pad + "    ")
                pushes += 2
                if inner:
                    out.append(f"{pad}for {s.target.id} in range({_u(start)}, {_u(stop)}):")
                    out += inner
            elif isinstance(s, ast.If):
                pushes += 1
                out += self.count_lines(s.body, pad) + self.count_lines(s.orelse, pad)
            elif isinstance(s, ast.Assign):
                t = s.targets[0]
                if isinstance(t, ast.Name) and t.id in self.info.decls:
                    continue
                pushes += 1
                if isinstance(t, ast.Name) and t.id in self.structural:
                    out.append(f"{pad}{t.id} = {_u(s.value)}")
        if pushes:
            out.append(f"{pad}_n = _n + {pushes}")
        return out

    def forward_tape_lines(self, stmts, pad):
        out = []
        for s in stmts:
            if isinstance(s, ast.For):
                k = next(self.ids)
                s._tape_id = k
                start, stop = loop_bounds(s)
                out.append(f"{pad}_lo{k} = {_u(start)}")
                out.append(f"{pad}_hi{k} = {_u(stop)}")
                out.append(f"{pad}for {s.target.id} in range(_lo{k}, _hi{k}):")
                body = self.forward_tape_lines(s.body, pad + "    ")
                out += body or [f"{pad}    pass"]
                out += [f"{pad}_tape[_p] = _lo{k}", f"{pad}_p = _p + 1", f"{pad}_tape[_p] = _hi{k}", f"{pad}_p = _p + 1"]
            elif isinstance(s, ast.If):
                k = next(self.ids)
                s._tape_id = k
                out.append(f"{pad}_c{k} = 0")
                out.append(f"{pad}if {_u(s.test)}:")
                out.append(f"{pad}    _c{k} = 1")
                out += self.forward_tape_lines(s.body, pad + "    ")
                if s.orelse:
                    out.append(f"{pad}else:")
                    out += self.forward_tape_lines(s.orelse, pad + "    ")
                out += [f"{pad}_tape[_p] = _c{k}", f"{pad}_p = _p + 1"]
            elif isinstance(s, ast.Assign):
                t = s.targets[0]
                if isinstance(t, ast.Name) and t.id in self.info.decls:
                    call = s.value
                    out.append(f"{pad}{t.id} = allocate({_u(call.args[0])}, {_u(call.args[1])})")
                    continue
                out += [f"{pad}_tape[_p] = {_u(t)}", f"{pad}_p = _p + 1", f"{pad}{_u(t)} = {_u(s.value)}"]
            elif isinstance(s, ast.Pass):
                out.append(f"{pad}pass")
        return out

    def _restore(self, t):
        """The line putting back the value an assignment to ``t`` overwrote (popped from the tape)."""
        if isinstance(t, ast.Subscript):
            dtype = self.meta[t.value.id].dtype if t.value.id in self.meta else None
            value = "_tape[_p]" if dtype is None or self.is_float(t.value.id) else f"{dtype}(_tape[_p])"
            return f"{_u(t)} = {value}"
        value = "_tape[_p]" if t.id in self.float_scalars else "int64(_tape[_p])"
        return f"{t.id} = {value}"

    def reverse_lines(self, stmts, pad):
        out = []
        for s in reversed(stmts):
            if isinstance(s, ast.For):
                k = s._tape_id
                out += [f"{pad}_p = _p - 1", f"{pad}_hi{k} = int64(_tape[_p])",
                        f"{pad}_p = _p - 1", f"{pad}_lo{k} = int64(_tape[_p])"]
                body = self.reverse_lines(s.body, pad + "    ")
                if body:
                    out.append(f"{pad}for {s.target.id} in range(_hi{k} - 1, _lo{k} - 1, -1):")
                    out += body
            elif isinstance(s, ast.If):
                k = s._tape_id
                out += [f"{pad}_p = _p - 1", f"{pad}_c{k} = int64(_tape[_p])"]
                b1 = self.reverse_lines(s.body, pad + "    ")
                b2 = self.reverse_lines(s.orelse, pad + "    ")
                if b1 or b2:
                    out.append(f"{pad}if _c{k} == 1:")
                    out += b1 or [f"{pad}    pass"]
                    if b2:
                        out.append(f"{pad}else:")
                        out += b2
            elif isinstance(s, ast.Assign):
                t = s.targets[0]
                if isinstance(t, ast.Name) and t.id in self.info.decls:
                    continue
                out += [f"{pad}_p = _p - 1", pad + self._restore(t)]
                differentiable = (self.is_float(t.value.id) if isinstance(t, ast.Subscript)
                                  else t.id in self.float_scalars)
                if not differentiable:
                    continue
                target = f"{self.adj(t.value.id)}[{_u(t.slice)}]" if isinstance(t, ast.Subscript) else self.adj(t.id)
                tmp = f"_t{next(self.counter)}"
                out += [f"{pad}{tmp} = {target}", f"{pad}{target} = 0.0"]
                reads = []
                self.walk(s.value, tmp, reads)
                for leaf, partial in reads:
                    if isinstance(leaf, ast.Subscript):
                        dst = f"{self.adj(leaf.value.id)}[{_u(leaf.slice)}]"
                    elif leaf.id in self.float_scalars:
                        dst = self.adj(leaf.id)
                    else:
                        continue
                    out.append(f"{pad}{dst} = {dst} + {partial}")
        return out

    # ------------------------------------------------------------ the whole kernel
    def source(self):
        info = self.info
        body = lower(info, self.meta)
        self._homes(body)
        inplace = [n for n in info.returns if n in info.args]
        if inplace:
            self.fail(info.tree, f"it writes its input(s) {inplace} in place")
        for n, (kind, call) in info.decls.items():
            top = any(isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and s.targets[0].id == n
                      for s in body)
            if not top and self.is_float(n):
                self.fail(call, f"the tensor '{n}' is declared inside a loop; declare it at the top level")
        self._classify(body)
        outs = list(info.returns)
        ys = [f"_y_{n}" for n in outs]
        dys = [f"_dy_{n}" for n in outs]
        lines = [f"def {info.name}_grad({', '.join(list(info.args) + ys + dys)}):"]
        pad = "    "
        grads = [a for a in info.args if a not in self.scalar_args]
        for a in grads:
            lines.append(f"{pad}_dx_{a} = output_tensor({a}.shape, {a}.dtype)")
        scalars = sorted({s.targets[0].id for s in self._assigns(body) if isinstance(s.targets[0], ast.Name)
                          and s.targets[0].id not in info.decls})
        for n in scalars:                 # defined before their first push, with their type
            lines.append(f"{pad}{n} = {'0.0' if n in self.float_scalars else '0'}")
            if n in self.float_scalars:
                lines.append(f"{pad}{self.adj(n)} = 0.0")
        lines.append(f"{pad}_n = 0")
        lines += self.count_lines(body, pad)
        lines.append(f"{pad}_tape = allocate((_n,), 'float64')")
        lines.append(f"{pad}_p = 0")
        forward = self.forward_tape_lines(body, pad)
        for k in range(next(self.ids)):   # loop bounds and branch flags live across both sweeps: top-level names
            lines += [f"{pad}_lo{k} = 0", f"{pad}_hi{k} = 0", f"{pad}_c{k} = 0"]
        lines += [line.replace("output_tensor(", "allocate(") for line in forward]
        for n, (kind, call) in info.decls.items():
            if self.is_float(n):
                lines.append(f"{pad}_d_{n} = allocate({n}.shape, {n}.dtype)")
        for n, dy in zip(outs, dys):
            if self.is_float(n):
                lines.append(f"{pad}for _g in grid({n}.shape):")
                lines.append(f"{pad}    _d_{n}[_g] = {dy}[_g]")
        lines += self.reverse_lines(body, pad)
        lines.append(f"{pad}return {', '.join(f'_dx_{a}' for a in grads)}")
        return "\n".join(lines) + "\n"


def tape_gradient_source(info, meta, op_name, scalar_args, first_error):
    """The taped gradient's source, or ``first_error`` (the recomputing generator's refusal, which
    names the construct) re-raised when taping cannot serve either."""
    try:
        return TapeGrad(info, meta, op_name, scalar_args).source()
    except HybridGradError:
        raise first_error from None
