"""Checking tables of (expression, expected) written from MindSpore 2.10 (CPU) for the same calls.

An expected value is ``(dtype, values)`` for a Tensor, ``("tuple"|"list", [...])`` for a sequence,
``("py", value)`` for a Python value and ``("raises", ExceptionType)`` for an error. Expressions are
evaluated with ``T(values, dtype)`` (a Tensor), ``ops``, ``np``, ``ms`` and ``grad``.
"""

import math

import numpy as np

import mscustom as ms
from mscustom import ops, Tensor

NAN, INF = float("nan"), float("inf")
_TOL = {"float16": (2e-3, 2e-3), "float32": (2e-5, 1e-6), "float64": (1e-7, 1e-12),
        "complex64": (2e-5, 1e-6), "complex128": (1e-9, 1e-12)}


def T(values, dtype="float32"):
    """A Tensor of ``values`` with NumPy dtype ``dtype``."""
    return Tensor(np.array(values, dtype))


def grad(fn, grad_position=0):
    return ms.grad(fn, grad_position=grad_position)


NAMESPACE = {"T": T, "ops": ops, "np": np, "ms": ms, "grad": grad, "Tensor": Tensor, "math": math, "NAN": NAN, "INF": INF}


def _same(got, expected, where, tol=None):
    kind = expected[0]
    if kind == "py":
        assert not isinstance(got, Tensor), f"{where}: expected a Python value, got a Tensor"
        value = expected[1]
        if isinstance(value, float):
            assert isinstance(got, (int, float)) and (math.isclose(got, value, rel_tol=1e-6, abs_tol=1e-9)
                                                      or (math.isnan(value) and math.isnan(got))), \
                f"{where}: {got!r} != {value!r}"
        else:
            assert got == value and type(got) is type(value), f"{where}: {got!r} != {value!r}"
        return
    if kind in ("tuple", "list"):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected[1]), f"{where}: got {got!r}"
        for i, (g, e) in enumerate(zip(got, expected[1])):
            _same(g, e, f"{where}[{i}]", tol)
        return
    assert isinstance(got, Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
    arr = got.asnumpy()
    assert str(arr.dtype) == kind, f"{where}: dtype {arr.dtype}, expected {kind}"
    want = expected[1]
    if arr.dtype.kind == "c":
        want = np.asarray(want[0]) + 1j * np.asarray(want[1])
    want = np.asarray(want, dtype=arr.dtype)
    assert arr.shape == want.shape, f"{where}: shape {arr.shape}, expected {want.shape}"
    if arr.dtype.kind in "fc":
        rtol, atol = tol or _TOL[kind]
        np.testing.assert_allclose(arr, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(arr, want, err_msg=where)


def check_table(cases, tol=None):
    """Evaluate every expression and compare it with MindSpore's result; all failures listed at once."""
    failures = []
    for expr, expected in cases:
        try:
            if expected[0] == "raises":
                try:
                    eval(expr, dict(NAMESPACE))
                except expected[1]:
                    continue
                except Exception as exc:            # noqa: BLE001 - reported below
                    failures.append(f"{expr}: raised {type(exc).__name__} ({exc}), expected {expected[1].__name__}")
                    continue
                failures.append(f"{expr}: did not raise {expected[1].__name__}")
                continue
            _same(eval(expr, dict(NAMESPACE)), expected, expr, tol)
        except Exception as exc:                    # noqa: BLE001 - collected
            failures.append(f"{expr}: {type(exc).__name__}: {exc}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures)
