"""The package's import layering (docs/architecture.md, "Layout and import layering").

Read from the sources (nothing is imported): the module-level
import graph of ``mscustom`` has no cycle; the lower modules of the layers that
used to import each other in a circle import nothing of the upper ones, not
even inside a function; and code imports the op modules from their homes in
the concern packages, not by their old flat paths.
"""

import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _moved():
    """``mscustom.ops._moved.MOVED``'s old names, read from its source."""
    with open(os.path.join(ROOT, "mscustom", "ops", "_moved.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "MOVED":
            return ast.literal_eval(node.value)
    raise AssertionError("mscustom/ops/_moved.py has no MOVED table")

# lower module -> modules (or packages, with their submodules) it must never import
LAYERS = {
    "mscustom._core.opdef": ["mscustom._core.dispatch"],
    "mscustom.dataset.engine": ["mscustom.dataset.ops"],
    "mscustom.ops.math.elementwise": ["mscustom.ops.functional"],
    "mscustom.ops.math.reduce": ["mscustom.ops.functional"],
    "mscustom.ops.array.shape": ["mscustom.ops.functional"],
    "mscustom.ops.array.index": ["mscustom.ops.functional"],
    "mscustom.ops.nn.activation": ["mscustom.ops.functional"],
    "mscustom.ops.array.creation": ["mscustom.ops.array.shape_more"],
    "mscustom.ops.custom.custom": ["mscustom.ops.custom.hybrid"],
    "mscustom.ops.custom.hybrid.hook": ["mscustom.ops.custom.custom"],
    "mscustom.ops.custom.hybrid.grad": ["mscustom.ops.custom.hybrid.grad_tape", "mscustom.ops.custom.hybrid.grad_bprop",
                                        "mscustom.ops.custom.hybrid.hook", "mscustom.ops.custom.custom"],
    "mscustom.ops.custom.hybrid.check": ["mscustom.ops.custom.hybrid.dsl"],
    "mscustom.ops.custom.hybrid.runtime": ["mscustom.ops.custom.hybrid"],
}


def _modules():
    out = {}
    for top in ("mscustom",):
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                    is_pkg = parts[-1] == "__init__"
                    out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


_STRING = re.compile(r'("""|\'\'\')[\s\S]*?\1')
_IMPORT = re.compile(r"^([ \t]*)(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)"
                     r"|import[ \t]+([^\n#;]+))", re.M)
_BLOCK = re.compile(r"^([ \t]*)(async[ \t]+def|def|class|if|elif|else|try|except|finally|with|for|while)\b", re.M)


def _imports(source):
    """(level, module, names, inside_function) for each import statement, read with regular expressions
    (docstrings removed first): parsing every module with ``ast`` takes seconds, this a fraction of one."""
    source = _STRING.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    blocks = [(m.start(), len(m.group(1).expandtabs()), m.group(2).startswith(("def", "async")))
              for m in _BLOCK.finditer(source)]
    for m in _IMPORT.finditer(source):
        indent = len(m.group(1).expandtabs())
        in_fn, need = False, indent
        for pos, ind, is_def in reversed([b for b in blocks if b[0] < m.start()]):
            if ind < need:
                if is_def:
                    in_fn = True
                    break
                need = ind
                if need == 0:
                    break
        if m.group(5) is not None:
            names = [n.split()[0] for n in m.group(5).split(",") if n.strip()]
            yield 0, None, names, in_fn
        else:
            names = [n.split()[0] for n in m.group(4).strip("()").replace("\\", " ").split(",") if n.split()]
            yield len(m.group(2)), m.group(3) or None, names, in_fn


def _targets(module, is_pkg, imp, modules):
    """Modules an import statement of ``module`` names (a submodule where ``from pkg import sub``)."""
    level, name, names, _ = imp
    if name is None and level == 0:
        return names
    if level:
        base = (module if is_pkg else module.rpartition(".")[0]).split(".")
        if level > 1:
            base = base[:-(level - 1)]
        target = ".".join(base + ([name] if name else []))
    else:
        target = name
    subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
    return subs if subs and len(subs) == len(names) else [target] + subs


_modules_cache = {}


def _graphs():
    """(module-level graph, every import) from one parse of each source file."""
    modules = _modules()
    _modules_cache.update(modules)
    graph, every = {}, {}
    for module, (path, is_pkg) in modules.items():
        with open(path, encoding="utf-8") as f:
            source = f.read()
        graph[module], every[module] = set(), []
        for imp in _imports(source):
            in_fn = imp[3]
            for t in _targets(module, is_pkg, imp, modules):
                every[module].append(t)
                if not in_fn and t in modules and t != module:
                    graph[module].add(t)
    return graph, every


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_import_layering():
    module_level, every = _graphs()                 # ``every``: imports inside functions too
    assert _cycles(module_level) == [], "module-level import cycles (break them: docs/architecture.md)"

    bad = [(low, t) for low, uppers in LAYERS.items() for t in every[low]
           if any(t == u or t.startswith(u + ".") for u in uppers)]
    assert bad == [], "a lower layer imports an upper one"

    old = {f"mscustom.ops.{name}" for name in _moved()}
    for top in ("tests", "bench", "examples"):             # scripts import by absolute paths
        for dirpath, _, filenames in os.walk(os.path.join(ROOT, top)):
            for name in filenames:
                if name.endswith(".py"):
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        every[os.path.join(dirpath, name)[len(ROOT) + 1:]] = [
                            t for imp in _imports(f.read()) if not imp[0]
                            for t in _targets("", False, imp, _modules_cache)]
    stale = sorted({(m, t) for m, targets in every.items() for t in targets if t in old})
    assert stale == [], f"import these from their homes (mscustom/ops/_moved.py): {stale}"


def test_concern_packages_run_their_init_after_the_core(tmp_path, monkeypatch):
    """``ops/_packages.py``: a core module of a registered package loads without the package's
    ``__init__``; a name read from a still pending package runs that one's ``__init__`` on demand."""
    import importlib
    import sys
    files = {
        "lp/__init__.py": "from mscustom.ops import _packages\n_packages.create(__name__, ('a', 'b'))\n"
                          "from .a import core\n_packages.finish()\n",
        "lp/a/__init__.py": "from . import names\nfrom .names import *\nINIT_RAN = True\n",
        "lp/a/core.py": "import sys\nSAW_INIT = 'INIT_RAN' in sys.modules[__package__].__dict__\n",
        "lp/a/names.py": "from ..b import helper\n__all__ = ['name_a']\n\ndef name_a():\n    return helper()\n",
        "lp/b/__init__.py": "def helper():\n    return 2\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        lp = importlib.import_module("lp")
        assert lp.a.core.SAW_INIT is False and lp.a.INIT_RAN and lp.a.name_a() == 2
        assert "__getattr__" not in vars(lp.a) and "__getattr__" not in vars(lp.b)
    finally:
        for name in [m for m in sys.modules if m == "lp" or m.startswith("lp.")]:
            del sys.modules[name]
