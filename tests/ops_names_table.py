"""Shared helper of the table-driven tests of ops' MindSpore names (``test_ops_array_names*.py``,
``test_ops_fft.py``): each case is an expression evaluated after the file's SETUP code, with the
value real MindSpore 2.10 (CPU) returned for the same expression written next to it as a literal.

The scope holds ``ms``, ``ops``, ``T`` (Tensor), ``P`` (Parameter), ``np`` and ``grad``. Expected:
``R(values, dtype, shape)`` for a Tensor, a tuple of expectations, ``X("TypeError")`` for an
exception MindSpore raises, ``S("Float32")`` for an object compared by its ``str``, or a Python value.
"""

import builtins

import numpy as np

import mscustom as ms
from mscustom import ops

nan, inf = float("nan"), float("inf")


class R:
    def __init__(self, values, dtype, shape):
        self.values, self.dtype, self.shape = values, dtype, shape


class X:
    def __init__(self, name):
        self.name = name


class S:
    def __init__(self, text):
        self.text = text


def _check(got, exp, expr, rtol, atol):
    if isinstance(exp, R):
        assert isinstance(got, ms.Tensor), f"{expr}: expected a Tensor, got {type(got).__name__}"
        assert str(got.dtype) == exp.dtype, f"{expr}: dtype {got.dtype}, MindSpore gives {exp.dtype}"
        assert tuple(got.shape) == exp.shape, f"{expr}: shape {tuple(got.shape)}, MindSpore gives {exp.shape}"
        arr = got.asnumpy()
        want = np.array(exp.values, dtype=np.complex128 if arr.dtype.kind == "c" else None).reshape(exp.shape)
        if arr.dtype.kind in "fc" or str(got.dtype) == "BFloat16":
            np.testing.assert_allclose(arr.astype(want.dtype if want.dtype.kind == "c" else np.float64), want,
                                       rtol=rtol, atol=atol, equal_nan=True, err_msg=expr)
        else:
            assert arr.tolist() == want.tolist(), f"{expr}: {arr.tolist()} != MindSpore's {want.tolist()}"
    elif isinstance(exp, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(exp), f"{expr}: got {got!r}"
        for g, e in zip(got, exp):
            _check(g, e, expr, rtol, atol)
    elif isinstance(exp, S):
        assert str(got) == exp.text, f"{expr}: {got} != MindSpore's {exp.text}"
    elif isinstance(exp, float):
        assert abs(got - exp) <= atol + rtol * abs(exp), f"{expr}: {got!r} != MindSpore's {exp!r}"
    else:
        assert got == exp and type(got) is type(exp), f"{expr}: {got!r} != MindSpore's {exp!r}"


def run_cases(setup, cases, rtol=1e-5, atol=1e-6):
    """Evaluate every case; one assertion at the end lists every case that differs from MindSpore."""
    scope = {"__name__": "ops_names_cases", "ms": ms, "ops": ops, "T": ms.Tensor, "P": ms.Parameter, "np": np, "grad": ms.grad}
    exec(setup, scope)
    failures = []
    for expr, exp in cases:
        try:
            if isinstance(exp, X):
                try:
                    eval(expr, dict(scope))
                except getattr(builtins, exp.name):
                    continue
                except Exception as exc:    # noqa: BLE001 - reported below
                    raise AssertionError(f"{expr}: raised {type(exc).__name__} ({exc}), MindSpore raises "
                                         f"{exp.name}") from None
                raise AssertionError(f"{expr}: returned, MindSpore raises {exp.name}")
            _check(eval(expr, dict(scope)), exp, expr, rtol, atol)
        except Exception as exc:            # noqa: BLE001 - collected, so one run shows every difference
            failures.append(f"{type(exc).__name__}: {exc}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures)
