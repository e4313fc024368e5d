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
    import json
    from collections import namedtuple
    import numpy as np
    from numba import cuda
    import mscustom as ms
    from mscustom._core import dispatch
    from mscustom._core.opdef import OpDef
    from mscustom.ops.custom import aot, jit

    AttrSpec = namedtuple("AttrSpec", "name param_type value_type default_value")

    def make_op(func, n_in=1, n_out=1, options=None, attrs=(), kind=jit, name="t"):
        op = OpDef(name, num_inputs=n_in, num_outputs=n_out)
        op.set_attr("FInferShape", lambda a, s: (s, [s[0]] * n_out))
        specs = [AttrSpec(n, "required", t, d) for n, t, d in attrs]
        entry = kind.make_kernel(func, op_name=name, target="GPU", rows=None, attr_specs=specs,
                                 n_out=n_out, options=options or {})
        op.add_kernel(entry)
        def call(*args, **kw):
            tensors = tuple(a for a in args if isinstance(a, ms.Tensor))
            values = {"__template__": tuple(None if isinstance(a, ms.Tensor) else a for a in args)}
            values.update({n: kw.get(n, d) for n, _, d in attrs})
            return dispatch.call(op, tensors, values)
        call.entry = entry
        return call

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
    sq = make_op(square_kernel)
    res["square"] = np.allclose(sq(ms.Tensor(x)).asnumpy(), x * x)
    res["square_name"] = sq.entry.name
    res["square_stats"] = sq.entry.stats["calls"]
    add = make_op(add_kernel, n_in=2)
    res["add"] = np.allclose(add(ms.Tensor(x), ms.Tensor(y)).asnumpy(), x + y)
    scaled = make_op(strided_scale, options={"launch": (1, 2)}, attrs=[("shift", "float", 0.5)])
    res["launch"] = np.allclose(scaled(ms.Tensor(x), 3.0).asnumpy(), 3 * x + 0.5)
    mm = make_op(minmax_kernel, n_in=2, n_out=2)
    lo, hi = mm(ms.Tensor(x), ms.Tensor(y))
    res["minmax"] = bool(np.allclose(lo.asnumpy(), np.minimum(x, y)) and np.allclose(hi.asnumpy(), np.maximum(x, y)))
    def broken(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i + 100]                  # out of bounds: the simulator raises IndexError
    try:
        make_op(broken, name="broken_gpu")(ms.Tensor(x))
        res["broken"] = "no error"
    except RuntimeError as exc:
        res["broken"] = str(exc)
    import os
    if os.path.exists("aot_kernels/build/libkernels_cuda.so"):
        try:
            make_op("aot_kernels/build/libkernels_cuda.so:CustomSquareCuda", kind=aot, name="aot_gpu")(ms.Tensor(x))
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
    assert res["square_name"] == "jit:square_kernel[GPU]" and res["square_stats"] == 1
    assert res["launch"] is True                      # options["launch"] = (blocks, threads), a scalar, an attr
    assert res["minmax"] is True                      # two outputs
    assert "op 'broken_gpu': jit kernel 'broken' raised IndexError" in res["broken"]
    if "aot" in res:                                  # compiled CUDA cannot run in the simulator: it says so
        assert "op 'aot_gpu'" in res["aot"] and "CUDA simulator (NUMBA_ENABLE_CUDASIM=1) cannot run" in res["aot"]
