"""The oracle-table checker of the ops nn, linalg, random and special-function name tests: each case is
``(text, call, expected)`` with the expected result MindSpore 2.10 (CPU) gave for the same call."""

import numpy as np
import pytest

from mscustom import Tensor

__all__ = ["_R", "_Raises", "_check", "_run_table"]


class _R:
    """An expected result: values (MindSpore 2.10 CPU's, to float32 print precision), dtype, shape."""

    def __init__(self, values, dtype, shape):
        self.values, self.dtype, self.shape = values, dtype, shape

    def check(self, got, rtol):
        assert isinstance(got, Tensor), f"expected a Tensor, got {type(got).__name__}"
        assert str(got.dtype).lower() == self.dtype and tuple(got.shape) == self.shape, (got.dtype, got.shape)
        want = np.asarray(self.values, dtype=np.float64)
        np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), want, rtol=rtol, atol=rtol)


class _Raises:
    def __init__(self, exc):
        self.exc = exc


def _check(expected, fn, rtol):
    if isinstance(expected, _Raises):
        with pytest.raises(expected.exc):
            fn()
        return
    got = fn()
    if not isinstance(expected, (_R, tuple)):           # a Python value
        assert got == expected, f"expected {expected!r}, got {got!r}"
        return
    if isinstance(expected, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected)
        for e, g in zip(expected, got):
            if e is None:
                assert g is None, f"expected None, got {g!r}"
            else:
                e.check(g, rtol)
    else:
        expected.check(got, rtol)


def _run_table(cases, rtol=2e-5):
    failed = []
    for text, fn, expected in cases:
        try:
            _check(expected, fn, rtol)
        except Exception as exc:  # noqa: BLE001 - collect every failing case
            failed.append(f"{text}: {type(exc).__name__}: {str(exc)[:300]}")
    assert not failed, "\n".join(failed)
