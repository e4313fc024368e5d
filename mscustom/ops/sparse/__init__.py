"""Sparse tensors' functions (COO and CSR): the ``coo_*`` / ``csr_*`` ops and conversions.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []

from . import _coo, _csr, _row, _segment, _tensor_methods  # noqa: E402,F401
from ._coo import *  # noqa: F401,F403,E402
from ._csr import *  # noqa: F401,F403,E402
from ._row import *  # noqa: F401,F403,E402
from ._segment import *  # noqa: F401,F403,E402
from ._coo import coo_coalesce, coo_to_csr, coo_to_dense  # noqa: F401,E402  (the sparse classes' methods)
from ._csr import csr_mm_dense  # noqa: F401,E402

__all__ += _coo.__all__ + _csr.__all__ + _row.__all__ + _segment.__all__
