"""The tape: record op calls while a gradient is being taken, then walk them backwards.

While ``RECORDING[0] > 0`` the dispatcher records a ``Node`` for every op
call that has at least one input already on the tape (an input with a node).
Leaves are Tensors given a leaf node by ``make_leaf`` (the grad positions and
weights of ``ms.grad``, or ``attach_grad`` in the MXNet front end).

``backward`` runs each node's ``FGradient`` (built from ops, so when an outer
gradient is being recorded the backward pass is recorded too: grad of grad).
Gradients reaching one tensor from several uses are summed.
"""

import contextlib

import numpy as np

RECORDING = [0]        # > 0 while a gradient is being recorded (nesting depth)


class Node:
    """One recorded op call (or a leaf when ``op`` is None)."""

    __slots__ = ("op", "attrs", "inputs", "outputs", "out_meta", "__weakref__")

    def __init__(self, op, attrs, inputs, outputs):
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = tuple(outputs)   # strong: a gradient may read an output the caller dropped
        self.out_meta = [(t._data.shape, t._data.dtype, t._format) for t in outputs]

    def __repr__(self):
        return f"Node({self.op.name if self.op else 'leaf'})"


class _Identity:
    """The op of a leaf that stands for an outer-taped tensor: passes gradients through."""

    name = "identity"
    attrs = {"FGradient": lambda inputs, outputs, ograds, attrs: [ograds[0]]}


def record(op, inputs, outputs, attrs):
    node = Node(op, attrs, tuple(inputs), outputs)
    for i, t in enumerate(outputs):
        t._node = node
        t._oidx = i
    return node


def make_leaf(tensor):
    """Put ``tensor`` on the tape as a gradient target; returns its leaf node.

    If the tensor is already on an outer tape (grad of grad), the leaf links to
    it through an identity node, so the outer backward pass still reaches it.
    """
    if tensor._node is not None:
        from ..tensor import Tensor
        outer = Tensor._wrap(tensor._data, tensor._format)
        outer._node, outer._oidx = tensor._node, tensor._oidx
        node = Node(_Identity, {}, (outer,), (tensor,))
    else:
        node = Node(None, {}, (), (tensor,))
    tensor._node = node
    tensor._oidx = 0
    return node


@contextlib.contextmanager
def recording():
    """Record op calls on the tape inside the ``with`` block."""
    RECORDING[0] += 1
    try:
        yield
    finally:
        RECORDING[0] -= 1


@contextlib.contextmanager
def paused():
    """Stop recording inside the ``with`` block (nothing there is differentiated)."""
    saved = RECORDING[0]
    RECORDING[0] = 0
    try:
        yield
    finally:
        RECORDING[0] = saved


def _toposort(roots):
    """Nodes reachable from ``roots``, every node after all nodes it consumes."""
    order, seen = [], set()
    stack = [(n, False) for n in roots if n is not None]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for t in node.inputs:
            if t._node is not None and id(t._node) not in seen:
                stack.append((t._node, False))
    return order


_F = []          # mscustom.ops.functional, imported on first use (the core never imports it eagerly)


def _functional():
    if not _F:
        from ..ops import functional
        _F.append(functional)
    return _F[0]


def backward(roots, targets):
    """Gradients of ``roots`` with respect to the ``targets`` leaf nodes.

    ``roots``: list of ``(tensor, sensitivity_tensor)``. ``targets``: list of
    Nodes (from ``make_leaf``). Returns one gradient Tensor per target, or
    None where no path leads from the roots to it.
    """
    from ..tensor import Tensor
    F = _functional()

    order = _toposort([t._node for t, _ in roots])
    target_ids = {id(n) for n in targets}
    needed = set(target_ids)
    for node in order:                 # inputs come before their consumers
        if id(node) in needed:
            continue
        for t in node.inputs:
            tn = t._node
            if tn is not None and id(tn) in needed:
                needed.add(id(node))
                break

    grads = {}                         # id(node) -> [grad per output]

    def accumulate(node, index, g):
        slot = grads.get(id(node))
        if slot is None:
            slot = grads[id(node)] = [None] * len(node.out_meta)
        slot[index] = g if slot[index] is None else F.add(slot[index], g)

    for t, sens in roots:
        if t._node is not None and id(t._node) in needed:
            accumulate(t._node, t._oidx, sens)

    for node in reversed(order):
        nid = id(node)
        if nid in target_ids or node.op is None or nid not in needed:
            continue
        ograds = grads.pop(nid, None)
        if ograds is None:
            continue
        if any(g is None for g in ograds):
            ograds = [g if g is not None else Tensor._wrap(np.zeros(shape, dtype), fmt)
                      for g, (shape, dtype, fmt) in zip(ograds, node.out_meta)]
        outputs = []
        outputs.extend(node.outputs)
        fgrad = node.op.attrs.get("FGradient")
        if fgrad is None:
            raise RuntimeError(f"op '{node.op.name}' has no gradient: register an FGradient attribute "
                               "(or, for ops.Custom, pass bprop=...) to differentiate through it")
        in_grads = fgrad(list(node.inputs), outputs, ograds, node.attrs)
        if type(in_grads) is not list and type(in_grads) is not tuple:
            in_grads = [in_grads]
        if len(in_grads) != len(node.inputs):
            raise ValueError(f"op '{node.op.name}': its gradient returned {len(in_grads)} value(s), "
                             f"expected one per input ({len(node.inputs)})")
        for i, (inp, g) in enumerate(zip(node.inputs, in_grads)):
            if g is None:
                continue
            inode = inp._node
            if inode is None or id(inode) not in needed:
                continue
            d = inp._data
            if d.dtype.kind in "iub":
                continue                # integer inputs get no gradient
            if type(g) is not Tensor or g._data.shape != d.shape or g._data.dtype != d.dtype:
                g = _check_grad(node.op, i, inp, g)
            accumulate(inode, inp._oidx, g)

    result = []
    for n in targets:
        slot = grads.get(id(n))
        result.append(None if slot is None else slot[0])
    return result


def _check_grad(op, index, inp, g):
    """Make sure a gradient matches its input's shape and dtype."""
    from ..tensor import Tensor
    F = _functional()
    if not isinstance(g, Tensor):
        if isinstance(g, (np.ndarray, np.generic, float, int)):
            g = Tensor._wrap(np.asarray(g, dtype=inp._data.dtype))
        else:
            raise TypeError(f"op '{op.name}': the gradient for input {index} must be a Tensor, "
                            f"got {type(g).__name__}")
    if g._data.shape != inp._data.shape:
        if g._data.size == 1 and g._data.ndim == 0:
            g = F.broadcast_to(g, inp._data.shape)
        else:
            raise ValueError(f"op '{op.name}': the gradient for input {index} has shape "
                             f"{list(g._data.shape)}, but the input has shape {list(inp._data.shape)}")
    if g._data.dtype != inp._data.dtype:
        g = F.cast(g, inp._data.dtype)
    return g
