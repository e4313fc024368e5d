"""On-demand compilation of AOT kernel sources into a content-keyed cache.

``ops.Custom("my_kernels.c:MyFunc", ..., func_type="aot")`` builds
``my_kernels.c`` into a shared library the first time it is needed and reuses
it afterwards. The cache key is a hash of the source's content, the content of
the ABI header ``mscustom_aot.h``, the compiler's path and version and the
flags, so editing the source (not touching it) rebuilds, and a different
compiler never reuses another one's library. Headers other than
``mscustom_aot.h`` that the source includes are not part of the key.

Concurrency: one OS file lock (``fcntl.flock``) per library serialises
builders; the OS drops it when its process dies, so a crashed build never
leaves a stale lock. The compiler writes to a temporary file that is renamed
into place atomically, so no process ever loads a half-written library.

Compilers: ``$CC`` (else ``gcc``/``cc``) for ``.c``, ``$CXX`` (else
``g++``/``c++``) for ``.cc``/``.cpp``/``.cxx``, ``$NVCC`` (else ``nvcc``) for
``.cu``. The cache directory is ``$MSCUSTOM_CACHE_DIR`` or
``~/.cache/mscustom/aot``.
"""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

__all__ = ["build_library", "cache_dir", "SOURCE_SUFFIXES", "stats"]

SOURCE_SUFFIXES = {".c": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".cu": "cuda"}
HEADER_NAME = "mscustom_aot.h"
_HEADER_DIR = Path(__file__).resolve().parents[3] / "aot_kernels"

_FLAGS = {
    "c": ["-O3", "-fPIC", "-shared", "-fopenmp"],
    "c++": ["-O3", "-fPIC", "-shared", "-fopenmp"],
    "cuda": ["-O3", "-shared", "-Xcompiler", "-fPIC,-fopenmp"],
}
_LIBS = {"c": ["-lm"], "c++": ["-lm"], "cuda": ["-lgomp"]}
_COMPILER_ENV = {"c": ("CC", ("gcc", "cc")), "c++": ("CXX", ("g++", "c++")), "cuda": ("NVCC", ("nvcc",))}

stats = {"compiles": 0, "hits": 0}     # this process's builds and cache hits (tests read it)
_versions = {}
_lock = threading.Lock()               # flock is per process; this one guards threads


def cache_dir():
    """The directory compiled libraries go to (``$MSCUSTOM_CACHE_DIR`` or ``~/.cache/mscustom/aot``)."""
    env = os.environ.get("MSCUSTOM_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "mscustom" / "aot"


def build_library(source, *, cache=None, extra_flags=()):
    """Compile ``source`` (``.c``, ``.cc``, ``.cpp``, ``.cxx`` or ``.cu``) into a cached shared library.

    Returns the library's path. A second call with an unchanged source returns
    the cached library without compiling; a failed compile raises RuntimeError
    with the command and the compiler's output.

    Example::

        lib = build_library("aot_kernels/elementwise.c")   # ~/.cache/mscustom/aot/elementwise-<hash>.so
    """
    source = Path(source)
    lang = SOURCE_SUFFIXES.get(source.suffix.lower())
    if lang is None:
        raise ValueError(f"build_library: cannot build {str(source)!r}: expected a source file ending in "
                         f"{', '.join(SOURCE_SUFFIXES)}")
    try:
        code = source.read_bytes()
    except OSError as exc:
        raise ValueError(f"build_library: cannot read source {str(source)!r}: {exc}") from None
    compiler = _find_compiler(lang, source)
    flags = _FLAGS[lang] + [f"-I{source.resolve().parent}"]
    if (_HEADER_DIR / HEADER_NAME).is_file():
        flags.append(f"-I{_HEADER_DIR}")
    flags += list(extra_flags)

    digest = hashlib.sha256()
    for part in (b"mscustom-aot-1", code, _header_bytes(), compiler.encode(),
                 _compiler_version(compiler).encode(), "\0".join(flags).encode()):
        digest.update(part)
        digest.update(b"\0")
    directory = Path(cache) if cache is not None else cache_dir()
    target = directory / f"{source.stem}-{digest.hexdigest()[:24]}.so"
    if target.is_file():
        stats["hits"] += 1
        return target
    directory.mkdir(parents=True, exist_ok=True)
    with _lock, open(f"{target}.lock", "a+") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            if target.is_file():            # another process built it while we waited
                stats["hits"] += 1
                return target
            _compile(compiler, flags, source, target)
            stats["compiles"] += 1
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)
    return target


def _compile(compiler, flags, source, target):
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    lang = SOURCE_SUFFIXES[source.suffix.lower()]
    cmd = [compiler, *flags, str(source), "-o", tmp, *_LIBS[lang]]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            output = (proc.stderr + proc.stdout).strip()
            raise RuntimeError(f"compiling AOT kernel source {str(source)!r} failed (exit code "
                               f"{proc.returncode}):\n  {' '.join(cmd)}\n{output}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)             # atomic: readers see no file or the whole library
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
    with _lock:
        version = _versions.get(compiler)
    if version is None:
        try:
            proc = subprocess.run([compiler, "--version"], capture_output=True, text=True)
            version = proc.stdout.strip()
        except OSError as exc:
            raise RuntimeError(f"cannot run compiler {compiler!r}: {exc}") from None
        with _lock:
            _versions[compiler] = version
    return version


def _header_bytes():
    try:
        return (_HEADER_DIR / HEADER_NAME).read_bytes()
    except OSError:
        return b""
