"""Numba imported by two threads at once: a jit op made while a background thread imports Numba.

An aot plan's tier-up (after its 64th call) and the built-in loops' loader import Numba in a
daemon thread. A jit op made meanwhile in the calling thread used to enter Numba through a
submodule (``numba.core.registry``) while the other thread ran ``numba/__init__``: each thread
then held a module lock the other needed, Python's import machinery broke the cycle by handing out
half-initialised modules, and both imports failed (an ImportError naming a "partially initialized
module" in the op's constructor, a ``_DeadlockError`` in the tier-up). Each case runs in a fresh
interpreter, where Numba is not imported yet.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CODE = r"""
import sys, threading
import numpy as np
sys.path.insert(0, {tests!r})
import mscustom as ms
from mscustom import ops

errors = []

def background():           # what an aot plan's tier-up thread imports
    try:
        from mscustom._numba_private import aot_caller  # noqa: F401
    except Exception as exc:
        errors.append(f"background thread: {{exc!r}}")

t = threading.Thread(target=background)
t.start()
x = ms.Tensor(np.arange(3, dtype=np.float32))
try:
    {make}
except Exception as exc:
    errors.append(f"calling thread: {{exc!r}}")
t.join()
print(errors)
"""

MAKE = {
    # the jit kind's first Numba import, in the op's constructor
    "jit": "from reliability import stress\n"
           "    op = ops.Custom(stress._square_jit, lambda s: s, lambda d: d, func_type='jit')\n"
           "    print(op(x).asnumpy().tolist())",
}


@pytest.mark.parametrize("kind", ["jit"])
def test_a_first_op_made_while_another_thread_imports_numba(kind, tmp_path):
    code = CODE.format(tests=str(ROOT / "tests"), make=MAKE[kind])
    env = dict(os.environ, MSCUSTOM_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-2:] == ["[0.0, 1.0, 4.0]", "[]"], proc.stdout + proc.stderr[-2000:]
