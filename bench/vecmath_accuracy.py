"""The accuracy table of ``docs/vecmath.md``: each vecmath function's largest error in ulps.

float32: every one of the 2**32 bit patterns (``--stride N`` takes every N-th instead, for a quick
look), each result compared with the float64 function of the same input (libm's ``exp``, ``tanh``,
``erf`` ...; ``1/(1 + exp(-x))`` for sigmoid, ``1/sqrt(x)`` for rsqrt), whose own error is some
2**-29 float32 ulps. float64: random samples (log-uniform over the whole range, both signs, and
dense in [-3, 3], [-40, 40], [-800, 800]) against NumPy's long double (x87 80-bit) functions, erf
against a long double series. pow: random pairs in both types (bases 1e-35..1e35 with exponents in
[-4, 4], bases near 1 with exponents up to +-8000, negative bases with integer exponents) against
long double ``powl``.

The error of a result ``r`` for the exact value ``e`` is ``|r - e| / ulp(e)`` with ``ulp(e)`` the
spacing of the type's floats at ``|e|`` (so 0.5 is correct rounding). Results where the exact value
is a NaN, an infinity or outside the type's range must be exactly NaN / the infinity / the
overflowed or underflowed value; a mismatch there is counted as a special-value error.

Not part of CI (the full float32 sweep takes minutes): ``tests/test_vecmath.py`` checks windows of
2**20 consecutive float32 and float64 samples against the bounds in ``vecmath.ULP_BOUND``.

    .venv/bin/python bench/vecmath_accuracy.py [--stride 1] [--n64 2000000] [--markdown]
"""

import argparse
import math
import os
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from mscustom.ops.custom import vecmath as vm  # noqa: E402

UNARY = ("exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "sqrt", "rsqrt")
LD = np.longdouble


@numba.njit(inline="always")
def _f32_pair(k, v):
    """(vecmath result as float64, float64 reference) of function number ``k`` at float32 ``v``."""
    d = np.float64(v)
    if k == 0:
        return np.float64(vm.exp(v)), math.exp(d)
    if k == 1:
        return np.float64(vm.expm1(v)), math.expm1(d)
    if k == 2:
        return np.float64(vm.log(v)), (math.log(d) if d > 0 else (-np.inf if d == 0 else np.nan))
    if k == 3:
        return np.float64(vm.log1p(v)), (math.log1p(d) if d > -1 else (-np.inf if d == -1 else np.nan))
    if k == 4:
        return np.float64(vm.tanh(v)), math.tanh(d)
    if k == 5:
        return np.float64(vm.sigmoid(v)), 1.0 / (1.0 + math.exp(-d)) if d > -700 else math.exp(d)
    if k == 6:
        return np.float64(vm.erf(v)), math.erf(d)
    if k == 7:
        return np.float64(vm.sin(v)), (math.sin(d) if math.isfinite(d) else np.nan)
    if k == 8:
        return np.float64(vm.cos(v)), (math.cos(d) if math.isfinite(d) else np.nan)
    if k == 9:
        return np.float64(vm.sqrt(v)), (math.sqrt(d) if d >= 0 else np.nan)
    return np.float64(vm.rsqrt(v)), (1.0 / math.sqrt(d) if d > 0 else (math.copysign(np.inf, d) if d == 0 else np.nan))


@numba.njit(inline="always")
def _ulp32(e):
    a = abs(e)
    if a < 2.0 ** -126:
        return 2.0 ** -149
    return math.ldexp(1.0, math.frexp(a)[1] - 24)


@numba.njit(inline="always")
def _same_special32(r, e):
    """Whether float32 result ``r`` is right for a reference ``e`` that is NaN, infinite or beyond
    float32's range."""
    if math.isnan(e):
        return math.isnan(r)
    if math.isnan(r):
        return False
    return np.float32(e) == np.float32(r)


@numba.njit(parallel=True)
def _sweep32(k, start, stop, stride):
    """Max ulp error, its input bit pattern and the special-value mismatches over bit patterns
    ``start, start + stride, ... < stop`` (uint32 range)."""
    nblocks = 256
    worst = np.zeros(nblocks)
    where = np.zeros(nblocks, np.uint32)
    bad = np.zeros(nblocks, np.int64)
    count = (stop - start + stride - 1) // stride
    per = (count + nblocks - 1) // nblocks
    for blk in numba.prange(nblocks):
        m = 0.0
        w = np.uint32(0)
        nbad = 0
        for j in range(blk * per, min(count, (blk + 1) * per)):
            bits = np.uint32(start + j * stride)
            v = np.array([bits], np.uint32).view(np.float32)[0]
            r, e = _f32_pair(k, v)
            if math.isnan(e) or math.isinf(e) or abs(e) > 3.4028234663852886e38 or math.isnan(r) or math.isinf(r):
                if not _same_special32(r, e):
                    nbad += 1
                continue
            err = abs(r - e) / _ulp32(e)
            if err > m:
                m = err
                w = bits
        worst[blk] = m
        where[blk] = w
        bad[blk] = nbad
    i = np.argmax(worst)
    return worst[i], where[i], bad.sum()


def float32_table(stride):
    rows = {}
    for k, name in enumerate(UNARY):
        t0 = time.perf_counter()
        best, where, bad = 0.0, 0, 0
        chunk = 1 << 28
        for start in range(0, 1 << 32, chunk):
            w, at, b = _sweep32(k, start, start + chunk, stride)
            bad += int(b)
            if w > best:
                best, where = float(w), int(at)
        x = np.array([where], np.uint32).view(np.float32)[0]
        rows[name] = (best, float(x), bad)
        print(f"  float32 {name:8} max {best:.3f} ulp at {float(x):.9g}, special mismatches {bad} "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return rows


# ---------------------------------------------------------------- float64 against long double
def _erf_ld(x):
    """erf in long double: 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (2n+1)!! (positive terms)."""
    a = np.minimum(np.abs(x), LD(7))
    term, total, a2 = a.copy(), a.copy(), a * a
    for n in range(1, 600):
        term = term * 2 * a2 / (2 * n + 1)
        total = total + term
        if n > 20 and np.all(term <= total * LD(1e-22)):
            break
    r = 2 / np.sqrt(LD("3.14159265358979323846264338327950288")) * np.exp(-a2) * total
    r = np.where(np.abs(x) >= 7, 1, r)
    return np.copysign(r, x)


def _ref64(name, x):
    xl = x.astype(LD)
    with np.errstate(all="ignore"):
        return {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "tanh": np.tanh,
                "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "erf": _erf_ld, "sin": np.sin, "cos": np.cos,
                "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v)}[name](xl)


def _ulp_err(r, e, mant, tiny):
    """Max ulp error of results ``r`` (finite references ``e`` within range only) and the argmax."""
    ok = np.isfinite(e) & np.isfinite(r.astype(LD))
    a = np.abs(e[ok])
    ulp = np.where(a < tiny, LD(tiny) * LD(2.0) ** -mant, LD(2.0) ** (np.floor(np.log2(np.maximum(a, tiny))) - mant))
    err = np.abs(r[ok].astype(LD) - e[ok]) / ulp
    i = int(np.argmax(err))
    return float(err[i]), np.flatnonzero(ok)[i]


def _samples64(n, rng):
    mag = np.exp(rng.uniform(np.log(1e-300), np.log(1e300), n // 2))
    xs = np.concatenate([mag * rng.choice([-1.0, 1.0], n // 2), rng.uniform(-3, 3, n // 8),
                         rng.uniform(-40, 40, n // 8), rng.uniform(-800, 800, n // 8), rng.uniform(0, 2, n // 8)])
    return xs


@numba.njit
def _run64(k, x, out):
    for i in range(x.size):
        v = x[i]
        if k == 0:
            out[i] = vm.exp(v)
        elif k == 1:
            out[i] = vm.expm1(v)
        elif k == 2:
            out[i] = vm.log(v)
        elif k == 3:
            out[i] = vm.log1p(v)
        elif k == 4:
            out[i] = vm.tanh(v)
        elif k == 5:
            out[i] = vm.sigmoid(v)
        elif k == 6:
            out[i] = vm.erf(v)
        elif k == 7:
            out[i] = vm.sin(v)
        elif k == 8:
            out[i] = vm.cos(v)
        elif k == 9:
            out[i] = vm.sqrt(v)
        else:
            out[i] = vm.rsqrt(v)


def float64_table(n):
    rng = np.random.default_rng(0)
    rows = {}
    for k, name in enumerate(UNARY):
        x = _samples64(n, rng)
        if name in ("log", "sqrt", "rsqrt"):
            x = np.abs(x)
        if name == "log1p":
            x = np.where(x < -1, np.abs(x), x)
        out = np.empty_like(x)
        _run64(k, x, out)
        err, i = _ulp_err(out, _ref64(name, x), 52, 2.0 ** -1022)
        rows[name] = (err, float(x[i]))
        print(f"  float64 {name:8} max {err:.3f} ulp at {x[i]:.17g}", file=sys.stderr)
    return rows


@numba.njit
def _pow_loop(x, y, out):
    for i in range(x.size):
        out[i] = vm.pow(x[i], y[i])


def _pow_pairs(n, rng, dtype):
    b1 = np.exp(rng.uniform(np.log(1e-35), np.log(1e35), n))
    e1 = rng.uniform(-4, 4, n)
    b2 = 1 + rng.uniform(-1e-3, 1e-3, n)
    e2 = rng.uniform(-8000, 8000, n)
    b3 = -np.exp(rng.uniform(np.log(1e-3), np.log(1e3), n))
    e3 = rng.integers(-12, 13, n).astype(np.float64)
    return (np.concatenate([b1, b2, b3]).astype(dtype), np.concatenate([e1, e2, e3]).astype(dtype))


def pow_rows(n):
    rng = np.random.default_rng(1)
    rows = {}
    for dtype, mant, tiny in ((np.float32, 23, 2.0 ** -126), (np.float64, 52, 2.0 ** -1022)):
        x, y = _pow_pairs(n, rng, dtype)
        out = np.empty_like(x)
        _pow_loop(x, y, out)
        with np.errstate(all="ignore"):
            ref = np.power(x.astype(LD), y.astype(LD))
        big = np.finfo(dtype).max
        ref = np.where(np.abs(ref) > big, LD(np.inf) * np.sign(ref), ref)
        err, i = _ulp_err(out, ref, mant, tiny)
        rows[np.dtype(dtype).name] = (err, float(x[i]), float(y[i]))
        print(f"  {np.dtype(dtype).name} pow max {err:.3f} ulp at ({x[i]!r}, {y[i]!r})", file=sys.stderr)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stride", type=int, default=1, help="float32: every N-th bit pattern (1: all)")
    parser.add_argument("--n64", type=int, default=2_000_000, help="float64 samples per function")
    parser.add_argument("--npow", type=int, default=1_000_000, help="pow pairs per kind and type")
    opts = parser.parse_args()
    r32 = float32_table(opts.stride)
    r64 = float64_table(opts.n64)
    rp = pow_rows(opts.npow)
    print(f"float32: {'every' if opts.stride == 1 else f'every {opts.stride}-th'} bit pattern; "
          f"float64: {opts.n64} samples per function; pow: {3 * opts.npow} pairs per type")
    print("| function | float32 max ulp (at x) | float64 max ulp (at x) | bound (f32, f64) |")
    print("|---|---|---|---|")
    for name in UNARY:
        e32, x32, bad = r32[name]
        e64, x64 = r64[name]
        b = vm.ULP_BOUND[name]
        special = "" if bad == 0 else f", {bad} special-value mismatches"
        print(f"| {name} | {e32:.3f} ({x32:.9g}{special}) | {e64:.3f} ({x64:.17g}) | {b[0]}, {b[1]} |")
    e32, bx, ey = rp["float32"]
    e64, bx64, ey64 = rp["float64"]
    b = vm.ULP_BOUND["pow"]
    print(f"| pow | {e32:.3f} ({bx:.9g}, {ey:.9g}) | {e64:.3f} ({bx64:.17g}, {ey64:.17g}) | {b[0]}, {b[1]} |")


if __name__ == "__main__":
    main()
