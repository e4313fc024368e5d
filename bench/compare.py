"""Before/after figures in one run: the per-call benchmarks of two checkouts, side by side.

Usage::

    .venv/bin/python bench/compare.py                      # "before" = BEFORE_REV in a temporary git worktree
    .venv/bin/python bench/compare.py --before-rev abc123 --rounds 5
    .venv/bin/python bench/compare.py --before-path ../old --after-path . --only builtin

Each checkout runs the same benchmark code (this tree's ``bench/run.py``
sections, ``--only`` choosing them; default: ``builtin`` and ``custom``, the
foundation and custom-call per-call figures) in a fresh subprocess that
imports that checkout's ``mscustom``. The two alternate (A, B, A, B, ...)
for ``--rounds`` rounds, so drift on a shared machine hits both alike; the
table gives each figure's median over the rounds, the ratio after/before
(below 1: faster after), the spread (max/min) of each side's rounds, and the
best round of each side with their ratio (on a loaded machine the best round
is the one least disturbed by neighbours).

It also prints the source files behind the layers (the operator core, the
custom-op package, the compat front ends) with their line counts in both
checkouts (``--no-files`` to skip).
"""

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "bench" / "run.py"
BEFORE_REV = "670fda6"        # the parent of 6d7ad3f, the first commit of the architecture work (issue 13)
SECTIONS = ("builtin", "custom")
GROUPS = (("operator core", "mscustom/_core"), ("custom ops", "mscustom/ops/custom"),
          ("Numba internals", "mscustom/_numba_private"), ("extension surface", "mscustom/extend.py"),
          ("MXNet front end", "mscustom/compat/mxnet"), ("minpy front end", "mscustom/compat/minpy"))
MARK = "@@compare-rows@@"

# Runs in the child: import the checkout's mscustom first, then this tree's bench/run.py, which
# finds mscustom already imported (its own sys.path insertion then only serves ``bench``).
DRIVER = r"""
import json, sys, importlib.util
tree, run_file, sections = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, tree)
import mscustom
if not mscustom.__file__.startswith(tree):
    raise SystemExit(f"imported mscustom from {mscustom.__file__}, not from {tree}")
spec = importlib.util.spec_from_file_location("bench_run", run_file)
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)
for name in sections:
    run.BENCHES[name]()
print(MARK + json.dumps([[r[0], r[1], r[2]] for r in run.ROWS]), flush=True)
""".replace("MARK", repr(MARK))


def run_side(tree, sections):
    """One fresh process measuring ``sections`` with ``tree``'s mscustom: ``{name: (value, unit)}``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(tree), str(RUN), *sections], cwd=tree, env=env,
                          capture_output=True, text=True, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"benchmarks in {tree} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n"
                           f"{proc.stderr[-3000:]}")
    return {name: (value, unit) for name, value, unit in json.loads(line[len(MARK):])}


@contextlib.contextmanager
def worktree_of(rev):
    """A temporary detached ``git worktree`` of ``rev`` (removed afterwards)."""
    full = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    if full.returncode != 0:
        raise SystemExit(f"compare: no commit {rev!r} in {ROOT} ({full.stderr.strip()}); "
                         "give --before-rev or --before-path")
    path = Path(tempfile.mkdtemp(prefix="mscustom-before-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(path), full.stdout.strip()], cwd=ROOT,
                   capture_output=True, text=True, check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True,
                       check=False)
        shutil.rmtree(path.parent, ignore_errors=True)


def line_counts(tree):
    """``{relative path: lines}`` of the Python files in each group of ``GROUPS``."""
    out = {}
    for _, rel in GROUPS:
        base = Path(tree) / rel
        files = [base] if base.suffix == ".py" else sorted(base.rglob("*.py")) if base.is_dir() else []
        for f in files:
            if f.is_file():
                out[str(f.relative_to(tree))] = len(f.read_text().splitlines())
    return out


def print_figures(before, after, names):
    head = (f"{'figure':<46} {'before':>9} {'after':>9} {'unit':<5} {'after/before':>12} {'spread b/a':>12}"
            f" {'best b':>8} {'best a':>8} {'best a/b':>8}")
    print(head)
    print("-" * len(head))
    for name in names:
        b = [r[name][0] for r in before if name in r]
        a = [r[name][0] for r in after if name in r]
        if not a or not b:
            print(f"{name:<46} {'-' if not b else f'{statistics.median(b):.3g}':>9} "
                  f"{'-' if not a else f'{statistics.median(a):.3g}':>9}")
            continue
        unit = (after[0].get(name) or before[0][name])[1]
        mb, ma = statistics.median(b), statistics.median(a)
        spread = f"{max(b) / min(b):.2f}/{max(a) / min(a):.2f}"
        best_b, best_a = (max(b), max(a)) if unit == "GB/s" else (min(b), min(a))
        print(f"{name:<46} {mb:>9.3g} {ma:>9.3g} {unit:<5} {ma / mb:>12.2f} {spread:>12}"
              f" {best_b:>8.3g} {best_a:>8.3g} {best_a / best_b:>8.2f}")


def print_files(before_tree, after_tree):
    b, a = line_counts(before_tree), line_counts(after_tree)
    print(f"\n{'group':<20} {'files before':>12} {'files after':>11} {'lines before':>12} {'lines after':>11}")
    for label, rel in GROUPS:
        fb = {k: v for k, v in b.items() if k == rel or k.startswith(rel + "/")}
        fa = {k: v for k, v in a.items() if k == rel or k.startswith(rel + "/")}
        print(f"{label:<20} {len(fb):>12} {len(fa):>11} {sum(fb.values()):>12} {sum(fa.values()):>11}")
    print(f"\n{'file':<52} {'before':>7} {'after':>7}")
    for path in sorted(set(b) | set(a)):
        print(f"{path:<52} {b.get(path, '-'):>7} {a.get(path, '-'):>7}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-rev", default=BEFORE_REV,
                        help=f"commit measured as 'before', in a temporary git worktree (default {BEFORE_REV})")
    parser.add_argument("--before-path", help="an existing checkout to measure as 'before' instead")
    parser.add_argument("--after-path", default=str(ROOT), help="the checkout measured as 'after' (default: this one)")
    parser.add_argument("--rounds", type=int, default=3, help="A/B rounds, each a fresh process per side (default 3)")
    parser.add_argument("--only", action="append", help=f"bench/run.py sections (default: {', '.join(SECTIONS)})")
    parser.add_argument("--no-files", action="store_true", help="skip the table of files and line counts")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    sections = args.only or list(SECTIONS)
    after_tree = Path(args.after_path).resolve()
    with contextlib.ExitStack() as stack:
        before_tree = (Path(args.before_path).resolve() if args.before_path
                       else stack.enter_context(worktree_of(args.before_rev)))
        label = args.before_path or args.before_rev
        print(f"before: {label} ({before_tree})\nafter:  {after_tree}\nsections: {', '.join(sections)}; "
              f"{args.rounds} alternating rounds\n", flush=True)
        before, after = [], []
        for i in range(args.rounds):
            before.append(run_side(before_tree, sections))
            after.append(run_side(after_tree, sections))
            print(f"round {i + 1}/{args.rounds} done", file=sys.stderr, flush=True)
        names = list(dict.fromkeys([n for r in after + before for n in r]))
        print_figures(before, after, names)
        if not args.no_files:
            print_files(before_tree, after_tree)


if __name__ == "__main__":
    main()
