"""``mscustom/_numba_private``: every use of Numba's private internals is gated on ``supported()``.

With the Numba series the package was written for, the private paths run;
with any other (simulated here by setting ``supported()``'s answer), each
takes its public fallback and the ops still give the right results.
"""

import sys
import threading

import numpy as np
import pytest

import mscustom as ms
from mscustom import _numba_private, ops
from mscustom._numba_private import cache, forksafe


@pytest.fixture
def unsupported(monkeypatch):
    """Pretend the installed Numba is a series the private code was not written for."""
    monkeypatch.setattr(_numba_private, "_answer", [False])


def _kernel(x, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i] * 3.0 + 1.0


def test_supported_reads_the_installed_series_once():
    import numba
    want = tuple(int(p) for p in numba.__version__.split(".")[:2]) == _numba_private.WRITTEN_FOR
    assert _numba_private.supported() is want
    assert _numba_private._answer == [want]


def test_fast_cache_load_steps_aside_for_another_numba(unsupported):
    numba = pytest.importorskip("numba")
    dispatcher = numba.njit(cache=True)(_kernel)
    argtypes = (numba.float64[::1], numba.float64[::1])
    assert cache.load_cached(dispatcher, argtypes) is None          # never touches Dispatcher._cache


def test_a_jit_op_compiles_on_the_public_path_with_another_numba(unsupported):
    pytest.importorskip("numba")

    def k(x, out):
        for i in range(x.size):
            out.flat[i] = x.flat[i] * 3.0 + 1.0

    op = ops.Custom(k, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="jit")
    x = np.linspace(-1.0, 1.0, 7)
    np.testing.assert_allclose(op(ms.Tensor(x)).asnumpy(), x * 3.0 + 1.0)


def test_fork_helpers_do_nothing_with_another_numba(unsupported):
    pytest.importorskip("numba")
    from numba.core import compiler_lock
    before = compiler_lock.global_compiler_lock._lock
    assert forksafe.fresh_compiler_lock() is False
    assert compiler_lock.global_compiler_lock._lock is before
    assert forksafe.rearm_omp_layer() is False


def test_fresh_compiler_lock_replaces_numbas_lock_for_the_written_series(monkeypatch):
    pytest.importorskip("numba")
    from numba.core import compiler_lock
    monkeypatch.setattr(_numba_private, "_answer", [True])
    lock = compiler_lock.global_compiler_lock
    monkeypatch.setattr(lock, "_lock", lock._lock)                    # restored after the test
    held = threading.RLock()
    lock._lock = held
    assert forksafe.fresh_compiler_lock() is True
    assert lock._lock is not held


def test_fork_helpers_leave_a_process_without_numba_alone(monkeypatch):
    for name in ("numba.np.ufunc.parallel", "numba.np.ufunc.omppool", "numba.core.compiler_lock"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert forksafe.rearm_omp_layer() is False
    assert forksafe.fresh_compiler_lock() is False


def test_nothing_outside_the_package_reaches_numbas_private_names():
    """The private attributes used here appear in no other mscustom module."""
    import pathlib
    root = pathlib.Path(ms.__file__).parent
    private = ("_load_overload", "global_compiler_lock._lock", "launch_threads", "rtsys", "_threading_layer",
               "from numba.extending import intrinsic")
    offenders = []
    for path in root.rglob("*.py"):
        if "_numba_private" in path.parts:
            continue
        text = path.read_text()
        offenders += [f"{path.relative_to(root)}: {name}" for name in private if name in text]
    assert offenders == []


def test_the_package_imports_nothing_else_of_mscustom():
    """``_numba_private`` sits below every layer that uses it (kinds, fork hooks): it imports only itself."""
    import ast
    import pathlib
    pkg = pathlib.Path(_numba_private.__file__).parent
    outside = []
    for path in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level > 1 or (node.module or "").startswith("mscustom")):
                outside.append(f"{path.name}: from {'.' * node.level}{node.module or ''}")
            elif isinstance(node, ast.Import):
                outside += [f"{path.name}: import {a.name}" for a in node.names if a.name.startswith("mscustom")]
    assert outside == []
