"""``import mscustom`` keeps freed array memory for reuse (``mscustom/_malloc.py``, glibc's mallopt).

Checked by what it is for: page faults. A loop that allocates and frees a few MiB of arrays per
round (an eager step's temporaries) faults no new pages after its first rounds once mscustom is
imported, where glibc's defaults give the top of the heap back and fault it in again every round.
"""

import os
import subprocess
import sys

import pytest

from mscustom import _malloc

_GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc") \
    if hasattr(os, "confstr") and "CS_GNU_LIBC_VERSION" in os.confstr_names else False

_SCRIPT = """
import resource, sys
import numpy as np
if sys.argv[1] == "1":
    import mscustom
def rounds(n):
    for _ in range(n):
        arrays = [np.ones(1 << 18, np.float32) for _ in range(6)]      # 6 x 1 MiB, written
        del arrays
rounds(3)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(20)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def _faults_per_round(import_mscustom, **env):
    out = subprocess.run([sys.executable, "-c", _SCRIPT, "1" if import_mscustom else "0"], capture_output=True,
                         text=True, timeout=120, env={**os.environ, **env})
    assert out.returncode == 0, out.stderr[-2000:]
    return float(out.stdout.strip())


@pytest.mark.skipif(not _GLIBC, reason="mallopt's thresholds are glibc's")
def test_freed_arrays_are_reused_without_page_faults():
    env = {k: v for k, v in os.environ.items() if k not in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")}
    env.pop(_malloc.ENV, None)
    kept = _faults_per_round(True, **env)
    default = _faults_per_round(False, **env)
    turned_off = _faults_per_round(True, **{**env, _malloc.ENV: "0"})
    assert kept < 16, kept                                      # 6 MiB a round is 1,536 pages
    assert default > 500 and turned_off > 500, (default, turned_off)


def test_apply_respects_the_switch_and_the_users_own_settings(monkeypatch):
    monkeypatch.setenv(_malloc.ENV, "0")
    assert _malloc.apply() is False
    monkeypatch.delenv(_malloc.ENV)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000000")
    assert _malloc.apply() is False
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    assert _malloc.apply() is _GLIBC
