"""``mscustom.numpy``: mindspore.numpy, a NumPy-compatible layer over mscustom's ops.

Every function takes Tensors (and Python numbers, lists, tuples or NumPy arrays where NumPy
would), returns Tensors, and is built from ``mscustom.ops``: gradients (``ms.grad``) flow
through it and graph mode (``ms.jit``) records it. mindspore.numpy's defaults apply: Python
floats become float32 and ints int32 (``mnp.ones(3)`` and ``mnp.linspace`` are float32,
``mnp.arange(3)`` int32).

Loaded on first use (``import mscustom.numpy as mnp``), not by ``import mscustom``.

Example::

    import mscustom.numpy as mnp
    x = mnp.linspace(0, 1, 5)
    y = mnp.sum(mnp.tanh(x) * mnp.arange(5))
"""

from . import _creation, _dtypes, _linalg, _logic, _manipulation, _math, _numerical, _random, _reductions
from ._creation import *  # noqa: F401,F403
from ._dtypes import *  # noqa: F401,F403
from ._linalg import *  # noqa: F401,F403
from ._logic import *  # noqa: F401,F403
from ._manipulation import *  # noqa: F401,F403
from ._math import *  # noqa: F401,F403
from ._numerical import *  # noqa: F401,F403
from ._random import *  # noqa: F401,F403
from ._reductions import *  # noqa: F401,F403

__all__ = (_creation.__all__ + _dtypes.__all__ + _math.__all__ + _reductions.__all__ + _manipulation.__all__
           + _linalg.__all__ + _logic.__all__ + _numerical.__all__ + _random.__all__)
