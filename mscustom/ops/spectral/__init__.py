"""Discrete Fourier transforms (``fft``, ``rfft``, ``fftn`` ... and their helpers ``fftfreq``, ``fftshift``).

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []

from . import _fft  # noqa: E402
from ._fft import *  # noqa: F401,F403,E402
__all__ += _fft.__all__

from . import _stft  # noqa: E402
from ._stft import *  # noqa: F401,F403,E402
__all__ += _stft.__all__
