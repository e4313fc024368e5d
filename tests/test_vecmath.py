"""vecmath: accuracy against float64 / long double references, special values, vectorized code,
and the lowering of ``math.*`` / ``np.*`` calls in jit kernels.

float32 is checked on every float32 in windows of 2**20 consecutive bit patterns
(small, around 1, the overflow edges, huge arguments, negatives); float64 on random
samples of several magnitudes against long double. The bounds asserted are the
documented ones (``vecmath.ULP_BOUND``, docs/vecmath.md).
"""

import math
import os
import re
import subprocess
import sys
import textwrap
from math import tanh as imported_tanh

import numba
import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops.custom import vecmath as vm
from mscustom.ops.custom.vecmath import lowering

sp = pytest.importorskip("scipy.special")

UNARY = ("exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "sqrt", "rsqrt")
LD = np.longdouble
WINDOW = 1 << 20
# subnormals, [0.625, 0.69), [1, 1.07), [4, 4.5), [88, 96) (exp overflows), ~9.2e18 (sin/cos reduction),
# [-0.69, -0.625), [-104, -96) (exp's subnormal results)
F32_WINDOWS = (0x00000000, 0x3F200000, 0x3F800000, 0x40800000, 0x42B00000, 0x5F000000, 0xBF300000, 0xC2C00000)


def _all_unary(x, out):
    for i in range(x.size):
        v = x[i]
        out[0, i] = vm.exp(v)
        out[1, i] = vm.expm1(v)
        out[2, i] = vm.log(v)
        out[3, i] = vm.log1p(v)
        out[4, i] = vm.tanh(v)
        out[5, i] = vm.sigmoid(v)
        out[6, i] = vm.erf(v)
        out[7, i] = vm.sin(v)
        out[8, i] = vm.cos(v)
        out[9, i] = vm.sqrt(v)
        out[10, i] = vm.rsqrt(v)


all_unary = numba.njit(_all_unary)


@numba.njit
def pow_loop(x, y, out):
    for i in range(x.size):
        out[i] = vm.pow(x[i], y[i])


def _erf_ld(x):
    """erf in long double: 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (2n+1)!! (positive terms only)."""
    x = np.asarray(x, LD)
    a = np.minimum(np.abs(x), LD(7))
    term, total, a2 = a.copy(), a.copy(), a * a
    for n in range(1, 400):
        term = term * 2 * a2 / (2 * n + 1)
        total = total + term
        if n > 20 and np.all(term <= total * LD(1e-22)):
            break
    r = 2 / np.sqrt(LD("3.14159265358979323846264338327950288")) * np.exp(-a2) * total
    r = np.where(np.abs(x) >= 7, 1, r)
    return np.copysign(np.where(np.isnan(x), np.nan, r), x)


def _reference(name, x):
    with np.errstate(all="ignore"):
        if name == "sigmoid":
            return 1 / (1 + np.exp(-x))
        if name == "erf":
            return sp.erf(x) if x.dtype == np.float64 else _erf_ld(x)
        if name == "rsqrt":
            return 1 / np.sqrt(x)
        return getattr(np, name)(x)


def ulp_error(y, ref, dtype):
    """|y - ref| in ulps of ``dtype`` at ``ref`` (0 where both are the same special value; inf where
    only one is NaN, or the exact result overflows and ``y`` is not that infinity)."""
    fi = np.finfo(dtype)
    a = np.abs(ref)
    if ref.dtype == np.float64:                          # 2**exponent from the bits: fast
        ulp = (a.view(np.uint64) & np.uint64(0x7FF0000000000000)).view(np.float64) * 2.0 ** -fi.nmant
    else:
        ulp = np.ldexp(np.ones_like(a), np.frexp(a)[1] - 1 - fi.nmant)
    np.maximum(ulp, fi.smallest_subnormal, out=ulp)
    with np.errstate(all="ignore"):
        d = np.abs(y - ref)
        d /= ulp
    odd = np.flatnonzero(~np.isfinite(d) | (a > fi.max))  # NaN, infinities, overflow: fixed below
    if odd.size:
        yo, ro = y[odd], ref[odd]
        yn, rn = np.isnan(yo), np.isnan(ro)
        inf_ok = np.isinf(yo) & (np.sign(yo) == np.sign(ro))
        d[odd] = np.where(yn | rn, np.where(yn & rn, 0, np.inf),
                          np.where((np.abs(ro) > fi.max) | np.isinf(ro), np.where(inf_ok, 0, np.inf), np.inf))
    return d


def _bound(name, dtype):
    return vm.ULP_BOUND[name][0 if dtype == np.float32 else 1]


def test_float32_every_value_in_windows_within_the_documented_bound():
    x = np.concatenate([np.arange(s, s + WINDOW, dtype=np.uint32).view(np.float32) for s in F32_WINDOWS])
    out = np.empty((len(UNARY), x.size), np.float32)
    all_unary(x, out)
    x64 = x.astype(np.float64)
    for j, name in enumerate(UNARY):
        err = ulp_error(out[j], _reference(name, x64), np.float32)
        worst = int(np.argmax(err))
        assert err[worst] <= _bound(name, np.float32), \
            f"{name}(float32 {x[worst]!r}) = {out[j, worst]!r}: {err[worst]:.3f} ulp"


def test_float64_samples_within_the_documented_bound():
    rng = np.random.default_rng(7)
    mags = rng.uniform(-700, 700, 12000)
    x = np.concatenate([np.exp(rng.uniform(np.log(lo), np.log(hi), 3000)) * rng.choice([-1, 1], 3000)
                        for lo, hi in ((1e-300, 1e-200), (1e-9, 1e-3), (0.01, 0.9), (0.9, 1.2), (1, 6),
                                       (6, 40), (40, 710), (1e3, 1e300))] + [mags])
    out = np.empty((len(UNARY), x.size), np.float64)
    all_unary(x, out)
    for j, name in enumerate(UNARY):
        sub = slice(None, 2000) if name == "erf" else slice(None)     # the long double erf series is slow
        xs = x[sub] if name != "erf" else np.concatenate([x[3000:4000], x[6000:7000], x[9000:10000]])
        ys = out[j][sub] if name != "erf" else np.concatenate([out[j][3000:4000], out[j][6000:7000],
                                                               out[j][9000:10000]])
        err = ulp_error(ys, _reference(name, xs.astype(LD)), np.float64)
        worst = int(np.argmax(err))
        assert err[worst] <= _bound(name, np.float64), \
            f"{name}(float64 {xs[worst]!r}) = {ys[worst]!r}: {err[worst]:.3f} ulp"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    fi = np.finfo(dtype)
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal, -fi.smallest_subnormal,
                  fi.smallest_normal, fi.max, -fi.max, 1.0, -1.0], dtype)
    out = np.empty((len(UNARY), x.size), dtype)
    all_unary(x, out)
    for j, name in enumerate(UNARY):
        ref = _reference(name, x.astype(LD))
        if name == "erf":
            ref = _reference(name, x.astype(np.float64))
        for xi, yi, ri in zip(x, out[j], ref):
            if np.isnan(ri):
                assert np.isnan(yi), f"{name}({xi!r}) = {yi!r}, expected NaN"
            elif ri == 0 or np.isinf(ri):
                assert yi == ri and np.signbit(yi) == np.signbit(ri), f"{name}({xi!r}) = {yi!r}, expected {ri!r}"
            else:
                assert ulp_error(np.array([yi]), np.array([ri]), dtype)[0] <= _bound(name, dtype), \
                    f"{name}({xi!r}) = {yi!r}, expected {ri!r}"


def test_sin_cos_reduce_exactly_at_the_hardest_arguments():
    # the float64 closest to a multiple of pi/2 (cos is ~ -4.69e-19) and the float32 one
    x64 = np.array([np.ldexp(6381956970095103.0, 797), 1e22, 2.0 ** 1023], np.float64)
    x32 = np.array([np.ldexp(16367173.0, 72), 6.113075743225283e17, 3.4028235e38, 105414350.0], np.float32)
    for x, dtype in ((x64, np.float64), (x32, np.float32)):
        out = np.empty((len(UNARY), x.size), dtype)
        all_unary(x, out)
        for j, name in ((7, "sin"), (8, "cos")):
            err = ulp_error(out[j], _reference(name, x.astype(LD)), dtype)
            assert err.max() <= _bound(name, dtype), (name, dtype, err)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_samples_and_ieee_special_cases(dtype):
    rng = np.random.default_rng(3)
    x = np.concatenate([np.exp(rng.uniform(-40, 40, 40000)), np.exp(rng.uniform(-0.05, 0.05, 20000)),
                        -np.exp(rng.uniform(-3, 3, 10000))]).astype(dtype)
    y = np.concatenate([rng.uniform(-2, 2, 40000), rng.uniform(-2000, 2000, 20000),
                        rng.integers(-30, 30, 10000)]).astype(dtype)
    out = np.empty_like(x)
    pow_loop(x, y, out)
    with np.errstate(all="ignore"):
        err = ulp_error(out, np.power(x.astype(LD), y.astype(LD)), dtype)
    assert err.max() <= _bound("pow", dtype), (x[err.argmax()], y[err.argmax()], err.max())
    sv = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, np.inf, -np.inf, np.nan], dtype)
    xs, ys = (a.ravel().copy() for a in np.meshgrid(sv, sv))
    out = np.empty_like(xs)
    pow_loop(xs, ys, out)
    with np.errstate(all="ignore"):
        ref = np.power(xs.astype(np.float64), ys.astype(np.float64)).astype(dtype)
    for a, b, got, want in zip(xs, ys, out, ref):
        if np.isnan(want) or want == 0 or np.isinf(want):
            ok = (np.isnan(got) and np.isnan(want)) or (got == want and np.signbit(got) == np.signbit(want))
        else:
            ok = ulp_error(np.array([got]), np.array([want], np.float64), dtype)[0] <= _bound("pow", dtype)
        assert ok, f"pow({a!r}, {b!r}) = {got!r}, expected {want!r}"


def test_float32_code_stays_float32_and_is_vectorized():
    @numba.njit
    def loop(x, out):
        for i in range(x.size):
            out[i] = vm.tanh(x[i]) + vm.exp(x[i]) + vm.log(x[i]) + vm.sin(x[i])
    x = np.ones(64, np.float32)
    loop(x, x.copy())
    llvm = loop.inspect_llvm(loop.signatures[0])
    assert "double" not in "\n".join(l for l in llvm.splitlines() if "fmuladd" in l or "fdiv" in l)
    assert not re.search(r"call .*@(tanhf|expf|logf|sinf)\b", llvm)
    import llvmlite.binding as llvm_binding
    features = llvm_binding.get_host_cpu_features()
    if features.get("avx2") and features.get("fma"):
        asm = loop.inspect_asm(loop.signatures[0])
        assert re.search(r"vfmadd\w*ps\s+[^\n]*%ymm", asm), "no 8-wide fma in the loop"


def test_python_calls_compute_with_numpy():
    x = np.array([0.5, -1.0], np.float32)
    assert vm.tanh(x).dtype == np.float32
    np.testing.assert_allclose(vm.tanh(x), np.tanh(x))
    np.testing.assert_allclose(vm.sigmoid(np.array([-800.0, 0.0, 800.0])), [0.0, 0.5, 1.0])
    assert vm.erf(0.5) == pytest.approx(math.erf(0.5))
    assert vm.pow(2, 10) == 1024.0 and vm.rsqrt(4.0) == 0.5


def test_integer_arguments_compute_in_float64():
    @numba.njit
    def f(n):
        return vm.exp(n), vm.pow(n, 2)
    assert f(2) == (pytest.approx(math.exp(2), rel=1e-15), 4.0)
    assert f.nopython_signatures[0].return_type.dtype == numba.float64


def test_a_complex_argument_is_refused_naming_the_function():
    @numba.njit
    def f(z):
        return vm.exp(z)
    with pytest.raises(numba.core.errors.TypingError, match="vecmath.exp"):
        f(1j)


# ---------------------------------------------------------------- lowering in jit kernels
def gelu_kernel(x, b, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            z = x[i, j] + b[j]
            out[i, j] = 0.5 * z * (1.0 + math.tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)))


def mixed_kernel(x, out):
    for i in range(x.size):
        v = x[i]
        out[i] = np.exp(v) + imported_tanh(v) + math.log1p(abs(v)) + np.power(v, np.float32(2)) + \
            math.erf(v) + np.cos(v)


def array_kernel(x, out):
    t = np.tanh(x)                        # an array: NumPy's loop, not the vector function
    n = np.power(3, 2)                    # two ints: an int, as NumPy gives
    for i in range(x.size):
        out[i] = t[i] + n


def parallel_kernel(x, out):
    tmp = np.empty(x.size, x.dtype)
    for i in numba.prange(x.size):
        tmp[i] = math.exp(x[i])
    for i in numba.prange(x.size):
        out[i] = tmp[i] + np.sin(x[i])


def _op(kernel, **options):
    return ops.Custom(kernel, out_shape=lambda x, *rest: x, out_dtype=lambda x, *rest: x, func_type="jit",
                      **options)


def test_math_tanh_in_a_kernel_is_lowered_and_stays_within_the_bound_of_libm():
    x = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal(256).astype(np.float32)
    lowered = _op(gelu_kernel)(ms.Tensor(x), ms.Tensor(b)).asnumpy()
    libm = _op(gelu_kernel, vector_math=False)(ms.Tensor(x), ms.Tensor(b)).asnumpy()
    # the kernel computes in float64 (Python float constants): tanh's float64 bound, then one rounding
    assert np.max(ulp_error(lowered, libm.astype(np.float64), np.float32)) <= 1
    copy = lowering.lowered(gelu_kernel)
    assert copy is not None and copy.__code__ is gelu_kernel.__code__
    assert copy.__globals__["math"] is not math and gelu_kernel.__globals__["math"] is math
    d = numba.njit(copy)
    d(x, b, np.empty_like(x))
    assert "tanh" not in " ".join(re.findall(r"call [^\n]*", d.inspect_llvm(d.signatures[0])))


def test_np_functions_imported_names_and_types_are_lowered():
    x = np.linspace(-3, 3, 101).astype(np.float32)
    y = _op(mixed_kernel)(ms.Tensor(x)).asnumpy()
    ref = _op(mixed_kernel, vector_math=False)(ms.Tensor(x)).asnumpy()
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, ref, rtol=4e-7, atol=1e-6)
    copy = lowering.lowered(mixed_kernel)
    g = copy.__globals__
    assert g["np"] is not np and g["np"].float32 is np.float32 and g["np"].__name__ == "numpy"
    assert g["imported_tanh"] is not imported_tanh and g["imported_tanh"](0.5) == math.tanh(0.5)


def test_array_calls_and_integer_calls_keep_numpy_semantics():
    x = np.linspace(-1, 1, 17)
    y = _op(array_kernel)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, np.tanh(x) + 9)


def test_parallel_kernel_with_numpy_allocation_is_lowered():
    x = np.linspace(-2, 2, 1000)
    y = _op(parallel_kernel)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, np.exp(x) + np.sin(x), rtol=1e-15, atol=1e-15)
    assert lowering.lowered(parallel_kernel).__globals__["np"].__name__ == "numpy"   # parfors see numpy


def test_closure_cells_are_lowered_too():
    import math as m

    def kernel(x, out):
        for i in range(x.size):
            out[i] = m.exp(x[i])
    copy = lowering.lowered(kernel)
    assert copy.__closure__[0].cell_contents is not m and kernel.__closure__[0].cell_contents is m
    x = np.linspace(-5, 5, 11)
    np.testing.assert_allclose(_op(kernel)(ms.Tensor(x)).asnumpy(), np.exp(x), rtol=3e-16)


def test_kernels_without_those_calls_are_compiled_as_they_are():
    def kernel(x, out):
        for i in range(x.size):
            out[i] = np.float32(2) * x[i] + math.pi
    assert lowering.lowered(kernel) is None


def test_vector_math_option_is_checked_and_ops_of_both_kinds_coexist():
    with pytest.raises(TypeError, match="op 'gelu_kernel'.*vector_math must be True or False"):
        _op(gelu_kernel, vector_math="no")
    on, off = _op(gelu_kernel), _op(gelu_kernel, vector_math=False)
    x, b = np.full((2, 3), 0.3, np.float32), np.zeros(3, np.float32)
    assert on(ms.Tensor(x), ms.Tensor(b)).asnumpy()[0, 0] == pytest.approx(off(ms.Tensor(x),
                                                                                ms.Tensor(b)).asnumpy()[0, 0])


def test_debug_mode_runs_vecmath_calls_as_python():
    def kernel(x, out):
        for i in range(x.size):
            out[i] = vm.tanh(x[i]) + math.exp(x[i])
    x = np.array([0.25, -1.5], np.float32)
    y = _op(kernel, debug=True)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, np.tanh(x) + np.exp(x), rtol=1e-6)


KERNEL_FILE = textwrap.dedent('''
    import math

    def k(x, out):
        for i in range(x.size):
            out[i] = math.tanh(x[i]) + math.exp(x[i])
''')

CHILD = textwrap.dedent('''
    import glob, json, sys
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    from mscustom._numba_private import cache
    import kmod
    op = ops.Custom(kmod.k, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="jit")
    y = op(ms.Tensor(np.linspace(-1, 1, 5, dtype=np.float32))).asnumpy()
    print(json.dumps({"y": y.tolist(), "loaded": cache.stats["loaded"],
                      "index": sorted(p.rsplit("/", 1)[1] for p in glob.glob(sys.argv[1] + "/**/*.nbi",
                                                                              recursive=True))}))
''')


def test_lowered_kernels_use_numba_disk_cache_in_files_of_their_own(tmp_path):
    import json
    (tmp_path / "kmod.py").write_text(KERNEL_FILE)
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", CHILD, str(cache_dir)], env=env, check=True,
                                      capture_output=True, text=True, cwd=tmp_path).stdout.splitlines()[-1])
            for _ in range(2)]
    assert runs[0]["y"] == runs[1]["y"]
    assert runs[1]["loaded"] >= 1
    assert any(f"-{lowering.cache_tag()}.nbi" in name for name in runs[1]["index"]), runs[1]["index"]
