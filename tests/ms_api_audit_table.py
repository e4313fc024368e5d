"""Checker of the MindSpore-name audit tables (``test_ms_api_audit_*.py``): each case is an expression
evaluated after the file's SETUP code, next to the value real MindSpore 2.10 (CPU) gave for it.

Expected: ``("T", dtype, shape, values)`` a Tensor, ``("A", dtype, shape, values)`` a NumPy array,
``("X", ExceptionName, text)`` an exception MindSpore raises (only the type is compared), a tuple of
expectations, or a plain Python value.
"""

import builtins

import numpy as np

import mscustom as ms
import mscustom.numpy as mnp
from mscustom import nn, ops

nan, inf = float("nan"), float("inf")


def _check(got, exp, where, rtol, atol):
    if isinstance(exp, tuple) and exp and exp[0] in ("T", "A") and len(exp) == 4 and isinstance(exp[1], str):
        kind, dtype, shape, values = exp
        if kind == "T":
            assert isinstance(got, ms.Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
            arr = got.asnumpy()
        else:
            assert isinstance(got, np.ndarray), f"{where}: expected a NumPy array, got {type(got).__name__}"
            arr = got
        assert str(got.dtype) == dtype, f"{where}: dtype {got.dtype}, MindSpore gives {dtype}"
        assert tuple(arr.shape) == tuple(shape), f"{where}: shape {arr.shape}, MindSpore gives {shape}"
        want = np.array(values).reshape(shape)
        if arr.dtype.kind in "fc":
            np.testing.assert_allclose(arr.astype(np.float64), want, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=where)
        else:
            assert arr.tolist() == want.tolist(), f"{where}: {arr.tolist()} != MindSpore's {want.tolist()}"
    elif isinstance(exp, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(exp), f"{where}: got {got!r}, want {exp!r}"
        for g, e in zip(got, exp):
            _check(g, e, where, rtol, atol)
    elif isinstance(exp, float):
        assert abs(float(got) - exp) <= atol + rtol * abs(exp), f"{where}: {got!r} != MindSpore's {exp!r}"
    else:
        assert got == exp, f"{where}: {got!r} != MindSpore's {exp!r}"


def run_cases(setup, cases, rtol=1e-5, atol=1e-6):
    """Evaluate every case; one assertion at the end lists every case that differs from MindSpore."""
    scope = {"__name__": "ms_api_audit_cases", "ms": ms, "ops": ops, "nn": nn, "mnp": mnp, "np": np,
             "T": ms.Tensor}
    exec(setup, scope)
    failures = []
    for expr, exp in cases:
        try:
            if isinstance(exp, tuple) and len(exp) == 3 and exp[0] == "X":
                try:
                    eval(expr, dict(scope))
                except getattr(builtins, exp[1]):
                    continue
                except Exception as exc:    # noqa: BLE001 - reported below
                    raise AssertionError(f"{expr}: raised {type(exc).__name__} ({exc}), MindSpore raises "
                                         f"{exp[1]}") from None
                raise AssertionError(f"{expr}: returned, MindSpore raises {exp[1]}")
            _check(eval(expr, dict(scope)), exp, expr, rtol, atol)
        except Exception as exc:            # noqa: BLE001 - collected, so one run shows every difference
            failures.append(f"{type(exc).__name__}: {exc}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures)
