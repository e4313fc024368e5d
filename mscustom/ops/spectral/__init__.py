"""Discrete Fourier transforms (``fft``, ``rfft``, ``fftn`` ... and their helpers ``fftfreq``, ``fftshift``).

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
