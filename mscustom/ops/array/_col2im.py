"""``ops.col2im``: sliding-window columns (N, C, kh * kw, L) added back into (N, C, H, W) images, with
MindSpore 2.10's arguments. It is ``ops.fold`` of the columns with their channel and kernel axes merged,
so it shares fold's kernel and gradient.

Example::

    ops.col2im(cols, ms.Tensor([3, 3]), 2, 1, 0, 1)
"""

from .._builtin import tensor_arg
from ._lazy import ops as _o


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """The windows ``input_x`` (N, C, kh * kw, L) summed into images of ``output_size`` (H, W);
    ``kernel_size``, ``dilation``, ``padding_value`` (zero padding per side) and ``stride``: ints or pairs."""
    x = tensor_arg(input_x, "col2im")
    if x.ndim != 4:
        raise ValueError(f"op 'col2im': input_x must be 4-D (N, C, kh * kw, L), got shape {list(x.shape)}")
    for what, v in (("kernel_size", kernel_size), ("dilation", dilation), ("padding_value", padding_value),
                    ("stride", stride)):
        if isinstance(v, bool) or not isinstance(v, (int, tuple, list)):
            raise TypeError(f"op 'col2im': {what} must be an int, a tuple or a list, got {type(v).__name__}")
    n, c, k, length = x.shape
    cols = _o.reshape(x, (n, c * k, length))
    return _o.fold(cols, output_size, kernel_size, dilation, padding_value, stride)


__all__ = ["col2im"]
