"""``import mscustom`` leaves what most programs never touch unimported (mscustom/_lazy.py).

Checked in a fresh interpreter by the modules it loaded, not by a timing; the
public names still resolve on first use.
"""

import subprocess
import sys

import pytest

# modules ``import mscustom`` must not load: each is imported on first use of a name that needs it
LAZY = ["numba", "cffi", "scipy", "threadpoolctl", "socket", "queue", "csv", "numpy.random", "hashlib",
        "mscustom.dataset", "mscustom.train", "mscustom.communication", "mscustom.profiler",
        "mscustom.parallel", "mscustom.device_context", "mscustom.amp", "mscustom._threads", "mscustom.nn.distributed",
        "mscustom.ops.comm.collective", "mscustom.ops.custom.hybrid", "mscustom.ops.custom.jit",
        "mscustom.ops.custom.aot", "mscustom.compat", "mscustom.numpy",
        # bfloat16's NumPy dtype, JSON reg-info parsing, the Numba loader's fork hook
        "ml_dtypes", "json", "logging.handlers",
        # the deferred groups (mscustom/_core/deferred.py): the concern packages' name modules, nn's more layers
        "mscustom.ops.math._trig", "mscustom.ops.array._windows", "mscustom.ops.linalg._decompositions",
        "mscustom.ops.spectral._fft", "mscustom.nn._more", "mscustom.nn.rnns", "mscustom.nn.transformer"]

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


# A deferred load only adds bindings: after it, every name the core had bound keeps its object, so the
# state does not depend on which name was looked up first (an eager import's order is kept).
_ADDS_ONLY = """
import sys
import mscustom as ms
from mscustom._core import deferred, registry
from mscustom._core.functions import functions
assert deferred.pending()
spaces = {"Tensor": lambda: vars(ms.Tensor), "Parameter": lambda: vars(ms.Parameter), "ops": lambda: vars(ms.ops),
          "functions": lambda: vars(functions), "nn": lambda: vars(ms.nn), "registry": lambda: registry._OPS,
          "mscustom": lambda: vars(ms)}
before = {k: dict(f()) for k, f in spaces.items()}
placeholder = type(vars(ms.Tensor)["lgamma"])
TRIGGER
assert not deferred.pending() and "mscustom.nn._more" in sys.modules and "mscustom.ops.math._trig" in sys.modules
assert not [n for n, v in vars(ms.Tensor).items() if type(v) is placeholder]      # every placeholder replaced
for k, f in spaces.items():
    now = f()
    changed = sorted(n for n, v in before[k].items() if type(v) is not placeholder and now.get(n, None) is not v)
    assert not changed, f"the deferred load rebound {k}: {changed}"
    assert len(now) > len(before[k]) or k in ("Parameter", "mscustom", "Tensor"), (k, len(now))
print("ok")
"""

_TRIGGERS = {
    "a Tensor method": "assert ms.Tensor([1.0, 2.0]).lgamma().shape == (2,)",
    "a Tensor class attribute": "assert hasattr(ms.Tensor, 'add_') and callable(ms.Tensor.tril)",
    "a Tensor property": "assert ms.Tensor([1.0, 2.0]).nbytes == 8",
    "a Parameter method": "assert ms.Parameter(ms.Tensor([0.5]), name='p').erfinv().shape == (1,)",
    "an ops name": "assert ms.ops.hann_window(3).shape == (3,)",
    "an nn name": "assert ms.nn.Conv3d.__name__ == 'Conv3d'",
    "a registered op": "assert registry.get_op('erfinv') is not None",
    "a published function": "assert callable(functions.lgamma)",
    "star import": "ns = {}; exec('from mscustom.nn import *; from mscustom.ops import *', ns); "
                   "assert 'Conv3d' in ns and 'tril' in ns and 'AllReduce' not in ns",
    "a concern package's star import": "ns = {}; exec('from mscustom.ops.math import *', ns); "
                                       "assert ns['lgamma'] is ms.ops.lgamma and len(ns) > 200",
}


@pytest.mark.parametrize("trigger", sorted(_TRIGGERS))
def test_deferred_load_only_adds(trigger):
    script = _ADDS_ONLY.replace("TRIGGER", _TRIGGERS[trigger])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


_THREADS = """
import threading
import mscustom as ms
from mscustom._core import deferred
results, errors = [], []
start = threading.Barrier(8)
def use(i):
    try:
        start.wait()
        x = ms.Tensor([0.5, 1.5])
        value = [lambda: x.lgamma(), lambda: ms.ops.tril(ms.ops.ones((3, 3))), lambda: ms.nn.GRU(2, 3),
                 lambda: ms.ops.erfinv(x), lambda: x.add_(0), lambda: ms.nn.Conv3d(1, 1, 1),
                 lambda: ms.ops.hann_window(4), lambda: x.nan_to_num()][i]()
        results.append(type(value).__name__)
    except BaseException as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=use, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join(60)
assert not errors and len(results) == 8 and not deferred.pending(), (errors, results)
print("ok")
"""


def test_deferred_load_from_many_threads():
    """Threads missing deferred names at once all get them: one loads, the others wait for it."""
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


_BFLOAT16 = """
import sys
import numpy as np
import mscustom as ms
assert "ml_dtypes" not in sys.modules and repr(ms.bfloat16) == "mscustom.bfloat16"
assert ms.dtype.dtype_from_any("bfloat16") is ms.bfloat16 and ms.dtype.is_floating(ms.bfloat16)
assert str(ms.bfloat16) == "BFloat16" and "ml_dtypes" not in sys.modules
x = ms.Tensor([1.5, 2.0], ms.bfloat16)          # its NumPy dtype loads ml_dtypes
import ml_dtypes
assert x.dtype is ms.bfloat16 and x.asnumpy().dtype == ml_dtypes.bfloat16
assert ms.dtype.from_numpy(ml_dtypes.bfloat16) is ms.bfloat16 and ms.bfloat16 == np.dtype(ml_dtypes.bfloat16)
print("ok")
"""


def test_bfloat16_loads_ml_dtypes_on_first_use():
    out = subprocess.run([sys.executable, "-c", _BFLOAT16], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


_METHOD_NAMES = """
import mscustom as ms
from mscustom._core import deferred
from mscustom._deferred_methods import NAMES
placeholder = type(vars(ms.Tensor)["lgamma"])
core = {n for n, v in vars(ms.Tensor).items() if type(v) is not placeholder}
deferred.load_all()
bound = sorted(set(vars(ms.Tensor)) - core)
print(repr(bound) if bound != sorted(NAMES) else "ok")
"""


def test_deferred_method_names_are_the_ones_the_load_binds():
    """``_deferred_methods.NAMES`` (a placeholder each on Tensor) is exactly what the deferred ops bind:
    a missing name would not load them on first use, an extra one would hide an AttributeError."""
    out = subprocess.run([sys.executable, "-c", _METHOD_NAMES], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok", "mscustom/_deferred_methods.py NAMES should be " + out.stdout


def test_numpy_conversion_of_a_tensor_pays_no_hook():
    """While the deferred ops are unloaded, NumPy's probes of a Tensor's type stay C-level misses."""
    script = ("import mscustom as ms, numpy as np\n"
              "from mscustom._core import deferred\n"
              "assert '__getattr__' not in vars(ms.Tensor) and type(ms.Tensor) is type\n"
              "assert np.asarray(ms.Tensor([1.0])).tolist() == [1.0] and deferred.pending()\n"
              "print('ok')")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


_IN_CAPTURE = """
import numpy as np
import mscustom as ms
from mscustom._core import deferred
assert deferred.pending()

@ms.jit
def f(x):
    return ms.ops.lgamma(x) * 2.0          # the deferred ops load while this call is being recorded

x = ms.Tensor(np.array([0.5, 1.5, 3.0], np.float32))
want = np.array([0.5723649, -0.12078224, 0.6931472], np.float32) * 2   # lgamma: ln(sqrt(pi)), ln(sqrt(pi)/2), ln 2
for _ in range(3):                          # the record, then replays
    np.testing.assert_allclose(f(x).asnumpy(), want, rtol=1e-6)
g = ms.grad(lambda x: ms.ops.nan_to_num(x * x).sum())(x)   # nan_to_num: loaded inside a recording
np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy(), rtol=1e-6)
print("ok")
"""


def test_a_load_inside_a_graph_capture_records_only_the_callers_ops():
    out = subprocess.run([sys.executable, "-c", _IN_CAPTURE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
