"""``x[index] = value`` while a gradient is recorded: the write is an op of the graph, as in MindSpore.

Outside a recording ``Tensor.__setitem__`` writes into the array in place and
nothing else. While a gradient is being recorded and the tensor or the value
is part of the graph, the write becomes the op ``setitem(old, value)``:

* the gradient of the overwritten entries is cut (``old`` gets ``g`` with
  zeros at ``index``), and ``value`` gets ``g[index]`` summed to its shape;
* the tensor object keeps its identity and its array (the write still lands
  in place, so views and ``asnumpy()`` results see it), while ``old``, a copy
  of the values before the write, takes its place in the recorded graph: the
  op that produced the tensor and the ops that read it before the write see
  the old values when their gradients run, as MindSpore's functional
  ``setitem`` + ``assign_value`` gives.

Finding the ops that read the tensor before the write walks the objects that
refer to it (``gc.get_referrers``), once per such write while recording.

A Parameter, or a gradient target itself, is written in place off the graph,
as MindSpore writes a Parameter (the gradient is then taken at the value after
the write; MindSpore refuses a write into a differentiated argument).
"""

import dis
import gc
import sys

import numpy as np

from ... import dtype as _dt
from ..._core import capture as _capture
from ..._core.dispatch import call
from ..._core.tape import STATE, Node, _Identity, on_tape
from ...tensor import Parameter, Tensor, as_tensor
from .. import functional as F
from .._builtin import defop
from .index import _build_index, _encode_index, _getitem, _index_shape, _show_index

__all__ = ["tensor_setitem"]


def _setitem_shape(attrs, shapes):
    target = _index_shape(attrs["index"], shapes[0], shapes[2:])
    try:
        np.broadcast_shapes(tuple(shapes[1]), tuple(target))
        fits = np.broadcast_shapes(tuple(shapes[1]), tuple(target)) == tuple(target)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"op 'setitem': a value of shape {list(shapes[1])} cannot be written into "
                         f"{_show_index(attrs['index'])} of a tensor of shape {list(shapes[0])} "
                         f"(that selects shape {list(target)})")
    return shapes, [list(shapes[0])]


def _setitem_type(attrs, dtypes):
    for i, d in enumerate(dtypes[2:], 2):
        if not _dt.is_integral(d) or d.name == "bool":
            raise TypeError(f"op 'setitem': index input {i} must be an integer tensor, got {d.name}")
    return dtypes, [dtypes[0]]


def _setitem_compute(attrs, ins):
    out = np.array(ins[0], copy=True, order="C")
    out[_build_index(attrs["index"], ins[2:])] = ins[1]
    return out


def _setitem_grad(ins, outs, g, a):
    v, arrays = ins[1], ins[2:]
    zero = Tensor._wrap(np.zeros((), g[0]._data.dtype))
    gx = call(_SETITEM, (g[0], zero) + tuple(arrays), {"index": a["index"]})    # the overwritten part: none
    gv = None
    if v._data.dtype.kind == "f":
        gv = F.sum_to(_getitem(g[0], a["index"], arrays), v._data.shape)
    return [gx, gv] + [None] * len(arrays)


_SETITEM = defop("setitem", None, _setitem_compute, _setitem_shape, _setitem_type, _setitem_grad,
                 doc="a copy of x with value written at index (the recorded form of x[index] = value)")


def _copy_into(dst, src):
    np.copyto(dst, src)


_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]
_BASE_REFS = [None]         # references to y in a plain ``y[i] = v`` with no reader: measured at import


def _may_have_readers(y, known):
    """False when nothing but the writing statement refers to ``y`` (its name, the interpreter's stack
    and the frames of this call, plus ``known`` tuples of the tape): then no recorded op has read it and
    the walk over the heap is skipped. Counted only for the plain statement ``y[i] = v``; any other call
    style is walked."""
    try:
        frame = sys._getframe(4)            # <- _rewire <- tensor_setitem <- Tensor.__setitem__ <- the statement
    except ValueError:
        return True
    code = frame.f_code.co_code
    if not 0 <= frame.f_lasti < len(code) or code[frame.f_lasti] != _STORE_SUBSCR:
        return True
    refs = sys.getrefcount(y) - known
    if _BASE_REFS[0] is None:               # the probe below, at import: nothing has read its tensor
        _BASE_REFS[0] = refs
        return False
    return refs > _BASE_REFS[0]


def _rewire(y, old, known):
    """Make the recorded ops that read ``y`` before the write read ``old`` instead."""
    if not _may_have_readers(y, len(known)):
        return
    holders = [r for r in gc.get_referrers(y)
               if type(r) is tuple and not any(r is k for k in known) and any(t is y for t in r)]
    if not holders:
        return
    ids = {id(t) for t in holders}
    for node in gc.get_referrers(*holders):
        if type(node) is Node and id(node.inputs) in ids:
            node.inputs = tuple(old if t is y else t for t in node.inputs)


def tensor_setitem(y, index, value):
    """``y[index] = value`` while a gradient is recorded; False when it is a plain in-place write
    (neither ``y`` nor ``value`` is part of the graph)."""
    if isinstance(y, Parameter):
        return False                    # a weight is written in place, off the graph, as in MindSpore
    node = y._node
    if node is None and STATE.leaves:
        node = STATE.leaves.get(id(y))
    if node is not None and (node.op is None or node.op is _Identity):
        return False                    # a gradient target itself: an in-place write (MindSpore refuses it)
    v = value if isinstance(value, Tensor) else None
    if not (node is not None or (v is not None and on_tape((v,)))):
        return False
    if v is None:
        v = as_tensor(value, y)
    if v._data.dtype != y._data.dtype:
        v = F.cast(v, y.dtype)
    struct, arrays = _encode_index(index)
    old = y.copy()                      # the values before the write (a graph-mode capture copies them too)
    known = []                          # tuples of the tape that hold y and are not readers
    if node is not None:
        old._node, old._oidx = node, (y._oidx if y._node is not None else 0)
        known.append(node.outputs)
        if y._node is not None:
            node.outputs = tuple(old if t is y else t for t in node.outputs)
    _rewire(y, old, known)
    new = call(_SETITEM, (old, v) + tuple(Tensor._wrap(a) for a in arrays), {"index": struct})
    _capture.effect(_copy_into, y, new)         # the write lands in y's own array (graph mode repeats it)
    step = new._node
    if step is not None:                        # y is now the setitem's output
        step.outputs = (y,)
        y._node, y._oidx = step, 0
        new._node = None
    return True


from ..._core.registry import register_function as _register_function  # noqa: E402

_register_function("tensor_setitem", tensor_setitem)       # Tensor.__setitem__ calls it while recording


def _probe():
    """Measure ``_BASE_REFS``: a plain ``t[0] = 0.0`` on a recorded tensor nothing has read."""
    from ..._core.tape import make_leaf, recording
    leaf = Tensor(np.zeros(2, np.float32))
    make_leaf(leaf)
    with recording():
        t = F.mul(leaf, 1.0)
        t[0] = 0.0
    leaf._node = None


_probe()
