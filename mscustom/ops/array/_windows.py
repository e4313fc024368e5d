"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``.

The result is float32 unless ``dtype`` says otherwise (``hann_window`` and ``kaiser_window``: float64, as
MindSpore 2.10 returns them). ``periodic=True`` gives the window of length ``window_length + 1`` without its last point (for use
with an FFT); ``periodic=False`` the symmetric window. Values are computed in float64, then cast.

Example::

    ops.hann_window(8), ops.kaiser_window(8, beta=6.0, dtype=ms.float64)
"""

import numpy as np

from ... import dtype as _dt
from ...tensor import Tensor

_FLOATS = ("float16", "float32", "float64")


def _length(window_length, name):
    if isinstance(window_length, Tensor):
        if window_length.size != 1 or window_length._data.dtype.kind not in "iu":
            raise TypeError(f"op '{name}': window_length must be an int or a one-element int tensor, got "
                            f"{window_length!r}")
        window_length = window_length.asnumpy().reshape(()).item()
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"op '{name}': window_length must be an int, got {window_length!r}")
    if window_length < 0:
        raise ValueError(f"op '{name}': window_length must be >= 0, got {window_length}")
    return int(window_length)


def _window(name, window_length, periodic, dtype, formula, default=_dt.float32):
    n = _length(window_length, name)
    if not isinstance(periodic, (bool, np.bool_)):
        raise TypeError(f"op '{name}': periodic must be a bool, got {periodic!r}")
    out_dtype = default if dtype is None else _dt.dtype_from_any(dtype)
    if out_dtype.name not in _FLOATS:
        raise TypeError(f"op '{name}': dtype must be float16, float32 or float64, got {out_dtype}")
    if n <= 1:
        w = np.ones(n)
    else:
        m = n + 1 if periodic else n
        w = formula(np.arange(m, dtype=np.float64), m)[:n]
    return Tensor._wrap(np.ascontiguousarray(w.astype(out_dtype.np_dtype)))


def _cosine_sum(coeffs):
    def formula(k, m):
        phase = 2 * np.pi * k / (m - 1)
        return sum(c * np.cos(j * phase) * (-1) ** j for j, c in enumerate(coeffs))
    return formula


def hann_window(window_length, periodic=True, *, dtype=None):
    """``0.5 - 0.5 cos(2 pi k / (M - 1))``; float64 unless ``dtype`` (MindSpore 2.10's default)."""
    return _window("hann_window", window_length, periodic, dtype, _cosine_sum((0.5, 0.5)), _dt.float64)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """``alpha - beta cos(2 pi k / (M - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, _cosine_sum((float(alpha), float(beta))))


def blackman_window(window_length, periodic=True, *, dtype=None):
    """``0.42 - 0.5 cos(2 pi k / (M - 1)) + 0.08 cos(4 pi k / (M - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, _cosine_sum((0.42, 0.5, 0.08)))


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The triangular window ``1 - |2k / (M - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype,
                   lambda k, m: 1 - np.abs(2 * k / (m - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """``I0(beta sqrt(1 - (2k / (M - 1) - 1)^2)) / I0(beta)`` (I0: the modified Bessel function); float64
    unless ``dtype`` (MindSpore 2.10's default)."""
    b = float(beta)
    return _window("kaiser_window", window_length, periodic, dtype,
                   lambda k, m: np.i0(b * np.sqrt(np.clip(1 - (2 * k / (m - 1) - 1) ** 2, 0, None))) / np.i0(b),
                   _dt.float64)


__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
