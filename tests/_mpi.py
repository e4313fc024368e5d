"""Run a script under the venv's ``mpiexec`` from a test, with its own deadline."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def mpiexec():
    """The venv's mpiexec (the ``dist`` extra), or None."""
    path = Path(sys.executable).with_name("mpiexec")
    if path.exists():
        return str(path)
    return None


def run_mpi(script, n=2, timeout=60, env=None, extra=(), launcher_args=()):
    """Run ``tests/dist/<script>`` on ``n`` ranks; a run past ``timeout`` seconds fails the test."""
    exe = mpiexec()
    if exe is None:
        pytest.fail("the venv has no mpiexec: install the 'dist' extra (make test does)")
    full_env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                    PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    full_env.update(env or {})
    cmd = [exe, *launcher_args, "-n", str(n), sys.executable, str(HERE / "dist" / script), *extra]
    return run_command(cmd, timeout, full_env, f"{script} on {n} ranks")


def run_command(cmd, timeout, env, what):
    """``subprocess.run`` in a session of its own, killed whole (every rank) past ``timeout``."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{what} did not finish within {timeout} s (a hang):\n{out}\n{err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
