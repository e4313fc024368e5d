"""The tape: which op calls are recorded while a gradient is being taken.

Recording state is per thread (``STATE``, a ``threading.local``): two threads
taking gradients at once each record their own graph, even over shared
Parameters. ``recording()`` / ``paused()`` switch it inside a ``with`` block.

A recorded op call is a ``Node``; each output Tensor points at it (``_node``,
``_oidx``). A gradient target is a leaf: ``make_leaf`` gives a Tensor its own
leaf node (persistently, as MXNet's ``attach_grad`` wants), while
``thread_leaf`` marks a shared tensor (a Parameter of ``ms.grad(...,
weights=...)``) as a leaf for the current thread only, without touching the
tensor. ``node_of`` finds a tensor's node through either.
"""

import contextlib
import os
import threading

__all__ = ["Node", "STATE", "record", "make_leaf", "new_leaf", "thread_leaf", "node_of", "slot_of", "on_tape",
           "recording", "paused", "is_recording"]


class _State(threading.local):
    """Per-thread recording state: nesting depth and this thread's leaves over shared tensors."""

    def __init__(self):
        self.depth = 0          # > 0 while a gradient is being recorded
        self.leaves = {}        # id(tensor) -> leaf Node, for shared tensors (see thread_leaf)
        self.capture = None     # the graph-mode Capture recording this thread's op calls (capture.py)


STATE = _State()


class Node:
    """One recorded op call (or a leaf when ``op`` is None)."""

    __slots__ = ("op", "attrs", "inputs", "outputs", "out_meta", "__weakref__")

    def __init__(self, op, attrs, inputs, outputs):
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = outputs = tuple(outputs)   # strong: a gradient may read an output the caller dropped
        if len(outputs) == 1:
            t = outputs[0]
            d = t._data
            self.out_meta = [(d.shape, d.dtype, t._format)]
        else:
            self.out_meta = [(t._data.shape, t._data.dtype, t._format) for t in outputs]

    def __repr__(self):
        return f"Node({self.op.name if self.op else 'leaf'})"


LEAF_ATTRS = {}                  # a leaf's attrs (a leaf has no op to read them)


class _Identity:
    """The op of a leaf that stands for an outer-taped tensor: passes gradients through."""

    name = "identity"
    attrs = {"FGradient": lambda inputs, outputs, ograds, attrs: [ograds[0]]}


def node_of(tensor):
    """The node ``tensor`` belongs to in this thread's graph, or None."""
    node = tensor._node
    if node is None and STATE.leaves:
        return STATE.leaves.get(id(tensor))
    return node


def slot_of(tensor):
    """``(node, output index)`` of ``tensor`` in this thread's graph; ``(None, 0)`` off the tape."""
    node = tensor._node
    if node is not None:
        return node, tensor._oidx
    if STATE.leaves:
        return STATE.leaves.get(id(tensor)), 0
    return None, 0


def on_tape(args):
    """True when one of ``args`` is on this thread's tape (so a call on them must be recorded)."""
    leaves = STATE.leaves
    for x in args:
        if x._node is not None or (leaves and id(x) in leaves):
            return True
    return False


_new_node = object.__new__


def record(op, inputs, outputs, attrs):
    """Record one op call; its outputs point at the new node."""
    if len(outputs) == 1:               # Node(...) without the __init__ frame: the common case
        t = outputs[0]
        d = t._data
        node = _new_node(Node)
        node.op = op
        node.attrs = attrs
        node.inputs = tuple(inputs)
        node.outputs = (t,)
        node.out_meta = [(d.shape, d.dtype, t._format)]
        t._node = node
        t._oidx = 0
        return node
    node = Node(op, attrs, tuple(inputs), outputs)
    for i, t in enumerate(outputs):
        t._node = node
        t._oidx = i
    return node


def _plain_leaf(tensor):
    """A leaf node for ``tensor`` (``Node(None, {}, (), (tensor,))`` without the __init__ frame)."""
    d = tensor._data
    node = _new_node(Node)
    node.op = None
    node.attrs = LEAF_ATTRS
    node.inputs = ()
    node.outputs = (tensor,)
    node.out_meta = [(d.shape, d.dtype, tensor._format)]
    return node


def _leaf_node(tensor):
    """A leaf node for ``tensor``: linked to its outer-tape node when it has one (grad of grad)."""
    outer_node = node_of(tensor)
    if outer_node is None:
        return _plain_leaf(tensor)
    outer = tensor._wrap(tensor._data, tensor._format)     # a plain Tensor over the same data
    outer._node, outer._oidx = slot_of(tensor)
    return Node(_Identity, {}, (outer,), (tensor,))


def make_leaf(tensor):
    """Put ``tensor`` on the tape as a gradient target (sets its ``_node``); returns the leaf node.

    If the tensor is already on an outer tape (grad of grad), the leaf links to
    it through an identity node, so the outer backward pass still reaches it.
    """
    node = _leaf_node(tensor)
    tensor._node = node
    tensor._oidx = 0
    return node


def new_leaf(tensor):
    """``(leaf, node)``: a new Tensor over ``tensor``'s data made a gradient target, and its leaf node.

    ``tensor`` itself is not modified; when it is on an outer tape the leaf links
    to it (grad of grad), as ``make_leaf`` does.
    """
    leaf = tensor._wrap(tensor._data, tensor._format)
    if tensor._node is None and not STATE.leaves:          # on no tape: a plain leaf
        node = _plain_leaf(leaf)
    else:
        leaf._node, leaf._oidx = slot_of(tensor)
        node = _leaf_node(leaf)
    leaf._node = node
    leaf._oidx = 0
    return leaf, node


@contextlib.contextmanager
def thread_leaf(tensors):
    """Make ``tensors`` gradient targets for this thread only, inside the ``with`` block.

    Yields their leaf nodes. The tensors themselves are not modified, so other
    threads using the same Parameters see nothing of this thread's graph.
    """
    leaves = STATE.leaves
    saved = [(id(t), leaves.get(id(t))) for t in tensors]
    nodes = []
    for t in tensors:
        node = _leaf_node(t)
        node.outputs = (t,)
        leaves[id(t)] = node
        nodes.append(node)
    try:
        yield nodes
    finally:
        for key, old in reversed(saved):
            if old is None:
                leaves.pop(key, None)
            else:
                leaves[key] = old


@contextlib.contextmanager
def recording():
    """Record op calls on this thread's tape inside the ``with`` block."""
    STATE.depth += 1
    try:
        yield
    finally:
        STATE.depth -= 1


@contextlib.contextmanager
def paused():
    """Stop recording on this thread inside the ``with`` block (nothing there is differentiated)."""
    state = STATE
    saved = state.depth
    state.depth = 0
    try:
        yield
    finally:
        state.depth = saved


def is_recording():
    """True while this thread records op calls for a gradient."""
    return STATE.depth > 0


COMPILED_ENV = "MSCUSTOM_FASTWALK"


def compiled_tape():
    """The compiled tape (``_fastwalk``: the backward walk, recording a built-in call), or None
    when it is not built (``make fastcall``) or ``MSCUSTOM_FASTWALK=0``: then Python does the same."""
    if os.environ.get(COMPILED_ENV, "1") == "0":
        return None
    try:
        from . import _fastwalk
    except ImportError:
        return None
    return _fastwalk
