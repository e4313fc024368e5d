"""Array functions: creation, shape manipulation, joining and splitting, indexing, scatter and gather,
sorting and searching.

Each submodule publishes its names in ``__all__``; ``mscustom.ops`` re-exports them.
"""

__all__ = []

from . import _creation_more, _windows, _split_stack, _reorder, _slicing, _scatter_more  # noqa: E402
from ._creation_more import *  # noqa: F401,F403,E402
from ._windows import *  # noqa: F401,F403,E402
from ._split_stack import *  # noqa: F401,F403,E402
from ._reorder import *  # noqa: F401,F403,E402
from ._slicing import *  # noqa: F401,F403,E402
from ._scatter_more import *  # noqa: F401,F403,E402
__all__ += (_creation_more.__all__ + _windows.__all__ + _split_stack.__all__ + _reorder.__all__
            + _slicing.__all__ + _scatter_more.__all__)
from . import _search  # noqa: E402
from ._search import *  # noqa: F401,F403,E402
__all__ += _search.__all__
from . import _col2im  # noqa: E402
from ._col2im import *  # noqa: F401,F403,E402
__all__ += _col2im.__all__
from . import _methods  # noqa: E402,F401  (Tensor methods of the functions above)
