"""``minpy.numpy.random``: NumPy's random functions returning minpy arrays (Tensors).

Example::

    import mscustom.compat.minpy.numpy as np
    np.random.seed(0)
    w = np.random.randn(3, 4) * 0.01
"""

import numpy as _np

from ....tensor import Tensor

__all__ = ["seed", "randn", "rand", "normal", "uniform", "randint", "permutation"]

seed = _np.random.seed


def _wrap(fn):
    def call(*args, **kwargs):
        r = fn(*args, **kwargs)
        return Tensor._wrap(_np.asarray(r)) if isinstance(r, _np.ndarray) or _np.ndim(r) == 0 else r
    call.__name__ = fn.__name__
    call.__doc__ = f"NumPy's ``random.{fn.__name__}`` as a minpy array."
    return call


randn, rand, normal, uniform, randint, permutation = (
    _wrap(_np.random.randn), _wrap(_np.random.rand), _wrap(_np.random.normal), _wrap(_np.random.uniform),
    _wrap(_np.random.randint), _wrap(_np.random.permutation))
