"""Hybrid kernels with scalar parameters: given in the call (op(x, 2.0)) or bound from reg-info attributes;
compiled by the scalar's type, not its value; no gradient for scalars."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp
from mscustom.ops.custom.hybrid import compile as hybrid_compile
from mscustom.testing import check_grad

import hybrid_scalar_kernels as hk

REPO = Path(__file__).resolve().parents[1]
T = ms.Tensor


def test_direct_call_on_numpy_arrays_takes_scalars():
    a = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(hk.scale_shift(a, 2.0), a * 2 + 2)
    m = np.array([[-2.0, 0.5], [3.0, -0.1]])
    np.testing.assert_allclose(hk.clip_rows(m, -1.0, 1.0, True), np.clip(-m, -1, 1))


def test_custom_call_passes_scalars_to_the_compiled_kernel(rng):
    a = rng.standard_normal(5).astype(np.float32)
    op = ops.Custom(hk.scale_shift)
    for s in (2.0, -0.5, 3):
        np.testing.assert_allclose(op(T(a), s).asnumpy(), a * s + s, rtol=1e-6)
    x, y = rng.standard_normal(6), rng.standard_normal(6)
    np.testing.assert_allclose(ops.Custom(hk.axpy)(T(x), 0.25, T(y)).asnumpy(), 0.25 * x * x + y)
    m = rng.standard_normal((3, 4))
    clip = ops.Custom(hk.clip_rows)
    np.testing.assert_allclose(clip(T(m), -0.5, 0.5, False).asnumpy(), np.clip(m, -0.5, 0.5))
    np.testing.assert_allclose(clip(T(m), -0.5, 0.5, True).asnumpy(), np.clip(-m, -0.5, 0.5))


def test_scalars_are_compiled_by_type_not_by_value(rng):
    a = rng.standard_normal(3)                   # float64: a signature no other test here compiles
    op = ops.Custom(hk.scale_shift, name="by_type")
    op(T(a), 1.5)
    compiled = len(hybrid_compile._COMPILED)
    for s in (2.5, -1.0, 100.0):                 # new values: new plans, the same machine code
        np.testing.assert_allclose(op(T(a), s).asnumpy(), a * s + s, rtol=1e-6)
    assert len(hybrid_compile._COMPILED) == compiled
    op(T(a), 2)                                  # an int is another type: compiled once more
    op(T(a), 5)
    assert len(hybrid_compile._COMPILED) == compiled + 1


def test_gradients_flow_to_tensors_only(rng):
    x, y = rng.standard_normal(4), rng.standard_normal(4)
    op = ops.Custom(hk.axpy)
    gx, gy = ms.grad(lambda a, b: op(a, 0.75, b).sum(), grad_position=(0, 1))(T(x), T(y))
    np.testing.assert_allclose(gx.asnumpy(), 1.5 * x)
    np.testing.assert_allclose(gy.asnumpy(), np.ones(4))
    check_grad(lambda a, b: op(a, -2.0, b), T(x), T(y))


def test_attributes_from_the_reg_info_fill_scalar_parameters_by_name(rng):
    a = rng.standard_normal(4).astype(np.float32)
    fixed = CustomRegOp().input(0, "a").output(0, "c").attr("s", "required", "float", value=5.0).get_op_info()
    op = ops.Custom(hk.scale_shift, reg_info=fixed)
    np.testing.assert_allclose(op(T(a)).asnumpy(), a * 5 + 5, rtol=1e-6)
    np.testing.assert_allclose(ms.grad(lambda t: op(t).sum())(T(a)).asnumpy(), np.full(4, 5.0))
    free = CustomRegOp().input(0, "a").output(0, "c").attr("s", "required", "float").get_op_info()
    op = ops.Custom(hk.scale_shift, reg_info=free)
    np.testing.assert_allclose(op(T(a), 2.0).asnumpy(), a * 2 + 2, rtol=1e-6)       # positionally
    np.testing.assert_allclose(op(T(a), s=4.0).asnumpy(), a * 4 + 4, rtol=1e-6)     # by keyword
    np.testing.assert_allclose(ms.grad(lambda t: op(t, s=3.0).sum())(T(a)).asnumpy(), np.full(4, 3.0))
    misnamed = CustomRegOp().input(0, "a").output(0, "c").attr("k", "required", "float", value=1.0)
    with pytest.raises(TypeError, match=r"op 'scale_shift' takes 2 input argument\(s\) \(a, s\), got 1"):
        ops.Custom(hk.scale_shift, reg_info=misnamed.get_op_info())(T(a))


def test_a_scalar_used_as_a_tensor_or_in_a_declaration_is_refused():
    a = T(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"hybrid kernel 'indexes_scalar' \(.*hybrid_scalar_kernels.py:\d+\): 's' "
                                        r"is given a scalar \(2.0\) in this call of op 'indexes_scalar', but the "
                                        r"kernel uses it as a tensor \('s\[i\]'\)"):
        ops.Custom(hk.indexes_scalar)(a, 2.0)
    np.testing.assert_allclose(ops.Custom(hk.indexes_scalar)(a, a).asnumpy(), [2, 2, 2])   # a tensor is fine
    with pytest.raises(RuntimeError, match=r"op 'sized_by_scalar': its out_shape callable raised "
                                           r"HybridSyntaxError: .*uses 'n', a scalar argument \(compiled by its "
                                           r"type, not its value\); "
                                           r"shapes must follow from the input shapes"):
        ops.Custom(hk.sized_by_scalar)(a, 3)


SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, "tests")
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    import hybrid_scalar_kernels as hk

    ms.set_device("GPU")
    x, y = np.arange(3.0), np.ones(3)
    op = ops.Custom(hk.axpy)
    res = {"axpy": bool(np.allclose(op(ms.Tensor(x), 0.5, ms.Tensor(y)).asnumpy(), 0.5 * x * x + y)),
           "again": bool(np.allclose(op(ms.Tensor(x), 2.0, ms.Tensor(y)).asnumpy(), 2 * x * x + y)),
           "stats": [(s.kernel, s.calls) for s in op.kernel_stats()]}
    print(json.dumps(res))
''')


def test_scalar_parameters_on_the_gpu_path_in_the_cuda_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["axpy"] and res["again"]
    assert ["hybrid:axpy[GPU]", 2] in res["stats"]
