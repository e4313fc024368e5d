"""Backward execution: walk this thread's recorded graph from the roots to the leaves.

``backward`` runs each needed node's ``FGradient`` (built from ops, so when an
outer gradient is being recorded the backward pass is recorded too: grad of
grad). Gradients reaching one tensor from several uses are summed with the
core's ``accumulate``; integer inputs get none. A node's FGradient that fails
or returns something malformed is reported naming its op.
"""

import operator

import numpy as np

from ..tensor import Tensor
from . import primitives as _prim
from .dispatch import PROFILER, TIMING
from .tape import STATE, Node, compiled_tape

__all__ = ["backward", "GRAD_READY"]

# Hook point for consumers that want each target's gradient as soon as it is final (data parallel
# starts a bucket's all-reduce then, while the walk goes on). ``GRAD_READY[0]`` is None (nothing is
# paid) or ``factory(targets, order, needed, grads, node_of)``, which returns None or
# ``ready(node)``: called before each node the walk visits and once more with None at the end.
GRAD_READY = [None]


_own_node = operator.attrgetter("_node")


def _node_getter():
    """``node_of`` for this thread, as a local function: a tensor's own node, else its thread leaf."""
    leaves = STATE.leaves
    if not leaves:
        return _own_node                # C-level getattr: no Python frame per lookup
    get = leaves.get
    return lambda t: t._node or get(id(t))


def _walk(roots, targets, leaves):
    """``(order, needed)``: the nodes reachable from ``roots``, each after the nodes it consumes,
    and the set of those on some path to a target (only they are differentiated).

    ``leaves``: this thread's leaf nodes of shared tensors (id -> node), or None when there
    are none; a tensor's node is its own ``_node``, else its entry there (looked up inline:
    this loop runs for every input of every recorded call).
    """
    order = []
    needed = set(targets)
    seen = set()
    get = leaves.get if leaves else None
    stack = [(n, False) for n in roots if n is not None]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            if node not in needed:
                for t in node.inputs:   # inputs are ordered already: needed if one of them is
                    tn = t._node
                    if tn is None and get is not None:
                        tn = get(id(t))
                    if tn is not None and tn in needed:
                        needed.add(node)
                        break
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for t in node.inputs:
            tn = t._node
            if tn is None and get is not None:
                tn = get(id(t))
            if tn is not None and tn not in seen:
                stack.append((tn, False))
    return order, needed


def _no_gradient(op):
    raise RuntimeError(f"op '{op.name}' has no gradient: register an FGradient attribute "
                       "(or, for ops.Custom, pass bprop=...) to differentiate through it")


def _gradient_failed(op, exc):
    """Name the op in ``exc`` (raised by its FGradient), which the caller then re-raises."""
    note = f"while computing the gradient of op '{op.name}'"
    if note not in str(exc) and hasattr(exc, "add_note"):
        exc.add_note(note)


def _wrong_count(op, n_grads, n_inputs):
    raise ValueError(f"op '{op.name}': its gradient returned {n_grads} value(s), "
                     f"expected one per input ({n_inputs})")


def _run_fgradient(node, ograds, needed, node_of):
    op = node.op
    attrs = op.attrs
    fgrad = attrs.get("FGradient")
    if fgrad is None:
        _no_gradient(op)
    try:
        if "FGradientNeeds" in attrs:
            # the op skips what no target needs: fgrad(..., needs), one bool per input
            needs = [node_of(t) in needed for t in node.inputs]
            in_grads = fgrad(list(node.inputs), list(node.outputs), ograds, node.attrs, needs)
        else:
            in_grads = fgrad(list(node.inputs), list(node.outputs), ograds, node.attrs)
    except Exception as exc:
        _gradient_failed(op, exc)
        raise
    if type(in_grads) is not list and type(in_grads) is not tuple:
        in_grads = [in_grads]
    if len(in_grads) != len(node.inputs):
        _wrong_count(op, len(in_grads), len(node.inputs))
    return in_grads


def backward(roots, targets, release=False):
    """Gradients of ``roots`` with respect to the ``targets`` leaf nodes.

    ``roots``: list of ``(tensor, sensitivity_tensor)``. ``targets``: list of
    leaf Nodes (from ``make_leaf`` / ``thread_leaf``). Returns one gradient
    Tensor per target, or None where no path leads from the roots to it.
    Nodes are keyed by identity (``Node`` keeps object's hash and equality).

    ``release=True`` (no outer tape will read this graph again) detaches the
    outputs of the recorded op calls afterwards: a tensor and its node point at
    each other, so without it the graph's arrays live until the cyclic garbage
    collector runs, and every step allocates fresh memory for its arrays.
    """
    if WALKER[0] is not None and GRAD_READY[0] is None:
        # the walk compiled (_fastwalk.c), for one op call too (faster than _backward_one there);
        # NotImplemented for roots it leaves to Python
        st = STATE                      # arrays: dispatch.unrecorded(), inline
        result = WALKER[0](roots, targets, release, st.leaves, not st.depth and st.capture is None
                           and PROFILER[0] is None and not TIMING[0])
        if result is not NotImplemented:
            return result
    node_of = _node_getter() if STATE.leaves else _own_node
    target_set = set(targets)
    if len(roots) == 1:
        t, sens = roots[0]
        node = node_of(t)
        if node is not None and node.op is not None and node not in target_set:
            reached = False             # some input is a target
            for inp in node.inputs:
                inode = node_of(inp)
                if inode is not None:
                    if inode not in target_set or (release and inode.op is not None):
                        break
                    reached = True
            else:                       # one op call on the targets: no walk, no bookkeeping
                return _backward_one(node, t, sens, targets, target_set, node_of, release, reached)
    order, needed = _walk([node_of(t) for t, _ in roots], targets, STATE.leaves)
    grads = {}                         # node -> [grad per output]
    add = _prim.accumulate
    ready = GRAD_READY[0] and GRAD_READY[0](targets, order, needed, grads, node_of)

    for t, sens in roots:
        node = node_of(t)
        if node is not None and node in needed:
            idx = t._oidx if t._node is not None else 0
            slot = grads.get(node)
            if slot is None:
                slot = grads[node] = [None] * len(node.out_meta)
            slot[idx] = sens if slot[idx] is None else add(slot[idx], sens)

    for node in reversed(order):
        if ready is not None:
            ready(node)
        if node in target_set or node.op is None or node not in needed:
            continue
        ograds = grads.pop(node, None)
        if ograds is None:
            continue
        if (ograds[0] is None if len(ograds) == 1 else any(g is None for g in ograds)):
            ograds = [g if g is not None else _prim.zeros(shape, dtype, fmt)
                      for g, (shape, dtype, fmt) in zip(ograds, node.out_meta)]
        in_grads = _run_fgradient(node, ograds, needed, node_of)
        for i, (inp, g) in enumerate(zip(node.inputs, in_grads)):
            if g is None:
                continue
            inode = node_of(inp)
            if inode is None or inode not in needed:
                continue
            g = _fit(node.op, i, inp, g)
            if g is None:
                continue
            idx = inp._oidx if inp._node is not None else 0
            slot = grads.get(inode)
            if slot is None:
                slot = grads[inode] = [None] * len(inode.out_meta)
            slot[idx] = g if slot[idx] is None else add(slot[idx], g)

    if ready is not None:
        ready(None)
    result = []
    for n in targets:
        slot = grads.get(n)
        result.append(None if slot is None else slot[0])
    if release:
        for node in order:
            if node.op is not None:     # leaves (op None) may be persistent (make_leaf): kept
                for t in node.outputs:
                    t._node = None
    return result


def _backward_one(node, root, sens, targets, target_set, node_of, release, reached):
    """``backward`` of one root made by one op call whose taped inputs are all targets.

    The same steps as the general walk for that graph (one FGradient, gradients
    conformed and summed per target, the call's outputs released), without
    building the order, the needed set or the per-node gradient table: the
    ``ms.grad`` of a single op (a Custom op with its bprop, say) runs this.
    """
    inputs = node.inputs
    got = {}                            # target node -> its gradient
    if reached:
        n_out = len(node.out_meta)
        if n_out == 1:
            ograds = [sens]
        else:
            ograds = [None] * n_out
            ograds[root._oidx if root._node is not None else 0] = sens
            ograds = [g if g is not None else _prim.zeros(shape, dtype, fmt)
                      for g, (shape, dtype, fmt) in zip(ograds, node.out_meta)]
        in_grads = _run_fgradient(node, ograds, target_set, node_of)
        add = _prim.accumulate
        for i, (inp, g) in enumerate(zip(inputs, in_grads)):
            if g is None:
                continue
            inode = node_of(inp)
            if inode is None:
                continue
            g = _fit(node.op, i, inp, g)
            if g is None:
                continue
            prev = got.get(inode)
            got[inode] = g if prev is None else add(prev, g)
    if release:
        for t in node.outputs:
            t._node = None
    return list(map(got.get, targets))


def _fit(op, index, inp, g):
    """``g`` as the gradient of ``inp`` (its shape and dtype), or None for an integer input."""
    d = inp._data
    if d.dtype.kind in "iub":
        return None                     # integer inputs get no gradient
    if type(g) is not Tensor or g._data.shape != d.shape or \
            (g._data.dtype is not d.dtype and g._data.dtype != d.dtype):
        return _conform(op, index, inp, g)
    return g


def _conform(op, index, inp, g):
    """Make a gradient match its input's shape and dtype, or say which op's gradient is wrong."""
    if not isinstance(g, Tensor):
        if isinstance(g, (np.ndarray, np.generic, float, int)) and not isinstance(g, bool):
            g = Tensor._wrap(np.asarray(g, dtype=inp._data.dtype))
        else:
            raise TypeError(f"op '{op.name}': the gradient for input {index} must be a Tensor, "
                            f"got {type(g).__name__}")
    if g._data.shape != inp._data.shape:
        if g._data.ndim == 0:
            g = _prim.fill_to(g, inp._data.shape)
        else:
            raise ValueError(f"op '{op.name}': the gradient for input {index} has shape "
                             f"{list(g._data.shape)}, but the input has shape {list(inp._data.shape)}")
    if g._data.dtype != inp._data.dtype:
        g = _prim.cast(g, inp._data.dtype)
    return g


def _compiled_walker():
    """The compiled walk (``_fastwalk.Walker``), or None when the extension is not built or
    ``MSCUSTOM_FASTWALK=0``: then ``backward`` walks in Python, with the same results."""
    ext = compiled_tape()
    if ext is None:
        return None
    return ext.Walker(Tensor, Node, (_fit, _prim.accumulate, _prim.zeros, _no_gradient,
                                     _gradient_failed, _wrong_count))


# ``WALKER[0]``: backward's general walk in C (None: the Python walk below ``backward`` runs).
WALKER = [_compiled_walker()]
