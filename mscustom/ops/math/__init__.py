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
from ._complex import *  # noqa: F401,F403,E402
from . import _complex  # noqa: E402
__all__ += _complex.__all__
from ._gamma_functions import *  # noqa: F401,F403,E402
from . import _gamma_functions  # noqa: E402
__all__ += _gamma_functions.__all__
from ._special import *  # noqa: F401,F403,E402
from . import _special  # noqa: E402
__all__ += _special.__all__
from ._nan_reductions import *  # noqa: F401,F403,E402
from . import _nan_reductions  # noqa: E402
__all__ += _nan_reductions.__all__
from ._scans import *  # noqa: F401,F403,E402
from . import _scans  # noqa: E402
__all__ += _scans.__all__
from ._scalar_helpers import *  # noqa: F401,F403,E402
from . import _scalar_helpers  # noqa: E402
__all__ += _scalar_helpers.__all__
from ._sequence_helpers import *  # noqa: F401,F403,E402
from . import _sequence_helpers  # noqa: E402
__all__ += _sequence_helpers.__all__
from ._program_helpers import *  # noqa: F401,F403,E402
from . import _program_helpers  # noqa: E402
__all__ += _program_helpers.__all__
from ._inplace import *  # noqa: F401,F403,E402
from . import _inplace  # noqa: E402
__all__ += _inplace.__all__
from ._inv import *  # noqa: F401,F403,E402
from . import _inv  # noqa: E402
__all__ += _inv.__all__
from . import _tensor_methods  # noqa: E402,F401  (binds Tensor methods to published math functions)
