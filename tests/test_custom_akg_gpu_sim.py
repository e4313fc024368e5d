"""AKG ir_builder kernels on the GPU path (numba-cuda), run in Numba's CUDA simulator in a subprocess."""

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
    from mscustom.ops import CustomRegOp, DataType
    import akg_kernels as ak

    rng = np.random.default_rng(5)
    T = ms.Tensor
    same = lambda *a: a[0]
    ms.set_device("GPU")
    res = {}
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    add = ops.Custom(ak.vadd, same, same, func_type="akg")
    res["add"] = bool(np.array_equal(add(T(a), T(b)).asnumpy(), a + b))
    res["stats"] = [(s.kernel, s.calls) for s in add.kernel_stats()]
    m = rng.standard_normal((3, 4))
    rows = ops.Custom(ak.row_sums, lambda s: [s[0]], same, func_type="akg")
    res["row_sums"] = bool(np.allclose(rows(T(m)).asnumpy(), m.sum(1)))
    x = np.array([1.0, 2.0, -1.0, 1.5], np.float32)
    res["if_else"] = bool(np.array_equal(ops.Custom(ak.leaky_clip, same, same, func_type="akg")(T(x)).asnumpy(),
                                         np.where(2 * x > 3, 2 * x, x * 0.25)))
    g = np.array([[-4.0, 0.25], [0.5, 9.0]])
    res["select"] = bool(np.allclose(ops.Custom(ak.soft_gate, same, same, func_type="akg")(T(g)).asnumpy(),
                                     np.where((g >= 0) & (g < 1), np.exp(g), np.sqrt(np.abs(g)))))
    info = (CustomRegOp().input(0, "x", "dynamic").output(0, "y")
            .dtype_format(DataType.F16_None, DataType.F16_None).target("GPU").get_op_info())
    xs = [rng.standard_normal(3).astype(np.float16) for _ in range(3)]
    many = ops.Custom(ak.sum_all, lambda s: s[0], lambda d: d[0], func_type="akg", reg_info=info)
    out = many([T(v) for v in xs])
    res["dynamic_f16"] = bool(out.dtype == ms.float16 and np.allclose(out.asnumpy(), xs[0] + xs[1] + xs[2],
                                                                      atol=1e-2))
    print(json.dumps(res))
''')


def test_akg_ir_builder_kernels_in_the_cuda_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res.pop("stats") == [["akg:vadd[CPU]", 0], ["akg:vadd[GPU]", 1]]
    assert res == {k: True for k in res} and len(res) == 5, res
