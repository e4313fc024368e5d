"""What a new user meets in the first hour: running their own script, make demo's install and output,
errors of aot kernels built from a source, and how many arguments an ops.Custom op takes.

The input-count rule is MindSpore 2.10's (``ops.Custom``'s ``inputs_num`` is
the function's parameter count; an ``"lib.so:Func"`` kernel's inputs are the
reg info's inputs and its attributes without a value); the values marked as
MindSpore's were computed by MindSpore 2.10 (CPU) with the same calls.
"""

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- running your own program
def test_readme_first_screen_says_how_to_run_your_own_program():
    first_screen = "\n".join((REPO / "README.md").read_text().splitlines()[:40])
    assert "## Running your own program" in first_screen
    assert ".venv/bin/python my_program.py" in first_screen
    assert "source .venv/bin/activate" in first_screen
    assert "ModuleNotFoundError" in first_screen and "pip install -e /path/to/mscustom" in first_screen


def test_the_package_imports_from_outside_the_checkout(tmp_path):
    """What the README promises: the environment's interpreter finds mscustom from any directory."""
    code = "import importlib.util, sys; sys.stdout.write(importlib.util.find_spec('mscustom').origin)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout).resolve().is_relative_to(REPO)


# ---------------------------------------------------------------- make demo's install
def _dry_run(target, tmp_path):
    """The commands ``make -n <target>`` would run for an environment not made yet (``VENV`` in ``tmp_path``)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / ".venv"
    # under `make test` the parent's MAKEFLAGS/MAKELEVEL would add "Entering directory" lines
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    proc = subprocess.run(["make", "--no-print-directory", "-n", target, f"VENV={venv}"], cwd=REPO, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.replace(str(venv), ".venv")


def test_make_demo_installs_the_runtime_and_the_demo_extra_only_and_quietly(tmp_path):
    out = _dry_run("demo", tmp_path)
    installs = [line for line in out.splitlines() if "pip install" in line]
    assert len(installs) == 2                                   # the package, then the demo extra
    assert all("pip install -q" in line and ">.venv/pip.log 2>&1 || { cat .venv/pip.log; exit 1; }" in line
               for line in installs)
    assert "-e ." in installs[0] and 'installing mscustom (editable) and its runtime dependencies' in installs[0]
    assert "extra *== *.demo." in installs[1] and "installing the demo extra" in installs[1]
    assert not re.search(r"\.(test|dist|gpu)\.", out) and "[test" not in out
    assert out.rstrip().endswith(".venv/bin/python examples/demo.py")


def test_make_test_still_installs_the_test_dist_and_gpu_extras(tmp_path):
    out = _dry_run("test", tmp_path)
    for extra in ("test", "dist", "gpu"):
        assert f"extra *== *.{extra}." in out
    assert "-e ." in out and "pytest" in out
    assert "note: installing the 'gpu' extra failed" in out                 # gpu stays optional


def test_demo_says_which_loss_is_which():
    sys.path.insert(0, str(REPO / "examples"))
    try:
        import demo
        from training_curves import EpochCurves
    finally:
        sys.path.remove(str(REPO / "examples"))
    assert "'loss is' (LossMonitor) is the loss of the epoch's last training step" in demo.LOSS_LEGEND
    curves = EpochCurves()
    curves.history.update(epoch=[1], step_loss=[0.667], test_accuracy=[0.9194], test_loss=[0.2499])
    assert curves.summary() == ("epoch 1: mean training loss of the epoch 0.6670; after it: "
                                "test accuracy 0.9194, test loss 0.2499")


# ---------------------------------------------------------------- aot errors name the source
KERNELS = textwrap.dedent("""
    #include "mscustom_aot.h"
    int Fails(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
              void *stream, void *extra) {
      (void)nparam; (void)params; (void)ndims; (void)shapes; (void)dtypes; (void)stream; (void)extra;
      return 7;
    }
    int Overrun(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                void *stream, void *extra) {
      float *out = (float *)params[1];
      int64_t i, n = ms_numel(ndims[0], shapes[0]);
      (void)nparam; (void)dtypes; (void)stream; (void)extra;
      for (i = 0; i < n + 4; ++i) out[i] = 1.0f;
      return MS_OK;
    }
""")


@pytest.fixture(scope="module")
def kernel_source(tmp_path_factory):
    """``(source, cache)``: a C file of two failing kernels and the build cache it is compiled into."""
    folder = tmp_path_factory.mktemp("first_hour_aot")
    src = folder / "my_kernels.c"
    src.write_text(KERNELS)
    cache = folder / "cache"
    old = os.environ.get("MSCUSTOM_CACHE_DIR")
    os.environ["MSCUSTOM_CACHE_DIR"] = str(cache)
    yield src.resolve(), cache.resolve()
    if old is None:
        os.environ.pop("MSCUSTOM_CACHE_DIR", None)
    else:
        os.environ["MSCUSTOM_CACHE_DIR"] = old


def _source_then_entry(src, cache):
    """The source, then its cache entry: '<src>', built into '<cache>/my_kernels-<hash>.so' (quoted or not)."""
    return (re.escape(str(src)) + r"'?,? \(?built into '?" + re.escape(str(cache)) + r"/my_kernels-[0-9a-f]+\.so")


def test_kernel_error_code_names_the_source_then_the_cache_entry(kernel_source):
    src, cache = kernel_source
    op = ops.Custom(f"{src}:Fails", lambda x: x, lambda x: x, func_type="aot")
    assert op.kernels[0].name == "aot:my_kernels.c:Fails[CPU]"
    with pytest.raises(RuntimeError, match=r"op 'Fails': AOT kernel 'Fails' \(" + _source_then_entry(src, cache)
                       + r"\) returned error code 7"):
        op(ms.Tensor(np.ones(3, np.float32)))


def test_out_of_bounds_write_names_the_source_then_the_cache_entry(kernel_source):
    src, cache = kernel_source
    op = ops.Custom(f"{src}:Overrun", lambda x: x, lambda x: x, func_type="aot")
    with pytest.raises(RuntimeError, match=r"op 'Overrun': AOT kernel 'Overrun' \(" + _source_then_entry(src, cache)
                       + r"\) wrote .* past the end of output 0"):
        op(ms.Tensor(np.ones(3, np.float32)))


def test_missing_symbol_and_missing_infer_shape_name_the_source_first(kernel_source):
    src, cache = kernel_source
    with pytest.raises(ValueError, match=r"op 'Nope': symbol 'Nope' not found in AOT source '"
                       + _source_then_entry(src, cache) + r"'\); expected the source to define that kernel"):
        ops.Custom(f"{src}:Nope", lambda x: x, lambda x: x, func_type="aot")
    with pytest.raises(ValueError, match=r"'FailsInferShape' .*, which '" + _source_then_entry(src, cache)
                       + r"'\) does not define; give ops.Custom an out_shape or add that function to the source"):
        ops.Custom(f"{src}:Fails", None, lambda x: x, func_type="aot")


# ---------------------------------------------------------------- how many inputs an op takes
def axpb(x, alpha, beta):
    return (alpha * x + beta).astype(x.dtype)


X = np.array([1.0, 2.0], np.float32)


def test_the_function_signature_counts_the_inputs_as_in_mindspore():
    op = ops.Custom(axpb, out_shape=lambda x, a, b: x, out_dtype=lambda x, a, b: x, func_type="pyfunc")
    np.testing.assert_array_equal(op(ms.Tensor(X), 3.0, 1.0).asnumpy(), [4.0, 7.0])        # MindSpore: [4. 7.]
    with pytest.raises(TypeError, match=r"^op 'axpb' takes 3 input argument\(s\) \(x, alpha, beta\), got 1; the "
                                        r"count comes from the parameters of pyfunc function 'axpb'$"):
        op(ms.Tensor(X))


def test_the_signature_wins_over_an_out_shape_taking_any_number():
    op = ops.Custom(axpb, out_shape=lambda *a: a[0], out_dtype=lambda *a: a[0], func_type="pyfunc")
    np.testing.assert_array_equal(op(ms.Tensor(X), 3.0, 1.0).asnumpy(), [4.0, 7.0])        # MindSpore: [4. 7.]
    with pytest.raises(TypeError, match=r"takes 3 input argument\(s\) \(x, alpha, beta\), got 2; the count comes "
                                        r"from the parameters of pyfunc function 'axpb'"):
        op(ms.Tensor(X), 3.0)                           # MindSpore refuses it too (its inputs_num is 3)


def test_an_out_shape_no_call_can_satisfy_fails_when_the_op_is_made():
    """MindSpore raises at every call (``<lambda>() takes 1 positional argument but 3 were given``)."""
    with pytest.raises(TypeError, match=r"^op 'Axpb': out_shape takes 1 argument\(s\) \(x\), but the op takes 3 "
                                        r"input argument\(s\) \(x, alpha, beta\), counted from the parameters of "
                                        r"pyfunc function 'axpb'; out_shape is called with one argument per call "
                                        r"argument"):
        ops.Custom(axpb, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc", name="Axpb")


def test_keywords_name_the_function_inputs():
    def scaled(x, alpha, beta=1.0):
        return (alpha * x + beta).astype(x.dtype)

    op = ops.Custom(scaled, lambda x, a, b=None: x, lambda x, a, b=None: x)
    t = ms.Tensor(X)
    np.testing.assert_array_equal(op(t, alpha=3.0).asnumpy(), [4.0, 7.0])
    np.testing.assert_array_equal(op(t, alpha=3.0, beta=0.0).asnumpy(), [3.0, 6.0])
    np.testing.assert_array_equal(op(x=t, beta=2.0, alpha=1.0).asnumpy(), [3.0, 4.0])
    np.testing.assert_array_equal(op(t, 3.0, beta=0.0).asnumpy(), [3.0, 6.0])
    with pytest.raises(TypeError, match=r"op 'scaled' got two values for input argument\(s\) \['alpha'\]"):
        op(t, 3.0, alpha=2.0)
    with pytest.raises(TypeError, match=r"op 'scaled': input argument 'alpha' \(position 1\) is missing: 'beta' "
                                        r"after it is given by keyword, and 'alpha' has no default"):
        op(t, beta=2.0)
    with pytest.raises(TypeError, match=r"op 'scaled' got unknown keyword argument\(s\) \['gamma'\]"):
        op(t, 3.0, gamma=2.0)


def test_keywords_reach_the_bprop_in_their_places():
    seen = []

    def bprop(x, a, y, out, dout):
        seen.append(a)
        return dout * a, 0.0, dout

    op = ops.Custom(lambda x, a, y: a * x + y, lambda x, a, y: x, lambda x, a, y: x, bprop=bprop, name="axpy")
    x, y = ms.Tensor(X), ms.Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(op(x, y=y, a=2.0).asnumpy(), [3.0, 5.0])
    g = ms.grad(lambda t: op(t, a=3.0, y=y).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [3.0, 3.0])
    assert seen == [3.0]


def test_without_a_signature_to_read_the_out_shape_callable_counts(kernel_source):
    src, _ = kernel_source
    op = ops.Custom(f"{src}:Fails", lambda x, y: x, lambda x, y: x, func_type="aot")
    with pytest.raises(TypeError, match=r"^op 'Fails' takes 2 input argument\(s\) \(x, y\), got 1; the count comes "
                                        r"from the parameters of the out_shape callable$"):
        op(ms.Tensor(X))


def test_aot_inputs_are_counted_from_the_reg_info_inputs_and_free_attributes(kernel_source):
    src, _ = kernel_source
    info = (CustomRegOp("Fails").input(0, "x").input(1, "y").output(0, "z").attr("k", "required", "float")
            .target("CPU").get_op_info())
    op = ops.Custom(f"{src}:Fails", lambda *a: a[0], lambda *a: a[0], func_type="aot", reg_info=info)
    with pytest.raises(TypeError, match=r"^op 'Fails' takes 2 to 3 input argument\(s\) \(x, y, k\), got 1; the count "
                                        r"comes from the reg info's inputs and its attributes without a value$"):
        op(ms.Tensor(X))
