"""Linear algebra: products (matmul, bmm, einsum, dot), decompositions, solves, norms, determinants.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []

from . import _products
from ._products import *  # noqa: F401,F403,E402
__all__ += _products.__all__

from . import _decompositions, _solve, _norms
from ._decompositions import *  # noqa: F401,F403,E402
from ._solve import *  # noqa: F401,F403,E402
from ._norms import *  # noqa: F401,F403,E402
__all__ += _decompositions.__all__ + _solve.__all__ + _norms.__all__
