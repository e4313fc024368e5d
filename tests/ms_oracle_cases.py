"""Shared helper of the MindSpore-conformance tests: evaluate one case and compare it with the
values real MindSpore 2.10 (CPU) returned for it (written into the tests as literals).

A case is an expression over ``ms``, ``ops``, ``T`` (Tensor), ``np`` and the inputs ``X``, ``P``
(positive), ``I`` (int32) and ``B`` (bool); bench/ms_conformance.py evaluates the same expressions
on MindSpore itself. Expected: ``(dtype, shape, values)``, a list of those for tuples, a Python
value, or ``("err", "TypeError")``.
"""

import builtins

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops

T = ms.Tensor


def env():
    return {"ms": ms, "ops": ops, "T": T, "np": np,
            "X": T(np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]], np.float32)),
            "P": T(np.array([[0.5, 1.25, 2.0], [3.0, 0.25, 1.75]], np.float32)),
            "I": T(np.array([1, 4, 9], np.int32)),
            "B": T(np.array([True, False, True]))}


def check(got, expected, expr):
    if isinstance(expected, tuple) and len(expected) == 3 and isinstance(expected[1], tuple):
        dtype, shape, values = expected
        assert isinstance(got, ms.Tensor), f"{expr}: expected a Tensor, got {type(got).__name__}"
        assert got.dtype.name == dtype, f"{expr}: dtype {got.dtype.name}, MindSpore gives {dtype}"
        assert tuple(got.shape) == shape, f"{expr}: shape {tuple(got.shape)}, MindSpore gives {shape}"
        arr = got.asnumpy().reshape(-1)
        if dtype.startswith("float"):
            np.testing.assert_allclose(arr.astype(np.float64), np.array(values, np.float64), rtol=1e-5, atol=1e-6,
                                       err_msg=expr)
        else:
            assert arr.tolist() == list(values), f"{expr}: {arr.tolist()} != MindSpore's {values}"
    elif isinstance(expected, list):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), f"{expr}: {got!r}"
        for g, e in zip(got, expected):
            check(g, e, expr)
    else:
        assert got == expected, f"{expr}: {got!r} != MindSpore's {expected!r}"


def run(expr, expected):
    scope = env()
    if isinstance(expected, tuple) and expected and expected[0] == "err":
        with pytest.raises(getattr(builtins, expected[1])):
            eval(expr, scope)
        return
    check(eval(expr, scope), expected, expr)
