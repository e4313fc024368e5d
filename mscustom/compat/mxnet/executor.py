"""``Executor``: a bound symbol with its argument, gradient and auxiliary arrays.

The graph runs as one function of the argument and auxiliary arrays
(``Executor.run``): the symbol's nodes call mscustom ops, taped by the core
when ``is_train`` is set, and ``backward`` walks that tape. Nothing here
differentiates by itself; ``run`` is the piece a graph-mode capture can take
over (the same inputs give the same ops in the same order).

Gradients go into ``grad_dict`` as ``grad_req`` says: ``'write'`` overwrites,
``'add'`` accumulates, ``'null'`` leaves the argument out. An error inside an
op's forward or backward marks the outputs (or gradients) failed, raised as
``MXNetError`` at the next synchronisation point, with nothing half-written.

Example::

    exe = net.simple_bind(mx.cpu(), data=(2, 3))
    exe.forward(is_train=True, data=mx.nd.ones((2, 3)))
    exe.backward()
    exe.grad_dict["fc1_weight"]
"""

import numpy as np

from ..._core import autodiff as _ad
from ...tensor import Tensor
from . import autograd as _autograd
from . import base as _base
from ._ndarray import as_nd, wrap
from .context import device_scope

__all__ = ["Executor"]


class Executor:
    """A symbol bound to arrays: ``forward``, ``backward``, ``outputs`` and the ``*_dict`` views."""

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
        self._heads = None
        self._leaves = None

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

    # ------------------------------------------------------------ the graph as one function
    def run(self, arg_arrays, aux_arrays, is_train=False):
        """The outputs of the graph on these arrays (Tensors, taped inside ``recording()``)."""
        values = dict(zip(self.arg_names, arg_arrays))
        values.update(zip(self.aux_names, aux_arrays))
        with device_scope(self._ctx), _autograd._train_flag(is_train):
            return self._symbol._eval(values, is_train)

    def forward(self, is_train=False, **kwargs):
        """Run the graph; ``kwargs`` are copied into the named arguments first. Returns ``outputs``."""
        for k, v in kwargs.items():
            if k not in self.arg_names:
                raise ValueError(f"Executor.forward: unknown argument {k!r}; arguments are {self.arg_names}")
            dst = self.arg_dict[k]
            src = v._data if isinstance(v, Tensor) else np.asarray(v)
            if src.shape != dst.shape:
                raise ValueError(f"Executor.forward: '{k}' has shape {dst.shape}, got {src.shape}")
            np.copyto(dst._data, src, casting="unsafe")
        self._heads = self._leaves = None
        args = []
        leaves = []
        for n, a in zip(self.arg_names, self.arg_arrays):
            view = wrap(a._data, ctx=a._ctx)
            req = self._grad_req.get(n, "null")
            if is_train and req != "null":
                view._grad_req = req
                view._leaf = _ad.make_leaf(view)
                leaves.append((n, view))
            args.append(view)
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

    def backward(self, out_grads=None, is_train=True):
        """Gradients of the outputs (weighted by ``out_grads``; ones where not given) into ``grad_dict``."""
        if self._heads is None:
            raise _base.MXNetError("Executor.backward: call forward(is_train=True) first (and bind with a "
                                   "grad_req other than 'null' for some argument)")
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        roots = []
        for i, h in enumerate(self._heads):
            g = out_grads[i] if out_grads is not None and i < len(out_grads) else None
            g = np.ones_like(h._data) if g is None else np.asarray(g._data if isinstance(g, Tensor) else g,
                                                                     dtype=h._data.dtype)
            if g.shape != h._data.shape:
                raise ValueError(f"Executor.backward: out_grads[{i}] has shape {g.shape}, output "
                                 f"'{self.output_names[i]}' has shape {h._data.shape}")
            if h._node is not None:
                roots.append((h, Tensor._wrap(g)))
        names = [n for n, _ in self._leaves]
        grad_of = dict(zip(self.arg_names, self.grad_arrays))
        try:
            with _ad.paused(), _autograd._train_flag(True), device_scope(self._ctx):
                grads = _ad.backward(roots, [v._leaf for _, v in self._leaves])
        except _base._OpFailure as err:
            bufs = [grad_of[n] for n in names if grad_of.get(n) is not None]
            for b in bufs:
                b._fail()
            _base.defer(err, bufs)
            return
        for n, g in zip(names, grads):
            buf = grad_of.get(n)
            if buf is None:
                continue
            if g is None:
                if self._grad_req[n] == "write":
                    buf._data[...] = 0
                continue
            if self._grad_req[n] == "add":
                buf._data += g._data
            else:
                np.copyto(buf._data, g._data, casting="same_kind")

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


