"""A fresh process loads jit kernels straight from Numba's disk cache (``mscustom/_numba_private/cache.py``).

Each scenario runs twice in new processes sharing one NUMBA_CACHE_DIR: the
first compiles and fills the cache, the second must load every kernel through
the fast path, give the same results, and fall back to compiling when the
kernel's source changed or the fast path is turned off.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

KERNELS = textwrap.dedent('''
    import math
    import numba
    import numpy as np

    def square(x, out):
        for i in range(x.size):
            out[i] = x[i] * x[i]

    def square_prange(x, out):
        for i in numba.prange(x.size):
            out[i] = x[i] * x[i]

    def softplus_and_count(x, scale, out, count, offset):      # a scalar, two outputs, an attribute
        tmp = np.empty(x.size)                                # NRT allocation inside the kernel
        for i in range(x.size):
            tmp[i] = math.log1p(math.exp(x[i] * scale)) + offset
        seen = {}
        for i in range(x.size):
            seen[str(int(x[i] > 0))] = 1                       # string hashing
        for i in range(x.size):
            out[i] = tmp[i]
        count[0] = len(seen)
''')

SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import mscustom as ms
    from mscustom.ops import Custom, CustomRegOp
    from mscustom._numba_private import cache as _numba_cache
    import cache_kernels as k

    x = ms.Tensor(np.linspace(-2, 2, 9).astype(np.float64))
    same = lambda *a: a[0]
    out = {}
    out["square"] = Custom(k.square, same, same, func_type="jit")(x).asnumpy().tolist()
    out["prange"] = Custom(k.square_prange, same, same, func_type="jit")(x).asnumpy().tolist()
    info = CustomRegOp().input(0, "x").output(0, "y").output(1, "count").attr(
        "offset", "optional", "float", value=0.25)
    sp = Custom(k.softplus_and_count, lambda s, c: (s, [1]), lambda d, c: (d, ms.int64), func_type="jit",
                reg_info=info)
    y, count = sp(x, 2.0)
    out["softplus"] = y.asnumpy().tolist()
    out["count"] = count.asnumpy().tolist()
    out["loaded"] = _numba_cache.stats["loaded"]
    out["fallbacks"] = _numba_cache.stats["fallbacks"]
    print(json.dumps(out))
''')


def _run(kdir, cache, **env_extra):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), **env_extra)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(kdir)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """One kernel directory and cache filled by a first process (compiling), shared by the two tests
    below in file order: the second loads from it, the last one then changes the source."""
    root = tmp_path_factory.mktemp("jit_cache")
    kdir = root / "kernels"
    kdir.mkdir()
    (kdir / "cache_kernels.py").write_text(KERNELS)
    cache = root / "numba_cache"
    return kdir, cache, _run(kdir, cache)


def test_second_process_loads_every_kernel_from_the_cache(compiled):
    import numpy as np
    kernel_dir, cache, first = compiled
    assert first["loaded"] == 0                          # nothing cached yet: compiled
    second = _run(kernel_dir, cache)
    # each kernel twice: the bounds-checked build of its first call (cache files of its own) and the plain one
    assert second["loaded"] == 6 and second["fallbacks"] == 0
    x = np.linspace(-2, 2, 9)
    for res in (first, second):
        np.testing.assert_allclose(res["square"], x * x)
        np.testing.assert_allclose(res["prange"], x * x)
        np.testing.assert_allclose(res["softplus"], np.log1p(np.exp(2 * x)) + 0.25)
        assert res["count"] == [2]


def test_changed_source_or_switch_off_compiles_normally(compiled):
    kernel_dir, cache, _ = compiled
    assert _run(kernel_dir, cache, MSCUSTOM_JIT_FAST_CACHE="0")["loaded"] == 0
    src = kernel_dir / "cache_kernels.py"
    src.write_text(src.read_text().replace("out[i] = x[i] * x[i]", "out[i] = x[i] * x[i] + 1.0"))
    stale = _run(kernel_dir, cache)
    assert stale["square"][0] == 5.0 and stale["prange"][0] == 5.0   # the new source ran


def test_unloadable_cache_entry_compiles_without_the_cache(monkeypatch, tmp_path):
    """Numba's own cache load raising (an entry pickled under another module name, as when pytest and
    a script import the same file under two names) compiles the kernel anyway, with one warning."""
    import numba.core.caching as caching
    import numpy as np

    import mscustom as ms
    from mscustom import ops

    def refuse(self, sig, target_context):
        raise ModuleNotFoundError("No module named 'reliability.custom_fuzz'; 'reliability' is not a package")

    monkeypatch.setattr(caching.Cache, "load_overload", refuse)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cube_kernel_mod.py").write_text(
        "def cube(x, out):\n    for i in range(x.size):\n        out.flat[i] = x.flat[i] ** 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import cube_kernel_mod
    op = ops.Custom(cube_kernel_mod.cube, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="jit",
                    name="cube_uncached")
    x = np.arange(5, dtype=np.float64)
    with pytest.warns(RuntimeWarning, match="op 'cube_uncached'.*could not be loaded.*without the cache"):
        got = op(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, x ** 3)


def test_compile_error_that_is_not_the_cache_names_the_op(monkeypatch, tmp_path):
    """An error the uncached retry raises again is reported naming the op, not as a bare exception."""
    import numba.core.caching as caching
    import numba.core.dispatcher as numba_dispatcher
    import numpy as np

    import mscustom as ms
    from mscustom import ops

    def refuse(self, sig, target_context):
        raise ValueError("unreadable entry")

    monkeypatch.setattr(caching.Cache, "load_overload", refuse)
    real_compile = numba_dispatcher.Dispatcher.compile

    def failing_compile(self, sig):
        if type(self._cache).__name__ == "NullCache":
            raise ValueError("broken for another reason")
        return real_compile(self, sig)

    monkeypatch.setattr(numba_dispatcher.Dispatcher, "compile", failing_compile)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "quad_kernel_mod.py").write_text(
        "def quad(x, out):\n    for i in range(x.size):\n        out.flat[i] = x.flat[i] ** 4\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import quad_kernel_mod
    op = ops.Custom(quad_kernel_mod.quad, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="jit",
                    name="quad_broken")
    with pytest.warns(RuntimeWarning, match="could not be loaded"):
        with pytest.raises(RuntimeError, match="op 'quad_broken'.*failed to compile.*another reason"):
            op(ms.Tensor(np.arange(3, dtype=np.float64)))
