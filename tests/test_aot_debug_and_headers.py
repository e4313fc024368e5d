"""aot kernels under MSCUSTOM_DEBUG=1 (guard zones around outputs), their own error codes, and the
headers shipped inside the package (a user's .c/.cc source outside the repository builds against them)."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom.ops import Custom
from mscustom.ops.custom.aot import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None,
                                reason="needs gcc and g++")

OVERRUN = textwrap.dedent("""
    #include "mscustom_aot.h"
    /* writes EXTRA elements past the end of its output (and one before it when BEFORE) */
    int Overrun(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                void *stream, void *extra) {
      int64_t i, n = ms_numel(ndims[1], shapes[1]);
      float *out = (float *)params[1];
      (void)nparam; (void)dtypes; (void)stream; (void)extra;
      for (i = 0; i < n + EXTRA; ++i) out[i] = 1.0f;
      if (BEFORE) out[-1] = 2.0f;
      return 0;
    }
    int OwnCode(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                void *stream, void *extra) {
      (void)nparam; (void)params; (void)ndims; (void)shapes; (void)dtypes; (void)stream; (void)extra;
      return 1;
    }
""")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))


def _overrun(tmp_path, extra, before=0):
    src = tmp_path / f"overrun_{extra}_{before}.c"
    src.write_text(f"#define EXTRA {extra}\n#define BEFORE {before}\n" + OVERRUN)
    return src


def test_debug_mode_reports_an_output_overrun_with_op_output_and_distance(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_DEBUG", "1")
    op = Custom(f"{_overrun(tmp_path, 3)}:Overrun", lambda x: x, lambda x: x, func_type="aot", name="over")
    with pytest.raises(RuntimeError, match=r"op 'over': AOT kernel 'Overrun' .* wrote 12 byte\(s\) past the end "
                                           r"of output 0 \(shape \[2, 5\], float32, 40 bytes\)"):
        op(ms.Tensor(np.zeros((2, 5), np.float32)))


def test_debug_mode_reports_a_write_before_the_start(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_DEBUG", "1")
    op = Custom(f"{_overrun(tmp_path, 0, 1)}:Overrun", lambda x: x, lambda x: x, func_type="aot", name="under")
    with pytest.raises(RuntimeError, match=r"op 'under': .* wrote 4 byte\(s\) before the start of output 0"):
        op(ms.Tensor(np.zeros(4, np.float32)))


def test_debug_mode_passes_a_correct_kernel_and_gives_its_result(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_DEBUG", "1")
    op = Custom(f"{_overrun(tmp_path, 0)}:Overrun", lambda x: x, lambda x: x, func_type="aot", name="fine")
    out = op(ms.Tensor(np.zeros((3, 3), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.ones((3, 3), np.float32))
    assert op.kernel_stats()[0].calls == 1
    from mscustom import context
    assert context.debug_enabled()
    monkeypatch.setenv("MSCUSTOM_DEBUG", "0")
    assert not context.debug_enabled()


def test_a_kernels_own_return_code_is_reported_as_its_own(tmp_path, cache):
    op = Custom(f"{_overrun(tmp_path, 0)}:OwnCode", lambda x: x, lambda x: x, func_type="aot", name="own")
    with pytest.raises(RuntimeError) as info:
        op(ms.Tensor(np.zeros(2, np.float32)))
    msg = str(info.value)
    assert msg.startswith("op 'own': AOT kernel 'OwnCode' (") and "returned error code 1" in msg
    assert "MS_ERR_DTYPE in mscustom_aot.h's codes" in msg and "dtype error" not in msg


def test_the_headers_ship_inside_the_package():
    include = Path(ms.__file__).resolve().parent / "include"
    assert build.INCLUDE_DIR == include
    for name in ("mscustom_aot.h", "custom_aot_extra.h", "mscustom_aot_extra_shim.cc"):
        assert (include / name).is_file()


USER_C = textwrap.dedent("""
    #include "mscustom_aot.h"
    #include "scale.h"          /* next to the source: the source's folder is on the include path */
    int Triple(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
               void *stream, void *extra) {
      int64_t i, n = ms_numel(ndims[0], shapes[0]);
      (void)nparam; (void)dtypes; (void)stream; (void)extra;
      for (i = 0; i < n; ++i) ((double *)params[1])[i] = SCALE * ((double *)params[0])[i];
      return MS_OK;
    }
""")

USER_CC = textwrap.dedent("""
    #include <vector>
    #include "custom_aot_extra.h"
    extern "C" std::vector<int64_t> PlusInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      (void)ndims; (void)extra;
      return {shapes[0][0]};
    }
    extern "C" int Plus(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                        void *stream, void *extra) {
      (void)nparam; (void)ndims; (void)dtypes; (void)stream;
      float add = static_cast<AotExtra *>(extra)->Attr<float>("add");
      for (int64_t i = 0; i < shapes[0][0]; ++i)
        static_cast<double *>(params[1])[i] = static_cast<const double *>(params[0])[i] + add;
      return 0;
    }
""")

USER_PROGRAM = textwrap.dedent("""
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops import CustomRegOp
    triple = ops.Custom("kernels/triple.c:Triple", lambda x: x, lambda x: x, func_type="aot")
    info = CustomRegOp().input(0, "x").output(0, "y").attr("add", "required", "float", value=0.5)
    plus = ops.Custom("kernels/plus.cc:Plus", None, ms.float64, func_type="aot", reg_info=info)
    x = ms.Tensor(np.array([1.0, 2.0]))
    print(*triple(x).asnumpy(), *plus(x).asnumpy())
""")


def test_a_users_c_and_cpp_sources_outside_the_repository_build_against_the_shipped_headers(tmp_path):
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "triple.c").write_text(USER_C)
    (kernels / "scale.h").write_text("#define SCALE 3.0\n")
    (kernels / "plus.cc").write_text(USER_CC)
    env = dict(os.environ, MSCUSTOM_CACHE_DIR=str(tmp_path / "cache"))
    for var in ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"):
        env.pop(var, None)
    proc = subprocess.run([sys.executable, "-c", USER_PROGRAM], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert [float(v) for v in proc.stdout.split()] == [3.0, 6.0, 1.5, 2.5]
