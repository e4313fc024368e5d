"""Developer tool: the minimax fits behind vecmath's polynomial coefficients (needs mpmath).

Not imported by the package. ``python -m mscustom.ops.custom.vecmath.fit [name ...]``
prints, for each fit, the coefficients and the largest weighted error (the error
each polynomial contributes, as the comments next to the coefficient tables in
``_exp``, ``_log``, ``_erf``, ``_trig`` and ``_pow`` state it). The fits are a
Remez exchange on a dense Chebyshev grid at 40 digits: solve for the
coefficients and a levelled error on ``n + 1`` reference points, move the
references to the alternating extrema of the error, repeat.
"""

import sys

__all__ = ["remez", "FITS"]


def remez(g, a, b, powers, weight=None, grid=600, iters=25):
    """``(coefficients, max weighted error)`` of ``sum c[j] * x**powers[j]`` minimizing
    ``max |weight(x) * (g(x) - p(x))|`` on ``[a, b]`` (``powers`` an int means 0..n)."""
    import mpmath as mp
    mp.mp.dps = 40
    weight = weight or (lambda x: 1)
    if isinstance(powers, int):
        powers = list(range(powers + 1))
    n = len(powers)
    a, b = mp.mpf(a), mp.mpf(b)
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / grid) for i in range(grid + 1)]
    gs, ws = [g(x) for x in xs], [weight(x) for x in xs]
    ref = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / n) for i in range(n + 1)]
    best = None
    for _ in range(iters):
        m = mp.matrix(n + 1, n + 1)
        rhs = mp.matrix(n + 1, 1)
        for i, x in enumerate(ref):
            for j, p in enumerate(powers):
                m[i, j] = x ** p
            m[i, n] = (-1) ** i / weight(x)
            rhs[i] = g(x)
        sol = mp.lu_solve(m, rhs)
        c = [sol[j] for j in range(n)]
        err = [ws[i] * (gs[i] - sum(c[j] * xs[i] ** powers[j] for j in range(n))) for i in range(len(xs))]
        worst = max(abs(e) for e in err)
        if best is None or worst < best[1]:
            best = (c, worst)
        peaks = [i for i in range(len(xs)) if (i == 0 or abs(err[i]) >= abs(err[i - 1]))
                 and (i == len(xs) - 1 or abs(err[i]) >= abs(err[i + 1]))]
        alt = []
        for i in peaks:
            if alt and mp.sign(err[i]) == mp.sign(err[alt[-1]]):
                if abs(err[i]) > abs(err[alt[-1]]):
                    alt[-1] = i
            else:
                alt.append(i)
        while len(alt) > n + 1:
            alt.pop(0 if abs(err[alt[0]]) < abs(err[alt[-1]]) else -1)
        if len(alt) < n + 1 or [xs[i] for i in alt] == ref:
            break
        ref = [xs[i] for i in alt]
    return best


def _fits():
    import mpmath as mp

    def near0(f, series, eps="1e-12"):
        return lambda x: series(x) if abs(x) < mp.mpf(eps) else f(x)

    half_ln2 = mp.log(2) / 2
    expm1_g = near0(lambda r: (mp.exp(r) - 1 - r) / r ** 2, lambda r: mp.mpf(1) / 2 + r / 6 + r ** 2 / 24)

    def tanh_g(u):
        s = mp.sqrt(u)
        return (mp.tanh(s) - s) / (u * s) if u > mp.mpf("1e-12") else -mp.mpf(1) / 3 + 2 * u / 15

    def tanh_w(u):
        return u * mp.sqrt(u) / mp.tanh(mp.sqrt(u)) if u > 0 else mp.mpf("1e-30")

    c_low = mp.mpf(0.69921875)
    zmax = max((f / (2 + f)) ** 2 for f in (c_low - 1, 2 * c_low - 1))

    def log_r(z):
        s = mp.sqrt(z)
        return 2 * (mp.atanh(s) - s) / s if z > mp.mpf("1e-15") else 2 * z / 3 + 2 * z ** 2 / 5

    def pow_h(z):
        s = mp.sqrt(z)
        return ((mp.atanh(s) - s) / (s * z) - mp.mpf(1) / 3) / z if z > mp.mpf("1e-12") else mp.mpf(1) / 5

    def erf_p(u):
        s = mp.sqrt(u)
        return mp.erf(s) / s if u > mp.mpf("1e-20") else 2 / mp.sqrt(mp.pi) * (1 - u / 3)

    def erfcx(x):
        return mp.erfc(x) * mp.exp(x * x)

    def q_piece(lo, hi, deg):
        c0 = (mp.mpf(lo) + hi) / 2
        return lambda: remez(lambda t: erfcx(c0 + t), lo - c0, hi - c0, deg, weight=lambda t: mp.exp(-(c0 + t) ** 2))

    def sin_s(z):
        r = mp.sqrt(z)
        return (mp.sin(r) - r) / (r * z) if z > mp.mpf("1e-20") else -mp.mpf(1) / 6

    def cos_c(z):
        r = mp.sqrt(z)
        return (mp.cos(r) - 1 + z / 2) / z ** 2 if z > mp.mpf("1e-20") else mp.mpf(1) / 24

    pio4sq = (mp.pi / 4) ** 2

    def sin_w(z):
        return z / (mp.sin(mp.sqrt(z)) / mp.sqrt(z)) if z > 0 else mp.mpf("1e-30")

    def cos_w(z):
        return z * z / mp.cos(mp.sqrt(z)) if z > 0 else mp.mpf("1e-30")
    return {
        "expm1_f32": lambda: remez(expm1_g, -half_ln2, half_ln2, 4, weight=lambda r: abs(r) * 1.2 + mp.mpf("1e-30")),
        "expm1_f64": lambda: remez(expm1_g, -half_ln2, half_ln2, 10, weight=lambda r: abs(r) * 1.2 + mp.mpf("1e-30")),
        "tanh_f32": lambda: remez(tanh_g, 0, mp.mpf(0.625) ** 2, 4, weight=tanh_w),
        "tanh_f64": lambda: remez(tanh_g, 0, mp.mpf(0.625) ** 2, 11, weight=tanh_w),
        "tanh_exp_f32": lambda: remez(lambda r: mp.exp(2 * r), -mp.log(2) / 4 * mp.mpf("1.001"),
                                      mp.log(2) / 4 * mp.mpf("1.001"), 6, weight=lambda r: 1 / mp.exp(2 * r)),
        "log_f32": lambda: remez(log_r, 0, zmax, [1, 2, 3]),
        "log_f64": lambda: remez(log_r, 0, zmax, list(range(1, 8))),
        "pow_f32": lambda: remez(pow_h, 0, mp.mpf("0.03134"), 3, weight=lambda z: 1 / pow_h(z)),
        "pow_f64": lambda: remez(pow_h, 0, mp.mpf("0.03134"), 7, weight=lambda z: 1 / pow_h(z)),
        "erf_p_f32": lambda: remez(erf_p, 0, mp.mpf(0.875) ** 2, 5, weight=lambda u: 1 / erf_p(u)),
        "erf_p_f64": lambda: remez(erf_p, 0, mp.mpf(0.875) ** 2, 11, weight=lambda u: 1 / erf_p(u)),
        "erf_q_f32_1": q_piece(0.875, 2.0, 7),
        "erf_q_f32_2": q_piece(2.0, 4.0, 7),
        "erf_q_f64_1": q_piece(0.875, 1.5, 16),
        "erf_q_f64_2": q_piece(1.5, 2.5, 16),
        "erf_q_f64_3": q_piece(2.5, 5.93, 16),
        "sin_f32": lambda: remez(sin_s, 0, pio4sq, 3, weight=sin_w),
        "sin_f64": lambda: remez(sin_s, 0, pio4sq, 6, weight=sin_w),
        "cos_f32": lambda: remez(cos_c, 0, pio4sq, 3, weight=cos_w),
        "cos_f64": lambda: remez(cos_c, 0, pio4sq, 6, weight=cos_w),
    }


FITS = ("expm1_f32", "expm1_f64", "tanh_f32", "tanh_f64", "tanh_exp_f32", "log_f32", "log_f64", "pow_f32", "pow_f64",
        "erf_p_f32", "erf_p_f64", "erf_q_f32_1", "erf_q_f32_2", "erf_q_f64_1", "erf_q_f64_2", "erf_q_f64_3",
        "sin_f32", "sin_f64", "cos_f32", "cos_f64")


def main(names):
    import mpmath as mp
    fits = _fits()
    for name in names or FITS:
        coeffs, err = fits[name]()
        print(f"{name}: max weighted error {mp.nstr(err, 4)}")
        print("    (" + ", ".join(mp.nstr(c, 22) for c in coeffs) + ")")


if __name__ == "__main__":
    main(sys.argv[1:])
