"""``mx.nd``: ``NDArray`` (a Tensor with MXNet's gradient buffer), ``array``, ``Custom``, ``waitall``.

An ``NDArray`` is an mscustom ``Tensor``: every op and the tape work on it
unchanged. ``attach_grad()`` puts it on the tape as a leaf and gives it a
``grad`` buffer; ``backward()`` on a result runs the core's backward pass and
writes (or, with ``grad_req="add"``, adds) the gradients into the buffers of
every attached array it reaches.

Example::

    x = mx.nd.array([0.0, 1.0, 2.0]); x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid")
    y.backward()
    x.grad.asnumpy()
"""

import weakref

import numpy as np

from ..._core import autodiff as _ad
from ...tensor import Tensor

__all__ = ["NDArray", "array", "zeros", "ones", "Custom", "waitall"]

_ATTACHED = weakref.WeakSet()          # arrays with attach_grad(), for backward()
_GRAD_REQS = ("write", "add", "null")


class NDArray(Tensor):
    """An MXNet-style array: a Tensor plus ``attach_grad`` / ``grad`` / ``backward``.

    ``dtype`` is the NumPy type (``np.float32``) as in MXNet; ``shape`` is a tuple.
    Built from anything but an NDArray (or Tensor), the dtype defaults to float32, as
    ``mx.nd.array`` does in MXNet (pass ``dtype=np.float64`` to keep doubles).
    """

    __slots__ = ("_grad", "_grad_req", "_assigned", "_leaf", "_role")

    def __init__(self, source, dtype=None):
        arr = source._data if isinstance(source, Tensor) else np.asarray(source)
        if dtype is None and not isinstance(source, Tensor):
            dtype = np.float32                # MXNet's default (mx_real_t) for lists, scalars and arrays
        super().__init__(arr, dtype=dtype)
        self._grad, self._grad_req, self._assigned, self._leaf, self._role = None, "null", False, None, None

    # ------------------------------------------------------------ MXNet surface
    @property
    def dtype(self):
        return self._data.dtype.type

    @property
    def context(self):
        return "cpu(0)"

    def attach_grad(self, grad_req="write"):
        """Give this array a zero ``grad`` buffer and make it a gradient target."""
        if grad_req not in _GRAD_REQS:
            raise ValueError(f"NDArray.attach_grad: grad_req must be one of {list(_GRAD_REQS)}, got {grad_req!r}")
        self._grad = _wrap_nd(np.zeros_like(self._data))
        self._grad_req = grad_req
        self._leaf = _ad.make_leaf(self)
        _ATTACHED.add(self)

    @property
    def grad(self):
        return self._grad

    def detach(self):
        """The same data, off the tape."""
        return _wrap_nd(self._data)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Back-propagate from this array into every attached array it depends on.

        ``out_grad``: the head gradient (ones when None).
        """
        _backward([self], None if out_grad is None else [out_grad])

    def wait_to_read(self):
        """Ops run eagerly; there is nothing to wait for."""

    def copyto(self, other):
        if isinstance(other, NDArray):
            np.copyto(other._data, self._data)
            return other
        return _wrap_nd(self._data.copy())

    def __repr__(self):
        return f"\n{self._data}\n<NDArray {'x'.join(map(str, self._data.shape)) or '0-d'} @cpu(0)>"

    __str__ = __repr__

    def __setitem__(self, index, value):
        """Write in place (what ``out_data[0][:] = ...`` in a CustomOp's forward does)."""
        try:
            Tensor.__setitem__(self, index, value)
        except ValueError as exc:
            if self._role is None:
                raise
            op_type, label = self._role
            raise ValueError(f"op '{op_type}': could not write into {label}, whose inferred shape is "
                             f"{list(self._data.shape)}: {exc}") from None
        self._assigned = True


def _wrap_nd(array, like=None, role=None):
    """An NDArray around ``array`` (no copy); ``like`` lends its tape position.

    ``role``: ``(op_type, label)`` for the views a CustomOp's forward/backward
    writes into, so errors can say which op and which output went wrong.
    """
    n = object.__new__(NDArray)
    n._data = array
    n._format = like._format if like is not None else "DefaultFormat"
    n._node = like._node if like is not None else None
    n._oidx = like._oidx if like is not None else 0
    n._grad, n._grad_req, n._assigned, n._leaf, n._role = None, "null", False, None, role
    return n


def _as_nd(value):
    """Results of Tensor methods come back as NDArrays (sharing data and tape position)."""
    if isinstance(value, NDArray):
        return value
    if isinstance(value, Tensor):
        return _wrap_nd(value._data, value)
    if isinstance(value, tuple):
        return tuple(_as_nd(v) for v in value)
    if isinstance(value, list):
        return [_as_nd(v) for v in value]
    return value


def _returning_nd(name):
    method = getattr(Tensor, name)

    def wrapper(self, *args, **kwargs):
        return _as_nd(method(self, *args, **kwargs))

    wrapper.__name__ = name
    wrapper.__doc__ = method.__doc__
    return wrapper


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__",
              "__abs__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
              "sum", "mean", "max", "min", "reshape", "transpose", "flatten", "squeeze", "expand_dims",
              "exp", "log", "sqrt", "abs", "square", "argmax", "argmin", "astype", "copy"):
    setattr(NDArray, _name, _returning_nd(_name))
NDArray.T = property(lambda self: _as_nd(Tensor.T.fget(self)))
NDArray.__hash__ = object.__hash__           # __eq__ is elementwise; arrays stay usable in sets


def _backward(heads, head_grads):
    """Write the gradients of ``heads`` into the ``grad`` buffers of the attached arrays."""
    roots = []
    for i, h in enumerate(heads):
        if not isinstance(h, Tensor):
            raise TypeError(f"backward: heads must be NDArrays, got {type(h).__name__}")
        if h._node is None:
            raise ValueError("backward: this array was not computed inside mx.autograd.record() from an "
                             "array with attach_grad(), so there is nothing to differentiate")
        g = None if head_grads is None else head_grads[i]
        if g is None:
            g = np.ones_like(h._data)
        g = np.asarray(g._data if isinstance(g, Tensor) else g, dtype=h._data.dtype)
        if g.shape != h._data.shape:
            raise ValueError(f"backward: out_grad has shape {g.shape}, the head has shape {h._data.shape}")
        roots.append((h, Tensor._wrap(g)))
    attached = [a for a in list(_ATTACHED) if a._grad_req != "null" and a._leaf is not None]
    with _ad.paused():
        grads = _ad.backward(roots, [a._leaf for a in attached])
    for a, g in zip(attached, grads):
        if g is None:
            continue
        if a._grad_req == "add":
            a._grad._data += g._data
        else:
            np.copyto(a._grad._data, g._data)


# ---------------------------------------------------------------- constructors
def array(source_array, ctx=None, dtype=None):
    """An NDArray copy of ``source_array``; float32 unless ``dtype`` says otherwise or it is an NDArray.

    Example::

        mx.nd.array([1, 2]).dtype                        # numpy.float32, as in MXNet
        mx.nd.array(np.ones(2), dtype=np.float64).dtype  # numpy.float64
    """
    return NDArray(source_array, dtype=dtype)


def zeros(shape, ctx=None, dtype=np.float32):
    return _wrap_nd(np.zeros(shape, dtype))


def ones(shape, ctx=None, dtype=np.float32):
    return _wrap_nd(np.ones(shape, dtype))


def waitall():
    """Ops run eagerly and synchronously, so every result is ready already."""


def Custom(*inputs, op_type=None, **kwargs):
    """Run the custom op registered as ``op_type`` (``mx.operator.register``) on ``inputs``.

    Inputs are the Prop's arguments, then its auxiliary states. Keyword
    arguments reach the Prop's constructor as strings, as in MXNet. Returns
    one NDArray, or a list when the op has several outputs.
    """
    from ._bridge import custom_call
    return custom_call(inputs, op_type, kwargs)
