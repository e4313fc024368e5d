"""Parse a hybrid DSL function and apply MindSpore's static checks, with file and line in every error.

``analyse(func)`` returns a ``KernelInfo``: the function's AST (line numbers
are those of its source file), its inputs, the tensors it declares with
``output_tensor``/``allocate``, what it returns, and which inputs it writes.
Checked, as MindSpore checks them: no ``break``/``continue``/``while``;
attribute access only ``.shape``/``.dtype`` of a tensor; calls only to DSL
intrinsics; no undeclared names and no name used outside the loop that
declares it; loop variables are not assigned; a tensor is declared once;
returned names are inputs or declared outputs, and every declared output is
returned.

Example::

    info = analyse(my_kernel)          # HybridSyntaxError naming file:line on a bad kernel
    info.outputs                       # ['c']
"""

import ast
import inspect
import textwrap
from dataclasses import dataclass, field

from .runtime import BINARY, BUFFERS, CASTS, KEYWORDS, LOOPS, UNARY

__all__ = ["analyse", "analyse_source", "KernelInfo", "HybridSyntaxError"]

_ARITY = {**{n: 1 for n in UNARY}, **{n: 2 for n in BINARY}, "allocate": (2, 3), "output_tensor": 2,
          "len": 1, "range": (1, 3), "serial": (1, 2), "vectorize": (1, 2), "parallel": (1, 2),
          "reduce": (1, 2), "grid": 1, "max": (2, 8), "min": (2, 8)}


class HybridSyntaxError(ValueError):
    """A hybrid kernel breaks the DSL's rules; the message names the kernel, its file and line."""


@dataclass
class KernelInfo:
    """What the static checks learned about one kernel."""

    name: str
    filename: str
    tree: ast.FunctionDef
    args: list
    decls: dict = field(default_factory=dict)       # name -> ("output" | "temp", ast.Call)
    returns: list = field(default_factory=list)     # returned names, in order
    written_inputs: set = field(default_factory=set)
    return_line: int = 0

    @property
    def outputs(self):
        """The returned names (declared outputs, or inputs written in place)."""
        return list(self.returns)

    @property
    def inplace(self):
        """``{output_index: input_index}`` for outputs that are inputs written in place."""
        return {j: self.args.index(n) for j, n in enumerate(self.returns) if n in self.args}

    def where(self, node):
        return f"{self.filename}:{getattr(node, 'lineno', self.tree.lineno)}"

    def error(self, node, message, cls=HybridSyntaxError):
        return cls(f"hybrid kernel '{self.name}' ({self.where(node)}): {message}")


def analyse(func):
    """Check ``func`` (a Python function in the hybrid DSL) and return its ``KernelInfo``."""
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise HybridSyntaxError(f"hybrid kernel '{getattr(func, '__name__', func)}': its source is not "
                                f"available ({exc}); define it in a file, not interactively") from None
    filename = inspect.getsourcefile(func) or "<unknown>"
    return analyse_source(textwrap.dedent("".join(lines)), filename, first, func.__name__)


def analyse_source(source, filename="<hybrid>", first_line=1, name=None):
    """Check DSL source text holding one function definition; lines count from ``first_line``."""
    tree = ast.parse(source)
    ast.increment_lineno(tree, first_line - 1)
    fdefs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not fdefs:
        raise HybridSyntaxError(f"hybrid kernel '{name}' ({filename}:{first_line}): no function definition found")
    fdef = fdefs[0]
    fdef.decorator_list = []
    info = KernelInfo(name or fdef.name, filename, fdef, [a.arg for a in fdef.args.args])
    if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs or fdef.args.defaults:
        raise info.error(fdef, "takes only plain positional tensor inputs (no defaults, *args or keywords)")
    _Checker(info).run()
    return info


class _Checker(ast.NodeVisitor):
    """The static checks; one pass over the function body."""

    def __init__(self, info):
        self.info = info
        self.scopes = [info.tree]            # enclosing For loops (the function at the bottom)
        self.status = {}                     # scalar or tensor name -> declaring scope
        self.loop_vars = []                  # names of the enclosing loop variables
        self.grid_vars = set()

    def fail(self, node, message, cls=HybridSyntaxError):
        raise self.info.error(node, message, cls)

    def run(self):
        body = self.info.tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if not body or not isinstance(body[-1], ast.Return):
            self.fail(self.info.tree, "must end with a return of its output tensor(s)")
        for stmt in body[:-1]:
            self.stmt(stmt)
        self.ret(body[-1])

    # ------------------------------------------------------------ statements
    def stmt(self, node):
        kind = type(node).__name__
        if isinstance(node, (ast.Break, ast.Continue, ast.While)):
            keyword = kind.lower()
            self.fail(node, f"keyword '{keyword}' is not accepted in the hybrid DSL", TypeError)
        handler = getattr(self, "stmt_" + kind, None)
        if handler is None:
            if isinstance(node, ast.Return):
                self.fail(node, "return is allowed only as the last statement of the kernel")
            self.fail(node, f"statement '{kind}' is not part of the hybrid DSL (use assignments, for loops "
                            f"over range/serial/parallel/vectorize/reduce/grid, if, and a final return)")
        handler(node)

    def stmt_Pass(self, node):
        pass

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return
        self.fail(node, "an expression statement has no effect in the hybrid DSL; assign its value")

    def stmt_Assign(self, node):
        if len(node.targets) != 1:
            self.fail(node, "one statement may assign only one target")
        target, value = node.targets[0], node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in BUFFERS:
            if not isinstance(target, ast.Name):
                self.fail(node, f"the result of {value.func.id}(...) must be assigned to a plain name")
            self.expr(value)
            name = target.id
            if name in self.info.decls or name in self.info.args:
                self.fail(node, f"the tensor '{name}' is declared twice")
            if name in self.status:
                self.fail(node, f"'{name}' is already a scalar variable; it cannot become a tensor")
            self.info.decls[name] = ("output" if value.func.id == "output_tensor" else "temp", value)
            self.status[name] = self.scopes[-1]
            return
        self.expr(value)
        self.store(target, node)

    def stmt_AugAssign(self, node):
        self.expr(node.value)
        if isinstance(node.target, ast.Name):
            self.load_name(node.target)
        self.store(node.target, node)

    def store(self, target, node):
        if isinstance(target, ast.Subscript):
            base = target.value
            if not isinstance(base, ast.Name) or not self.is_tensor(base.id):
                self.fail(node, f"only tensors can be indexed for a store, not {ast.unparse(base)!r}")
            self.load_name(base)
            self.expr(target.slice)
            if base.id in self.info.args:
                self.info.written_inputs.add(base.id)
            return
        if not isinstance(target, ast.Name):
            self.fail(node, f"cannot assign to {ast.unparse(target)!r}; assign a name or a tensor element")
        name = target.id
        if name in self.loop_vars:
            self.fail(node, f"the loop variable '{name}' cannot be assigned")
        if self.is_tensor(name) or name in self.info.args:
            self.fail(node, f"'{name}' is a tensor; store into its elements ('{name}[i] = ...') instead")
        if name in KEYWORDS:
            self.fail(node, f"'{name}' is a DSL keyword and cannot be assigned")
        if name in self.status:
            self.check_scope(node, name)
        else:
            self.status[name] = self.scopes[-1]

    def stmt_For(self, node):
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in LOOPS):
            self.fail(node, f"a loop must run over one of {sorted(LOOPS)}, not {ast.unparse(it)!r}")
        if node.orelse:
            self.fail(node, "for ... else is not part of the hybrid DSL")
        if not isinstance(node.target, ast.Name):
            self.fail(node, "the loop variable must be a single name")
        self.expr(it)
        name = node.target.id
        if name in self.status or name in self.info.args or name in self.loop_vars:
            self.fail(node, f"the loop variable '{name}' is already used as a variable")
        self.scopes.append(node)
        self.loop_vars.append(name)
        if it.func.id == "grid":
            self.grid_vars.add(name)
        for s in node.body:
            self.stmt(s)
        self.loop_vars.pop()
        self.scopes.pop()
        self.grid_vars.discard(name)

    def stmt_If(self, node):
        self.expr(node.test)
        for s in node.body + node.orelse:
            self.stmt(s)

    def stmt_With(self, node):
        for item in node.items:
            c = item.context_expr
            if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and
                    c.func.id in ("attr", "block_realize")) or item.optional_vars is not None:
                self.fail(node, "only 'with attr(key, value):' and 'with block_realize(tensor):' scopes are "
                                "part of the hybrid DSL")
        for s in node.body:
            self.stmt(s)

    def ret(self, node):
        self.info.return_line = node.lineno
        value = node.value
        elts = value.elts if isinstance(value, ast.Tuple) else [value]
        names = []
        for e in elts:
            if not isinstance(e, ast.Name):
                self.fail(node, f"return gives tensor names, not {ast.unparse(e) if e is not None else 'None'!r}",
                          TypeError)
            if e.id not in self.info.args and self.info.decls.get(e.id, ("",))[0] != "output":
                self.fail(node, f"returns '{e.id}', which is neither an input nor a tensor declared with "
                                f"output_tensor", TypeError)
            names.append(e.id)
        missing = [n for n, (kind, _) in self.info.decls.items() if kind == "output" and n not in names]
        if missing:
            self.fail(node, f"declares output tensor(s) {missing} with output_tensor but does not return them",
                      TypeError)
        if len(set(names)) != len(names):
            self.fail(node, "returns the same tensor twice", TypeError)
        self.info.returns = names

    # ------------------------------------------------------------ expressions
    def is_tensor(self, name):
        return name in self.info.args or name in self.info.decls

    def check_scope(self, node, name):
        if self.status[name] not in self.scopes:
            self.fail(node, f"'{name}' is used outside the loop that declares it")

    def load_name(self, node):
        name = node.id
        if name in self.info.args or name in self.loop_vars:
            return
        if name in self.status:
            self.check_scope(node, name)
            return
        if name in KEYWORDS:
            self.fail(node, f"'{name}' is a DSL intrinsic; call it")
        self.fail(node, f"undeclared name '{name}' (a hybrid kernel sees only its inputs, its declared "
                        f"tensors and scalars, loop variables and DSL intrinsics)")

    def expr(self, node):
        if isinstance(node, ast.Name):
            self.load_name(node)
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, bool, str)):
                self.fail(node, f"constant {node.value!r} is not a number or a dtype string")
        elif isinstance(node, ast.Attribute):
            if not isinstance(node.value, ast.Name) or not self.is_tensor(node.value.id):
                self.fail(node, f"attribute access is only for tensors ('x.shape', 'x.dtype'), not "
                                f"{ast.unparse(node)!r}")
            if node.attr not in ("shape", "dtype"):
                self.fail(node, f"a tensor has only the attributes 'shape' and 'dtype', not '{node.attr}'")
            self.load_name(node.value)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Subscript):
            base = node.value
            ok = (isinstance(base, ast.Name) and (self.is_tensor(base.id) or base.id in self.grid_vars)) or \
                (isinstance(base, ast.Attribute) and base.attr == "shape")
            if not ok:
                self.fail(node, f"only tensors, x.shape and grid index tuples can be indexed, not "
                                f"{ast.unparse(base)!r}")
            self.expr(base)
            self.expr(node.slice)
        elif isinstance(node, (ast.BinOp,)):
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, ast.UnaryOp):
            self.expr(node.operand)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                self.expr(v)
        elif isinstance(node, ast.Compare):
            self.expr(node.left)
            for c in node.comparators:
                self.expr(c)
        elif isinstance(node, ast.IfExp):
            self.expr(node.test)
            self.expr(node.body)
            self.expr(node.orelse)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                self.expr(e)
        else:
            self.fail(node, f"expression {ast.unparse(node)!r} ({type(node).__name__}) is not part of the "
                            f"hybrid DSL")

    def call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in KEYWORDS:
            self.fail(node, f"call to {ast.unparse(node.func)!r}: only DSL intrinsics can be called (math: "
                            f"{', '.join(sorted(UNARY.keys() - CASTS.keys()))}; casts: "
                            f"{', '.join(sorted(CASTS))}; {', '.join(sorted(BINARY))}; len)")
        if node.keywords:
            self.fail(node, f"{node.func.id}() takes positional arguments only")
        want = _ARITY.get(node.func.id)
        if want is not None:
            lo, hi = want if isinstance(want, tuple) else (want, want)
            if not lo <= len(node.args) <= hi:
                expect = str(lo) if lo == hi else f"{lo} to {hi}"
                self.fail(node, f"{node.func.id}() takes {expect} argument(s), got {len(node.args)}", TypeError)
        if node.func.id in ("kernel", "ms_kernel", "attr", "block_realize"):
            self.fail(node, f"{node.func.id}() cannot be called inside a kernel body")
        for a in node.args:
            self.expr(a)
