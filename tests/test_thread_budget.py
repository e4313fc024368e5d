"""One thread budget for BLAS, OpenMP and Numba (mscustom/_threads.py), set as MindSpore users set it.

Each case runs in a fresh process: the budget, and MindSpore's once-only
``threads_num``, belong to the whole process.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(code, **env):
    full = dict(os.environ)
    for k in ("MSCUSTOM_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        full.pop(k, None)
    full.update(env)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, env=full, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


POOLS = """
    import json, numpy as np, numba
    import mscustom as ms
    from mscustom import ops
    from threadpoolctl import threadpool_info

    def blas():
        return sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})

    def kern(x, out):
        for i in numba.prange(x.size):
            out.flat[i] = x.flat[i] + 1
    op = ops.Custom(kern, lambda s: s, lambda t: t, func_type="jit")
"""


def test_set_context_runtime_num_threads_limits_blas_and_numba():
    res = _run(POOLS + """
    ms.set_context(runtime_num_threads=1)
    op(ms.Tensor(np.ones(8, np.float32)))
    one = [blas(), numba.get_num_threads(), ms.get_context("runtime_num_threads")]
    ms.set_context(runtime_num_threads=0)                  # 0: back to the default
    two = [blas(), numba.get_num_threads()]
    print(json.dumps([one, two, numba.config.NUMBA_NUM_THREADS]))
    """, NUMBA_NUM_THREADS="2")
    one, two, pool = res
    assert one == [[1], 1, 1]
    expected = min(2, len(os.sched_getaffinity(0)))
    assert two[1] == min(expected, pool)


def test_omp_num_threads_reaches_numba_too():
    res = _run(POOLS + """
    op(ms.Tensor(np.ones(8, np.float32)))
    print(json.dumps([blas(), numba.get_num_threads()]))
    """, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="2")
    assert res == [[1], 1]


def test_mscustom_num_threads_sets_every_pool():
    res = _run(POOLS + """
    op(ms.Tensor(np.ones(8, np.float32)))
    print(json.dumps([blas(), numba.get_num_threads()]))
    """, MSCUSTOM_NUM_THREADS="1", NUMBA_NUM_THREADS="2")
    assert res == [[1], 1]


def test_device_context_threads_num_as_mindspore_2_10():
    res = _run(POOLS + """
    from mscustom.device_context.cpu import op_tuning
    out = [ms.device_context.cpu.device_count(), ms.device_context.cpu.is_available()]
    for bad in (1.5, 0, -1):
        try:
            op_tuning.threads_num(bad)
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    op_tuning.threads_num(1)
    out.append(blas())
    try:
        op_tuning.threads_num(2)
    except Exception as e:
        out.append([type(e).__name__, str(e)])
    print(json.dumps(out))
    """)
    # MindSpore 2.10's answers for the same calls
    assert res == [1, True,
                   ["TypeError", "The parameter 'num' must be <class 'int'>, but got <class 'float'>"],
                   ["ValueError", "The 'num' must be int and must > 0, but got '0' with type 'int'."],
                   ["ValueError", "The 'num' must be int and must > 0, but got '-1' with type 'int'."],
                   [1],
                   ["RuntimeError", "The 'threads_num' can not be set repeatedly."]]


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_bad_runtime_num_threads_is_refused(bad):
    import mscustom as ms
    with pytest.raises(ValueError, match="runtime_num_threads"):
        ms.set_context(runtime_num_threads=bad)


SPIN = """
    import json, os, sys
    {first}
    import mscustom
    print(json.dumps(os.environ.get("OPENBLAS_THREAD_TIMEOUT")))
"""


def _spin(first="", **env):
    full = dict(os.environ)
    full.pop("OPENBLAS_THREAD_TIMEOUT", None)
    full.update(env)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(SPIN.format(first=first))], cwd=REPO, env=full,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_makes_openblas_workers_stop_spinning_soon_where_numpy_is_not_loaded():
    assert _spin() == "14"


def test_openblas_already_loaded_or_a_value_set_is_left_alone():
    assert _spin(first="import numpy") is None            # too late: OpenBLAS read it when NumPy loaded
    assert _spin(OPENBLAS_THREAD_TIMEOUT="28") == "28"     # the user's own value
