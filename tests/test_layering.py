"""The package's layering, read from the import statements of its source files.

- ``mscustom._core`` imports nothing from ``mscustom.ops``, ``mscustom.nn`` or
  ``mscustom.compat`` (not even inside functions): the core stands alone.
- No import cycle spans more than one area: a cycle may only join the files of
  one front end's own package (the modules of ``compat.mxnet``, say), never
  the core and a layer above it.
"""

import ast
import pathlib

import mscustom

ROOT = pathlib.Path(mscustom.__file__).parent


def _module_name(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in ROOT.rglob("*.py")}


def _resolve(module, node, known):
    """Modules of the package that one import statement in ``module`` names."""
    is_pkg = known[module].name == "__init__.py"
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "mscustom"]
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        anchor = parts if is_pkg else parts[:-1]
        anchor = anchor[:len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    if not base.startswith("mscustom"):
        return []
    out = []
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        out.append(sub if sub in known else base)
    return out


def _imports(top_level_only):
    known = _modules()
    graph = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        nodes = tree.body if top_level_only else ast.walk(tree)
        targets = set()
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets.update(t for t in _resolve(name, node, known) if t in known and t != name)
        graph[name] = targets
    return graph


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_core_imports_no_layer_above_it():
    graph = _imports(top_level_only=False)
    bad = {m: sorted(t for t in targets if t.startswith(("mscustom.ops", "mscustom.nn", "mscustom.compat")))
           for m, targets in graph.items() if m.startswith("mscustom._core")}
    assert not {m: t for m, t in bad.items() if t}


# the packages the ops layer is laid out in (mscustom/ops/<concern>/): one area with mscustom.ops
_OPS_LAYER = {"math", "array", "nn", "linalg", "random", "sparse", "spectral", "distributed", "comm", "graph_mode"}


def _area(module):
    """The front end or layer a module belongs to: its package below ``mscustom`` (the ops layer's
    concern packages are the ops area itself; ``ops.custom`` and the compat front ends are their own)."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "ops" and parts[2] in _OPS_LAYER:
        return "mscustom.ops"
    if len(parts) > 2 and parts[1] in ("compat", "ops"):
        return ".".join(parts[:3]) if len(parts) > 3 or parts[1] == "compat" else ".".join(parts[:2])
    return ".".join(parts[:2])


def test_no_import_cycle_spans_two_areas():
    for comp in _cycles(_imports(top_level_only=False)):
        areas = {_area(m) for m in comp}
        assert len(areas) <= 1, f"import cycle across areas: {sorted(comp)}"
