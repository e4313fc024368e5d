"""The background loader of the built-in kernels' Numba loops (``ops/_loop_loader.py``)."""

import numpy as np


def test_every_registered_loop_set_loads():
    """Each set's loader compiles or loads its loops and calls them on its dummy arguments without
    error (a failing loader would leave NumPy serving silently)."""
    from mscustom.nn.optim import _gemm_update, _one_pass      # importing registers their sets
    from mscustom.ops import _loop_loader
    from mscustom.ops.graph_mode import loops as graph_loops
    from mscustom.ops.nn import loss_fused, rnn_loops
    rnn_loops.ready()                      # the recurrent set loads only once a recurrent op asked for it
    gemm = _gemm_update.available()         # the cffi set replaces the ctypes functions, where there are any
    modules = set()
    for loader, _ in _loop_loader._SETS:
        got = loader()
        assert got is not None or (loader.__module__.endswith("_gemm_update") and not gemm)
        modules.add(loader.__module__)
    assert {"mscustom.ops.graph_mode.loops", "mscustom.ops.nn.loss_fused", "mscustom.nn.optim._one_pass",
            "mscustom.nn.optim._gemm_update"} <= modules
    _loop_loader.load()
    assert graph_loops._LOOPS and loss_fused._ROW_LOOPS and _one_pass._KERNEL
    x = np.zeros((2, 3), np.float32)
    assert loss_fused._rows_fit({"reduction": "mean", "ignore_index": None}, x, np.zeros(2, np.int32))


def test_loops_load_in_the_background_and_numpy_serves_meanwhile():
    """A fresh process: calls that could use a loop take NumPy; the REQUESTS-th starts one loading
    thread; once it is done the loops serve; the values are the same bits either way."""
    import os
    import subprocess
    import sys
    code = """
import sys, numpy as np
import mscustom as ms
from mscustom.nn.optim import _one_pass
from mscustom.ops import _loop_loader
from mscustom.ops.graph_mode import loops as graph_loops
assert "numba" not in sys.modules
p = ms.Parameter(ms.Tensor(np.ones((64, _one_pass.MIN_SIZE // 64), np.float32)), name="w")
g = np.full(p.shape, 0.5, np.float32)
want = p.asnumpy().copy()
for _ in range(_loop_loader.REQUESTS - 1):
    assert not _one_pass.sub_scaled_all([p], [g], 0.1)      # not loaded: the optimizer's NumPy update
assert not _loop_loader._STATE["started"] and "numba" not in sys.modules
assert not _one_pass.sub_scaled_all([p], [g], 0.1)          # this request starts the loading thread
assert _loop_loader._STATE["started"]
_loop_loader.wait()
assert _one_pass.sub_scaled_all([p], [g], 0.1) and graph_loops.ready()
want -= g * np.float32(0.1)
np.testing.assert_array_equal(p.asnumpy(), want)
print("ok")
"""
    env = dict(os.environ)
    env.pop("MSCUSTOM_LOOPS", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env=dict(env, MSCUSTOM_LOOPS="off"))
    assert off.returncode != 0 and "AssertionError" in off.stderr      # never loaded under "off"
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env=dict(env, MSCUSTOM_LOOPS="sometimes"))
    assert "MSCUSTOM_LOOPS must be 'background', 'now' or 'off', got 'sometimes'" in bad.stderr
