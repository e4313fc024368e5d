"""pyflakes over the package: no unused imports or locals, no undefined names.

Left out on purpose: ``__init__.py`` re-exports, imports marked ``# noqa`` (kept
for a side effect: registering a kernel kind, a fork hook's order), and the
names a module puts into its ``__all__`` through ``globals()``, and a package's lazily loaded
names (``__all__`` entries its ``__getattr__`` resolves).
"""

import io
import pathlib

import pytest

import mscustom

api = pytest.importorskip("pyflakes.api")
reporter_mod = pytest.importorskip("pyflakes.reporter")

ROOT = pathlib.Path(mscustom.__file__).parent


def _excused(path, line, message):
    if path.name == "__init__.py" and ("imported but unused" in message or "import *" in message):
        return True
    if "noqa" in line:
        return True
    if ("may be undefined, or defined from star imports" in message or "in __all__" in message) \
            and "lazy_attrs(" in path.read_text():
        return True                    # a name its PEP 562 __getattr__ (mscustom/_lazy.py) loads on first use
    return "in __all__" in message and "globals()[" in path.read_text()


def test_pyflakes_finds_nothing():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        out = io.StringIO()
        api.check(path.read_text(), str(path), reporter_mod.Reporter(out, out))
        lines = path.read_text().splitlines()
        for report in out.getvalue().splitlines():
            _, lineno, _, message = (report.split(":", 3) + ["", "", ""])[:4]
            line = lines[int(lineno) - 1] if lineno.isdigit() and int(lineno) <= len(lines) else ""
            if not _excused(path, line, message):
                found.append(report)
    assert not found, "\n".join(found)
