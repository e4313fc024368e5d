"""A tqdm progress bar over steps when stdout is a terminal; nothing otherwise (logs and pipes stay clean).

While a bar is drawn, ``sys.stdout`` writes whole lines above it
(``tqdm.write``), so what callbacks print (``LossMonitor``) is not glued to
the end of the bar's line.
"""

import sys

__all__ = ["progress_bar"]


class _NoBar:
    def step(self, loss):
        pass

    def close(self):
        pass


class _AboveBar:
    """Stands in for ``sys.stdout`` while a bar is drawn: each finished line is written above the bar."""

    def __init__(self, stream):
        self._stream = stream
        self._pending = ""

    def write(self, text):
        from tqdm import tqdm
        self._pending += text
        if "\n" in self._pending:
            lines, _, self._pending = self._pending.rpartition("\n")
            tqdm.write(lines, file=self._stream)
        return len(text)

    def flush(self):
        self._stream.flush()

    def finish(self):
        """Write what is left of an unfinished line to the stream itself."""
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""

    def __getattr__(self, name):                # isatty, encoding, fileno, ... of the real stream
        return getattr(self._stream, name)


class _Bar:
    """tqdm over steps, showing the latest loss (redrawn at tqdm's own pace)."""

    def __init__(self, total, desc, stream):
        from tqdm import tqdm
        self._bar = tqdm(total=total, desc=desc, unit="step", leave=False, file=stream, dynamic_ncols=True)
        self._stream = stream
        self._above = sys.stdout = _AboveBar(stream)

    def step(self, loss):
        from .callback import _loss_value
        value = _loss_value(loss)
        if value is not None:
            self._bar.set_postfix_str(f"loss={value:.4f}", refresh=False)
        self._bar.update(1)

    def close(self):
        self._bar.close()
        self._above.finish()
        if sys.stdout is self._above:
            sys.stdout = self._stream


def progress_bar(total, desc):
    """A bar of ``total`` steps labelled ``desc`` on a terminal, else an object that does nothing."""
    stream = sys.stdout
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return _NoBar()
    return _Bar(total, desc, stream)
