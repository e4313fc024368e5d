"""``mindspore.common.initializer``: ``initializer(init, shape, dtype)`` and the named initializers.

The implementation lives in ``mscustom.nn.init``; this module is its
MindSpore-style address.

Example::

    from mscustom.common.initializer import initializer, TruncatedNormal
    initializer(TruncatedNormal(0.02), (8, 4))
    initializer("xavier_uniform", (8, 4), ms.float32)
"""

from ..nn.init import (Constant, HeNormal, HeUniform, Initializer, Normal, One, TruncatedNormal,  # noqa: F401
                       Uniform, XavierNormal, XavierUniform, Zero, get_seed, initializer, set_seed)

__all__ = ["initializer", "Initializer", "Normal", "TruncatedNormal", "Uniform", "Constant", "Zero", "One",
           "HeUniform", "HeNormal", "XavierUniform", "XavierNormal", "set_seed", "get_seed"]
