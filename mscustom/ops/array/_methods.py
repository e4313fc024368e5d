"""The ``Tensor`` methods of the array functions of this package: ``x.narrow(...)`` is ``ops.narrow(x, ...)``
where MindSpore 2.10's method takes the function's arguments, and a small method form where it does not
(``Tensor.select(dim, index)`` picks a slice, ``Tensor.searchsorted`` answers int32, ``Tensor.scatter_add``
is the functional ``tensor_scatter_add`` ...).

Example::

    x.tensor_split(3, axis=1); x.index_select(0, idx); x.expand(2, 3); x.select(0, 1)
"""

import numpy as np

from ..._core.registry import register_function
from .._builtin import tensor_arg
from . import _col2im, _creation_more, _reorder, _scatter_more, _search, _split_stack
from ._lazy import ops as _o

# functions whose Tensor method has the same arguments: one definition for ops.name(x, ...) and x.name(...)
SAME = {
    _creation_more: ["diag", "diagflat"],
    _split_stack: ["tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "narrow"],
    _reorder: ["moveaxis", "movedim", "swapdims", "flipud", "fliplr", "reverse", "rot90"],
    _scatter_more: ["scatter", "index_fill", "select_scatter", "slice_scatter", "diagonal_scatter",
                    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"],
    _search: ["nonzero", "argwhere", "unique_consecutive", "histc", "bincount", "msort", "is_floating_point",
              "is_complex"],
    _col2im: ["col2im"],
}


def tensor_index_select(input, axis=None, index=None, *, dim=None):  # noqa: A002 - MindSpore's names
    """``Tensor.index_select(axis, index)`` (``dim=`` names the axis too)."""
    return _scatter_more.index_select(input, axis if dim is None else dim, index)


def tensor_index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """``Tensor.index_add(dim, index, source, *, alpha=1)``: ``alpha * source`` added along ``dim`` at
    ``index``. As in MindSpore the tensor is updated in place; the sum comes back as a new tensor, through
    which gradients flow."""
    x = tensor_arg(input, "index_add")
    src = tensor_arg(source, "index_add")
    if alpha != 1:
        src = _o.mul(src, alpha)
    pos = _scatter_more._along_positions(x, _scatter_more._axis("index_add", dim, x.ndim),
                                         _scatter_more._index(index, "index_add").reshape(-1), "index_add")
    out = _scatter_more._scatter_flat(x, pos, _scatter_more._updates(src, x, "index_add", pos.shape), "add")
    _o.assign(x, out)
    return out


def tensor_expand(input, *size):  # noqa: A002
    """``Tensor.expand(*size)``: sizes as arguments, a tuple or a 1-D tensor."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = size[0]
    return _reorder.expand(input, size)


def tensor_searchsorted(input, v, side="left", sorter=None):  # noqa: A002
    """``Tensor.searchsorted(v, side='left', sorter=None)``: int32 positions, as MindSpore's method."""
    return _search.searchsorted(input, v, out_int32=True, side=side, sorter=sorter)


def tensor_reverse_sequence(input, seq_lengths, seq_dim=0, batch_dim=0):  # noqa: A002
    """``Tensor.reverse_sequence(seq_lengths, seq_dim=0, batch_dim=0)``."""
    return _reorder.reverse_sequence(input, seq_lengths, seq_dim, batch_dim)


def tensor_select(input, dim, index):  # noqa: A002
    """``Tensor.select(dim, index)``: the slice at ``index`` along ``dim``, that axis removed."""
    x = tensor_arg(input, "select")
    ax = _scatter_more._axis("select", dim, x.ndim)
    if not -x.shape[ax] <= int(index) < x.shape[ax]:
        raise IndexError(f"op 'select': index {index} is out of range for dimension {ax} of size {x.shape[ax]}")
    return _o.getitem(x, (slice(None),) * ax + (int(index),))


# name published -> Tensor method it becomes
FORMS = {
    "tensor_index_select": "index_select", "tensor_index_add": "index_add", "tensor_expand": "expand",
    "tensor_searchsorted": "searchsorted", "tensor_reverse_sequence": "reverse_sequence", "tensor_select": "select",
}
# MindSpore's Tensor.scatter_{add,sub,mul,div,max,min}(indices, updates) are the functional tensor_scatter_*
# ops (Tensor.scatter_add's other form, (dim, index, src), has no CPU kernel in MindSpore 2.10)
SCATTER_METHODS = {"tensor_scatter_add": "scatter_add", "tensor_scatter_sub": "scatter_sub",
                   "tensor_scatter_mul": "scatter_mul", "tensor_scatter_div": "scatter_div",
                   "tensor_scatter_max": "scatter_max", "tensor_scatter_min": "scatter_min"}


def install():
    for module, names in SAME.items():
        for name in names:
            register_function(name, getattr(module, name), method=True)
    for name, method in FORMS.items():
        register_function(name, globals()[name], method=method)
    for name, method in SCATTER_METHODS.items():
        register_function(name, getattr(_scatter_more, name), method=method)


install()
__all__ = []
