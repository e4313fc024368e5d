"""GPU jit kernels run in Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), in a subprocess.

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
    import json, os
    import numpy as np
    from numba import cuda
    import mscustom as ms
    from mscustom.ops import Custom, CustomRegOp

    def same(*args):
        return next(a for a in args if isinstance(a, (list, ms.DType)))

    def square_kernel(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * x[i]

    def add_kernel(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    def strided_scale(x, s, out, shift):          # grid-stride loop: works with any launch size
        start, step = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, out.size, step):
            out[i] = x[i] * s + shift

    def minmax_kernel(a, b, lo, hi):
        i = cuda.grid(1)
        if i < lo.size:
            lo[i] = min(a[i], b[i])
            hi[i] = max(a[i], b[i])

    rng = np.random.default_rng(0)
    x = rng.standard_normal(7).astype(np.float32)
    y = rng.standard_normal(7).astype(np.float32)
    ms.set_device("GPU")
    res = {}
    sq = Custom(square_kernel, same, same, func_type="jit")
    res["square"] = bool(np.allclose(sq(ms.Tensor(x)).asnumpy(), x * x))
    res["stats"] = [(s.kernel, s.calls) for s in sq.kernel_stats()]
    add = Custom(add_kernel, same, same, func_type="jit")
    res["add"] = bool(np.allclose(add(ms.Tensor(x), ms.Tensor(y)).asnumpy(), x + y))
    info = CustomRegOp().input(0, "x").output(0, "y").attr("shift", "optional", "float", value=0.5)
    scaled = Custom(strided_scale, lambda x, s: x, lambda x, s: x, func_type="jit", reg_info=info,
                    launch=(1, 2))
    res["launch"] = bool(np.allclose(scaled(ms.Tensor(x), 3.0).asnumpy(), 3 * x + 0.5))
    mm = Custom(minmax_kernel, lambda a, b: (a, a), lambda a, b: (a, a), func_type="jit")
    lo, hi = mm(ms.Tensor(x), ms.Tensor(y))
    res["minmax"] = bool(np.allclose(lo.asnumpy(), np.minimum(x, y)) and np.allclose(hi.asnumpy(), np.maximum(x, y)))

    def broken(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i + 100]                  # out of bounds: the simulator raises IndexError
    try:
        Custom(broken, same, same, func_type="jit", name="broken_gpu")(ms.Tensor(x))
        res["broken"] = "no error"
    except RuntimeError as exc:
        res["broken"] = str(exc)
    if os.path.exists("aot_kernels/build/libkernels_cuda.so"):
        try:
            Custom("aot_kernels/build/libkernels_cuda.so:CustomSquareCuda", same, same, func_type="aot",
                   name="aot_gpu")(ms.Tensor(x))
            res["aot"] = "no error"
        except RuntimeError as exc:
            res["aot"] = str(exc)
    print(json.dumps(res))
''')


def _run():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_gpu_jit_kernels_in_the_simulator():
    res = _run()
    assert res["square"] is True and res["add"] is True
    assert res["stats"] == [["jit:square_kernel[CPU]", 0], ["jit:square_kernel[GPU]", 1]]
    assert res["launch"] is True                      # options["launch"] = (blocks, threads), a scalar, an attr
    assert res["minmax"] is True                      # two outputs
    assert "op 'broken_gpu': jit kernel 'broken' raised IndexError" in res["broken"]
    if "aot" in res:                                  # compiled CUDA cannot run in the simulator: it says so
        assert "op 'aot_gpu'" in res["aot"] and "CUDA simulator (NUMBA_ENABLE_CUDASIM=1) cannot run" in res["aot"]
