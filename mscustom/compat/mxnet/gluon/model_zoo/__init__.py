"""``gluon.model_zoo``: the vision model constructors of MXNet 1.9's model zoo (``model_zoo.vision``).

Architectures, Parameter names and shapes are MXNet 1.9.1's, built with
``pretrained=False``; nothing is downloaded here, so ``pretrained=True`` is an
error that says how to load weights from a file instead.
"""

from . import vision

__all__ = ["vision"]
