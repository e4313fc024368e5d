"""One rank of ``python -m mscustom.run``: prefix output lines with the rank, join the group, run the script.

``python .../mscustom/_launch_rank.py [--no-prefix] script ARGS`` (mpiexec starts
it on every rank, by path): stdout and stderr write whole lines, each prefixed ``[rank] ``;
``mscustom.communication.init()`` runs before the script (so one rank's
exception, even at the script's top, stops every rank with its traceback);
then the script runs as ``__main__`` with ``sys.argv = [script, *ARGS]``.
"""

import io
import os
import runpy
import sys


class _Prefixed(io.TextIOBase):
    """A text stream that writes whole lines to ``raw``, each starting with ``prefix``."""

    def __init__(self, raw, prefix):
        self._raw, self._prefix, self._pending = raw, prefix, ""

    def writable(self):
        return True

    def write(self, s):
        text = self._pending + s
        lines = text.split("\n")
        self._pending = lines.pop()
        if lines:
            self._raw.write("".join(f"{self._prefix}{line}\n" for line in lines))
            self._raw.flush()
        return len(s)

    def flush(self):
        if self._pending:
            self._raw.write(self._prefix + self._pending)
            self._pending = ""
        self._raw.flush()

    def fileno(self):
        return self._raw.fileno()

    @property
    def encoding(self):
        return self._raw.encoding

    def isatty(self):
        return False


def _rank_from_env():
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"):
        if var in os.environ:
            return os.environ[var]
    return "0"


def _exit_all(code):
    from mscustom.communication import _engine
    world = _engine.STATE.world
    if code in (None, 0) or world is None or world.size == 1:
        return
    status = code if isinstance(code, int) and 0 < code < 256 else 1
    sys.stderr.flush()
    _engine.abort_with_message(world, f"mscustom.run: rank {world.rank} of {world.size} exits with status "
                                      f"{code!r}; stopping every rank\n", status)


def main(argv):
    prefix = True
    if argv and argv[0] == "--no-prefix":
        prefix, argv = False, argv[1:]
    if not argv:
        sys.stderr.write("usage: python mscustom/_launch_rank.py [--no-prefix] script [args...]\n")
        return 2
    tag = f"[{_rank_from_env()}] " if prefix else ""      # whole lines either way: ranks never mix a line
    sys.stdout = _Prefixed(sys.stdout, tag)
    sys.stderr = _Prefixed(sys.stderr, tag)
    from mscustom.communication import init
    init()
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exc:           # sys.exit(non-zero) on one rank stops every rank, saying so
        _exit_all(exc.code)
        raise
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]         # run by path: mscustom's own folder must not shadow the script's imports
    sys.exit(main(sys.argv[1:]))
