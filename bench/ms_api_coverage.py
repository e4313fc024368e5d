"""How much of MindSpore 2.10's public API mscustom provides, per namespace.

The name lists are ``bench/data/mindspore_2_10_names.json`` (taken from a running MindSpore 2.10:
``__all__`` of ``mindspore.ops`` (lowercase: functions), ``mindspore.nn``, ``mindspore.numpy``,
``mindspore`` and ``dir(mindspore.Tensor)``). A name counts as present when the matching mscustom
object has an attribute of that name.

    python bench/ms_api_coverage.py                 # per-namespace table
    python bench/ms_api_coverage.py --missing ops   # also the names ops lacks
"""

import argparse
import json
import pathlib

NAMES_FILE = pathlib.Path(__file__).resolve().parent / "data" / "mindspore_2_10_names.json"
NAMESPACES = ("ops", "tensor", "nn", "numpy", "top")


def load_names():
    """The JSON document: lists per namespace plus ``goals_percent``."""
    return json.loads(NAMES_FILE.read_text())


def namespace_objects():
    """mscustom's object standing for each MindSpore namespace."""
    import mscustom
    import mscustom.numpy as mnp
    from mscustom import nn, ops
    return {"ops": ops, "tensor": mscustom.Tensor, "nn": nn, "numpy": mnp, "top": mscustom}


def coverage():
    """``{namespace: (present names, missing names, goal percent)}``."""
    data, objs = load_names(), namespace_objects()
    out = {}
    for ns in NAMESPACES:
        names = data[ns]
        have = [n for n in names if hasattr(objs[ns], n)]
        missing = [n for n in names if n not in set(have)]
        out[ns] = (have, missing, data["goals_percent"][ns])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", choices=NAMESPACES, action="append", default=[],
                        help="also list the names this namespace lacks (repeatable)")
    args = parser.parse_args(argv)
    cov = coverage()
    print(f"{'namespace':10} {'present':>8} {'total':>6} {'percent':>8} {'goal':>5}")
    for ns, (have, missing, goal) in cov.items():
        total = len(have) + len(missing)
        pct = 100.0 * len(have) / total
        flag = "" if pct >= goal else "  BELOW GOAL"
        print(f"{ns:10} {len(have):8d} {total:6d} {pct:7.1f}% {goal:4d}%{flag}")
    for ns in args.missing:
        print(f"\nmissing in {ns} ({len(cov[ns][1])}):")
        for name in cov[ns][1]:
            print(f"  {name}")


if __name__ == "__main__":
    main()
