"""Lower a checked hybrid kernel into a small loop-nest form shared by code generation and autodiff.

For one input signature (the ranks of ``grid`` shapes must be known):
``grid(shape)`` loops become nested loops with one variable per axis (the
index tuple and its ``arg[k]`` uses are replaced by those variables);
``with attr/block_realize`` scopes are flattened; ``x += e`` becomes
``x = x + e``; loops are normalised to ``range(start, stop)`` and keep their
DSL kind in ``loop.kind``; the docstring and the final return are dropped.

Example::

    body = lower(info, meta)      # list of ast statements
"""

import ast
import copy

__all__ = ["lower", "loop_kind", "loop_bounds", "loop_step"]


def loop_kind(node):
    return getattr(node, "kind", "range")


def loop_bounds(node):
    """``(start, stop)`` expressions of a lowered loop."""
    args = node.iter.args
    return args[0], args[1]


def loop_step(node):
    """The step expression of a lowered loop, or None for 1."""
    args = node.iter.args
    return args[2] if len(args) > 2 else None


class _GridIndex(ast.NodeTransformer):
    def __init__(self, name, axes):
        self.name, self.axes = name, axes

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.name:
            sl = node.slice
            if isinstance(sl, ast.Constant) and isinstance(sl.value, int) and -len(self.axes) <= sl.value < len(self.axes):
                return ast.copy_location(ast.Name(self.axes[sl.value], ast.Load()), node)
            raise ValueError(f"grid index '{self.name}' must be indexed by a constant axis number "
                             f"below {len(self.axes)}, got {ast.unparse(sl)}")
        return node

    def visit_Name(self, node):
        if node.id == self.name:
            return ast.copy_location(ast.Tuple([ast.Name(a, ast.Load()) for a in self.axes], ast.Load()), node)
        return node


def _loop(var, start, stop, body, kind, like, step=None):
    it = ast.Call(ast.Name("range", ast.Load()), [start, stop] + ([step] if step is not None else []), [])
    node = ast.For(ast.Name(var, ast.Store()), it, body, [])
    ast.copy_location(node, like)
    ast.fix_missing_locations(node)
    node.kind = kind
    return node


def lower(info, meta):
    """The kernel body, lowered (a fresh copy; ``info.tree`` is not changed)."""
    from .shapes import evaluate
    tree = copy.deepcopy(info.tree)

    def stmts(nodes):
        out = []
        for s in nodes:
            if isinstance(s, ast.Expr) or isinstance(s, ast.Return) or isinstance(s, ast.Pass):
                continue
            if isinstance(s, ast.With):
                out.extend(stmts(s.body))
            elif isinstance(s, ast.AugAssign):
                value = ast.BinOp(_as_load(s.target), s.op, s.value)
                out.append(ast.fix_missing_locations(ast.copy_location(ast.Assign([s.target], value), s)))
            elif isinstance(s, ast.If):
                s.body, s.orelse = stmts(s.body), stmts(s.orelse)
                if not s.body:
                    s.body = [ast.Pass()]
                out.append(s)
            elif isinstance(s, ast.For):
                out.append(loop(s))
            else:
                out.append(s)
        return out

    def loop(s):
        kind = s.iter.func.id
        args = s.iter.args
        var = s.target.id
        if kind == "grid":
            extents = evaluate(info, args[0], meta, what="grid shape")
            rank = len(tuple(extents))
            if rank == 0:
                raise info.error(s, "grid() needs a shape with at least one axis")
            axes = [f"{var}_{k}" for k in range(rank)]
            body = stmts(s.body) or [ast.Pass()]
            fixer = _GridIndex(var, axes)
            try:
                body = [fixer.visit(b) for b in body]
            except ValueError as exc:
                raise info.error(s, str(exc)) from None
            for k in reversed(range(rank)):
                stop = ast.Subscript(copy.deepcopy(args[0]), ast.Constant(k), ast.Load())
                body = [_loop(axes[k], ast.Constant(0), stop, body, "grid" if k == 0 else "serial", s)]
            return body[0]
        start, stop = (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])
        step = args[2] if len(args) == 3 else None
        return _loop(var, start, stop, stmts(s.body) or [ast.Pass()], kind, s, step)

    return stmts(tree.body)


def _as_load(target):
    t = copy.deepcopy(target)
    for n in ast.walk(t):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return t
