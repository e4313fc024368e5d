"""Random sampling functions (seeded by ``ms.set_seed`` and their own ``seed`` arguments).

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []

from . import _sampling
from ._sampling import *  # noqa: F401,F403,E402
__all__ += _sampling.__all__
