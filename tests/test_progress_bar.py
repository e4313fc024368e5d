"""The training progress bar: drawn only on a terminal, and lines printed while it is drawn go above it."""

import io
import sys

from mscustom.train._progress import progress_bar


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_no_bar_and_stdout_untouched_off_a_terminal(monkeypatch):
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stdout", pipe)
    bar = progress_bar(3, "epoch 1/1")
    assert sys.stdout is pipe
    print("loss is 0.5")
    bar.step(0.5)
    bar.close()
    assert pipe.getvalue() == "loss is 0.5\n"


def test_lines_printed_during_a_bar_go_above_it_not_onto_its_line(monkeypatch):
    term = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", term)
    bar = progress_bar(3, "epoch 1/1")
    assert sys.stdout is not term and sys.stdout.isatty()
    bar.step(0.25)
    print("epoch: 1 step: 1, loss is 0.25")
    print("half a line", end="")
    bar.step(0.125)
    bar.close()
    assert sys.stdout is term                               # restored when the bar closes
    out = term.getvalue()
    before, line, _ = out.partition("epoch: 1 step: 1, loss is 0.25\n")
    assert line and before.endswith("\r")                   # the bar's line was cleared first
    assert "epoch 1/1" in before and out.endswith("half a line")
