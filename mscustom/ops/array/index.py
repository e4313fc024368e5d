"""Indexing: ``x[index]`` with NumPy semantics and its scatter-add gradient.

Example::

    x[1, ::2], x[[0, 0, 2]], x[x > 0]
"""

import builtins as _bi

import numpy as np

from ... import dtype as _dt
from ..._core import capture as _capture
from ..._core.dispatch import call
from ...tensor import Tensor
from .._builtin import defop, tensor_arg

# An index is encoded as a hashable structure (the op's "index" attribute) plus
# integer inputs, so the plan cache is keyed by shapes, not index values:
# ``x[i]`` in a loop reuses one plan. Items: None, Ellipsis,
# ("s", start, stop, step) for a slice (its bounds decide the output shape, so
# they stay in the attribute), ("i", k) for an int passed as 0-d input k,
# ("a", k) for integer index array k, and ("m", k, mask_shape) for a boolean
# mask turned into arrays k .. k+ndim-1 (its np.nonzero), whose shape is
# checked against the indexed dimensions. A plain int item is a constant index
# (internal gradients use it, e.g. stack's).
_ALL = ("s", None, None, None)


def _slice_part(v, what):
    if v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))):
        return None if v is None else int(v)
    if isinstance(v, Tensor):
        return v.__index__()
    raise TypeError(f"op 'getitem': a slice {what} must be an int or None, got {type(v).__name__}")


def _encode_index(index):
    items = index if type(index) is tuple else (index,)
    struct, arrays = [], []
    for it in items:
        if it is None or it is Ellipsis:
            struct.append(it)
        elif type(it) is int:
            struct.append(("i", len(arrays)))
            arrays.append(np.asarray(it, np.int64))
        elif type(it) is slice:
            struct.append(("s", _slice_part(it.start, "start"), _slice_part(it.stop, "stop"),
                           _slice_part(it.step, "step")))
        elif isinstance(it, (bool, np.bool_)):
            raise TypeError("op 'getitem': a bool scalar is not a supported index; "
                            "use a boolean tensor mask shaped like the indexed dimensions")
        elif isinstance(it, np.integer):
            struct.append(("i", len(arrays)))
            arrays.append(np.asarray(it, np.int64))
        else:
            arr = it._data if isinstance(it, Tensor) else None
            if arr is not None and arr.dtype == np.bool_:
                _capture.host_read(it, "array")         # a mask's result shape depends on its values
            if arr is None:
                try:
                    arr = np.asarray(it)
                except (TypeError, ValueError):
                    arr = np.asarray(None)
                if arr.size == 0 and arr.dtype.kind == "f":     # x[[]]
                    arr = arr.astype(np.int64)
            if arr.dtype == np.bool_ and arr.ndim > 0:
                struct.append(("m", len(arrays), tuple(arr.shape)))
                arrays.extend(np.nonzero(arr))
            elif arr.dtype.kind in "iu":
                struct.append(("a", len(arrays)))
                arrays.append(arr)
            else:
                raise TypeError("op 'getitem': an index must be an int, a slice, None, Ellipsis, or an "
                                f"integer or boolean array/tensor; got {type(it).__name__}"
                                + (f" of dtype {arr.dtype}" if arr.dtype != object else ""))
    return tuple(struct), arrays


def _build_index(struct, arrays):
    out = []
    for it in struct:
        if type(it) is tuple:
            tag = it[0]
            if tag == "s":
                out.append(slice(it[1], it[2], it[3]))
            elif tag == "i":
                out.append(int(arrays[it[1]]))
            elif tag == "a":
                out.append(arrays[it[1]])
            else:
                out.extend(arrays[it[1]:it[1] + len(it[2])])
        else:
            out.append(it)
    return tuple(out)


def _show_index(struct):
    parts = []
    for it in struct:
        if it is Ellipsis:
            parts.append("...")
        elif type(it) is tuple:
            if it[0] == "s":
                parts.append(":".join("" if v is None else str(v) for v in it[1:3]) +
                             ("" if it[3] is None else f":{it[3]}"))
            else:
                parts.append({"i": "<int>", "a": "<array>"}.get(it[0]) or f"<mask {list(it[2])}>")
        else:
            parts.append(str(it))
    return "[" + ", ".join(parts) + "]"


def _index_shape(struct, shape, array_shapes):
    """The result shape of indexing a tensor of ``shape``; IndexError naming the op otherwise."""
    ndim = len(shape)
    if _bi.sum(1 for it in struct if it is Ellipsis) > 1:
        raise IndexError(f"op 'getitem': an index can have only one Ellipsis, got {_show_index(struct)}")
    used = _bi.sum(len(it[2]) if type(it) is tuple and it[0] == "m" else 1
                   for it in struct if it is not None and it is not Ellipsis)
    if used > ndim:
        raise IndexError(f"op 'getitem': too many indices for a tensor of rank {ndim} "
                         f"(shape {list(shape)}): {_show_index(struct)}")
    pos = 0
    for it in struct:
        if it is Ellipsis:
            pos += ndim - used
        elif type(it) is tuple and it[0] == "m":
            got = tuple(shape[pos:pos + len(it[2])])
            if got != it[2]:
                raise IndexError(f"op 'getitem': a boolean mask of shape {list(it[2])} does not match "
                                 f"the indexed dimensions {list(got)} (tensor shape {list(shape)})")
            pos += len(it[2])
        elif it is not None:
            pos += 1
    dummy = np.broadcast_to(np.zeros((), np.int8), tuple(shape))
    try:
        return list(dummy[_build_index(struct, [np.zeros(s, np.intp) for s in array_shapes])].shape)
    except IndexError as exc:
        raise IndexError(f"op 'getitem': {exc} (tensor shape {list(shape)}, "
                         f"index {_show_index(struct)})") from None


def _getitem_shape(attrs, shapes):
    return shapes, [_index_shape(attrs["index"], shapes[0], shapes[1:])]


def _index_arrays_type(name):
    def infer(attrs, dtypes):
        for i, d in enumerate(dtypes[1:], 1):
            if not _dt.is_integral(d) or d.name == "bool":
                raise TypeError(f"op '{name}': index input {i} must be an integer tensor, got {d.name}")
        return dtypes, [dtypes[0]]
    return infer


def _getitem_compute(attrs, ins):
    x = ins[0]
    try:
        r = x[_build_index(attrs["index"], ins[1:])]
    except IndexError as exc:           # index array values out of range
        raise IndexError(f"op 'getitem': {exc} (tensor shape {list(x.shape)})") from None
    return np.array(r, order="C")       # a copy: results never alias their input


def _getitem_grad(ins, outs, g, a):
    return [getitem_grad(g[0], a["index"], ins[0]._data.shape, ins[1:])] + [None] * (len(ins) - 1)


_GETITEM = defop("getitem", None, _getitem_compute, _getitem_shape, _index_arrays_type("getitem"),
                 _getitem_grad, doc="x[index]: basic, integer-array and boolean-mask indexing")


def _getitem_grad_shape(attrs, shapes):
    expect = _index_shape(attrs["index"], attrs["shape"], shapes[1:])
    if list(shapes[0]) != expect:
        raise ValueError(f"op 'getitem_grad': the gradient has shape {list(shapes[0])}, but indexing a "
                         f"tensor of shape {list(attrs['shape'])} gives shape {expect}")
    return shapes, [list(attrs["shape"])]


def _is_basic(struct):
    return not any(type(it) is tuple and it[0] in ("a", "m") for it in struct)


def _getitem_grad_compute(attrs, ins):
    g = ins[0]
    out = np.zeros(attrs["shape"], g.dtype)
    index = _build_index(attrs["index"], ins[1:])
    if _is_basic(attrs["index"]):
        out[index] = g                  # basic indexing never selects an element twice
    else:
        np.add.at(out, index, g)        # repeated indices accumulate
    return out


_GETITEM_GRAD = defop("getitem_grad", None, _getitem_grad_compute, _getitem_grad_shape,
                      _index_arrays_type("getitem_grad"),
                      lambda ins, outs, g, a: [_getitem(g[0], a["index"], ins[1:])] + [None] * (len(ins) - 1),
                      doc="scatter-add a gradient back through x[index] (np.add.at semantics)")


def _getitem(x, struct, arrays):
    return call(_GETITEM, (x,) + tuple(arrays), {"index": struct})


def getitem_grad(g, index, shape, arrays=()):
    """Zeros of ``shape`` with ``g`` added at ``index`` (an encoded index), as ``np.add.at``."""
    return call(_GETITEM_GRAD, (g,) + tuple(arrays), {"index": index, "shape": tuple(shape)})


_INT_INDEX = {"index": (("i", 0),)}
_wrap = Tensor._wrap


def getitem(x, index):
    """``x[index]`` with NumPy semantics: ints, slices, None, Ellipsis, integer arrays/lists and
    boolean masks. The result is a copy. The gradient scatters back with ``np.add.at`` semantics,
    so repeated integer indices accumulate.

    Example::

        x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        x[1, ::2]          # [3., 5.]
        x[x > 2]           # [3., 4., 5.]
    """
    if type(x) is not Tensor:
        x = tensor_arg(x, "getitem")
    if type(index) is int:              # the common x[i]: one plan for every i
        return call(_GETITEM, (x, _wrap(np.asarray(index, np.int64))), _INT_INDEX)
    struct, arrays = _encode_index(index)
    if arrays:
        return call(_GETITEM, (x,) + tuple(_wrap(a) for a in arrays), {"index": struct})
    return call(_GETITEM, (x,), {"index": struct})
