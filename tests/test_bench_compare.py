"""bench/compare.py: the side-by-side table and the file counts (the timing runs themselves are not run here)."""

import pytest

from bench import compare


def test_figures_table_gives_medians_ratio_and_spread(capsys):
    before = [{"op call": (2.0, "us")}, {"op call": (4.0, "us")}, {"op call": (3.0, "us")}]
    after = [{"op call": (1.5, "us")}, {"op call": (1.5, "us")}, {"op call": (3.0, "us"), "new": (1.0, "us")}]
    compare.print_figures(before, after, ["op call", "new"])
    lines = capsys.readouterr().out.splitlines()
    row = next(ln for ln in lines if ln.startswith("op call"))
    assert row.split()[2:] == ["3", "1.5", "us", "0.50", "2.00/2.00", "2", "1.5", "0.75"]
    assert next(ln for ln in lines if ln.startswith("new")).split()[1:] == ["-", "1"]


def test_line_counts_cover_the_layers_of_a_checkout():
    counts = compare.line_counts(compare.ROOT)
    assert "mscustom/_core/dispatch.py" in counts and "mscustom/extend.py" in counts
    assert any(p.startswith("mscustom/compat/mxnet/") for p in counts)
    assert all(n > 0 for n in counts.values())


def test_an_unknown_before_commit_is_refused_naming_it():
    with pytest.raises(SystemExit, match="compare: no commit 'no-such-rev'"):
        with compare.worktree_of("no-such-rev"):
            pass
