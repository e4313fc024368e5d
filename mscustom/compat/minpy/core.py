"""``minpy.core``: ``grad``, ``grad_and_loss``, ``convert_args``, ``wraps`` and ``Function`` (a symbol as a function).

As in minpy, ``grad(fn, argnum)`` differentiates with respect to the very
arrays passed in: they are put on mscustom's tape as themselves, so a
function that reads them from elsewhere (``model.params`` in minpy's Solver)
is differentiated too. Arguments may be NumPy arrays, Python scalars or
Tensors; gradients come back as Tensors.

Example::

    def f(x):
        return np.sum(np.exp(x))          # minpy.numpy as np
    dx = grad(f)(np.array([0.0, 1.0]))
    dx, loss = grad_and_loss(f)(np.array([0.0, 1.0]))
"""

import functools

import numpy as np

from ..._core import autodiff as _ad
from ...tensor import Tensor, as_tensor

__all__ = ["grad", "grad_and_loss", "convert_args", "wraps", "Function"]


def _as_array(a):
    if isinstance(a, Tensor):
        return a
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(a, np.generic):
        return as_tensor(np.asarray(a))
    return a


def _positions(fn, argnum):
    name = getattr(fn, "__name__", "fn")
    many = isinstance(argnum, (list, tuple, range))
    items = list(argnum) if many else [argnum]
    if not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) and a >= 0 for a in items):
        raise ValueError(f"grad of '{name}': argnum must be a non-negative int or a list of them, got {argnum!r}")
    return [int(a) for a in items], many


def _grad_and_value(fn, argnum, args):
    positions, many = _positions(fn, argnum)
    args = [_as_array(a) for a in args]
    name = getattr(fn, "__name__", "fn")
    for p in positions:
        if p >= len(args):
            raise ValueError(f"grad of '{name}': argnum {p} is beyond the {len(args)} argument(s) given")
        if not isinstance(args[p], Tensor):
            args[p] = as_tensor(args[p])
        if args[p]._data.dtype.kind not in "fc":
            raise TypeError(f"grad of '{name}': argument {p} has dtype {args[p]._data.dtype}; only floating-point "
                            "arrays have gradients")
    targets = [args[p] for p in dict.fromkeys(positions)]
    saved = [(t, t._node, t._oidx) for t in targets]
    leaves = {id(t): _ad.make_leaf(t) for t in targets}
    try:
        with _ad.recording():
            loss = fn(*args)
        if not isinstance(loss, Tensor):
            raise TypeError(f"grad of '{name}': the function must return an array, got {type(loss).__name__}")
        if loss._node is None:
            grads = [None] * len(positions)
        else:
            sens = Tensor._wrap(np.ones(loss._data.shape, loss._data.dtype))
            with _ad.paused():
                found = _ad.backward([(loss, sens)], list(leaves.values()))
            by_id = dict(zip(leaves, found))
            grads = [by_id[id(args[p])] for p in positions]
    finally:
        for t, node, idx in saved:
            t._node, t._oidx = node, idx
    grads = [g if g is not None else Tensor._wrap(np.zeros_like(args[p]._data)) for g, p in zip(grads, positions)]
    loss._node = None
    return (grads if many else grads[0]), loss


def grad(fn, argnum=0):
    """The gradient of ``fn`` with respect to argument ``argnum`` (an int, or a list/range for several).

    Example::

        da, db = grad(mul, argnum=[0, 1])(a, b)
    """
    _positions(fn, argnum)

    @functools.wraps(fn)
    def grad_fn(*args):
        return _grad_and_value(fn, argnum, args)[0]
    grad_fn.__name__ = f"grad_{getattr(fn, '__name__', 'fn')}"
    return grad_fn


def grad_and_loss(fn, argnum=0):
    """Like ``grad``, but return ``(gradients, loss)``.

    Example::

        dx, loss = grad_and_loss(my_softmax)(x, y)
    """
    _positions(fn, argnum)

    @functools.wraps(fn)
    def grad_and_loss_fn(*args):
        return _grad_and_value(fn, argnum, args)
    grad_and_loss_fn.__name__ = f"grad_and_loss_{getattr(fn, '__name__', 'fn')}"
    return grad_and_loss_fn


def convert_args(fn):
    """Decorator: NumPy arrays and lists among the arguments become minpy arrays (Tensors)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*[_as_array(a) for a in args], **{k: _as_array(v) for k, v in kwargs.items()})
    return wrapper


def wraps(mode="lazy", method_type="minpy"):
    """minpy's decorator for functions of arrays: converts NumPy arguments to minpy arrays.

    ``mode`` ('lazy' / 'eager') is accepted for minpy's signature: everything
    runs eagerly here.
    """
    if mode not in ("lazy", "eager"):
        raise ValueError(f"minpy.core.wraps: mode must be 'lazy' or 'eager', got {mode!r}")
    return convert_args


class Function:
    """An MXNet symbol used as a minpy function: ``Function(sym, input_shapes={...}, name=...)``.

    Calling it with keyword arrays (inputs and parameters; others are ignored,
    so ``**model.params`` may be passed whole) runs the symbol's graph on mscustom ops, so it is differentiated with everything around it.
    ``get_params()`` gives the parameters' configs (``{'shape': ...}``) for
    ``ModelBase.add_params``.
    """

    def __init__(self, symbol, input_shapes, name="mxnet_symbol"):
        self._symbol = symbol
        self._name = name
        self._inputs = dict(input_shapes)
        arg_shapes, out_shapes, aux_shapes = symbol.infer_shape(**self._inputs)
        if arg_shapes is None:
            raise ValueError(f"Function '{name}': input_shapes {self._inputs} do not determine every shape of the "
                             f"symbol's arguments {symbol.list_arguments()}")
        self._arg_shapes = dict(zip(symbol.list_arguments(), arg_shapes))
        self._out_shapes = out_shapes
        if symbol.list_auxiliary_states():
            raise ValueError(f"Function '{name}': symbols with auxiliary states are not supported here")

    def get_params(self):
        return {n: {"shape": s} for n, s in self._arg_shapes.items() if n not in self._inputs}

    def get_one_output_shape(self):
        return self._out_shapes[0]

    def __call__(self, **kwargs):
        from ..mxnet import autograd as _mx_autograd
        names = self._symbol.list_arguments()
        missing = [n for n in names if n not in kwargs]
        if missing:
            raise ValueError(f"Function '{self._name}': missing arrays for {missing}")
        values = {n: _as_array(kwargs[n]) for n in names}
        outs = self._symbol._eval(values, _mx_autograd.is_training())
        return outs[0] if len(outs) == 1 else outs
