"""The bridge from an MXNet-style op type to the operator core: two OpDefs per (op type, kwargs).

Forward OpDef: FInferShape / FInferType call the Prop's ``infer_shape`` /
``infer_type``; its ``FCompute<cpu>`` (and ``<gpu>``: tensors live on the
host) runs the CustomOp's ``forward`` on NDArray views of the preallocated
outputs, and its ``bind`` hook makes the CustomOp once per input signature;
FGradient is one call of the backward OpDef.

Both are built through ``mscustom.extend`` (``def_op`` / ``def_infer`` /
``def_kernel`` / ``def_gradient``, front end "mxnet"), like every other op.

Backward OpDef: its inputs are what ``declare_backward_dependency`` lists
(MXNet's ids: out_grad, then in_data, then out_data), then the auxiliary
states; its outputs are one gradient per argument. A slot that was not
declared reaches ``backward`` as an NDArray that refuses to be read.
"""

import threading

import numpy as np

from ... import context as _context
from ... import dtype as _dt
from ... import extend as _extend
from ..._core import autodiff as _ad
from ..._core import capture as _capture
from ..._core import dispatch as _dispatch
from ...tensor import Tensor
from . import autograd as _autograd
from . import base as _base
from ._ndarray import NDArray, as_nd as _as_nd, check_stype, wrap as _wrap_nd
from ._prop import CustomOp, get_registered

_TYPES = {}                 # (op_type, Prop class, frozen kwargs) -> _OpType
_LOCK = threading.Lock()
_MAX_OPERATORS = 4096       # CustomOp instances kept per op type (one per input signature)


class _Undeclared(NDArray):
    """A backward argument that ``declare_backward_dependency`` did not list: reading it is an error.

    MXNet hands the backward an empty NDArray there; here the error says what to declare.
    """

    __slots__ = ()

    @property
    def _data(self):
        op_type, label = self._role
        raise ValueError(f"op '{op_type}': backward read {label}, which declare_backward_dependency did not "
                         f"list; add it there to use it (a need_top_grad=False loss layer gets no out_grad)")

    def __repr__(self):
        return f"<NDArray {self._role[1]}: not declared as a backward dependency>"

    __str__ = __repr__


def _undeclared(op_type, label):
    n = object.__new__(_Undeclared)
    n._format, n._node, n._oidx = "DefaultFormat", None, 0
    n._grad, n._grad_req, n._assigned, n._leaf, n._role = None, "null", False, None, (op_type, label)
    n._ctx = None
    return n


def _add_fcompute(op, fn, bind):
    """Give ``op`` the destination-passing kernel ``fn`` for CPU and GPU (tensors live on the host).

    ``bind`` runs once per input signature (the dispatcher caches its runner in the plan).
    """
    _extend.def_kernel(op, fn, target=("CPU", "GPU"), allocates=False, kind="mxnet", bind=bind, nnvm_key=True)


def _names(op_type, prop, method):
    names = getattr(prop, method)()
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"op '{op_type}': {type(prop).__name__}.{method}() must return a list of names, "
                        f"got {names!r}")
    return list(names)


def _check_lists(op_type, res, method, what):
    if not isinstance(res, (tuple, list)) or len(res) not in (2, 3):
        got = f"{len(res)} list(s)" if isinstance(res, (tuple, list)) else type(res).__name__
        raise ValueError(f"op '{op_type}': CustomOpProp.{method} must return (in_{what}, out_{what}) or "
                         f"(in_{what}, out_{what}, aux_{what}), got {got}")
    return [list(r) for r in res]


class _OpType:
    """One registered op type with fixed constructor keywords: its Prop and its two OpDefs."""

    def __init__(self, op_type, prop):
        self.name = op_type
        self.prop = prop
        self.args = _names(op_type, prop, "list_arguments")
        self.outs = _names(op_type, prop, "list_outputs")
        self.aux = _names(op_type, prop, "list_auxiliary_states")
        self.deps = self._dependencies()
        self._check_storage()
        self.operators = {}              # (shapes, dtypes) of all inputs -> CustomOp
        self.lock = threading.Lock()
        n_args, n_out = len(self.args), len(self.outs)

        fwd = _extend.def_op(op_type, inputs=self.args + self.aux, outputs=n_out, register=False,
                             doc=f"MXNet-style custom op '{op_type}'", frontend="mxnet")
        _extend.def_infer(fwd, shape=self._infer_shape, dtype=self._infer_type)
        _extend.def_gradient(fwd, self._gradient)
        _add_fcompute(fwd, self._forward, self._bind_forward)
        self.forward_op = fwd

        # inputs: the declared dependencies, then the auxiliary states; outputs: one gradient per argument.
        # The forward's input shapes and dtypes travel as attrs (an undeclared input is not an input here).
        bwd = _extend.def_op(f"_backward_{op_type}", inputs=[self._slot_label(i) for i in self.deps] + self.aux,
                             outputs=n_args, register=False, doc=f"backward of MXNet-style custom op '{op_type}'",
                             frontend="mxnet")
        _extend.def_infer(bwd, shape=lambda attrs, shapes: [list(s) for s in attrs["in_shapes"][:n_args]],
                          dtype=lambda attrs, types: [_dt.from_numpy(np.dtype(d)) for d in attrs["in_dtypes"][:n_args]])
        _add_fcompute(bwd, self._backward, self._bind_backward)
        self.backward_op = bwd

    # ------------------------------------------------------------ backward dependencies
    def _dependencies(self):
        """The slots (MXNet's ids: out_grad, then in_data, then out_data) the backward reads."""
        n_out, n_args = len(self.outs), len(self.args)
        out_grad = list(range(n_out))
        in_data = list(range(n_out, n_out + n_args))
        out_data = list(range(n_out + n_args, 2 * n_out + n_args))
        deps = self.prop.declare_backward_dependency(out_grad, in_data, out_data)
        ok = isinstance(deps, (list, tuple)) and all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and 0 <= d < 2 * n_out + n_args
            for d in deps)
        if not ok:
            raise ValueError(f"op '{self.name}': declare_backward_dependency must return ids it was given "
                             f"(out_grad {out_grad}, in_data {in_data}, out_data {out_data}), got {deps!r}")
        return list(dict.fromkeys(int(d) for d in deps))

    def _check_storage(self):
        """What ``infer_storage_type`` says of all-dense inputs must name known storage types."""
        self.stype_cache = {}
        self.forward_stypes(("default",) * (len(self.args) + len(self.aux)))

    def forward_stypes(self, given):
        """``(input and aux stypes, output stypes)`` from the Prop's ``infer_storage_type`` for the
        storage types ``given`` of the inputs (cached); None when every array is dense."""
        found = self.stype_cache.get(given)
        if found is not None:
            return found[0]
        n_args = len(self.args)
        res = _check_lists(self.name, self.prop.infer_storage_type(list(given[:n_args])), "infer_storage_type",
                           "stypes")
        ins = [check_stype(st, f"op '{self.name}': infer_storage_type") for st in res[0]]
        outs = [check_stype(st, f"op '{self.name}': infer_storage_type") for st in res[1]]
        aux = [check_stype(st, f"op '{self.name}': infer_storage_type") for st in res[2]] if len(res) == 3 else \
            list(given[n_args:])
        if len(ins) != n_args or len(outs) != len(self.outs) or len(aux) != len(self.aux):
            raise ValueError(f"op '{self.name}': infer_storage_type gave {len(ins)} input, {len(outs)} output and "
                             f"{len(aux)} aux storage type(s); the op has {n_args} argument(s), {len(self.outs)} "
                             f"output(s) and {len(self.aux)} auxiliary state(s)")
        stypes = (tuple(ins + aux), tuple(outs))
        if all(st == "default" for st in stypes[0] + stypes[1]):
            stypes = None
        if len(self.stype_cache) < _MAX_OPERATORS:
            self.stype_cache[given] = (stypes,)
        return stypes

    def _backward_stypes(self, fwd_stypes, inputs):
        """The storage types of the backward's arrays from ``infer_storage_type_backward``:
        ``(out_grad, in_data, out_data, in_grad, aux)``; the gradient buffers' own types are offered."""
        n_args = len(self.args)
        ins, outs = fwd_stypes
        igrad = [getattr(getattr(t, "_grad", None), "stype", "default") for t in inputs[:n_args]]
        res = self.prop.infer_storage_type_backward(["default"] * len(self.outs), list(ins[:n_args]), list(outs),
                                                    igrad, list(ins[n_args:]))
        want = (len(self.outs), n_args, len(self.outs), n_args, len(self.aux))
        if not isinstance(res, (tuple, list)) or len(res) != 5 or tuple(len(r) for r in res) != want:
            raise ValueError(f"op '{self.name}': infer_storage_type_backward must return 5 lists (out_grad, "
                             f"in_data, out_data, in_grad, aux stypes) of lengths {list(want)}, got {res!r}")
        where = f"op '{self.name}': infer_storage_type_backward"
        return tuple(tuple(check_stype(st, where) for st in group) for group in res)

    def _slot_label(self, i):
        n_out, n_args = len(self.outs), len(self.args)
        if i < n_out:
            return f"out_grad[{i}] (the gradient of output '{self.outs[i]}')"
        if i < n_out + n_args:
            return f"in_data[{i - n_out}] ('{self.args[i - n_out]}')"
        return f"out_data[{i - n_out - n_args}] ('{self.outs[i - n_out - n_args]}')"

    # ------------------------------------------------------------ inference
    def _infer_shape(self, attrs, in_shapes):
        n_args = len(self.args)
        given = [list(s) for s in in_shapes]
        res = _check_lists(self.name, self.prop.infer_shape(given[:n_args]), "infer_shape", "shapes")
        self._check_declared("argument", self.args, res[0], given[:n_args], "infer_shape", "shape")
        if len(res[1]) != len(self.outs):
            raise ValueError(f"op '{self.name}': infer_shape gave {len(res[1])} output shape(s) but "
                             f"list_outputs() names {len(self.outs)} ({', '.join(self.outs)})")
        if len(res) == 3:
            self._check_declared("auxiliary state", self.aux, res[2], given[n_args:], "infer_shape", "shape")
        return [list(s) for s in res[1]]

    def _infer_type(self, attrs, in_dtypes):
        n_args = len(self.args)
        given = [_dt.to_numpy(d).type for d in in_dtypes]
        res = _check_lists(self.name, self.prop.infer_type(given[:n_args]), "infer_type", "types")
        self._check_declared("argument", self.args, res[0], given[:n_args], "infer_type", "dtype")
        if len(res[1]) != len(self.outs):
            raise ValueError(f"op '{self.name}': infer_type gave {len(res[1])} output type(s) but "
                             f"list_outputs() names {len(self.outs)}")
        if len(res) == 3:
            self._check_declared("auxiliary state", self.aux, res[2], given[n_args:], "infer_type", "dtype")
        return [_dt.dtype_from_any(np.dtype(t)) for t in res[1]]

    def _check_declared(self, kind, names, declared, given, method, what):
        """What infer_shape/infer_type say the inputs are must be what they are (as MXNet checks)."""
        if len(declared) != len(given):
            lister = "list_arguments()" if kind == "argument" else "list_auxiliary_states()"
            raise ValueError(f"op '{self.name}': {method} gave {len(declared)} {kind} {what}(s) but "
                             f"{lister} names {len(given)}")
        show = list if what == "shape" else (lambda v: np.dtype(v).name)
        for name, want, got in zip(names, declared, given):
            if show(want) != show(got):
                raise ValueError(f"op '{self.name}': {kind} '{name}' has {what} {show(got)}, "
                                 f"{method} expects {show(want)}")

    # ------------------------------------------------------------ kernels
    def _operator(self, shapes, dtypes):
        """The CustomOp for one input signature, made by ``create_operator`` on first use."""
        key = (tuple(tuple(s) for s in shapes), tuple(np.dtype(d).str for d in dtypes))
        op = self.operators.get(key)
        if op is None:
            with self.lock:
                op = self.operators.get(key)
                if op is None:
                    from .context import Context
                    ctx = Context("gpu" if _context.device_target() == "GPU" else "cpu", 0)
                    op = self.prop.create_operator(ctx, [list(s) for s in shapes],
                                                   [np.dtype(d).type for d in dtypes])
                    if not isinstance(op, CustomOp):
                        raise TypeError(f"op '{self.name}': create_operator must return a CustomOp, "
                                        f"got {type(op).__name__}")
                    if len(self.operators) >= _MAX_OPERATORS:
                        self.operators.clear()
                    self.operators[key] = op
        return op

    def _call_user(self, operator, what, *args):
        """Run the user's forward/backward; errors that do not name the op get its name."""
        try:
            # nothing a forward/backward runs is taped, nor recorded by a graph-mode capture (the
            # kernel call itself is the recorded step; a replay runs the user's code again)
            with _ad.paused(), _capture.suspended():
                getattr(operator, what)(*args)
        except _base._OpFailure:
            raise
        except Exception as exc:
            msg = str(exc) if str(exc).startswith(f"op '{self.name}'") else (
                f"op '{self.name}': {type(operator).__name__}.{what} raised {type(exc).__name__}: {exc}")
            raise _base._OpFailure(msg) from exc

    def _bind_forward(self, opdef, sig):
        operator = self._operator(sig.in_shapes, sig.in_dtypes)
        return lambda attrs, inputs, req, outputs: self._run_forward(operator, inputs, req, outputs,
                                                                     attrs.get("stypes"))

    def _forward(self, attrs, inputs, req, outputs):
        """FCompute: ``forward`` with NDArray views of ``outputs`` (unbound form, looks the CustomOp up)."""
        operator = self._operator([a.shape for a in inputs], [a.dtype for a in inputs])
        self._run_forward(operator, inputs, req, outputs, attrs.get("stypes"))

    def _run_forward(self, operator, inputs, req, outputs, stypes=None):
        n_args = len(self.args)
        ins, outs = stypes or ((None,) * len(inputs), (None,) * len(outputs))
        in_data = [_view(a, st) for a, st in zip(inputs[:n_args], ins)]
        aux = [_view(a, st, (self.name, f"auxiliary state '{n}'")) for a, n, st in zip(inputs[n_args:], self.aux,
                                                                                       ins[n_args:])]
        out_data = [_view(o, st, (self.name, f"output '{n}'"), sink=True) for o, n, st in zip(outputs, self.outs, outs)]
        self._call_user(operator, "forward", _autograd.is_training(), list(req), in_data, out_data, aux)
        missing = [name for o, name in zip(out_data, self.outs) if not o._assigned]
        if missing:
            raise _base._OpFailure(f"op '{self.name}': forward() did not write output(s) {missing}; call "
                               "self.assign(out_data[i], req[i], value) for every output")

    def _bind_backward(self, opdef, sig):
        operator = self._operator(sig.attrs["in_shapes"], sig.attrs["in_dtypes"])
        return lambda attrs, inputs, req, outputs: self._run_backward(operator, inputs, req, outputs,
                                                                      attrs.get("req"), attrs.get("stypes"))

    def _backward(self, attrs, inputs, req, outputs):
        """FCompute of the backward op (unbound form, looks the CustomOp up)."""
        operator = self._operator(attrs["in_shapes"], attrs["in_dtypes"])
        self._run_backward(operator, inputs, req, outputs, attrs.get("req"), attrs.get("stypes"))

    def _run_backward(self, operator, inputs, req, outputs, attrs_req=None, stypes=None):
        n_out, n_args, n_deps = len(self.outs), len(self.args), len(self.deps)
        if stypes is None:
            slot_st, igrad_st, aux_st = (None,) * (2 * n_out + n_args), (None,) * n_args, (None,) * len(self.aux)
        else:
            slot_st, igrad_st, aux_st = stypes[0] + stypes[1] + stypes[2], stypes[3], stypes[4]
        slots = [None] * (2 * n_out + n_args)
        for i, a in zip(self.deps, inputs):
            slots[i] = _view(a, slot_st[i])
        slots = [s if s is not None else _undeclared(self.name, self._slot_label(i)) for i, s in enumerate(slots)]
        aux = [_view(a, st, (self.name, f"auxiliary state '{n}'")) for a, n, st in zip(inputs[n_deps:], self.aux,
                                                                                      aux_st)]
        in_grad = []
        for o, name, st in zip(outputs, self.args, igrad_st):
            o.fill(0)                    # an argument whose gradient backward leaves alone gets zeros
            in_grad.append(_view(o, st, (self.name, f"the gradient of '{name}'"), sink=True))
        req = list(attrs_req) if attrs_req is not None else list(req)
        self._call_user(operator, "backward", req, slots[:n_out], slots[n_out:n_out + n_args],
                        slots[n_out + n_args:], in_grad, aux)

    def _gradient(self, inputs, outputs, ograds, attrs):
        """FGradient: one call of the backward op on the declared dependencies."""
        n_args = len(self.args)
        slots = list(ograds) + list(inputs[:n_args]) + list(outputs)
        bwd_inputs = tuple(slots[i] for i in self.deps) + tuple(inputs[n_args:])
        bwd_attrs = {"in_shapes": tuple(t._data.shape for t in inputs),
                     "in_dtypes": tuple(t._data.dtype.str for t in inputs),
                     "req": tuple(_grad_req(t) for t in inputs[:n_args])}
        if attrs.get("stypes") is not None:
            bwd_attrs["stypes"] = self._backward_stypes(attrs["stypes"], inputs)
        grads = _dispatch.call(self.backward_op, bwd_inputs, bwd_attrs)
        grads = list(grads) if isinstance(grads, tuple) else [grads]
        return grads + [None] * len(self.aux)          # auxiliary states get no gradient


def _view(array, stype, role=None, sink=False):
    """The NDArray a CustomOp sees for one of its arrays: dense, or sparse in storage type ``stype``.

    ``sink``: the array is one the op writes (an output or a gradient); a sparse view then
    writes its dense values through to ``array``, the buffer the dispatcher returns.
    """
    if stype in (None, "default"):
        return _wrap_nd(array, role=role)
    from . import _sparse
    view = _sparse.sparse_like(np.zeros_like(array) if sink else array, stype, sink=array if sink else None)
    view._role = role
    return view


def _stypes_of(tensors):
    return tuple(getattr(x, "stype", "default") for x in tensors)


def run_forward_op(t, tensors):
    """Call op type ``t``'s forward on ``tensors``; results in the storage types ``infer_storage_type`` gives."""
    stypes = t.forward_stypes(_stypes_of(tensors))
    result = _dispatch.call(t.forward_op, tensors, {"stypes": stypes} if stypes is not None else {})
    result = list(result) if isinstance(result, tuple) else [result]
    if stypes is not None:
        from . import _sparse
        result = [_sparse.sparse_like(r, st) for r, st in zip(result, stypes[1])]
    return result


def _grad_req(t):
    """MXNet's req for one input's gradient: 'null' where none is wanted, 'add' for grad_req='add'."""
    if t._node is None or t._data.dtype.kind not in "fc":
        return "null"
    if getattr(t, "_grad_req", None) == "add" and t._node is getattr(t, "_leaf", None):
        return "add"
    return "write"


def _freeze(kwargs):
    return tuple(sorted((k, str(v)) for k, v in kwargs.items())) if kwargs else ()


def op_type(name, kwargs):
    """The ``_OpType`` for op type ``name`` with constructor keywords ``kwargs`` (cached)."""
    prop_cls = get_registered(name)
    key = (name, prop_cls, _freeze(kwargs))
    t = _TYPES.get(key)
    if t is None:
        try:
            prop = prop_cls(**{k: str(v) for k, v in kwargs.items()})     # MXNet passes strings
        except TypeError as exc:
            raise TypeError(f"op '{name}': {prop_cls.__name__}({', '.join(f'{k}=...' for k in kwargs)}) "
                            f"failed: {exc}") from exc
        t = _OpType(name, prop)
        with _LOCK:
            for old in [k for k in _TYPES if k[0] == name and k[1] is not prop_cls]:
                del _TYPES[old]          # the op type was registered again
            t = _TYPES.setdefault(key, t)
    return t


def custom_call(inputs, name, kwargs, out=None):
    """``nd.Custom``: run op type ``name`` on ``inputs`` (arguments, then auxiliary states).

    An error inside the CustomOp's ``forward`` marks the results (and ``out``)
    as failed without writing them: it is raised as ``MXNetError`` at the next
    synchronisation point. Errors found before running (op type, arity, shape
    and type inference) are raised at once, as in MXNet.
    """
    if name is None:
        raise TypeError("nd.Custom: op_type=... is required (the name given to mx.operator.register)")
    t = op_type(name, kwargs)
    n_args, n_aux = len(t.args), len(t.aux)
    if len(inputs) != n_args + n_aux:
        aux = f" and auxiliary state(s) {t.aux}" if t.aux else ""
        raise TypeError(f"op '{name}': list_arguments() names {n_args} argument(s) {t.args}{aux}, so it "
                        f"takes {n_args + n_aux} input(s); got {len(inputs)}")
    tensors = tuple(x if isinstance(x, Tensor) else NDArray(x) for x in inputs)
    outs = None if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
    if outs is not None and (len(outs) != len(t.outs) or not all(isinstance(o, NDArray) for o in outs)):
        raise TypeError(f"op '{name}': out= must be {len(t.outs)} NDArray(s) (one per output {t.outs}), "
                        f"got {out!r}")
    try:
        result = run_forward_op(t, tensors)
    except _base._OpFailure as err:
        shapes = t._infer_shape({}, [x._data.shape for x in tensors])
        types = t._infer_type({}, [_dt.dtype_from_any(x._data.dtype) for x in tensors])
        failed = outs or [_wrap_nd(np.zeros(s, _dt.to_numpy(d))) for s, d in zip(shapes, types)]
        for f in failed:
            f._fail()
        _base.defer(err, failed)
        return failed[0] if len(failed) == 1 else failed
    if outs is None:
        res = [_as_nd(r) for r in result]
    else:
        from ._sparse import write_into
        for o, r in zip(outs, result):
            if o.shape != r._data.shape:
                raise ValueError(f"op '{name}': out= has shape {o.shape}, the output has shape {r._data.shape}")
            write_into(o, r)
            o._node, o._oidx = r._node, r._oidx
        res = outs
    return res[0] if len(res) == 1 else res
