"""``stft``: the short-time Fourier transform, with MindSpore 2.10's arguments and output layout.

Frames of ``n_fft`` samples every ``hop_length`` (default ``n_fft // 4``), each multiplied by the
window (``win_length`` samples, default all ones, centred in ``n_fft``), transformed by an FFT. With
``center`` the signal is first padded by ``n_fft // 2`` on both sides (``pad_mode`` "REFLECT" or
"CONSTANT"). The result has shape (..., frequencies, frames): ``n_fft // 2 + 1`` frequencies for a
real signal and window (``onesided``), complex64/complex128, or that as real numbers with a last
axis of 2 unless ``return_complex`` is True. Float32, float64 and complex tensors; no gradient.

Example::

    spec = ops.stft(signal, 512, hop_length=128, window=ops.hann_window(512), return_complex=True)
"""

import numpy as np

from ...tensor import Tensor


def _values(t, name, what):
    if isinstance(t, Tensor):
        return t.asnumpy()
    raise TypeError(f"op 'stft': {what} must be a Tensor, got {type(t).__name__}")


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform of ``x`` (1-D, or batched 2-D) along its last axis."""
    a = _values(x, "stft", "x")
    if a.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise TypeError(f"op 'stft': x must be float32, float64, complex64 or complex128, got {a.dtype}")
    if a.ndim not in (1, 2):
        raise ValueError(f"op 'stft': x must be 1-D or 2-D, got shape {list(a.shape)}")
    if isinstance(n_fft, bool) or not isinstance(n_fft, int) or n_fft <= 0:
        raise ValueError(f"op 'stft': n_fft must be a positive int, got {n_fft!r}")
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    if hop <= 0 or not 0 < wl <= n_fft:
        raise ValueError(f"op 'stft': need hop_length > 0 and 0 < win_length <= n_fft, got {hop} and {wl}")
    w = np.ones(wl, a.real.dtype) if window is None else _values(window, "stft", "window")
    if w.shape != (wl,):
        raise ValueError(f"op 'stft': window must have shape [{wl}] (win_length), got {list(w.shape)}")
    left = (n_fft - wl) // 2
    w = np.pad(w, (left, n_fft - wl - left))
    if center:
        mode = str(pad_mode).lower()
        if mode not in ("reflect", "constant"):
            raise ValueError(f"op 'stft': pad_mode must be 'REFLECT' or 'CONSTANT', got {pad_mode!r}")
        a = np.pad(a, [(0, 0)] * (a.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=mode)
    length = a.shape[-1]
    if length < n_fft:
        raise ValueError(f"op 'stft': the signal ({length} samples after padding) is shorter than n_fft={n_fft}")
    frames = 1 + (length - n_fft) // hop
    index = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    spec = np.fft.fft(a[..., index] * w, axis=-1)
    real = a.dtype.kind == "f" and w.dtype.kind == "f"
    if (real if onesided is None else onesided):
        spec = spec[..., : n_fft // 2 + 1]
    if normalized:
        spec = spec / np.sqrt(n_fft)
    ctype = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    spec = np.ascontiguousarray(np.swapaxes(spec, -1, -2)).astype(ctype)
    if return_complex:
        return Tensor._wrap(spec)
    return Tensor._wrap(np.ascontiguousarray(np.stack([spec.real, spec.imag], -1)))


__all__ = ["stft"]
