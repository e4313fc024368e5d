"""float16 in C kernels: mscustom_aot.h's half helpers and the float16 example kernels of aot_kernels/half.c.

The conversions are checked against NumPy's float16 over every one of the
65536 half values and over a sample of floats chosen where rounding is
hardest (the midpoints between halves and their neighbours, the overflow,
subnormal and underflow boundaries) plus random bit patterns; the kernels
run through ``ops.Custom`` with float16 reg-info rows.
"""

import ctypes
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom.ops import Custom, CustomRegOp, DataType

REPO = Path(__file__).resolve().parents[1]
LIB = "aot_kernels/build/libkernels.so"
SYMBOLS = ("CustomAxpyHalf", "CustomHalfToFloat", "CustomFloatToHalf")


@pytest.fixture(scope="module", autouse=True)
def kernels_built():
    """libkernels.so with the float16 kernels (``make kernels`` when it is missing or older than half.c)."""
    lib = REPO / LIB
    if lib.is_file():
        handle = ctypes.CDLL(str(lib))
        if all(hasattr(handle, s) for s in SYMBOLS):
            return
    if shutil.which("make") is None:
        pytest.skip(f"{LIB} lacks the float16 kernels and make is not installed")
    subprocess.run(["make", "kernels"], cwd=REPO, check=True, capture_output=True)


def _cast_op(symbol, out_dtype, in_row, out_row):
    info = (CustomRegOp(symbol).input(0, "x").output(0, "out").dtype_format(in_row, out_row)
            .target("CPU").get_op_info())
    return Custom(f"{LIB}:{symbol}", lambda x: x, out_dtype, func_type="aot", reg_info=info)


@pytest.fixture(scope="module")
def to_float():
    return _cast_op("CustomHalfToFloat", ms.float32, DataType.F16_Default, DataType.F32_Default)


@pytest.fixture(scope="module")
def to_half():
    return _cast_op("CustomFloatToHalf", ms.float16, DataType.F32_Default, DataType.F16_Default)


ALL_HALVES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def _same_as_numpy(got, want, bits):
    """Bit-for-bit equal to NumPy, but NaNs: a NaN of the same sign (NumPy may quiet a signalling NaN)."""
    uint = {2: np.uint16, 4: np.uint32}[got.itemsize]
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(np.signbit(got[nan]), np.signbit(want[nan]))
    g, w = got[~nan].view(uint), want[~nan].view(uint)
    bad = np.flatnonzero(g != w)
    assert bad.size == 0, (f"{bad.size} values differ from NumPy, first: input bits {bits[~nan][bad[0]]:#x} -> "
                           f"{g[bad[0]]:#x}, NumPy {w[bad[0]]:#x}")


# ---------------------------------------------------------------- the conversion helpers
def test_half_to_float_is_numpy_on_all_65536_halves(to_float):
    got = to_float(ms.Tensor(ALL_HALVES)).asnumpy()
    assert got.dtype == np.float32
    _same_as_numpy(got, ALL_HALVES.astype(np.float32), ALL_HALVES.view(np.uint16))
    nan = np.isnan(ALL_HALVES)                          # a NaN keeps its 10 payload bits
    payload = ALL_HALVES.view(np.uint16)[nan].astype(np.uint32) & 0x3FF
    assert np.array_equal((got[nan].view(np.uint32) >> 13) & 0x3FF, payload)


def test_float_to_half_gives_back_every_half(to_half):
    finite = ALL_HALVES[~np.isnan(ALL_HALVES)]
    got = to_half(ms.Tensor(finite.astype(np.float32))).asnumpy()
    assert got.dtype == np.float16 and np.array_equal(got.view(np.uint16), finite.view(np.uint16))


def _hard_floats():
    """Floats where rounding to half is decided: midpoints between neighbouring halves (ties), one float
    either side of each, and the boundaries of overflow, subnormals and underflow."""
    halves = np.sort(ALL_HALVES[np.isfinite(ALL_HALVES)].astype(np.float64))
    halves = np.unique(halves)
    mid = ((halves[:-1] + halves[1:]) / 2).astype(np.float32)     # exact: 12 significant bits
    above = np.nextafter(mid, np.float32(np.inf))
    below = np.nextafter(mid, np.float32(-np.inf))
    tiny = np.float32(2.0 ** -24)
    edges = np.array([0.0, 65504.0, 65519.996, 65520.0, 65536.0, 1e38, np.finfo(np.float32).max, np.inf,
                      2.0 ** -14, 2.0 ** -15, 2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -25, 2.0 ** -26, 1e-45,
                      np.finfo(np.float32).tiny], np.float32)
    with np.errstate(over="ignore"):
        up = np.nextafter(edges, np.float32(np.inf))
    edges = np.concatenate([edges, up, np.nextafter(edges, np.float32(0)), tiny * np.arange(1, 2048, dtype=np.float32)])
    values = np.concatenate([mid, above, below, edges])
    return np.concatenate([values, -values])


def _nans():
    """Quiet and signalling NaNs of both signs, with payloads in the kept and in the dropped bits."""
    payloads = np.array([0x400000, 0x000001, 0x001FFF, 0x002000, 0x3FFFFF, 0x7FFFFF, 0x155555], np.uint32)
    bits = np.concatenate([0x7F800000 | payloads, 0xFF800000 | payloads])
    return bits.view(np.float32)


def test_float_to_half_rounds_as_numpy_at_ties_boundaries_and_nans(to_half):
    x = np.concatenate([_hard_floats(), _nans()])
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    got = to_half(ms.Tensor(x)).asnumpy()
    _same_as_numpy(got, want, x.view(np.uint32))
    nan = np.isnan(x)                                   # a NaN keeps the top 10 bits of its payload (or 1)
    kept = (x[nan].view(np.uint32) >> 13) & 0x3FF
    assert np.array_equal(got[nan].view(np.uint16) & 0x3FF, np.where(kept == 0, 1, kept))


def test_float_to_half_is_numpy_on_random_float_bits(to_half):
    bits = np.random.default_rng(7).integers(0, 1 << 32, size=200_000, dtype=np.uint64).astype(np.uint32)
    # most random floats are far outside half's range: add as many scaled into it (2^-26 .. 2^17)
    scaled = (bits & 0x807FFFFF) | ((bits % 44 + 101).astype(np.uint32) << 23)
    x = np.concatenate([bits, scaled]).view(np.float32)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    _same_as_numpy(to_half(ms.Tensor(x)).asnumpy(), want, x.view(np.uint32))


# ---------------------------------------------------------------- a float16 op
def _axpy_half():
    info = (CustomRegOp("CustomAxpyHalf").input(0, "x").input(1, "y").output(0, "out")
            .attr("alpha", "required", "float")
            .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default)
            .target("CPU").get_op_info())
    # out_shape/out_dtype get alpha too when it is given positionally (as in MindSpore): hence *attrs
    return Custom(f"{LIB}:CustomAxpyHalf", lambda x, y, *attrs: x, lambda x, y, *attrs: x, func_type="aot",
                  reg_info=info)


def test_float16_op_through_ops_custom_matches_numpy(rng):
    op = _axpy_half()
    x = (rng.standard_normal((4, 33)) * 100).astype(np.float16)
    y = (rng.standard_normal((4, 33)) * 100).astype(np.float16)
    for alpha in (1.0, -0.3, 700.0):                    # 700 * 400 overflows to inf, as in NumPy
        with np.errstate(over="ignore"):
            want = (np.float32(alpha) * x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
        got = op(ms.Tensor(x), ms.Tensor(y), alpha=alpha)
        assert got.dtype == ms.float16 and got.shape == (4, 33)
        assert np.array_equal(got.asnumpy().view(np.uint16), want.view(np.uint16))
    np.testing.assert_array_equal(op(ms.Tensor(x), ms.Tensor(y), 2.0).asnumpy(),       # alpha positionally
                                  (2 * x.astype(np.float32) + y.astype(np.float32)).astype(np.float16))


def test_float16_op_rejects_float32_inputs_by_its_reg_info():
    op = _axpy_half()
    x = ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"op 'CustomAxpyHalf' has no kernel on 'CPU' for inputs \(float32/Default"
                                        r"Format, float32/DefaultFormat\); supported rows .*\n  \(float16/"):
        op(x, x, alpha=1.0)


def test_the_helpers_compile_as_cpp_and_build_on_demand(tmp_path, monkeypatch):
    src = tmp_path / "half_round.cc"
    src.write_text(textwrap.dedent("""
        #include "mscustom_aot.h"
        // params = [x float16, out float16]: out = half(float(x) / 3), rounded once
        extern "C" int HalfThird(int nparam, void **params, int *ndims, int64_t **shapes,
                                 const char **dtypes, void *stream, void *extra) {
          (void)stream; (void)extra;
          if (nparam != 2 || !ms_dtype_is(dtypes[0], "float16")) return MS_ERR_DTYPE;
          const mscustom_half *x = static_cast<const mscustom_half *>(params[0]);
          mscustom_half *out = static_cast<mscustom_half *>(params[1]);
          for (int64_t i = 0; i < ms_numel(ndims[0], shapes[0]); ++i)
            out[i] = mscustom_float_to_half(mscustom_half_to_float(x[i]) / 3.0f);
          return MS_OK;
        }
    """))
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    op = Custom(f"{src}:HalfThird", lambda x: x, lambda x: x, func_type="aot")
    x = np.linspace(-60000, 60000, 101).astype(np.float16)
    want = (x.astype(np.float32) / np.float32(3)).astype(np.float16)
    assert np.array_equal(op(ms.Tensor(x)).asnumpy().view(np.uint16), want.view(np.uint16))
