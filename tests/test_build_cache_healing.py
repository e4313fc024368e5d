"""The aot build cache heals itself: each subject runs in a child process with a deadline
(a hang fails the test instead of stalling the suite)."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mscustom.ops.custom.aot import build

REPO = Path(__file__).resolve().parents[1]
GCC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(GCC is None or not hasattr(signal, "SIGSTOP"), reason="needs gcc and POSIX signals")

SRC = textwrap.dedent("""
    #include "mscustom_aot.h"
    int Twice(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
              void *stream, void *extra) {
      int64_t i, n = ms_numel(ndims[0], shapes[0]);
      (void)stream; (void)extra; (void)dtypes; (void)nparam;
      for (i = 0; i < n; ++i) ((double *)params[1])[i] = FACTOR * ((double *)params[0])[i];
      return MS_OK;
    }
""")

# Builds through ops.Custom, calls the kernel on [1.5], prints result, compiles, healed, broken locks.
USE = textwrap.dedent("""
    import sys, warnings
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops.custom.aot import build
    warnings.simplefilter("always")
    op = ops.Custom(sys.argv[1] + ":Twice", lambda x: x, lambda x: x, func_type="aot", name="twice")
    out = op(ms.Tensor(np.array([1.5]))).asnumpy()[0]
    print(out, build.stats["compiles"], build.stats["healed"], build.stats["broken_locks"])
""")

# A compiler wrapper: can edit the source (SLOWCC_EDIT), say it started, and sleep before compiling.
SLOWCC = textwrap.dedent(f"""\
    #!/bin/sh
    case "$*" in *--version*) exec {GCC} "$@";; esac
    [ -n "$SLOWCC_EDIT" ] && sed -i 's/FACTOR 2.0/FACTOR 3.0/' "$SLOWCC_EDIT"
    [ -n "$SLOWCC_STARTED" ] && touch "$SLOWCC_STARTED"
    [ -n "$SLOWCC_SLEEP" ] && sleep "$SLOWCC_SLEEP"
    exec {GCC} "$@"
""")


def _source(tmp_path, factor=2.0):
    path = tmp_path / "twice.c"
    path.write_text(f"#define FACTOR {factor}\n" + SRC)
    return path


def _slowcc(tmp_path):
    path = tmp_path / "slowcc"
    path.write_text(SLOWCC)
    path.chmod(0o755)
    return path


def _env(cache, **extra):
    env = dict(os.environ, MSCUSTOM_CACHE_DIR=str(cache), PYTHONWARNINGS="always", **extra)
    env.pop("MSCUSTOM_AOT_CALLER", None)
    return env


def _run(code, *args, env, timeout=90):
    try:
        return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (no result within {timeout} s): {exc.stderr}")


def _cached_library(tmp_path, src, cache):
    return build.build_library(src, cache=cache)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "no checksum"])
def test_a_damaged_entry_is_detected_before_loading_and_rebuilt(tmp_path, damage):
    src, cache = _source(tmp_path), tmp_path / "cache"
    lib = _cached_library(tmp_path, src, cache)
    data = lib.read_bytes()
    if damage == "truncate":                          # a builder (or a disk) cut it short
        lib.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        lib.write_bytes(os.urandom(len(data)))
    else:                                             # killed between publishing the library and its .sum
        Path(f"{lib}.sum").unlink()
    proc = _run(USE, src, env=_env(cache))
    assert proc.returncode == 0, proc.stderr             # before: SIGBUS / a crash in dlopen, every time
    out, compiles, healed, _ = proc.stdout.split()
    assert float(out) == 3.0 and compiles == "1" and healed == "1"
    assert build.verify_entry(lib) and lib.read_bytes() != b""


def test_a_source_edited_during_the_compile_is_not_cached_under_the_old_text(tmp_path):
    src, cache = _source(tmp_path, 2.0), tmp_path / "cache"
    cc = _slowcc(tmp_path)
    first = _run(USE, src, env=_env(cache, CC=str(cc), SLOWCC_EDIT=str(src)))
    assert first.returncode == 0, first.stderr
    assert float(first.stdout.split()[0]) == 3.0      # the text that was hashed (FACTOR 2.0) was compiled
    assert "FACTOR 3.0" in src.read_text()            # the wrapper did edit the file meanwhile
    again = _run(USE, src, env=_env(cache, CC=str(cc)))
    assert again.returncode == 0, again.stderr
    out, compiles, _, _ = again.stdout.split()
    assert float(out) == 4.5 and compiles == "1"      # the new text has its own key and is built


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from mscustom.ops.custom.aot import build
    lock = build._FileLock(Path(sys.argv[1]), "holder: ")
    lock.__enter__()
    print("locked", flush=True)
    time.sleep(300)
""")


def _hold_lock(tmp_path, src, cache):
    lib = _cached_library(tmp_path, src, cache)
    build._discard(lib)                                # the entry is gone; its lock is held by another process
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, f"{lib}.lock"], cwd=REPO, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder, lib


def test_a_stopped_lock_holder_is_broken_with_a_message_naming_it(tmp_path):
    src, cache = _source(tmp_path), tmp_path / "cache"
    holder, lib = _hold_lock(tmp_path, src, cache)
    try:
        holder.send_signal(signal.SIGSTOP)
        start = time.monotonic()
        proc = _run(USE, src, env=_env(cache), timeout=60)   # before: waited forever
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split()[1:] == ["1", "0", "1"]
        assert f"breaking the build lock '{lib}.lock' held by pid {holder.pid} (stopped)" in proc.stderr
        assert time.monotonic() - start < 30
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_held_past_the_timeout_is_broken(tmp_path):
    src, cache = _source(tmp_path), tmp_path / "cache"
    holder, lib = _hold_lock(tmp_path, src, cache)
    try:
        proc = _run(USE, src, env=_env(cache, MSCUSTOM_BUILD_LOCK_TIMEOUT="1"), timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert f"held by pid {holder.pid} (sleeping) after waiting" in proc.stderr and "MSCUSTOM_BUILD_LOCK_TIMEOUT" in proc.stderr
    finally:
        holder.kill()
        holder.wait()


BUILD_ONLY = "import sys\nfrom mscustom.ops.custom.aot import build\nbuild.build_library(sys.argv[1], cache=sys.argv[2])\n"


def test_temporary_files_of_a_killed_builder_are_cleaned(tmp_path):
    src, cache = _source(tmp_path), tmp_path / "cache"
    started = tmp_path / "started"
    env = _env(cache, CC=str(_slowcc(tmp_path)), SLOWCC_STARTED=str(started), SLOWCC_SLEEP="60")
    builder = subprocess.Popen([sys.executable, "-c", BUILD_ONLY, str(src), str(cache)], cwd=REPO, env=env,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert time.monotonic() < deadline and builder.poll() is None, "the builder did not start compiling"
            time.sleep(0.05)
    finally:
        os.killpg(builder.pid, signal.SIGKILL)        # killed mid-compile, with its compiler
        builder.wait()
    assert any(p.name.endswith(".tmp") for p in cache.iterdir())
    proc = _run(USE, src, env=_env(cache))
    assert proc.returncode == 0, proc.stderr
    assert not any(p.name.endswith(".tmp") for p in cache.iterdir())   # before: left behind forever


def test_an_unwritable_cache_directory_names_the_op_the_directory_and_the_variable(tmp_path):
    src = _source(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    cache = blocker / "cache"
    proc = _run(USE, src, env=_env(cache))
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: op 'twice': cannot write the aot build cache directory")
    assert str(cache) in last and "MSCUSTOM_CACHE_DIR" in last


FORK_WHILE_BUILDING = textwrap.dedent("""
    import os, sys, threading, time
    from mscustom.ops.custom.aot import build
    src, cache, started = sys.argv[1:4]
    t = threading.Thread(target=build.build_library, args=(src,), kwargs={"cache": cache})
    t.start()
    while not os.path.exists(started):
        time.sleep(0.01)
    pid = os.fork()                     # another thread holds the build locks right now
    if pid == 0:
        lib = build.build_library(src, cache=cache)
        os._exit(0 if build.verify_entry(lib) else 3)
    _, status = os.waitpid(pid, 0)
    t.join()
    print("child", os.waitstatus_to_exitcode(status), flush=True)
""")


def test_fork_while_another_thread_builds_does_not_hang_the_child(tmp_path):
    src, cache = _source(tmp_path), tmp_path / "cache"
    started = tmp_path / "started"
    env = _env(cache, CC=str(_slowcc(tmp_path)), SLOWCC_STARTED=str(started), SLOWCC_SLEEP="1")
    proc = _run(FORK_WHILE_BUILDING, src, cache, started, env=env, timeout=60)   # before: the child hung
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["child", "0"]


def test_a_cached_library_given_by_path_is_checked_against_its_checksum(tmp_path):
    import mscustom as ms
    src, cache = _source(tmp_path), tmp_path / "cache"
    lib = _cached_library(tmp_path, src, cache)
    lib.write_bytes(lib.read_bytes()[:100])
    with pytest.raises(ValueError, match=r"op 'twice': AOT library .* does not match its recorded checksum"):
        ms.ops.Custom(f"{lib}:Twice", lambda x: x, lambda x: x, func_type="aot", name="twice")
