"""A reg info naming exactly one of CPU/GPU pins the op to that target, whatever set_context says (as
MindSpore's Custom sets primitive_target); ops registered for both targets follow the context."""

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
from mscustom.ops import CustomRegOp, DataType

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def restore_target():
    yield
    ms.set_context(device_target="CPU")


def info(target, dtype=DataType.F32_Default):
    return CustomRegOp().input(0, "x").output(0, "y").dtype_format(dtype, dtype).target(target).get_op_info()


def triple_kernel(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] * 3


def tagged(tag):
    def f(x):
        return x + tag
    f.__name__ = f"plus_{tag}"
    return f


def same(*args):
    return args[0]


def test_a_cpu_only_op_runs_on_cpu_when_the_context_says_gpu():
    op = ops.Custom(triple_kernel, same, same, func_type="jit", reg_info=info("CPU"))
    ms.set_context(device_target="GPU")
    assert op(ms.Tensor([1.0, 2.0])).tolist() == [3.0, 6.0]
    assert [k.name for k in op.kernels] == ["jit:triple_kernel[CPU]"]       # the stand-ins stay hidden
    assert [(s.kernel, s.calls) for s in op.kernel_stats()] == [("jit:triple_kernel[CPU]", 1)]
    with ops.custom_op_usage() as usage:
        op(ms.Tensor([1.0]))
    assert [(r.kernel, r.calls) for r in usage.report()] == [("jit:triple_kernel[CPU]", 1)]


def test_pinning_holds_for_pyfunc_and_for_several_cpu_infos():
    f32, f64 = info("CPU"), info("CPU", DataType.F64_Default)
    op = ops.Custom(tagged(10), same, same, reg_info=[f32, f64])
    ms.set_device("GPU")
    assert op(ms.Tensor([1.0])).tolist() == [11.0]
    assert op(ms.Tensor(np.array([1.0]))).tolist() == [11.0]             # float64 row, still on CPU
    with pytest.raises(TypeError, match=r"op 'plus_10' has no kernel on 'GPU' for inputs \(int64"):
        op(ms.Tensor([1]))           # the rows still decide (listed under the context's target)


def test_an_op_registered_for_both_targets_follows_the_context():
    op = ops.Custom(tagged(0), same, same, reg_info=info("CPU"), name="both")
    op.add_kernel(tagged(1000), reg_info=info("GPU"))
    ms.set_device("GPU")
    assert op(ms.Tensor([1.0])).tolist() == [1001.0]
    ms.set_device("CPU")
    assert op(ms.Tensor([1.0])).tolist() == [1.0]


def test_adding_a_kernel_for_the_other_target_unpins():
    op = ops.Custom(tagged(0), same, same, reg_info=info("CPU"), name="unpinned")
    ms.set_device("GPU")
    assert op(ms.Tensor([1.0])).tolist() == [1.0]           # pinned to CPU
    op.add_kernel(tagged(500), reg_info=info("GPU"))
    assert op(ms.Tensor([1.0])).tolist() == [501.0]         # now a GPU kernel exists: the context decides


def test_a_kernel_without_a_target_keeps_the_op_following_the_context():
    op = ops.Custom(tagged(0), same, same, name="no_target").add_kernel(tagged(7), reg_info=info("CPU"))
    assert sorted({k.target for k in op.kernels}) == ["CPU", "GPU"]
    ms.set_device("GPU")
    assert op(ms.Tensor([1.0])).tolist() == [1.0]           # the catch-all GPU pyfunc


def test_a_gpu_only_op_on_a_machine_without_cuda_says_it_is_pinned():
    from numba import cuda
    if cuda.is_available():
        pytest.skip("a CUDA device (or the simulator) is available")

    def gpu_kernel(x, y):
        i = cuda.grid(1)
        if i < x.shape[0]:
            y[i] = x[i] * 3

    op = ops.Custom(gpu_kernel, same, same, func_type="jit", reg_info=info("GPU"))
    ms.set_device("CPU")
    with pytest.raises(RuntimeError, match=r"op 'gpu_kernel': its reg info names only the target 'GPU', so it "
                                           r"runs on GPU even with device_target 'CPU' \(as MindSpore does\), "
                                           r"but GPU cannot run here: .*no CUDA device is available"):
        op(ms.Tensor([1.0]))


def test_ascend_only_is_not_pinned():
    op = ops.Custom(tagged(0), same, same, reg_info=info("Ascend"), name="ascend")
    with pytest.raises(RuntimeError, match=r"op 'ascend' has no kernel for device target 'CPU'"):
        op(ms.Tensor([1.0]))


GPU_SCRIPT = textwrap.dedent('''
    import json
    import numpy as np
    from numba import cuda
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops import CustomRegOp, DataType

    def gpu_triple(x, y):
        i = cuda.grid(1)
        if i < x.shape[0]:
            y[i] = x[i] * 3

    info = (CustomRegOp().input(0, "x").output(0, "y")
            .dtype_format(DataType.F32_Default, DataType.F32_Default).target("GPU").get_op_info())
    op = ops.Custom(gpu_triple, lambda s: s, lambda d: d, func_type="jit", reg_info=info)
    ms.set_device("CPU")
    out = op(ms.Tensor(np.array([1.0, 2.0], np.float32))).asnumpy().tolist()
    print(json.dumps({"out": out, "stats": [(s.kernel, s.calls) for s in op.kernel_stats()]}))
''')


def test_a_gpu_only_op_runs_its_gpu_kernel_under_a_cpu_context_in_the_cuda_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", GPU_SCRIPT], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["out"] == [3.0, 6.0]
    assert res["stats"] == [["jit:gpu_triple[GPU]", 1]]
