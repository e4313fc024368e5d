"""Fuzz figures for ops.Custom: thousands of generated cases, counted per outcome class.

Run with ``.venv/bin/python bench/reliability.py [--cases N] [--show K]``. Each
case builds and calls a Custom op from good and bad pieces (see
``tests/reliability/custom_fuzz.py``) and is classified as ok (right result),
clear error, unclear error or wrong result; out-of-bounds kernels run in child
processes in debug mode, classified as clear error, crash or hang. The target
is 0 unclear, 0 wrong, 0 crash, 0 hang.

First it runs the stress runs of ``tests/reliability/stress.py`` for longer
than CI does (``--stress-seconds``, ``--replays``): threads rebinding the
inputs of compiled calls, and outside state changing between graph replays.
Then the hang check (``--hang-runs``): short rebinding runs of every kind,
repeated, each in a child under the debug allocator
(``MALLOC_MMAP_THRESHOLD_=131072``) while two busy processes keep the machine
loaded; a child that does not finish dumps every thread's stack and counts as
a hang. ``--cases 0`` skips the fuzz.
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

from reliability import stress  # noqa: E402
from reliability.custom_fuzz import OOB_KERNELS, cases, run_case, run_child_case  # noqa: E402


def run_stress(seconds, replays):
    """The stress runs of tests/reliability/stress.py, longer than CI's: rebinding threads against
    every kind with the compiled path on and off (children under a debug allocator), and random
    changes of outside state between replays. Returns the number of faults found."""
    faults = 0
    for kind in ("aot", "jit", "pyfunc"):
        for fast in (True, False):
            code, result, err = stress.run_child("rebind", seconds, kind, fast, timeout=seconds * 4 + 120)
            bad = list(result["bad"]) if result else []
            if code != 0 or result is None:        # a crash, or a hang (its watchdog's exit, or killed)
                bad.append(f"child {'gave no answer (killed)' if code is None else f'exit {code}'}: "
                           f"{err[-1500:]}")
            calls = result["calls"] if result else 0
            rebinds = result["rebinds"] if result else 0
            print(f"rebind stress {kind:<6} fastcall={int(fast)}: {calls} calls, {rebinds} rebinds, "
                  f"{len(bad)} faults")
            for line in bad[:3]:
                print("   ", line)
            faults += len(bad)
    counts = stress.outside_state_cases(replays, seed=1)
    changes = {k: v for k, v in counts.items() if k in stress.CHANGES}
    print(f"outside-state property: {counts['calls']} calls compared with eager, {len(counts['bad'])} "
          f"mismatches; changes {changes}; {counts['stats']}")
    for line in counts["bad"][:3]:
        print("   ", line)
    return faults + len(counts["bad"])


def run_hang_check(runs, seconds, hogs=2):
    """``runs`` rebinding runs of ``seconds`` per kind, the compiled path on and off in turn, each in a
    child, under ``hogs`` busy processes; returns the number of faults (hangs included)."""
    import time
    faults, worst = 0, {}
    with stress.cpu_hogs(hogs):
        for i in range(runs):
            for kind in ("aot", "jit", "pyfunc"):
                fast = i % 2 == 0
                t0 = time.monotonic()
                code, result, err = stress.run_child("rebind", seconds, kind, fast, timeout=seconds + 240)
                took = time.monotonic() - t0
                worst[kind] = max(worst.get(kind, 0.0), took)
                bad = list(result["bad"]) if result else []
                if code != 0 or result is None:
                    what = "hang (no answer, killed)" if code is None else f"exit {code}"
                    bad.append(f"child {what}: {err[-1500:]}")
                calls = result["calls"] if result else 0
                print(f"hang check run {i + 1} {kind:<6} fastcall={int(fast)}: child {took:.1f} s, {calls} calls, "
                      f"{len(bad)} fault(s)", flush=True)
                for line in bad[:3]:
                    print("   ", line)
                faults += len(bad)
    print(f"hang check: {runs} runs of {seconds:g} s per kind under {hogs} busy processes, "
          f"{faults} faults; the slowest child per kind: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in worst.items()))
    return faults


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4000, help="in-process cases (default 4000)")
    parser.add_argument("--show", type=int, default=5, help="examples to print per bad class")
    parser.add_argument("--stress-seconds", type=float, default=20.0,
                        help="seconds of each rebinding stress run (default 20; 0 skips the stress runs)")
    parser.add_argument("--replays", type=int, default=3000,
                        help="calls of the outside-state property run (default 3000)")
    parser.add_argument("--hang-runs", type=int, default=10,
                        help="rebinding runs per kind under busy processes (default 10; 0 skips them)")
    parser.add_argument("--hang-seconds", type=float, default=2.0,
                        help="seconds of each hang-check run (default 2)")
    args = parser.parse_args()
    stress_faults = run_stress(args.stress_seconds, args.replays) if args.stress_seconds > 0 else 0
    if args.hang_runs > 0:
        stress_faults += run_hang_check(args.hang_runs, args.hang_seconds)
    if args.cases <= 0:
        return 1 if stress_faults else 0

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
    bad = sum(counts[c] for c in ("unclear", "wrong", "crash", "hang")) + stress_faults
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
