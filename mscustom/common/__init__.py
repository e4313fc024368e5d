"""MindSpore's ``mindspore.common``: ``initializer`` and ``dtype``.

Example::

    from mscustom.common.initializer import initializer, HeUniform
    from mscustom.common import dtype as mstype
    w = initializer(HeUniform(), (4, 3), mstype.float32)
"""

from . import dtype, initializer
from .initializer import set_seed

__all__ = ["dtype", "initializer", "set_seed"]
