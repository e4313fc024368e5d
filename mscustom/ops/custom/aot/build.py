"""On-demand compilation of AOT kernel sources into a content-keyed cache that heals itself.

``ops.Custom("my_kernels.cc:MyFunc", ..., func_type="aot")`` builds the source
into a shared library the first time it is needed and reuses it afterwards.

The key is a hash of the exact bytes compiled (the source is read once and
the compiler is given that snapshot, so a file edited during the compile is
never cached under the old text's key), the shipped headers
(``mscustom/include``), the compiler's path and version and the flags.
Headers of your own that the source includes are not part of the key.

Compilers and flags: ``$CC`` (else ``gcc``/``cc``) for ``.c``; ``$CXX`` (else
``g++``/``c++``) for ``.cc``/``.cpp``/``.cxx`` and ``$NVCC`` (else ``nvcc``)
for ``.cu``, both as MindSpore compiles them: C++17 and
``-D_GLIBCXX_USE_CXX11_ABI=0``. The package's header folder and the source's
folder are on the include path. The cache is ``$MSCUSTOM_CACHE_DIR`` or
``~/.cache/mscustom/aot``.

Healing:

- an entry is ``<name>-<key>.so`` plus ``<name>-<key>.so.sum`` (its size and
  SHA-256); it is published only after the library was written completely
  and loaded once in a child process, the ``.sum`` last. Before use the
  library is checked against its ``.sum``; a truncated, garbled or
  half-published entry is removed and rebuilt (instead of crashing the
  process that maps it);
- builders of one entry take an OS file lock (``flock``, released by the OS
  when its process dies) and write their pid into it. A waiter breaks the lock
  (with a warning naming the holder) when the holder is stopped
  (``SIGSTOP``) for more than ``STOPPED_GRACE`` seconds or held it longer than
  ``$MSCUSTOM_BUILD_LOCK_TIMEOUT`` seconds (default 600);
- temporary files of builders that died are removed by the next build in the
  same directory;
- ``os.fork()`` while a thread builds: the child gets fresh thread locks and
  closes the lock files it inherited, so it neither hangs nor keeps the
  parent's lock alive.
"""

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

from ....log import logger as _log

__all__ = ["build_library", "cache_dir", "verify_entry", "SOURCE_SUFFIXES", "INCLUDE_DIR", "stats"]

SOURCE_SUFFIXES = {".c": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".cu": "cuda"}
INCLUDE_DIR = Path(__file__).resolve().parents[3] / "include"      # mscustom/include: the shipped headers
CACHE_ENV = "MSCUSTOM_CACHE_DIR"
TIMEOUT_ENV = "MSCUSTOM_BUILD_LOCK_TIMEOUT"
STOPPED_GRACE = 2.0            # seconds a stopped lock holder is waited for before its lock is broken
_POLL = 0.05

_FLAGS = {
    "c": ["-O3", "-fPIC", "-shared", "-fopenmp"],
    "c++": ["-O3", "-fPIC", "-shared", "-fopenmp", "-std=c++17"],
    "cuda": ["-O3", "-shared", "-std=c++17", "-Xcompiler", "-fPIC,-fopenmp"],
}
_LIBS = {"c": ["-lm"], "c++": ["-lm"], "cuda": ["-lgomp"]}
_COMPILER_ENV = {"c": ("CC", ("gcc", "cc")), "c++": ("CXX", ("g++", "c++")), "cuda": ("NVCC", ("nvcc",))}
_TMP = re.compile(r"\.(?P<stem>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp\Z")

stats = {"compiles": 0, "hits": 0, "healed": 0, "broken_locks": 0}   # this process's (tests read it)
_versions = {}
_state = {"lock": threading.Lock(), "targets": {}, "fds": set()}


def _reinit_after_fork():
    """In a forked child: fresh thread locks; close inherited build-lock files (they would keep
    the parent's flock alive after the parent released it)."""
    _state["lock"] = threading.Lock()
    _state["targets"] = {}
    for fd in list(_state["fds"]):
        try:
            os.close(fd)
        except OSError:
            pass
    _state["fds"] = set()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reinit_after_fork)


def cache_dir():
    """The directory compiled libraries go to (``$MSCUSTOM_CACHE_DIR`` or ``~/.cache/mscustom/aot``)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "mscustom" / "aot"


def build_library(source, *, cache=None, extra_flags=(), cxx11_abi=0, op_name=None):
    """Compile ``source`` (``.c``, ``.cc``, ``.cpp``, ``.cxx`` or ``.cu``) into a cached shared library.

    Returns the library's path. A second call with unchanged bytes returns the
    cached library without compiling; a failed compile raises RuntimeError
    with the command and the compiler's output. ``cxx11_abi`` sets
    ``_GLIBCXX_USE_CXX11_ABI`` for C++ and CUDA (0, as MindSpore builds).

    Example::

        lib = build_library("aot_kernels/elementwise.c")   # ~/.cache/mscustom/aot/elementwise-<hash>.so
    """
    who = f"op '{op_name}': " if op_name else "build_library: "
    source = Path(source)
    lang = SOURCE_SUFFIXES.get(source.suffix.lower())
    if lang is None:
        raise ValueError(f"{who}cannot build {str(source)!r}: expected a source file ending in "
                         f"{', '.join(SOURCE_SUFFIXES)}")
    try:
        code = source.read_bytes()                          # the snapshot that is hashed and compiled
    except OSError as exc:
        raise ValueError(f"{who}cannot read source {str(source)!r}: {exc}") from None
    compiler = _find_compiler(lang, source)
    flags = list(_FLAGS[lang])
    if lang != "c":
        flags.append(f"-D_GLIBCXX_USE_CXX11_ABI={int(bool(cxx11_abi))}")
    flags += [f"-I{INCLUDE_DIR}", f"-I{source.resolve().parent}", *extra_flags]

    digest = hashlib.sha256()
    for part in (b"mscustom-aot-2", code, _headers_bytes(), compiler.encode(),
                 _compiler_version(compiler).encode(), "\0".join(flags).encode()):
        digest.update(part)
        digest.update(b"\0")
    directory = Path(cache) if cache is not None else cache_dir()
    target = directory / f"{source.stem}-{digest.hexdigest()[:24]}.so"
    if verify_entry(target):
        stats["hits"] += 1
        _log.info("%saot source '%s' loaded from the build cache: %s", who, source, target)
        return target
    _ensure_dir(directory, who)
    with _thread_lock(target), _FileLock(Path(f"{target}.lock"), who):
        if verify_entry(target):                           # another builder published it meanwhile
            stats["hits"] += 1
            _log.info("%saot source '%s' loaded from the build cache (built by another process): %s", who,
                      source, target)
            return target
        if target.exists() or Path(f"{target}.sum").exists():
            stats["healed"] += 1                           # a corrupt or half-published entry
        _discard(target)
        _clean_dead_temps(directory)
        t0 = time.perf_counter()
        _compile(compiler, flags, source, code, lang, target, who)
        stats["compiles"] += 1
        _log.info("%saot source '%s' compiled with %s in %.1f ms: %s", who, source, compiler,
                  (time.perf_counter() - t0) * 1e3, target)
    return target


def verify_entry(library):
    """Whether ``library`` is a complete cache entry: its ``.sum`` exists and matches size and SHA-256.

    A mismatching entry (truncated, overwritten, half-published) is reported
    as missing, so the caller rebuilds it instead of mapping a broken file.
    """
    library = Path(library)
    try:
        recorded = Path(f"{library}.sum").read_text().split()
        size = library.stat().st_size
    except (OSError, ValueError):
        return False
    if len(recorded) != 2 or recorded[0] != str(size):
        return False
    return _sha256(library) == recorded[1]


def _sha256(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def _discard(target):
    for p in (Path(f"{target}.sum"), target):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def _ensure_dir(directory, who):
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=directory, prefix=".probe-", delete=True)
        probe.close()
    except OSError as exc:
        raise RuntimeError(f"{who}cannot write the aot build cache directory '{directory}' "
                           f"({exc.strerror or exc}); set ${CACHE_ENV} to a writable directory") from None


# ---------------------------------------------------------------- locks
class _thread_lock:
    """One lock per target within this process (flock does not order a process's own threads)."""

    def __init__(self, target):
        with _state["lock"]:
            self.lock = _state["targets"].setdefault(str(target), threading.Lock())

    def __enter__(self):
        self.lock.acquire()

    def __exit__(self, *exc):
        self.lock.release()


class _FileLock:
    """An exclusive ``flock`` on ``path`` holding the holder's pid; broken when its holder is stuck."""

    def __init__(self, path, who):
        self.path, self.who, self.fd = path, who, None

    def __enter__(self):
        timeout = _lock_timeout()
        start = time.monotonic()
        stopped_since = None
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pass
            else:
                if self._same_file(fd):
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{os.getpid()} {time.time():.0f}\n".encode(), 0)
                    self.fd = fd
                    return self
                # the lock file was broken (replaced) between our open and our flock: retry
            self._close(fd)
            holder, state = self._holder()
            now = time.monotonic()
            stopped_since = (stopped_since or now) if state in ("T", "t") else None
            waited = now - start
            if (stopped_since is not None and now - stopped_since >= STOPPED_GRACE) or waited >= timeout:
                self._break(holder, state, waited)
            time.sleep(_POLL)

    def __exit__(self, *exc):
        if self.fd is not None:
            try:
                if self._same_file(self.fd):
                    os.ftruncate(self.fd, 0)
            except OSError:
                pass
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            self._close(self.fd)
            self.fd = None

    def _open(self):
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise RuntimeError(f"{self.who}cannot create the build lock '{self.path}' ({exc.strerror or exc}); "
                               f"set ${CACHE_ENV} to a writable directory") from None
        _state["fds"].add(fd)
        return fd

    @staticmethod
    def _close(fd):
        _state["fds"].discard(fd)
        os.close(fd)

    def _same_file(self, fd):
        try:
            a, b = os.fstat(fd), os.stat(self.path)
        except OSError:
            return False
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)

    def _holder(self):
        """``(pid or None, process state letter or None)`` of the recorded lock holder."""
        try:
            pid = int(self.path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None, None
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            return pid, stat.rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return pid, None

    def _break(self, holder, state, waited):
        """Replace the lock file: the stuck holder keeps a lock on a file nobody else opens."""
        what = {"T": "stopped", "t": "stopped by a tracer", "R": "running", "S": "sleeping",
                "D": "in uninterruptible sleep", "Z": "a zombie"}.get(state, state)
        who = f"pid {holder}" + (f" ({what})" if what else "") if holder else "an unknown process"
        warnings.warn(f"{self.who}breaking the build lock '{self.path}' held by {who} "
                      f"after waiting {waited:.1f} s (${TIMEOUT_ENV} sets the limit)", RuntimeWarning,
                      stacklevel=4)
        stats["broken_locks"] += 1
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _lock_timeout():
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_ENV, "600")))
    except ValueError:
        raise ValueError(f"${TIMEOUT_ENV} must be a number of seconds, got "
                         f"{os.environ[TIMEOUT_ENV]!r}") from None


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clean_dead_temps(directory):
    """Remove temporary files and snapshot folders left by builders that died."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        m = _TMP.match(name)
        if m is None or _pid_alive(int(m.group("pid"))):
            continue
        path = directory / name
        try:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        except OSError:
            pass


# ---------------------------------------------------------------- compile and publish
def _compile(compiler, flags, source, code, lang, target, who):
    """Compile the snapshot ``code`` of ``source``, check the result, publish it atomically."""
    tag = f".{target.stem}.{os.getpid()}.{os.urandom(4).hex()}"
    work = Path(tempfile.mkdtemp(prefix=tag + "_", suffix=".tmp", dir=target.parent))
    try:
        snapshot = work / source.name
        snapshot.write_bytes(code)
        out = work / "lib.so"
        cmd = [compiler, *flags, str(snapshot), "-o", str(out), *_LIBS[lang]]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            output = (proc.stderr + proc.stdout).strip().replace(str(snapshot), str(source))
            raise RuntimeError(f"{who}compiling AOT kernel source {str(source)!r} failed (exit code "
                               f"{proc.returncode}):\n  {' '.join(cmd)}\n{output}")
        _check_loads(out, source, who)
        size, digest = out.stat().st_size, _sha256(out)
        os.chmod(out, 0o755)
        os.replace(out, target)                     # atomic: readers see no file or the whole library
        sum_tmp = work / "lib.sum"
        sum_tmp.write_text(f"{size} {digest}\n")
        os.replace(sum_tmp, f"{target}.sum")        # published: from here on verify_entry accepts it
    finally:
        shutil.rmtree(work, ignore_errors=True)


_LOAD_CHECK = "import ctypes, sys\nctypes.CDLL(sys.argv[1])\n"


def _check_loads(library, source, who):
    """Load the fresh library once in a child process, so a library that cannot load is never cached."""
    proc = subprocess.run([sys.executable, "-S", "-c", _LOAD_CHECK, str(library)], capture_output=True,
                          text=True, timeout=120)
    if proc.returncode != 0:
        detail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        raise RuntimeError(f"{who}the library compiled from {str(source)!r} does not load: {detail[0]}")


def _find_compiler(lang, source):
    env, names = _COMPILER_ENV[lang]
    wanted = os.environ.get(env)
    candidates = [wanted] if wanted else list(names)
    for name in candidates:
        found = shutil.which(name)
        if found:
            return os.path.realpath(found)
    raise RuntimeError(f"cannot build {str(source)!r}: no {lang} compiler found (tried "
                       f"{', '.join(candidates)}); install one or set ${env}")


def _compiler_version(compiler):
    version = _versions.get(compiler)
    if version is None:
        try:
            proc = subprocess.run([compiler, "--version"], capture_output=True, text=True)
            version = proc.stdout.strip()
        except OSError as exc:
            raise RuntimeError(f"cannot run compiler {compiler!r}: {exc}") from None
        _versions[compiler] = version
    return version


def _headers_bytes():
    parts = []
    for name in ("mscustom_aot.h", "custom_aot_extra.h"):
        try:
            parts.append((INCLUDE_DIR / name).read_bytes())
        except OSError:
            parts.append(b"")
    return b"\0".join(parts)
