"""Math functions: elementwise arithmetic and special functions, comparisons, reductions, scans.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []
from ._trig import *  # noqa: F401,F403,E402
from . import _trig  # noqa: E402
__all__ += _trig.__all__
from ._arith_names import *  # noqa: F401,F403,E402
from . import _arith_names  # noqa: E402
__all__ += _arith_names.__all__
from ._exp_log import *  # noqa: F401,F403,E402
from . import _exp_log  # noqa: E402
__all__ += _exp_log.__all__
from ._float_bits import *  # noqa: F401,F403,E402
from . import _float_bits  # noqa: E402
__all__ += _float_bits.__all__
