"""``import mscustom`` leaves what most programs never touch unimported (mscustom/_lazy.py).

Checked in a fresh interpreter by the modules it loaded, not by a timing; the
public names still resolve on first use.
"""

import subprocess
import sys

# modules ``import mscustom`` must not load: each is imported on first use of a name that needs it
LAZY = ["numba", "cffi", "scipy", "threadpoolctl", "socket", "queue", "csv", "numpy.random", "hashlib",
        "mscustom.dataset", "mscustom.train", "mscustom.communication", "mscustom.profiler",
        "mscustom.parallel", "mscustom.device_context", "mscustom.amp", "mscustom._threads", "mscustom.nn.distributed",
        "mscustom.ops.comm.collective", "mscustom.ops.custom.hybrid", "mscustom.ops.custom.jit",
        "mscustom.ops.custom.aot", "mscustom.compat", "mscustom.numpy"]

_SCRIPT = f"""
import sys
import mscustom as ms
loaded = sorted(m for m in {LAZY!r} if m in sys.modules)
assert not loaded, f"import mscustom loaded {{loaded}}"
# the lazy names resolve, to the same objects as their modules' own
assert ms.train.Model is ms.Model and ms.dataset.GeneratorDataset is not None
assert ms.Profiler is ms.profiler.Profiler and ms.export is ms.train.export
assert ms.ops.AllReduce.__module__ == "mscustom.ops.comm.collective" and callable(ms.ops.kernel)
assert ms.nn.DistributedGradReducer.__name__ == "DistributedGradReducer"
assert ms.parallel.DistributedDataParallel and ms.device_context.cpu.op_tuning.threads_num
assert ms.bfloat16.name == "bfloat16" and ms.amp.auto_mixed_precision
from mscustom.ops.operations._ms_kernel import kernel
assert kernel is ms.ops.kernel
assert {{"dataset", "train", "Model", "communication"}} <= set(dir(ms)) and "AllReduce" in dir(ms.ops)
try:
    ms.no_such_name
except AttributeError as e:
    assert "no_such_name" in str(e)
else:
    raise AssertionError("ms.no_such_name resolved")
print("ok")
"""


def test_import_mscustom_is_lazy():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
