"""Shape inference of a Custom call whose inputs have unknown dimensions (dynamic shapes).

MindSpore infers a dynamic-shape op twice: when the graph is compiled, with
-1 for each unknown dimension (``[-2]`` for an unknown rank), and when the
kernel is launched, with the real shapes. ``infer`` does the same for one
call: the user's rule (``out_shape`` callable or aot ``<Func>InferShape``) is
called with the shapes the call's inputs are seen with, then with their real
shapes; the second result sizes the outputs. Where the rule still gives -1
with real shapes (a size the kernel decides, as in ``unique``), the output
shape is left unknown: a kernel that returns its outputs (pyfunc) gives it,
a kernel writing into preallocated outputs is refused by the dispatcher.
"""

import weakref

from ...tensor import DynamicTensor
from ._common import DYNAMIC_KEY
from .rules import UNKNOWN_RANK, check_concrete

__all__ = ["infer", "shown_shapes", "mark_outputs"]

_COMPILED = weakref.WeakKeyDictionary()     # OpDef -> {call key: compile-time output shapes}
_MAX_KEYS = 1024


def _key(attrs, in_shapes):
    """A hashable key of one dynamic-shape call (None when an attribute value cannot be hashed)."""
    try:        # (the marshaller builds attrs in one order per op: no sorting needed)
        key = (tuple(attrs.items()), tuple(tuple(s) for s in in_shapes))
        hash(key)
    except TypeError:
        return None
    return key


def shown_shapes(attrs, in_shapes):
    """The input shapes as the call's inputs are seen: declared unknowns in place of real dimensions."""
    seen = attrs[DYNAMIC_KEY]
    return [list(s) if s is not None else list(r) for s, r in zip(seen, in_shapes)]


def infer(op, op_name, evaluate, attrs, in_shapes):
    """Output shapes of a dynamic-shape call; ``evaluate(attrs, shapes)`` runs the op's rule.

    The compile-time shapes are kept for ``mark_outputs``: outputs with unknown dimensions there are
    seen with them by the next Custom op, as in a graph MindSpore compiled with dynamic shapes.
    """
    shown = shown_shapes(attrs, in_shapes)
    compiled = check_concrete(op_name, shown, evaluate(attrs, shown))
    real = check_concrete(op_name, in_shapes, evaluate(attrs, [list(s) for s in in_shapes]), unknown_ok=True)
    for j, (c, r) in enumerate(zip(compiled, real)):
        if list(c) == [UNKNOWN_RANK]:
            continue
        same_rank = len(c) == len(r) or list(r) == [UNKNOWN_RANK]
        if not same_rank or any(cd >= 0 and rd >= 0 and cd != rd for cd, rd in zip(c, r)):
            raise ValueError(f"op '{op_name}': its shape inference gave output {j} the shape {list(c)} for "
                             f"inputs seen as {shown}, but {list(r)} for their real shapes {in_shapes}; "
                             f"with real shapes it may only fill in the unknown (-1) dimensions")
    key = _key(attrs, in_shapes)
    if key is not None:
        table = _COMPILED.setdefault(op, {})
        if len(table) >= _MAX_KEYS:
            table.clear()
        table[key] = [tuple(int(d) for d in c) for c in compiled]
    return real


def mark_outputs(op, attrs, tensors, res):
    """``res`` (a Tensor or a tuple of them) with the outputs whose compile-time shape has unknown
    dimensions made ``DynamicTensor``s seen with that shape (same data, same place on the tape)."""
    key = _key(attrs, [t._data.shape for t in tensors])
    compiled = _COMPILED.get(op, {}).get(key) if key is not None else None
    if compiled is None:
        return res
    single = not isinstance(res, tuple)
    outs = [res] if single else list(res)
    for j, (t, seen) in enumerate(zip(outs, compiled)):
        if any(d < 0 for d in seen):
            view = object.__new__(DynamicTensor)
            view._data, view._format, view._node, view._oidx = t._data, t._format, t._node, t._oidx
            view._seen = seen
            if t._node is not None:
                node_outs = list(t._node.outputs)
                node_outs[t._oidx] = view
                t._node.outputs = tuple(node_outs)
            outs[j] = view
    return outs[0] if single else tuple(outs)
