"""Re-run the table-driven MindSpore-name tests on real MindSpore (not part of CI; needs a MindSpore
install): every case of ``tests/test_ops_array_names*.py`` / ``tests/test_ops_fft.py`` (see
``tests/ops_names_table.py``) is evaluated again with ``mindspore`` in place of ``mscustom``, and the
cases whose stored expectation MindSpore no longer gives are listed. Entries marked with a comment
(``# ...; MindSpore 2.10 CPU: ...``) hold mscustom's documented value instead of MindSpore's; they are
listed only when MindSpore's result changed from the one in the comment; cases on which it crashes are
not run. Some of MindSpore 2.10's CPU
bugs noted there give different wrong values from run to run (``coalesce`` of unsorted coordinates).

    ~/ms-oracle/bin/python bench/ms_names_table_check.py tests/test_ops_fft.py tests/test_ops_array_names.py
"""

import ast
import sys
import types
import warnings


_SYNC = """
def _sync(r):
    if isinstance(r, (tuple, list)):
        return type(r)(_sync(v) for v in r)
    if isinstance(r, T):
        r.asnumpy()
    return r
"""


def _table_module(mindspore):
    """``ops_names_table`` with MindSpore in place of mscustom (the tests' checker, unchanged)."""
    import pathlib
    src = (pathlib.Path(__file__).resolve().parent.parent / "tests" / "ops_names_table.py").read_text()
    src = src.replace("import mscustom as ms\nfrom mscustom import ops\n", "import mindspore as ms\nfrom mindspore import ops\n")
    mod = types.ModuleType("ops_names_table")
    exec(compile(src, "ops_names_table.py", "exec"), mod.__dict__)
    return mod


def _cases(path):
    """(expression, expectation source, MindSpore's value from a comment or None) of a test file."""
    text = open(path).read()
    tree = ast.parse(text)
    lines = text.splitlines()
    setup, out = None, []
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "SETUP":
            setup = node.value.value
        if isinstance(node, ast.Assign) and node.targets[0].id == "CASES":
            for elt in node.value.elts:
                above = lines[elt.lineno - 2].strip()
                if above.startswith("#") and "MindSpore 2.10 CPU crashes" in above:
                    continue                    # not run: it ends the interpreter
                note = above.split("MindSpore 2.10 CPU: ", 1)[1].rsplit(" (docs/", 1)[0] \
                    if above.startswith("#") and "MindSpore 2.10 CPU: " in above else None
                out.append((elt.elts[0].value, ast.get_source_segment(text, elt.elts[1]), note))
    return setup, out


def main(paths):
    warnings.filterwarnings("ignore")
    import mindspore
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    table = _table_module(mindspore)
    sys.modules["ops_names_table"] = table
    names = {k: getattr(table, k) for k in ("R", "S", "X", "nan", "inf")}
    changed = 0
    for path in paths:
        setup, cases = _cases(path)
        for expr, expected, note in cases:
            want = eval(note if note is not None else expected, dict(names))
            try:                            # MindSpore runs ops asynchronously: read results to see errors
                table.run_cases(setup + _SYNC, [(f"_sync({expr})", want)])
            except AssertionError as exc:
                changed += 1
                print(f"{path}: {str(exc).splitlines()[-1]}")
    print(f"{changed} case(s) differ from the stored MindSpore results")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
