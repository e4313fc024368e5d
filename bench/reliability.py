"""Fuzz figures for ops.Custom: thousands of generated cases, counted per outcome class.

Run with ``.venv/bin/python bench/reliability.py [--cases N] [--show K]``. Each
case builds and calls a Custom op from good and bad pieces (see
``tests/reliability/custom_fuzz.py``) and is classified as ok (right result),
clear error, unclear error or wrong result; out-of-bounds kernels run in child
processes in debug mode, classified as clear error, crash or hang. The target
is 0 unclear, 0 wrong, 0 crash, 0 hang.
"""

import argparse
import os
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
# the fuzz module is imported by the name pytest gives it (``reliability.custom_fuzz``: Numba's
# disk cache records it), and this script's own folder must not shadow that package
sys.path[:] = [ROOT, os.path.join(ROOT, "tests")] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

from hypothesis import HealthCheck, given, settings  # noqa: E402

from reliability.custom_fuzz import OOB_KERNELS, cases, run_case, run_child_case  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4000, help="in-process cases (default 4000)")
    parser.add_argument("--show", type=int, default=5, help="examples to print per bad class")
    args = parser.parse_args()

    counts, examples, kinds = Counter(), {}, Counter()

    @settings(max_examples=args.cases, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def fuzz(case):
        cls, detail = run_case(case)
        counts[cls] += 1
        kinds[(case["func_type"] if isinstance(case["func_type"], str) else "bad", cls)] += 1
        if cls not in ("ok", "clear"):
            examples.setdefault(cls, []).append(detail)

    fuzz()
    for name in OOB_KERNELS:
        cls, detail = run_child_case(name)
        counts[cls] += 1
        kinds[("jit child (debug)", cls)] += 1
        if cls != "clear":
            examples.setdefault(cls, []).append(detail)

    total = sum(counts.values())
    print(f"ops.Custom fuzz: {total} cases")
    for cls in ("ok", "clear", "unclear", "wrong", "crash", "hang"):
        print(f"  {cls:<8} {counts[cls]:>6}")
    print("per func_type:")
    for (ft, cls), n in sorted(kinds.items()):
        print(f"  {ft:<20} {cls:<8} {n:>6}")
    for cls, items in examples.items():
        print(f"examples of {cls}:")
        for item in sorted(set(items))[:args.show]:
            print("  ", item[:300])
    bad = sum(counts[c] for c in ("unclear", "wrong", "crash", "hang"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
