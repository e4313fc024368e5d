"""A tqdm progress bar over steps when stdout is a terminal; nothing otherwise (logs and pipes stay clean)."""

import sys

__all__ = ["progress_bar"]


class _NoBar:
    def step(self, loss):
        pass

    def close(self):
        pass


class _Bar:
    """tqdm over steps, showing the latest loss (redrawn at tqdm's own pace)."""

    def __init__(self, total, desc, stream):
        from tqdm import tqdm
        self._bar = tqdm(total=total, desc=desc, unit="step", leave=False, file=stream, dynamic_ncols=True)

    def step(self, loss):
        from .callback import _loss_value
        value = _loss_value(loss)
        if value is not None:
            self._bar.set_postfix_str(f"loss={value:.4f}", refresh=False)
        self._bar.update(1)

    def close(self):
        self._bar.close()


def progress_bar(total, desc):
    """A bar of ``total`` steps labelled ``desc`` on a terminal, else an object that does nothing."""
    stream = sys.stdout
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return _NoBar()
    return _Bar(total, desc, stream)
