"""``mscustom.log`` (``ms.log``): the library's log, set by ``GLOG_v`` as MindSpore's ``mindspore.log`` is.

Everything the library logs goes to the stdlib ``logging`` logger named
``"mscustom"``. Its level comes from the environment when the package is
imported, with MindSpore's numbers:

========  ==========  ============================================================
GLOG_v    level       what you see
========  ==========  ============================================================
0         DEBUG       also: every guard a record carries, the first replay of each
                      record, Numba disk-cache loads of hybrid kernels
1         INFO        kernel builds (jit, aot, hybrid) with their time, disk-cache
                      hits, reg-info casts, graph-mode records and re-records (why)
2         WARNING     the default: quiet
3         ERROR
4         CRITICAL
========  ==========  ============================================================

Messages go to stderr (``GLOG_logtostderr=1``, the default) or, with
``GLOG_logtostderr=0``, to ``$GLOG_log_dir/rank_0/logs/mscustom.log.<pid>``.
Lines read as MindSpore's do::

    [INFO] MSCUSTOM(1234:1403,MainProcess):2025-01-31-12:00:00.123.456 [mscustom/graph.py:270] ...

Nothing is logged on a warm call's path: only where something is compiled,
loaded, recorded or found stale. The level can also be changed at run time
with the stdlib: ``logging.getLogger("mscustom").setLevel(logging.INFO)``.

Example::

    GLOG_v=1 python train.py        # what is compiled, cached and recorded, and why
"""

import logging
import os
import sys
import time

__all__ = ["debug", "info", "warning", "error", "critical", "get_level", "get_log_config", "logger"]

LOGGER_NAME = "mscustom"
_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR, 4: logging.CRITICAL}
_NUMBERS = {v: k for k, v in _LEVELS.items()}
_DEFAULT = 2
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

logger = logging.getLogger(LOGGER_NAME)
_config = {}


def _env_level():
    raw = os.environ.get("GLOG_v", "").strip()
    if not raw:
        return _DEFAULT
    if raw not in ("0", "1", "2", "3", "4"):
        raise ValueError(f"mscustom.log: GLOG_v must be 0 (DEBUG), 1 (INFO), 2 (WARNING), 3 (ERROR) or "
                         f"4 (CRITICAL), got {raw!r}")
    return int(raw)


class _Formatter(logging.Formatter):
    """MindSpore's line: ``[LEVEL] MSCUSTOM(pid:thread,process):date-time.ms.us [file:line] message``."""

    def format(self, record):
        t = record.created
        stamp = time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime(t))
        micros = int((t - int(t)) * 1e6)
        path = record.pathname
        if path.startswith(_PACKAGE_PARENT + os.sep):
            path = os.path.relpath(path, _PACKAGE_PARENT)
        msg = record.getMessage()
        if record.exc_info:
            msg = msg + "\n" + self.formatException(record.exc_info)
        return (f"[{record.levelname}] MSCUSTOM({record.process}:{record.thread},{record.processName}):"
                f"{stamp}.{micros // 1000:03d}.{micros % 1000:03d} [{path}:{record.lineno}] {msg}")


def _setup():
    """Configure the ``mscustom`` logger from ``GLOG_v``, ``GLOG_logtostderr`` and ``GLOG_log_dir``."""
    level = _env_level()
    to_stderr = os.environ.get("GLOG_logtostderr", "1").strip() != "0"
    _config.clear()
    _config.update({"GLOG_v": str(level), "GLOG_logtostderr": "1" if to_stderr else "0"})
    if to_stderr:
        handler = logging.StreamHandler(sys.stderr)
    else:
        base = os.environ.get("GLOG_log_dir", "").strip()
        if not base:
            raise ValueError("mscustom.log: GLOG_logtostderr=0 writes the log to files under GLOG_log_dir, "
                             "which is not set")
        directory = os.path.join(os.path.realpath(base), "rank_0", "logs")
        os.makedirs(directory, exist_ok=True)
        handler = logging.FileHandler(os.path.join(directory, f"mscustom.log.{os.getpid()}"))
        _config["GLOG_log_dir"] = directory
    handler.setFormatter(_Formatter())
    for old in list(logger.handlers):
        if getattr(old, "_mscustom", False):
            logger.removeHandler(old)
    handler._mscustom = True
    logger.addHandler(handler)
    logger.setLevel(_LEVELS[level])
    logger.propagate = False            # one line per message, whatever the root logger does


_setup()


def get_level():
    """The current level as MindSpore gives it: ``'0'`` DEBUG ... ``'2'`` WARNING (default) ... ``'4'``."""
    return str(_NUMBERS.get(logger.getEffectiveLevel(), _DEFAULT))


def get_log_config():
    """The log's settings: ``{'GLOG_v': '2', 'GLOG_logtostderr': '1'}`` (and ``GLOG_log_dir`` for files)."""
    config = dict(_config)
    config["GLOG_v"] = get_level()
    return config


def debug(msg, *args, **kwargs):
    """Log ``msg % args`` at DEBUG (shown with ``GLOG_v=0``)."""
    logger.debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs):
    """Log ``msg % args`` at INFO (shown with ``GLOG_v<=1``)."""
    logger.info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs):
    """Log ``msg % args`` at WARNING (shown by default)."""
    logger.warning(msg, *args, stacklevel=2, **kwargs)


def error(msg, *args, **kwargs):
    """Log ``msg % args`` at ERROR."""
    logger.error(msg, *args, stacklevel=2, **kwargs)


def critical(msg, *args, **kwargs):
    """Log ``msg % args`` at CRITICAL."""
    logger.critical(msg, *args, stacklevel=2, **kwargs)
