"""minpy's ``minpy.primitive``: ``@customop("numpy")`` with ``def_grad``.

``@customop("numpy")`` turns a NumPy function into an op of the operator
core (its kernel calls the function on NumPy arrays; ``"mxnet"`` passes
mscustom Tensors instead). ``def_grad(fn, argnum)`` gives the op's gradient
for one argument in minpy's form ``fn(ans, *args) -> (g -> grad)``; each one
runs as an op too, so the core's one tape differentiates everything.
``grad`` / ``grad_and_loss`` are ``ms.grad`` / ``ms.value_and_grad`` taking
NumPy arrays and Python scalars as well as Tensors.

The op and each gradient op are built through ``mscustom.extend``
(``def_op`` / ``def_kernel`` / ``def_gradient``, front end "minpy").

Example::

    @customop("numpy")
    def my_softmax(x, y):
        probs = np.exp(x - x.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        return -np.sum(np.log(probs[np.arange(len(y)), y])) / len(y)

    def my_softmax_grad(ans, x, y):
        def grad(g):
            probs = np.exp(x - x.max(axis=1, keepdims=True))
            probs /= probs.sum(axis=1, keepdims=True)
            probs[np.arange(len(y)), y] -= 1
            return g * probs / len(y)
        return grad

    my_softmax.def_grad(my_softmax_grad)
    dx = minpy.core.grad(my_softmax)(x, y)
"""

import functools
import inspect

import numpy as np

from ... import extend as _extend
from ..._core import autodiff as _ad
from ...tensor import Tensor, as_tensor

__all__ = ["customop", "CustomOp"]

_KINDS = ("numpy", "mxnet")


def customop(kind):
    """Decorator: make ``fn`` a custom op whose arrays are NumPy (``"numpy"``) or Tensors (``"mxnet"``)."""
    if kind not in _KINDS:
        raise ValueError(f"customop: the array kind must be one of {list(_KINDS)}, got {kind!r}")

    def deco(fn):
        if not callable(fn):
            raise TypeError(f"customop({kind!r}): expected a function, got {type(fn).__name__}")
        return CustomOp(fn, kind)
    return deco


def _positional_count(fn):
    """How many positional arguments ``fn`` takes (None: any number)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class CustomOp:
    """A function turned into an op by ``@customop``; call it like the function."""

    def __init__(self, fn, kind):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._kind = kind
        self._n_params = _positional_count(fn)
        self._param_names = list(inspect.signature(fn).parameters) if self._n_params is not None else []
        self._grad_ops = {}                 # argnum -> the OpDef running that argument's def_grad
        inputs = None if self._n_params is None else self._param_names[:self._n_params]
        self._op = _extend.def_op(fn.__name__, inputs=inputs, register=False, frontend="minpy",
                                  doc=f"minpy-style customop({kind!r}) '{fn.__name__}'")
        # the function's result gives the output's shape and dtype (no inference rule); tensors live on the host
        _extend.def_kernel(self._op, self._compute, target=("CPU", "GPU"), kind="minpy", nnvm_key=True)
        _extend.def_gradient(self._op, self._gradient)

    # ------------------------------------------------------------ the kernels
    def _args(self, arrays):
        return list(arrays) if self._kind == "numpy" else [Tensor._wrap(a) for a in arrays]

    def _compute(self, attrs, arrays):
        try:
            with _ad.paused():              # the op is opaque to the tape: nothing inside is recorded
                out = self._fn(*self._args(arrays))
        except Exception as exc:
            raise RuntimeError(f"op '{self.__name__}': the function raised {type(exc).__name__}: {exc}") from exc
        return _array_of(out)

    def def_grad(self, func, argnum=0):
        """Register ``func(ans, *args) -> (g -> gradient for argument argnum)``; returns the op.

        Each call covers one argument; arguments without one get no gradient
        (asking for it is an error naming the op and the argument).

        Example::

            mul.def_grad(lambda ans, a, b: lambda g: g * b, argnum=0)
            mul.def_grad(lambda ans, a, b: lambda g: g * a, argnum=1)
        """
        name = self.__name__
        if not callable(func):
            raise TypeError(f"op '{name}': def_grad expects a function, got {type(func).__name__}")
        if not isinstance(argnum, (int, np.integer)) or isinstance(argnum, bool) or argnum < 0:
            raise ValueError(f"op '{name}': def_grad argnum must be a non-negative int, got {argnum!r}")
        if self._n_params is not None and argnum >= self._n_params:
            raise ValueError(f"op '{name}': def_grad argnum={argnum} is beyond its {self._n_params} "
                             f"argument(s) ({', '.join(self._param_names)})")
        op = _extend.def_op(f"{name}_grad{argnum}", inputs=None, register=False, frontend="minpy",
                            doc=f"gradient of '{name}' for argument {argnum}")     # inputs: ans, *args, g
        _extend.def_kernel(op, functools.partial(self._compute_grad, func), target=("CPU", "GPU"), kind="minpy",
                           nnvm_key=True)
        self._grad_ops[int(argnum)] = op
        return self

    def _compute_grad(self, func, attrs, arrays):
        # arrays: ans, *args, g
        ans, args, g = arrays[0], arrays[1:-1], arrays[-1]
        wrap = (lambda a: a) if self._kind == "numpy" else Tensor._wrap
        try:
            with _ad.paused():
                return _array_of(func(wrap(ans), *self._args(args))(wrap(g)))
        except Exception as exc:
            raise RuntimeError(f"op '{self.__name__}': its gradient function {getattr(func, '__name__', func)!r} "
                               f"raised {type(exc).__name__}: {exc}") from exc

    def _gradient(self, inputs, outputs, ograds, attrs):
        grads = []
        for i, x in enumerate(inputs):
            op = self._grad_ops.get(i)
            if op is None:
                if x._node is not None and x._data.dtype.kind in "fc":
                    arg = self._param_names[i] if i < len(self._param_names) else str(i)
                    raise RuntimeError(f"op '{self.__name__}': no gradient for argument {i} ('{arg}'); "
                                       f"register one with {self.__name__}.def_grad(fn, argnum={i})")
                grads.append(None)
            else:
                grads.append(op(outputs[0], *inputs, ograds[0]))
        return grads

    # ------------------------------------------------------------ calling
    def __call__(self, *args):
        return self._op(*[as_tensor(a) for a in args])

    def __repr__(self):
        return f"<customop({self._kind!r}) {self.__name__} with gradients for {sorted(self._grad_ops)}>"


def _array_of(value):
    if isinstance(value, Tensor):
        return value._data
    return np.asarray(value)
