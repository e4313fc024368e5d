"""Neural-network functions: activations, convolution, pooling, normalization, dropout, losses,
attention, recurrent sequence ops, padding and resampling.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []

from . import _activations_more
from ._activations_more import *  # noqa: F401,F403,E402
__all__ += _activations_more.__all__

from . import _losses_more
from ._losses_more import *  # noqa: F401,F403,E402
__all__ += _losses_more.__all__

from . import _pooling_more
from ._pooling_more import *  # noqa: F401,F403,E402
__all__ += _pooling_more.__all__

from . import _conv_more
from ._conv_more import *  # noqa: F401,F403,E402
__all__ += _conv_more.__all__

from . import _misc_more
from ._misc_more import *  # noqa: F401,F403,E402
__all__ += _misc_more.__all__

from . import _boxes_grids
from ._boxes_grids import *  # noqa: F401,F403,E402
__all__ += _boxes_grids.__all__

from . import _ctc
from ._ctc import *  # noqa: F401,F403,E402
__all__ += _ctc.__all__

from . import _fractional_pool
from ._fractional_pool import *  # noqa: F401,F403,E402
__all__ += _fractional_pool.__all__

from . import _deformable
from ._deformable import *  # noqa: F401,F403,E402
__all__ += _deformable.__all__
