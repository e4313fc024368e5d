"""Hybrid kernels on the GPU path (numba-cuda), run in Numba's CUDA simulator in a subprocess.

The simulator runs one Python thread per GPU thread, so the arrays stay tiny.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, "tests")
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    import hybrid_kernels as hk

    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    m, n = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    u, v = rng.standard_normal(3), rng.standard_normal(2)
    T = ms.Tensor
    ms.set_device("GPU")
    res = {}
    mul = ops.Custom(hk.mul)                                  # grid: one thread per element
    res["grid"] = bool(np.allclose(mul(T(a), T(b)).asnumpy(), a * b))
    res["stats"] = [(s.kernel, s.calls) for s in mul.kernel_stats()]
    res["parallel"] = bool(np.allclose(ops.Custom(hk.outer)(T(u), T(v)).asnumpy(), np.outer(u, v)))
    res["reduce"] = bool(np.allclose(ops.Custom(hk.matmul)(T(m), T(n)).asnumpy(), m @ n))
    res["serial_temp"] = bool(np.allclose(ops.Custom(hk.outer_product)(T(m), T(n)).asnumpy(),
                                          hk.outer_product(m, n)))
    s, p = ops.Custom(hk.two_outputs)(T(u), T(u))
    res["two_outputs"] = bool(np.allclose(s.asnumpy(), 2 * u) and np.allclose(p.asnumpy(), 2 * u ** 3))
    x = T(np.arange(3.0))
    res["in_place"] = bool(np.allclose(ops.Custom(hk.scale_in_place)(x).asnumpy(), [0, 3, 6])
                           and np.allclose(x.asnumpy(), [0, 1, 2]))
    ga, gb = ms.grad(lambda x, y: mul(x, y).sum(), grad_position=(0, 1))(T(a), T(b))
    res["grad"] = bool(np.allclose(ga.asnumpy(), b) and np.allclose(gb.asnumpy(), a))
    print(json.dumps(res))
''')


def test_hybrid_kernels_in_the_cuda_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res.pop("stats") == [["hybrid:mul[CPU]", 0], ["hybrid:mul[GPU]", 1]]
    assert res == {k: True for k in res} and len(res) == 7, res
