"""Coverage of MindSpore 2.10's public names cannot silently regress: each namespace keeps at least
its goal share of MindSpore's list (``bench/data/mindspore_2_10_names.json``)."""

import mscustom.numpy  # noqa: F401 - the mindspore.numpy counterpart is a submodule, imported explicitly

from bench.ms_api_coverage import NAMESPACES, coverage, load_names


def test_name_lists_are_mindspore_2_10s():
    data = load_names()
    sizes = {ns: len(data[ns]) for ns in NAMESPACES}
    assert sizes == {"ops": 887, "tensor": 430, "nn": 266, "numpy": 249, "top": 256}
    assert all(data[ns] == sorted(set(data[ns])) for ns in NAMESPACES)


def test_each_namespace_meets_its_goal():
    below = []
    for ns, (have, missing, goal) in coverage().items():
        pct = 100.0 * len(have) / (len(have) + len(missing))
        if pct < goal:
            below.append(f"{ns}: {len(have)}/{len(have) + len(missing)} = {pct:.1f}% < {goal}%")
    assert not below, "coverage of MindSpore 2.10 names fell below the goal:\n" + "\n".join(below)
