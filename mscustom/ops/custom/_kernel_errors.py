"""Numba compile failures of jit and hybrid kernels as one short paragraph naming the user's line.

Numba's ``TypingError`` runs to a hundred lines (every candidate overload it
tried) and, for hybrid kernels, points at the generated module in the cache.
``compile_error`` boils it down to what the user needs: the op and kernel,
the argument types it was compiled for, Numba's one-line reason, the line of
the user's own source (file:line and its text; a hybrid kernel's generated
line is mapped back through ``LineMap``), and the kernel argument that line
uses wrongly with its rank and dtype as given. The caller raises the result
``from`` Numba's exception, whose full report stays in ``__cause__``.

Example::

    except NumbaError as exc:
        raise compile_error(exc, what="op 'add': jit kernel 'add2d'", params=["x", "out"],
                            types=types) from exc

gives (for a kernel reading ``x[i, j]`` called with a 1-D tensor)::

    op 'add': jit kernel 'add2d' failed to compile for (array(float32, 1d, C), ...): cannot index
    array(float32, 1d, C) with 2 indices: UniTuple(int64 x 2)
      at /home/me/kernels.py:9: out[i, j] = x[i, j] + 1.0
      argument 'x' is given as a 1-D float32 array, but x[i, j] indexes it with 2 indices
      (Numba's full report is this error's __cause__)
"""

import ast
import inspect
import linecache
import os
import re
from dataclasses import dataclass, field

__all__ = ["compile_error", "LineMap", "describe_type", "parameters"]

_MAX_REASON = 200
_MAX_NAMED = 3


@dataclass
class LineMap:
    """Where the lines of a generated source file come from: ``lines[generated_line] = user_line``."""

    generated: str                              # path of the generated file Numba compiled
    user_file: str                              # the user's source file
    lines: dict = field(default_factory=dict)

    def user_line(self, filename, line):
        """The user's line for ``filename:line`` of the generated file, or None."""
        if not filename or _real(filename) != _real(self.generated):
            return None
        return self.lines.get(line)


def _real(path):
    try:
        return os.path.realpath(path)
    except (TypeError, ValueError):
        return path


def parameters(func):
    """The parameter names of ``func`` in order, or [] when Python cannot tell."""
    try:
        return list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return []


def describe_type(t):
    """``array(float32, 2d, C)`` -> ``a 2-D float32 array``; scalars by their Numba name."""
    ndim, dtype = getattr(t, "ndim", None), getattr(t, "dtype", None)
    text = f"{ndim}-D {dtype} array" if ndim is not None and dtype is not None else f"{t} scalar"
    return ("an " if text[0] in "aeiou8" or text.startswith(("11", "18")) else "a ") + text


def _reason(exc):
    """Numba's reason in one line: the specific error an overload raised, else the message's first line."""
    text = str(getattr(exc, "msg", None) or exc)
    lines = [ln.strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("Failed in ") and not ln.startswith("During:")]
    reason = ""
    for k, ln in enumerate(lines):
        if ln.startswith("Rejected as the implementation raised a specific error") and k + 1 < len(lines):
            reason = re.sub(r"^\w*(Error|Exception): ", "", lines[k + 1])
            break
    if not reason:
        for k, ln in enumerate(lines):
            if ln.startswith("No implementation of function"):
                sig = next((s[3:].strip() for s in lines[k + 1:k + 3] if s.startswith(">>>")), "")
                reason = f"no implementation of {sig}" if sig else ln
                break
    if not reason and lines:
        reason = lines[0]
    reason = reason or type(exc).__name__
    return reason if len(reason) <= _MAX_REASON else reason[:_MAX_REASON - 3] + "..."


def _nodes_on(filename, line):
    """The AST nodes of ``filename`` that begin on ``line`` (or are subscripts spanning it)."""
    text = "".join(linecache.getlines(filename))
    if not text:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        start = getattr(node, "lineno", None)
        if start is None or isinstance(node, ast.stmt) and start != line:
            continue
        if start == line or isinstance(node, ast.Subscript) and start <= line <= (node.end_lineno or start):
            found.append(node)
    return found


def _n_indices(slice_node):
    items = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
    return sum(1 for s in items if not (isinstance(s, ast.Constant) and s.value in (None, Ellipsis)))


def _rank_misuses(nodes, types):
    """``[(name, what, is_store)]``: array arguments the line indexes with more axes than they have."""
    found = []
    for node in nodes:
        if not isinstance(node, ast.Subscript):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in types:
            ndim = getattr(types[value.id], "ndim", None)
            n = _n_indices(node.slice)
            if ndim is not None and n > ndim:
                found.append((value.id, f"{ast.unparse(node)} indexes it with {n} indices",
                              isinstance(node.ctx, ast.Store)))
        if isinstance(value, ast.Attribute) and value.attr in ("shape", "strides") and \
                isinstance(value.value, ast.Name) and value.value.id in types and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            ndim = getattr(types[value.value.id], "ndim", None)
            k = node.slice.value
            if ndim is not None and not -ndim <= k < ndim:
                found.append((value.value.id, f"{ast.unparse(node)} asks for axis {k}", False))
    return found


def _involved(nodes, types, exc):
    """``[(name, why or None)]``: the kernel arguments the failing line most likely misuses."""
    text = str(exc)
    misuses = _rank_misuses(nodes, types)
    if misuses:
        # Numba stops at the first operation it cannot type: a read (getitem) or a write (setitem)
        store_first = "setitem" in text and "getitem" not in text
        misuses.sort(key=lambda m: m[2] != store_first)
        seen, out = set(), []
        for name, why, _ in misuses:
            if name not in seen:
                seen.add(name)
                out.append((name, why))
        return out[:_MAX_NAMED]
    used = []
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in types and node.id not in used:
            used.append(node.id)
    named = [n for n in used if any(isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name)
                                    and a.value.id == n and f"'{a.attr}'" in text for a in nodes)]
    if not named:
        named = [n for n in used if str(types[n]) in text] or used
    return [(n, None) for n in named[:_MAX_NAMED]]


def compile_error(exc, *, what, params, types, line_map=None, names=None):
    """A short ``RuntimeError`` for Numba's compile failure ``exc`` (raise it ``from exc``).

    ``what`` names the op and kernel ("op 'add': jit kernel 'add2d'"); ``params`` are the compiled
    function's parameter names and ``types`` its Numba argument types, in the same order;
    ``line_map`` maps a generated file's lines to the user's (hybrid kernels); ``names`` renames
    generated parameter names to the user's.
    """
    names = names or {}
    typed = dict(zip(params, types))
    head = f"{what} failed to compile for ({', '.join(str(t) for t in types)}): {_reason(exc)}"
    loc = getattr(exc, "loc", None)
    filename, line = getattr(loc, "filename", None), getattr(loc, "line", None)
    out = [head]
    involved = []
    if filename and line:
        involved = _involved(_nodes_on(filename, line), typed, exc)
        user_file, user_line = filename, line
        if line_map is not None:
            mapped = line_map.user_line(filename, line)
            user_file, user_line = (line_map.user_file, mapped) if mapped else (filename, line)
        text = linecache.getline(user_file, user_line).strip()
        out.append(f"  at {user_file}:{user_line}" + (f": {text}" if text else ""))
    for name, why in involved:
        for generated, user in names.items():
            why = why and re.sub(rf"\b{re.escape(generated)}\b", user, why)
        given = f"argument '{names.get(name, name)}' is given as {describe_type(typed[name])}"
        out.append(f"  {given}, but {why}" if why else f"  {given}")
    out.append(f"  (Numba's full report is this error's __cause__: {type(exc).__name__})")
    return RuntimeError("\n".join(out))
