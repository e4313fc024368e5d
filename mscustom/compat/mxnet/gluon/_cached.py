"""A hybridized block inside ``mx.autograd.record()``: one node on the tape, forward and backward replayed.

MXNet runs a hybridized block as a CachedOp: one operator whose forward and
backward are each one compiled graph. Here both are graph-mode records
(``mscustom.graph.GraphFunction``):

- the **forward** runs ``hybrid_forward`` on the tape inside a capture and
  returns the outputs together with the *residuals*: every array the taped
  graph's gradients will read (each op's inputs and outputs, the dropout
  masks among them), except the block's inputs and Parameters. Replays
  give fresh outputs and residuals for each call, kernel by kernel;
- the **backward** walks that taped graph from the outputs, with the head
  gradients as arguments, to the gradients of the inputs and of every
  Parameter with a ``grad_req``; it is recorded from the live graph of a
  recording forward, and later calls replay it on the residuals of their own
  forward. Nothing is computed twice: a CustomOp's ``forward`` runs once per
  forward, its ``backward`` once per backward, BatchNorm's running statistics
  are updated once per backward, and the gradient of a dropout uses the mask
  of its own forward.

The outer tape sees one node whose inputs are the block's inputs and
Parameters. Where replay could not be faithful (a value read into Python
decides the control flow, graph mode gave up, a replay failed), the block
runs op by op on the tape from then on, as it does unhybridized.
"""

import numpy as np

from ...._core import autodiff as _ad
from ...._core import tape as _tape
from ....graph import MAX_SIGNATURES, GraphFunction
from ....tensor import Tensor
from .. import autograd as _autograd
from .. import ndarray as _nd
from .._ndarray import wrap

__all__ = ["CachedGraph"]


class _Unfaithful(Exception):
    """The backward cannot be recorded (no live graph) or replayed for this call."""


class _BlockOp:
    """What the outer tape's node calls for the block: its name and its FGradient."""

    def __init__(self, name, fgradient):
        self.name = name
        self.attrs = {"FGradient": fgradient}


def _has_guards(gf):
    return any(st.kind == "guard" for variants in gf.records.values() for rec in variants for st in rec.steps)


class CachedGraph:
    """The forward and backward records of one hybridized block (``HybridBlock._cached``)."""

    def __init__(self, block):
        self.block = block
        name = f"{type(block).__name__}({block.name})"
        # one pair per training flag, each taking Tensors only (graph mode's quickest signatures)
        self.fwd = {flag: GraphFunction(lambda *inputs, f=flag: self._forward(f, inputs),
                                        name=f"{name}.forward[{'train' if flag else 'predict'}]")
                    for flag in (True, False)}
        self.bwd = {flag: GraphFunction(lambda *flat, f=flag: self._backward(f, flat),
                                        name=f"{name}.backward[{'train' if flag else 'predict'}]")
                    for flag in (True, False)}
        self.op = _BlockOp(f"hybridized {name}", self._fgradient)
        self.ready = set()           # signatures whose backward has been recorded
        self.params_key = None
        self.every = None            # every Parameter of the block (its children's too)
        self.disabled = None         # why the block runs on the tape instead, once replay cannot follow
        self._live = None            # the live taped graph of the forward being recorded right now
        self._pending = None         # the live graph handed to a backward being recorded

    @property
    def stats(self):
        """Calls of the forward and backward records: ``{'forward': {...}, 'backward': {...}}``."""
        out = {}
        for what, gfs in (("forward", self.fwd), ("backward", self.bwd)):
            out[what] = {k: gfs[True].stats[k] + gfs[False].stats[k] for k in gfs[True].stats}
        return out

    def _reset(self):
        for gf in list(self.fwd.values()) + list(self.bwd.values()):
            gf.reset()
        self.ready.clear()

    # ------------------------------------------------------------ what graph mode records
    def _forward(self, training, inputs):
        views, leaves = [], []
        for t in inputs:
            v = wrap(t._data, ctx=getattr(t, "_ctx", None))
            leaves.append(_ad.make_leaf(v) if t._data.dtype.kind in "fc" else None)
            views.append(v)
        with _ad.recording(), _autograd._train_flag(training):
            params = {k: p.data() for k, p in self.block._reg_params.items()}
            out = self.block.hybrid_forward(_nd, views[0], *views[1:], **params)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if not all(isinstance(o, Tensor) for o in outs):
            raise TypeError(f"{type(self.block).__name__}.hybrid_forward must return NDArrays, got "
                            f"{[type(o).__name__ for o in outs]}")
        skip = {id(v._data) for v in views} | {id(p._data._data) for p in self._params}
        residuals = _residuals(outs, skip)
        self._live = (outs, leaves, [p._data._leaf for p in self._params], len(residuals))
        return outs, residuals, isinstance(out, (list, tuple))

    def _backward(self, training, flat):
        live = self._pending
        if live is None:
            raise _Unfaithful("no live graph to record the backward from")
        outs, input_leaves, param_leaves, n_res = live
        ograds = flat[len(input_leaves) + n_res:]
        roots = [(o, g) for o, g in zip(outs, ograds) if o._node is not None]
        targets = [lf for lf in input_leaves if lf is not None] + param_leaves
        with _ad.recording(), _autograd._train_flag(training):
            grads = list(_ad.backward(roots, targets))
        it = iter(grads)
        return [next(it) if lf is not None else None for lf in input_leaves] + list(it)

    # ------------------------------------------------------------ the block's call
    def __call__(self, training, inputs):
        """The block's outputs for ``inputs`` on the outer tape (one node), or None to run it op by op."""
        if self.disabled is not None:
            return None
        if self.every is None:
            every = list(self.block.collect_params().values())
            if any(p._data is None for p in every):
                return None                      # deferred shapes: this first call completes them op by op
            self.every = every
        self._params = [p for p in self.every if p.grad_req != "null" and p._data._leaf is not None]
        params_key = tuple(id(p._data) for p in self._params)
        if params_key != self.params_key:        # Parameters replaced (cast, grad_req): record anew
            self._reset()
            self.params_key = params_key
        fwd = self.fwd[training]
        key = (training, tuple((t._data.shape, t._data.dtype.str) for t in inputs))
        if key not in self.ready:
            if len(self.ready) >= MAX_SIGNATURES:
                self._reset()
            fwd.reset()                          # a recording forward leaves the live graph to record from
        recorded = fwd.stats["recorded"]
        self._live = None
        with _ad.paused():
            outs, residuals, is_list = fwd(*inputs)
        live, self._live = self._live, None
        if fwd.stats["recorded"] > recorded or fwd.eager_reason is not None:
            if fwd.eager_reason is not None or _has_guards(fwd):
                self._disable("its forward cannot be replayed faithfully (" + (fwd.eager_reason or
                              "a tensor value decides Python control flow") + ")")
                return None
        ctx = getattr(inputs[0], "_ctx", None)
        results = [wrap(o._data, ctx=ctx) for o in outs]
        attrs = {"training": training, "key": key, "inputs": tuple(inputs), "residuals": residuals, "live": live}
        _tape.record(self.op, list(inputs) + [p._data for p in self._params], results, attrs)
        return results if is_list else results[0]

    def _disable(self, reason):
        self.disabled = reason
        self._reset()

    def _fgradient(self, node_inputs, outputs, ograds, attrs):
        ograds = tuple(g if g is not None else Tensor(np.zeros_like(o._data)) for g, o in zip(ograds, outputs))
        bwd = self.bwd[attrs["training"]]
        self._pending = attrs["live"]
        recorded = bwd.stats["recorded"]
        try:
            with _ad.paused():
                grads = bwd(*attrs["inputs"], *attrs["residuals"], *ograds)
        except _Unfaithful:
            grads = self._rerun(attrs, ograds)
        finally:
            self._pending = None
        if bwd.stats["recorded"] > recorded or bwd.eager_reason is not None:
            self.ready.add(attrs["key"])
            if bwd.eager_reason is not None or _has_guards(bwd):
                self._disable("its backward cannot be replayed faithfully (" + (bwd.eager_reason or
                              "a tensor value decides Python control flow") + ")")
        attrs["live"] = attrs["residuals"] = None          # the graph is not needed any more
        return [None if g is None else Tensor._wrap(g._data) for g in grads]

    def _rerun(self, attrs, ograds):
        """A backward replay failed where it should not (graph mode ran it eagerly without a live graph):
        run this call's forward and backward again op by op, which reports the error as the eager path does."""
        self._disable("a replay of its backward failed")
        self._forward(attrs["training"], attrs["inputs"])
        self._pending, self._live = self._live, None
        return self._backward(attrs["training"], tuple(attrs["inputs"]) + (None,) * self._pending[3] + ograds)


def _residuals(outs, skip):
    """Every array the taped graph below ``outs`` holds (op inputs and outputs), except those in ``skip``."""
    found, seen_nodes, seen = [], set(), set(skip)
    stack = [o._node for o in outs if o._node is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes or node.op is None:
            continue
        seen_nodes.add(id(node))
        for t in tuple(node.inputs) + tuple(node.outputs):
            if id(t._data) not in seen:
                seen.add(id(t._data))
                found.append(t)
        stack.extend(t._node for t in node.inputs if t._node is not None)
    return found
