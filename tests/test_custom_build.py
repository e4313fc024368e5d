"""On-demand builds of AOT kernel sources (mscustom/ops/custom/build.py)."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mscustom.ops.custom.aot import build

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None and shutil.which("cc") is None,
                                reason="needs a C compiler")

SCALE_SRC = textwrap.dedent("""
    #include "mscustom_aot.h"
    int Twice(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
              void *stream, void *extra) {
      int64_t i, n = ms_numel(ndims[0], shapes[0]);
      (void)stream; (void)extra;
      if (nparam != 2 || !ms_dtype_is(dtypes[0], "float64")) return MS_ERR_DTYPE;
      for (i = 0; i < n; ++i) ((double *)params[1])[i] = FACTOR * ((double *)params[0])[i];
      return MS_OK;
    }
""")


def _write(path, factor):
    path.write_text(f"#define FACTOR {factor}\n" + SCALE_SRC)
    return path


def _call_twice(lib_path, x):
    import cffi
    ffi = cffi.FFI()
    ffi.cdef("int Twice(int, void **, int *, int64_t **, const char **, void *, void *);")
    lib = ffi.dlopen(str(lib_path))
    out = np.empty_like(x)
    params = ffi.new("void *[]", [ffi.from_buffer(x), ffi.from_buffer(out)])
    shape = ffi.new("int64_t[]", [x.size])
    name = ffi.new("char[]", b"float64")
    rc = lib.Twice(2, params, ffi.new("int[]", [1, 1]), ffi.new("int64_t *[]", [shape, shape]),
                   ffi.new("char *[]", [name, name]), ffi.NULL, ffi.NULL)
    assert rc == 0
    return out


def test_build_compiles_with_the_abi_header_and_the_library_works(tmp_path):
    src = _write(tmp_path / "twice.c", 2.0)
    lib = build.build_library(src, cache=tmp_path / "cache")
    assert lib.is_file() and lib.parent == tmp_path / "cache" and lib.name.startswith("twice-")
    x = np.array([1.0, -2.5, 4.0])
    np.testing.assert_allclose(_call_twice(lib, x), 2.0 * x)


def test_second_build_is_a_cache_hit_without_compiling(tmp_path):
    src = _write(tmp_path / "twice.c", 2.0)
    lib = build.build_library(src, cache=tmp_path / "cache")
    mtime = lib.stat().st_mtime_ns
    compiles, hits = build.stats["compiles"], build.stats["hits"]
    os.utime(src)                       # touching the source changes nothing: the key is its content
    again = build.build_library(src, cache=tmp_path / "cache")
    assert again == lib
    assert lib.stat().st_mtime_ns == mtime
    assert build.stats["compiles"] == compiles
    assert build.stats["hits"] == hits + 1


def test_changed_content_rebuilds_into_a_new_library(tmp_path):
    src = _write(tmp_path / "twice.c", 2.0)
    first = build.build_library(src, cache=tmp_path / "cache")
    compiles = build.stats["compiles"]
    _write(src, 3.0)
    second = build.build_library(src, cache=tmp_path / "cache")
    assert second != first and build.stats["compiles"] == compiles + 1
    np.testing.assert_allclose(_call_twice(second, np.array([1.0, 2.0])), [3.0, 6.0])


def test_flags_are_part_of_the_key(tmp_path):
    src = _write(tmp_path / "twice.c", 2.0)
    plain = build.build_library(src, cache=tmp_path / "cache")
    flagged = build.build_library(src, cache=tmp_path / "cache", extra_flags=["-DUNUSED=1"])
    assert plain != flagged and plain.is_file() and flagged.is_file()


def test_compile_error_reports_the_compiler_output(tmp_path):
    src = tmp_path / "broken.c"
    src.write_text("int Broken(void) { return undeclared_name; }\n")
    with pytest.raises(RuntimeError, match=r"(?s)compiling AOT kernel source .*broken\.c.* failed.*"
                                           r"undeclared_name"):
        build.build_library(src, cache=tmp_path / "cache")
    # nothing half-built is left behind
    assert not [p for p in (tmp_path / "cache").iterdir() if p.suffix in (".so", ".tmp")]


def test_unknown_suffix_and_missing_source_are_value_errors(tmp_path):
    with pytest.raises(ValueError, match=r"expected a source file ending in \.c"):
        build.build_library(tmp_path / "kernels.f90", cache=tmp_path)
    with pytest.raises(ValueError, match=r"cannot read source .*missing\.c"):
        build.build_library(tmp_path / "missing.c", cache=tmp_path)


def test_missing_compiler_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-compiler-xyz")
    with pytest.raises(RuntimeError, match=r"no c compiler found \(tried no-such-compiler-xyz\).*\$CC"):
        build.build_library(_write(tmp_path / "twice.c", 2.0), cache=tmp_path)


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert build.cache_dir() == tmp_path / "elsewhere"
    lib = build.build_library(_write(tmp_path / "twice.c", 2.0))
    assert lib.parent == tmp_path / "elsewhere"
    monkeypatch.delenv("MSCUSTOM_CACHE_DIR")
    assert build.cache_dir() == Path.home() / ".cache" / "mscustom" / "aot"


_BUILDER = """
import sys
from mscustom.ops.custom.aot import build
path = build.build_library(sys.argv[1], cache=sys.argv[2])
print(path, build.stats["compiles"])
"""


def test_two_processes_building_the_same_source_share_one_library(tmp_path):
    src = _write(tmp_path / "twice.c", 5.0)
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-c", _BUILDER, str(src), str(cache)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), results
    paths = {out.split()[0] for out, _ in results}
    compiles = sorted(int(out.split()[1]) for out, _ in results)
    assert len(paths) == 1 and compiles == [0, 1]      # one built it, the other waited and reused it
    files = sorted(p.name for p in cache.iterdir() if not p.name.endswith((".lock", ".sum")))
    assert files == [Path(paths.pop()).name]          # no temporary files left
    assert build.verify_entry(cache / files[0])        # published with its checksum
    np.testing.assert_allclose(_call_twice(cache / files[0], np.array([1.0])), [5.0])


_LOCK_HOLDER = """
import fcntl, sys, time
f = open(sys.argv[1], "a+")
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(60)
"""


def test_a_killed_builder_leaves_no_stale_lock(tmp_path):
    src = _write(tmp_path / "twice.c", 2.0)
    lib = build.build_library(src, cache=tmp_path / "cache")
    lib.unlink()
    holder = subprocess.Popen([sys.executable, "-c", _LOCK_HOLDER, f"{lib}.lock"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    holder.send_signal(signal.SIGKILL)                # dies holding the lock
    holder.wait(timeout=10)
    assert build.build_library(src, cache=tmp_path / "cache") == lib and lib.is_file()
