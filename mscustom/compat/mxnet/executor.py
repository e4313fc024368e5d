"""``Executor``: a bound symbol with its argument, gradient and auxiliary arrays.

The graph runs as one function of the argument and auxiliary arrays
(``Executor.run``): the symbol's nodes call mscustom ops, taped by the core
when ``is_train`` is set, and ``backward`` walks that tape. Nothing here
differentiates by itself.

A symbol graph is exactly a recorded graph, so a bound executor runs through
graph mode's capture and replay (``mscustom.graph.GraphFunction``) rather than
a second executor of its own:

- ``forward(is_train=False)`` replays a capture of ``run`` over the argument
  and auxiliary arrays (``Module.predict`` / ``score``, inference loops);
- ``forward(is_train=True)``, once a ``backward()`` without ``out_grads`` has
  been seen, replays one capture of "forward, then backward with head
  gradients of ones" and keeps the gradients; ``backward()`` only writes them
  into ``grad_dict`` as ``grad_req`` says (the ``Module.fit`` loop);
- ``backward(out_grads=...)`` with explicit head gradients runs on the tape,
  as do the training forwards after it.

The first forward of each kind runs eagerly (an executor used once pays
nothing for recording), the second records, later ones replay; ``stats``
counts them. ``execution="eager"`` (or the environment variable
``MSCUSTOM_MXNET_EXECUTION=eager`` when the executor is made) runs
everything on the eager path, for debugging and comparison.

Gradients go into ``grad_dict`` as ``grad_req`` says: ``'write'`` overwrites,
``'add'`` accumulates, ``'null'`` leaves the argument out. An error inside an
op's forward or backward marks the outputs (or gradients) failed, raised as
``MXNetError`` at the next synchronisation point, with nothing half-written;
when a replay meets such an error the step runs again on the eager path,
which reports it exactly as without replay.

Example::

    exe = net.simple_bind(mx.cpu(), data=(2, 3))
    exe.forward(is_train=True, data=mx.nd.ones((2, 3)))
    exe.backward()
    exe.grad_dict["fc1_weight"]
"""

import os

import numpy as np

from ..._core import autodiff as _ad
from ..._core import dispatch as _dispatch
from ..._core.tape import STATE as _STATE
from ...graph import GraphFunction
from ...tensor import Tensor
from . import autograd as _autograd
from . import base as _base
from ._ndarray import as_nd, wrap
from .context import device_scope

__all__ = ["Executor", "EXECUTION_MODES"]

EXECUTION_MODES = ("replay", "eager")
_ENV = "MSCUSTOM_MXNET_EXECUTION"


def _default_execution():
    mode = os.environ.get(_ENV, "replay") or "replay"
    if mode not in EXECUTION_MODES:
        raise ValueError(f"Executor: {_ENV} must be one of {list(EXECUTION_MODES)}, got {mode!r}")
    return mode


class _RunEager(Exception):
    """Graph mode called a captured step outside a capture (its replay failed, or it gave up): the
    executor runs the step on its eager path instead."""


class _BackwardFailed(Exception):
    """The backward half of a recorded training step raised an op failure; the forward half succeeded."""

    def __init__(self, error, outs):
        super().__init__(str(error))
        self.error, self.outs = error, outs


class Executor:
    """A symbol bound to arrays: ``forward``, ``backward``, ``outputs`` and the ``*_dict`` views.

    ``execution``: ``"replay"`` (graph-mode capture and replay of repeated
    forwards, the default) or ``"eager"``. ``stats``: how many forwards ran
    ``eager``, were ``recorded`` or ``replayed``.
    """

    def __init__(self, symbol, ctx, args, grads, grad_req, aux):
        self._symbol = symbol
        self._ctx = ctx
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.output_names = symbol.list_outputs()
        self.arg_arrays = list(args)
        self.grad_arrays = list(grads)
        self.aux_arrays = list(aux)
        self._grad_req = dict(grad_req)
        self.outputs = []
        self._heads = None          # eager training forward: the taped outputs ...
        self._leaves = None         # ... and the (name, leaf view) pairs backward differentiates
        self._grads = None          # replayed training forward: [(name, gradient array or None)]
        self._grad_error = None     # ... or the op failure its backward half raised
        self._aux_saved = None      # auxiliary states before a replayed training forward
        self._head_grads = None     # None until a backward is seen, then "ones" or "given"
        self._seen = set()          # kinds of forward run once already ("infer", "train")
        self.execution = _default_execution()
        self.stats = {"eager": 0, "recorded": 0, "replayed": 0}
        name = f"Executor({', '.join(self.output_names)})"
        self._graph_forward = GraphFunction(self._captured_forward, name=name + ".forward")
        self._graph_train = GraphFunction(self._captured_train_step, name=name + ".forward_backward")

    def _sparse(self):
        return any(getattr(a, "stype", "default") != "default"
                   for a in list(self.arg_arrays) + list(self.aux_arrays) + [g for g in self.grad_arrays if g is not None])

    @property
    def arg_dict(self):
        return dict(zip(self.arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        return {n: g for n, g in zip(self.arg_names, self.grad_arrays) if g is not None}

    @property
    def aux_dict(self):
        return dict(zip(self.aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self.output_names, self.outputs))

    @property
    def execution(self):
        return self._execution

    @execution.setter
    def execution(self, mode):
        if mode not in EXECUTION_MODES:
            raise ValueError(f"Executor.execution must be one of {list(EXECUTION_MODES)}, got {mode!r}")
        self._execution = mode

    # ------------------------------------------------------------ the graph as one function
    def run(self, arg_arrays, aux_arrays, is_train=False):
        """The outputs of the graph on these arrays (Tensors, taped inside ``recording()``)."""
        values = dict(zip(self.arg_names, arg_arrays))
        values.update(zip(self.aux_names, aux_arrays))
        with device_scope(self._ctx), _autograd._train_flag(is_train):
            return self._symbol._eval(values, is_train)

    def _leaf_views(self, arrays, is_train):
        """Fresh views of the argument arrays; those with a gradient become leaves of this thread's tape."""
        args, leaves = [], []
        for n, a in zip(self.arg_names, arrays):
            view = a._view() if getattr(a, "stype", "default") != "default" else wrap(a._data, ctx=a._ctx)
            req = self._grad_req.get(n, "null")
            if is_train and req != "null":
                view._grad_req = req
                view._leaf = _ad.make_leaf(view)
                leaves.append((n, view))
            args.append(view)
        return args, leaves

    # ------------------------------------------------------------ what graph mode captures
    def _captured_forward(self, is_train, args, aux):
        """The graph's outputs, untaped: recorded once per signature, then replayed."""
        if _STATE.capture is None:
            raise _RunEager
        return self.run(self._leaf_views(args, False)[0], [wrap(a._data) for a in aux], is_train)

    def _captured_train_step(self, args, aux):
        """Forward on the tape, then backward with head gradients of ones: ``(outputs, gradients)``."""
        if _STATE.capture is None:
            raise _RunEager
        views, leaves = self._leaf_views(args, True)
        with _ad.recording():
            outs = self.run(views, [wrap(a._data) for a in aux], True)
        roots = [(h, Tensor._wrap(np.ones_like(h._data))) for h in outs if h._node is not None]
        try:
            with _autograd._train_flag(True):
                grads = _ad.backward(roots, [v._leaf for _, v in leaves])
        except _base._OpFailure as err:
            raise _BackwardFailed(err, outs) from None
        return outs, list(grads)

    # ------------------------------------------------------------ forward
    def forward(self, is_train=False, **kwargs):
        """Run the graph; ``kwargs`` are copied into the named arguments first. Returns ``outputs``."""
        named = self.arg_dict if kwargs else None
        for k, v in kwargs.items():
            dst = named.get(k)
            if dst is None:
                raise ValueError(f"Executor.forward: unknown argument {k!r}; arguments are {self.arg_names}")
            src = v._data if isinstance(v, Tensor) else np.asarray(v)
            if src.shape != dst.shape:
                raise ValueError(f"Executor.forward: '{k}' has shape {dst.shape}, got {src.shape}")
            if getattr(dst, "stype", "default") != "default":
                dst._write(v)
                continue
            np.copyto(dst._data, src, casting="unsafe")
        self._heads = self._leaves = self._grads = self._grad_error = self._aux_saved = None
        train = is_train and any(self._grad_req.get(n, "null") != "null" for n in self.arg_names)
        kind = "train" if train else "infer"
        if self._execution == "replay" and kind in self._seen and (not train or self._head_grads == "ones") and \
                _dispatch.PROFILER[0] is None and not self._sparse():
            # (mx.profiler times op calls: none run in a replay; sparse arguments keep their storage eagerly)
            try:
                return self._forward_graph(train, bool(is_train))
            except _RunEager:
                pass
        self._seen.add(kind)
        self.stats["eager"] += 1
        return self._forward_eager(is_train)

    def _forward_graph(self, train, is_train):
        """The forward (and, training, the gradients) by graph mode; ``_RunEager`` where it declines."""
        gf = self._graph_train if train else self._graph_forward
        replayed = gf.stats["replayed"]
        if self.aux_arrays:             # put back if a replay fails part way, or out_grads come later
            self._aux_saved = [a._data.copy() for a in self.aux_arrays]
        try:
            with _ad.paused(), device_scope(self._ctx), _autograd._train_flag(is_train):
                if train:
                    outs, grads = gf(tuple(self.arg_arrays), tuple(self.aux_arrays))
                else:
                    outs = gf(is_train, tuple(self.arg_arrays), tuple(self.aux_arrays))
        except _RunEager:
            self._restore_aux()         # a replay that failed part way may have written them
            raise
        except _BackwardFailed as failed:        # recording: the forward half stands, backward reports
            outs, grads = failed.outs, None
            self._grad_error = failed.error
        except _base._OpFailure as err:         # recording: the eager forward failed, as without replay
            self.outputs = self._failed_outputs(err)
            return self.outputs
        self.stats["replayed" if gf.stats["replayed"] > replayed else "recorded"] += 1
        self.outputs = [as_nd(o) for o in outs]
        if train and grads is not None:
            self._grads = list(zip([n for n in self.arg_names if self._grad_req.get(n, "null") != "null"], grads))
        return self.outputs

    def _restore_aux(self):
        if self._aux_saved is not None:
            for a, saved in zip(self.aux_arrays, self._aux_saved):
                np.copyto(a._data, saved)

    def _forward_eager(self, is_train):
        """Today's forward: the graph on the tape (training) or untaped; op failures are deferred."""
        args, leaves = self._leaf_views(self.arg_arrays, is_train)
        aux = [wrap(a._data) for a in self.aux_arrays]
        try:
            if is_train and leaves:
                with _ad.recording():
                    outs = self.run(args, aux, True)
            else:
                with _ad.paused():
                    outs = self.run(args, aux, is_train)
        except _base._OpFailure as err:
            self.outputs = self._failed_outputs(err)
            return self.outputs
        self.outputs = [as_nd(o) for o in outs]
        if is_train and leaves:
            self._heads, self._leaves = outs, leaves
        return self.outputs

    def _failed_outputs(self, err):
        shapes = self._symbol.infer_shape(**{n: a.shape for n, a in zip(self.arg_names, self.arg_arrays)})[1]
        types = self._symbol.infer_type(**{n: a.dtype for n, a in zip(self.arg_names, self.arg_arrays)})[1]
        outs = [wrap(np.zeros(s, t)) for s, t in zip(shapes or [], types)]
        for o in outs:
            o._fail()
        _base.defer(err, outs)
        return outs

    # ------------------------------------------------------------ backward
    def backward(self, out_grads=None, is_train=True):
        """Gradients of the outputs (weighted by ``out_grads``; ones where not given) into ``grad_dict``."""
        replayed = self._grads is not None or self._grad_error is not None
        if self._heads is None and not replayed:
            raise _base.MXNetError("Executor.backward: call forward(is_train=True) first (and bind with a "
                                   "grad_req other than 'null' for some argument)")
        out_grads = self._head_arrays(out_grads)
        if self._head_grads != "given":
            self._head_grads = "ones" if out_grads is None else "given"
        if replayed:
            if out_grads is None:
                if self._grad_error is not None:
                    self._fail_grads(self._grad_error, [n for n in self.arg_names
                                                        if self._grad_req.get(n, "null") != "null"])
                else:
                    self._write_grads(self._grads)
                return
            # explicit head gradients after a replayed step: run this step again on the tape
            self._restore_aux()
            self._grads = self._grad_error = None
            self.stats["eager"] += 1
            self._forward_eager(True)
            if self._heads is None:
                return                  # the forward failed this time: reported on the outputs
        self._backward_eager(out_grads)

    def _head_arrays(self, out_grads):
        """``out_grads`` as one array (or None: ones) per output, shapes checked; None when all are ones."""
        if out_grads is None:
            return None
        if not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        heads, all_ones = [], True
        for i, out in enumerate(self.outputs):
            g = out_grads[i] if i < len(out_grads) else None
            if g is not None:
                g = np.asarray(g._data if isinstance(g, Tensor) else g, dtype=out.dtype)
                if g.shape != out.shape:
                    raise ValueError(f"Executor.backward: out_grads[{i}] has shape {g.shape}, output "
                                     f"'{self.output_names[i]}' has shape {out.shape}")
                all_ones = all_ones and bool((g == 1).all())
            heads.append(g)
        return None if all_ones else heads      # ones are the default head gradients: nothing to redo

    def _backward_eager(self, out_grads):
        roots = []
        for h, g in zip(self._heads, out_grads or [None] * len(self._heads)):
            if h._node is not None:
                roots.append((h, Tensor._wrap(np.ones_like(h._data) if g is None else g)))
        names = [n for n, _ in self._leaves]
        try:
            with _ad.paused(), _autograd._train_flag(True), device_scope(self._ctx):
                grads = _ad.backward(roots, [v._leaf for _, v in self._leaves])
        except _base._OpFailure as err:
            self._fail_grads(err, names)
            return
        self._write_grads(zip(names, [None if g is None else g._data for g in grads]))

    def _fail_grads(self, err, names):
        grad_of = dict(zip(self.arg_names, self.grad_arrays))
        bufs = [grad_of[n] for n in names if grad_of.get(n) is not None]
        for b in bufs:
            b._fail()
        _base.defer(err, bufs)

    def _write_grads(self, named):
        """Write ``(name, gradient array or Tensor or None)`` into ``grad_dict`` per ``grad_req``."""
        grad_of = dict(zip(self.arg_names, self.grad_arrays))
        for n, g in named:
            buf = grad_of.get(n)
            if buf is None:
                continue
            if g is None:
                if self._grad_req[n] == "write":
                    if getattr(buf, "stype", "default") != "default":
                        buf._write(0)
                    else:
                        buf._data[...] = 0
                continue
            g = g._data if isinstance(g, Tensor) else g
            if getattr(buf, "stype", "default") != "default":
                buf._write(g, add=self._grad_req[n] == "add")          # a sparse buffer keeps its storage type
                continue
            if self._grad_req[n] == "add":
                buf._data += g
            else:
                np.copyto(buf._data, g, casting="same_kind")

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy named arrays into the bound arguments / auxiliary states."""
        for src, names, arrays in ((arg_params, self.arg_names, self.arg_arrays),
                                   (aux_params or {}, self.aux_names, self.aux_arrays)):
            for k, v in src.items():
                if k in names:
                    dst = arrays[names.index(k)]
                    val = v._data if isinstance(v, Tensor) else np.asarray(v)
                    if val.shape != dst.shape:
                        raise ValueError(f"copy_params_from: '{k}' has shape {dst.shape}, got {val.shape}")
                    np.copyto(dst._data, val, casting="unsafe")
                elif not allow_extra_params:
                    raise ValueError(f"copy_params_from: {k!r} is not an argument or auxiliary state of the symbol")

    def __repr__(self):
        return f"<Executor of {self.output_names} on {self._ctx}>"
