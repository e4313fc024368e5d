"""The MXNet and minpy front ends import without cycles: every import among their modules, at any depth
of the file (function-level imports included), points one way."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "mscustom" / "compat"


def _module_name(path):
    rel = path.relative_to(ROOT.parent.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _edges(package_dir):
    mods = {_module_name(p): p for p in package_dir.rglob("*.py")}
    edges = {m: set() for m in mods}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.ImportFrom):
                base = pkg
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                mod = (base + "." + node.module if node.module else base) if node.level else node.module
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t in mods and t != name and not name.startswith(t + "."):
                    edges[name].add(t)
    return edges


def _cycle(edges):
    state = {}

    def visit(n, stack):
        state[n] = 1
        for m in sorted(edges[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m] if m in stack else [n, m]
            if m not in state:
                found = visit(m, stack + [m])
                if found:
                    return found
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            found = visit(n, [n])
            if found:
                return found
    return None


@pytest.mark.parametrize("package", ["mxnet", "minpy"])
def test_no_import_cycle(package):
    edges = _edges(ROOT / package)
    assert len(edges) > 3
    cycle = _cycle(edges)
    assert cycle is None, " -> ".join(cycle)


def test_the_checker_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
