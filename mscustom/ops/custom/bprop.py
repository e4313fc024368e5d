"""``FGradient`` for ``ops.Custom`` from the user's ``bprop(*call_args, out, dout)``.

The bprop gets the call's arguments (tensors as Tensors, scalars as
themselves, then attribute values given positionally), the output and its
sensitivity (tuples when the op has several outputs), and returns one
gradient per tensor input: a tuple, a single Tensor
for one input, ``None`` for "no gradient". With scalar arguments it may also
return one entry per call argument (the scalars' entries are ignored). It is
built from ops, so it is recorded when an outer gradient is taken (grad of
grad). An exception raised inside the bprop is re-raised as a
``CustomBpropError`` naming the op (the original is its ``__cause__``).
Each gradient is checked against its input: the shape must match, a float
of another precision is cast, anything else is an error naming the op.

Example::

    sq = ops.Custom(lambda x: x * x, lambda x: x, lambda x: x,
                    bprop=lambda x, out, dout: (2 * x * dout,))
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.tape import STATE as _STATE
from ... import dtype as _dt
from ...tensor import Tensor
from . import _common

__all__ = ["make_fgradient", "check_gradients", "suggest_bprop", "CustomBpropError"]

_TEMPLATE = _common.TEMPLATE_KEY


class CustomBpropError(RuntimeError):
    """An exception raised inside a Custom op's bprop, re-raised naming the op."""


def make_fgradient(op_name, func_type, bprop, names=None):
    """The ``FGradient(inputs, outputs, ograds, attrs)`` of a Custom op (one that explains itself if no bprop).

    ``names``: the op's call-argument names (a list the op may fill once it knows them), used by the
    no-bprop error to suggest a bprop with the op's own parameters.
    """
    if bprop is None:
        def no_bprop(inputs, outputs, ograds, attrs):
            args = _common.call_args(attrs, inputs) if attrs else inputs
            fix = suggest_bprop(args, len(inputs), names)
            raise RuntimeError(f"op '{op_name}' (ops.Custom, func_type='{func_type}') has no bprop, so it "
                               f"cannot be differentiated; pass {fix} to ops.Custom "
                               f"(it runs as it is: None is 'no gradient'), then replace each None with the "
                               f"gradient for that tensor input, a Tensor of its shape computed from the "
                               f"inputs, out and dout")
        return no_bprop

    call_args = _common.call_args
    bname = getattr(bprop, "__name__", type(bprop).__name__)
    # a derived bprop (hybrid) may ask for the call's attributes too: its kernel takes them as parameters
    takes_attrs = bool(getattr(bprop, "takes_attrs", False))
    state = _STATE

    def fgradient(inputs, outputs, ograds, attrs):
        if state.capture is None:
            if attrs or takes_attrs or len(outputs) != 1:
                return _fgradient(inputs, outputs, ograds, attrs)
            # an all-Tensor call of a one-output op: the bprop gets the inputs as they are
            try:
                res = bprop(*inputs, outputs[0], ograds[0])
            except CustomBpropError:
                raise
            except Exception as exc:
                _bprop_failed(exc)
            if type(res) is tuple and len(res) == 1 and len(inputs) == 1:
                # one input, one gradient: check_gradients' first test, without its frame
                g, d = res[0], inputs[0]._data
                if type(g) is Tensor and g._data.shape == d.shape and g._data.dtype == d.dtype:
                    return res
            return check_gradients(op_name, res, inputs, None)
        # graph mode: a bprop written with asnumpy() and NumPy runs as one host op in each replay
        n_in, n_out = len(inputs), len(outputs)
        return _capture.host_fallback(
            lambda *ts: _fgradient(list(ts[:n_in]), list(ts[n_in:n_in + n_out]), list(ts[n_in + n_out:]), attrs),
            list(inputs) + list(outputs) + list(ograds), Tensor._wrap)

    def _bprop_failed(exc):
        if str(exc).startswith(f"op '{op_name}'"):       # already says which op (e.g. a derived bprop)
            raise exc
        raise CustomBpropError(f"op '{op_name}': its bprop '{bname}' raised {type(exc).__name__}: "
                               f"{exc}") from exc

    def _fgradient(inputs, outputs, ograds, attrs):
        args = call_args(attrs, inputs)
        kw = {"attrs": attrs} if takes_attrs else {}
        try:
            if len(outputs) == 1:
                res = bprop(*args, outputs[0], ograds[0], **kw)
            else:
                res = bprop(*args, tuple(outputs), tuple(ograds), **kw)
        except CustomBpropError:
            raise
        except Exception as exc:
            _bprop_failed(exc)
        template = attrs.get(_TEMPLATE) if attrs else None
        n_pos = len(attrs.get(_common.POSATTR_KEY) or ()) if attrs else 0
        if n_pos:
            template = tuple(template if template is not None else (None,) * len(inputs)) + (0,) * n_pos
        return check_gradients(op_name, res, inputs, template)
    return fgradient


def suggest_bprop(args, n_tensors, names=None):
    """``bprop=lambda x, y, out, dout: (None, None)`` for a call with ``args`` (of which ``n_tensors``
    tensors): one parameter per call argument, named as the op names them where it can, and one
    ``None`` per tensor input, so it can be pasted as it is (the op calls ``bprop(*call_args, out,
    dout)`` positionally)."""
    params = _param_names(len(args), names)
    grads = ["None"] * max(1, n_tensors)
    body = "(" + ", ".join(grads) + ("," if len(grads) == 1 else "") + ")"
    return f"bprop=lambda {', '.join(params + ['out', 'dout'])}: {body}"


def _param_names(n, names):
    """``n`` distinct identifiers (not ``out``/``dout``): the op's own names first, then x, y, z or x1..xn."""
    import keyword
    taken, params = {"out", "dout"}, []
    for name in list(names or ())[:n]:
        ok = isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) and name not in taken
        params.append(name if ok else None)
        taken.add(name)
    params += [None] * (n - len(params))
    spare = iter(["x", "y", "z"] if n <= 3 else [f"x{k}" for k in range(1, 2 * n + 3)])
    for k, name in enumerate(params):
        if name is None:
            name = next(c for c in spare if c not in taken)
            params[k] = name
            taken.add(name)
    return params


def check_gradients(op_name, res, inputs, template):
    """bprop's result as one gradient (or None) per tensor input, checked against the inputs."""
    tr = type(res)
    if (tr is tuple or tr is list) and len(res) == len(inputs):
        # the common answer: a Tensor (or None) per input with its input's shape and dtype, as is
        for g, x in zip(res, inputs):
            if g is not None and (type(g) is not Tensor or g._data.shape != x._data.shape or
                                  g._data.dtype != x._data.dtype):
                break
        else:
            return res
    if isinstance(res, (Tensor, np.ndarray)) or res is None:
        res = [res]
    elif isinstance(res, (tuple, list)):
        res = list(res)
    else:
        raise TypeError(f"op '{op_name}': bprop must return a tuple with one gradient per tensor input, "
                        f"got {type(res).__name__}")
    n_t = len(inputs)
    n_c = n_t if template is None else len(template)
    if len(res) == n_t:
        grads = res
    elif len(res) == n_c:
        grads = [g for g, slot in zip(res, template) if slot is None]
    else:
        also = f" (or {n_c}, one per call argument)" if n_c != n_t else ""
        raise ValueError(f"op '{op_name}': bprop returned {len(res)} gradient(s), expected {n_t}, "
                         f"one per tensor input{also}")
    return [_check_one(op_name, i, g, x) for i, (g, x) in enumerate(zip(grads, inputs))]


def _check_one(op_name, i, g, x):
    if g is None or x._data.dtype.kind in "iub":     # integer inputs get no gradient anyway
        return g
    if isinstance(g, (np.ndarray, np.generic)):
        g = Tensor._wrap(np.asarray(g))
    elif not isinstance(g, Tensor):
        raise TypeError(f"op '{op_name}': bprop gradient for input {i} must be a Tensor, an array "
                        f"or None, got {type(g).__name__}")
    gd, xd = g._data, x._data
    if gd.shape != xd.shape:
        raise ValueError(f"op '{op_name}': bprop gradient for input {i} has shape {list(gd.shape)}, "
                         f"but the input has shape {list(xd.shape)}")
    if gd.dtype != xd.dtype:
        if gd.dtype.kind != xd.dtype.kind:          # float32 <-> float64 is cast; int for float is not
            raise TypeError(f"op '{op_name}': bprop gradient for input {i} has dtype {gd.dtype}, "
                            f"but the input is {xd.dtype}")
        from .. import functional as F             # ops import this package; import at use
        g = F.cast(g, _dt.from_numpy(xd.dtype))
    return g
