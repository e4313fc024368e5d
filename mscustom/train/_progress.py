"""A tqdm progress bar over steps when stdout is a terminal; nothing otherwise (logs and pipes stay clean)."""

import sys

__all__ = ["progress_bar"]


class _NoBar:
    def update(self, n=1):
        pass

    def set_postfix_str(self, s):
        pass

    def close(self):
        pass


def progress_bar(total, desc):
    """A bar of ``total`` steps labelled ``desc`` on a terminal, else an object that does nothing."""
    stream = sys.stdout
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return _NoBar()
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="step", leave=False, file=stream, dynamic_ncols=True)
