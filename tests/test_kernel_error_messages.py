"""Numba compile failures of jit and hybrid kernels: one short paragraph naming the user's own line.

A kernel called with a tensor of the wrong rank used to print Numba's ~100-line
TypingError (for hybrid kernels, pointing at the generated module in the
cache). The message now names the op, the kernel, the argument with its rank
and dtype as given, and file:line with the text of the user's line; Numba's
report stays in ``__cause__``.
"""

import inspect

import numba
import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import kernel
from mscustom.ops.custom._kernel_errors import LineMap, compile_error, describe_type

MAX_LINES = 8
HERE = __file__


def _line_of(func, text):
    """The file line of ``text`` inside ``func``'s source."""
    lines, first = inspect.getsourcelines(func)
    return first + next(k for k, ln in enumerate(lines) if text in ln)


# ---------------------------------------------------------------- kernels with a rank mistake
def add_2d(x, out):
    for i in range(out.size):
        out.flat[i] = x[i, 0] + 1.0


def loop_2d(x, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i] = x[i] + j


def unknown_attribute(x, out):
    out[0] = x.no_such_attribute


@kernel
def hybrid_2d(x):
    c = output_tensor(x.shape, x.dtype)  # noqa: F821 (a DSL name)
    for i in range(x.shape[0]):
        c[i] = x[i, 0] * 2.0
    return c


@kernel
def hybrid_cols(x):
    c = output_tensor(x.shape, x.dtype)  # noqa: F821 (a DSL name)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            c[i] = c[i] + x[i]
    return c


@kernel
def hybrid_inplace(a):
    for i in range(a.shape[0]):
        a[i, 1] = a[i] * 2.0
    return a


def _same(x):
    return x


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path))
    return tmp_path


def _error(op, *arrays):
    with pytest.raises(RuntimeError) as info:
        op(*(ms.Tensor(a) for a in arrays))
    return info.value


def _check_short(err, *, op, kernel_kind, kname, line, text):
    msg = str(err)
    assert len(msg.splitlines()) < MAX_LINES, msg
    assert msg.startswith(f"op '{op}': {kernel_kind} kernel '{kname}' failed to compile for ("), msg
    assert f"{HERE}:{line}: {text}" in msg, msg
    assert isinstance(err.__cause__, numba.core.errors.TypingError)
    assert "candidate" not in msg and "During:" not in msg
    return msg


# ---------------------------------------------------------------- jit
def test_jit_index_with_too_many_axes_names_argument_rank_and_line():
    op = ops.Custom(add_2d, out_shape=_same, out_dtype=_same, func_type="jit", name="adder")
    err = _error(op, np.ones(3, np.float32))
    msg = _check_short(err, op="adder", kernel_kind="jit", kname="add_2d",
                       line=_line_of(add_2d, "x[i, 0]"), text="out.flat[i] = x[i, 0] + 1.0")
    assert "argument 'x' is given as a 1-D float32 array" in msg
    assert "x[i, 0] indexes it with 2 indices" in msg


def test_jit_shape_axis_beyond_rank_names_argument_and_axis():
    op = ops.Custom(loop_2d, out_shape=_same, out_dtype=_same, func_type="jit", name="looper")
    err = _error(op, np.ones(4, np.float64))
    msg = _check_short(err, op="looper", kernel_kind="jit", kname="loop_2d",
                       line=_line_of(loop_2d, "x.shape[1]"), text="for j in range(x.shape[1]):")
    assert "argument 'x' is given as a 1-D float64 array, but x.shape[1] asks for axis 1" in msg


def test_jit_other_typing_errors_stay_short_and_name_the_argument():
    op = ops.Custom(unknown_attribute, out_shape=_same, out_dtype=_same, func_type="jit", name="attr_op")
    err = _error(op, np.ones(2, np.float32))
    msg = _check_short(err, op="attr_op", kernel_kind="jit", kname="unknown_attribute",
                       line=_line_of(unknown_attribute, "no_such"), text="out[0] = x.no_such_attribute")
    assert "no_such_attribute" in msg.splitlines()[0]
    assert "argument 'x' is given as a 1-D float32 array" in msg


# ---------------------------------------------------------------- hybrid: the generated line maps back
def test_hybrid_error_points_at_the_kernels_line_not_the_generated_file(cache):
    op = ops.Custom(hybrid_2d, func_type="hybrid", name="hyb")
    err = _error(op, np.ones(3, np.float32))
    msg = _check_short(err, op="hyb", kernel_kind="hybrid", kname="hybrid_2d",
                       line=_line_of(hybrid_2d.func, "x[i, 0]"), text="c[i] = x[i, 0] * 2.0")
    assert "argument 'x' is given as a 1-D float32 array, but x[i, 0] indexes it with 2 indices" in msg
    assert str(cache) not in msg.splitlines()[1]             # the user's file, not the cache's
    assert str(cache) in str(err.__cause__)                  # (Numba's own report names the generated one)


def test_hybrid_loop_bound_beyond_rank(cache):
    op = ops.Custom(hybrid_cols, func_type="hybrid", name="cols")
    err = _error(op, np.ones(3, np.float64))
    msg = _check_short(err, op="cols", kernel_kind="hybrid", kname="hybrid_cols",
                       line=_line_of(hybrid_cols.func, "x.shape[1]"), text="for j in range(x.shape[1]):")
    assert "argument 'x' is given as a 1-D float64 array, but x.shape[1] asks for axis 1" in msg


def test_hybrid_in_place_output_is_named_as_the_user_wrote_it(cache):
    op = ops.Custom(hybrid_inplace, func_type="hybrid", name="inpl")
    err = _error(op, np.ones(3, np.float32))
    msg = _check_short(err, op="inpl", kernel_kind="hybrid", kname="hybrid_inplace",
                       line=_line_of(hybrid_inplace.func, "a[i, 1]"), text="a[i, 1] = a[i] * 2.0")
    assert "_out0" not in msg
    assert "argument 'a' is given as a 1-D float32 array, but a[i, 1] indexes it with 2 indices" in msg


# ---------------------------------------------------------------- the formatter on its own
class _Loc:
    def __init__(self, filename, line):
        self.filename, self.line = filename, line


class _FakeError(Exception):
    def __init__(self, msg, loc):
        super().__init__(msg)
        self.msg, self.loc = msg, loc


def test_formatter_without_a_location_or_source_still_gives_one_short_paragraph():
    f32 = numba.types.float32[::1]
    exc = _FakeError("Failed in nopython mode pipeline (step: x)\nsomething odd\n" + "noise\n" * 200, None)
    msg = str(compile_error(exc, what="op 'o': jit kernel 'k'", params=["x", "out"], types=(f32, f32)))
    assert msg.splitlines()[0] == "op 'o': jit kernel 'k' failed to compile for (array(float32, 1d, C), " \
                                  "array(float32, 1d, C)): something odd"
    assert len(msg.splitlines()) == 2
    exc = _FakeError("bad", _Loc("<string>", 3))
    assert len(str(compile_error(exc, what="k", params=[], types=())).splitlines()) == 3


def test_line_map_only_maps_its_own_generated_file(tmp_path):
    m = LineMap(str(tmp_path / "gen.py"), "/src/user.py", {9: 42})
    assert m.user_line(str(tmp_path / "gen.py"), 9) == 42
    assert m.user_line(str(tmp_path / "other.py"), 9) is None
    assert m.user_line(str(tmp_path / "gen.py"), 1) is None
    assert describe_type(numba.types.int64) == "an int64 scalar"
    assert describe_type(numba.types.float64[:, ::1]) == "a 2-D float64 array"


def both_2d(x, out):
    for i in range(x.size):
        out[i, 0] = x[i, 0]


def test_every_argument_the_line_indexes_beyond_its_rank_is_named_the_one_numba_typed_first_first():
    op = ops.Custom(both_2d, out_shape=_same, out_dtype=_same, func_type="jit", name="both")
    err = _error(op, np.ones(3, np.float32))
    msg = _check_short(err, op="both", kernel_kind="jit", kname="both_2d",
                       line=_line_of(both_2d, "out[i, 0]"), text="out[i, 0] = x[i, 0]")
    lines = msg.splitlines()
    assert lines[2] == "  argument 'x' is given as a 1-D float32 array, but x[i, 0] indexes it with 2 indices"
    assert lines[3] == "  argument 'out' is given as a 1-D float32 array, but out[i, 0] indexes it with 2 indices"
