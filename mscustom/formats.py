"""Tensor formats: the one table of layout names that tensors, reg info and kernel selection use.

``FORMATS`` are the tags a Tensor may carry; ``DEFAULT_FORMATS`` are the names
that mean "no particular layout" in a reg-info row; ``LAYOUTS`` gives, for each
4-D layout, where the logical N, C, H, W axes sit (an NHWC array is the NCHW
array transposed by ``(0, 2, 3, 1)``).
"""

__all__ = ["FORMATS", "DEFAULT_FORMAT", "DEFAULT_FORMATS", "LAYOUTS"]

DEFAULT_FORMAT = "DefaultFormat"
FORMATS = (DEFAULT_FORMAT, "NCHW", "NHWC", "ND")
DEFAULT_FORMATS = (DEFAULT_FORMAT, "ND", "")
LAYOUTS = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1)}
